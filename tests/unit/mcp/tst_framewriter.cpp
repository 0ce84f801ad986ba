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
    void blocksOfOneScopeReuseTheirBufferInOrder();
    void aFrameWrittenWhileABlockFailsIsKept();
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

// A pipelined burst: many blocks of one scope, each at the limit, written whole and in order (the
// block's buffer is emptied and filled again, never handed out while the device still reads it),
// through write() and writeWith() alike.
void TestFrameWriter::blocksOfOneScopeReuseTheirBufferInOrder()
{
    RecordingDevice device;
    FrameWriter writer(&device, 0, nullptr);
    QByteArray expected;
    {
        FrameWriter::Coalesce scope(writer);
        for (int i = 0; i < 40000; ++i) {
            const QByteArray frame = QByteArray::number(i).rightJustified(12, '.');
            expected += frame + '\n';
            if (i % 2)
                writer.write(frame);
            else
                writer.writeWith([&frame](QByteArray &out) { out.append(frame); });
        }
        QVERIFY(device.writes.size() >= 1);
        // The kept buffer is bounded; one huge frame's buffer is not kept at all.
        QVERIFY(writer.heldBytes() > 0);
        QVERIFY(writer.heldBytes() <= 2 * FrameWriter::CoalesceLimit + 64);
        const qsizetype before = device.writes.size();
        const QByteArray huge(16 * FrameWriter::CoalesceLimit, 'h');
        expected += huge + '\n';
        writer.writeWith([&huge](QByteArray &out) { out.append(huge); });
        QCOMPARE(device.writes.size(), before + 1);
        QCOMPARE(writer.heldBytes(), 0);
    }
    // An idle session holds no buffer.
    QCOMPARE(writer.heldBytes(), 0);
    QVERIFY(device.writes.size() >= 2);
    for (qsizetype i = 0; i + 1 < device.writes.size(); ++i) {
        QVERIFY(device.writes.at(i).size() >= FrameWriter::CoalesceLimit);
        QVERIFY(device.writes.at(i).endsWith('\n'));
    }
    QCOMPARE(device.writes.join(), expected);
}

// The failure handler runs inside a block's write; what it writes (a session's last error) is
// not lost when the block's buffer is taken back.
void TestFrameWriter::aFrameWrittenWhileABlockFailsIsKept()
{
    RecordingDevice device;
    FrameWriter *self = nullptr;
    bool reported = false;
    FrameWriter writer(&device, 10, [&](FrameWriter::Failure, const QString &) {
        if (!std::exchange(reported, true))
            self->write("last words");
    });
    self = &writer;
    device.backlog = 11;
    {
        FrameWriter::Coalesce scope(writer);
        writer.write(QByteArray(FrameWriter::CoalesceLimit, 'x'));
        QCOMPARE(device.writes.size(), 1);
        QVERIFY(reported);
    }
    QCOMPARE(device.writes.size(), 2);
    QCOMPARE(device.writes.last(), QByteArray("last words\n"));
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
