// FrameWriter: a session's newline-framed writes, coalesced within a scope and flushed at the
// limit, stopped for good, and its failures (a client that does not read, a refused write).
#include "TestEnvironment.h"
#include "mcp/FrameWriter.h"

#include <QTest>

using namespace fb::mcp;

namespace {

// Records each write call; can refuse writes or pretend a backlog.
class RecordingDevice : public QIODevice {
public:
    RecordingDevice() { open(QIODevice::WriteOnly | QIODevice::Unbuffered); }
    QList<QByteArray> writes;
    bool refuse = false;
    qint64 backlog = 0;
    bool isSequential() const override { return true; }
    qint64 bytesToWrite() const override { return backlog; }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 len) override
    {
        if (refuse)
            return -1;
        writes.append(QByteArray(data, len));
        return len;
    }
};

} // namespace

class TestFrameWriter : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void writerCoalescesAndFlushesAtTheLimit();
    void writerReportsFailures();
};

void TestFrameWriter::writerCoalescesAndFlushesAtTheLimit()
{
    RecordingDevice device;
    FrameWriter writer(&device, 0, nullptr);
    writer.write("a");
    QCOMPARE(device.writes, QList<QByteArray>{"a\n"});
    {
        FrameWriter::Coalesce outer(writer);
        writer.write("b");
        {
            FrameWriter::Coalesce inner(writer);
            writer.write("c");
        }
        QCOMPARE(device.writes.size(), 1); // still held by the outer scope
    }
    QCOMPARE(device.writes.last(), QByteArray("b\nc\n"));
    {
        FrameWriter::Coalesce scope(writer);
        writer.write(QByteArray(FrameWriter::CoalesceLimit, 'x'));
        QCOMPARE(device.writes.size(), 3); // the limit flushes at once
        writer.write("tail");
        writer.flushPending();
        QCOMPARE(device.writes.last(), QByteArray("tail\n"));
        writer.write("dropped");
        writer.stop();
    }
    QCOMPARE(device.writes.size(), 4);
    writer.write("after stop");
    QCOMPARE(device.writes.size(), 4);
}

void TestFrameWriter::writerReportsFailures()
{
    RecordingDevice device;
    QList<FrameWriter::Failure> failures;
    FrameWriter writer(
        &device, 100, [&failures](FrameWriter::Failure f, const QString &) { failures.append(f); });
    writer.write("ok");
    QVERIFY(failures.isEmpty());
    device.backlog = 101;
    writer.write("slow reader");
    QCOMPARE(failures, QList<FrameWriter::Failure>{FrameWriter::Failure::NotReading});
    device.backlog = 0;
    device.refuse = true;
    writer.write("refused");
    QCOMPARE(failures.last(), FrameWriter::Failure::WriteFailed);
}

QTEST_GUILESS_MAIN(TestFrameWriter)
#include "tst_framewriter.moc"
