// The parts Session is built from: the client-request table (one way out for every request)
// and the frame writer (coalesced writes, the backlog bound).
#include "TestEnvironment.h"
#include "mcp/ClientRequests.h"
#include "mcp/FrameWriter.h"

#include <QSignalSpy>
#include <QTest>

using namespace fb::mcp;
using namespace Qt::StringLiterals;

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

ClientReply reply(ClientReply::Status status)
{
    ClientReply r;
    r.status = status;
    return r;
}

} // namespace

class TestSessionParts : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void requestIdsAndOneWayOut();
    void requestTimeoutAndOwners();
    void writerCoalescesAndFlushesAtTheLimit();
    void writerReportsFailures();
};

void TestSessionParts::requestIdsAndOneWayOut()
{
    ClientRequestTable table;
    QList<int> calls;
    const qint64 a = table.add(
        u"ping"_s, 0, [&calls](const ClientReply &r) { calls.append(static_cast<int>(r.status)); },
        nullptr);
    const qint64 b = table.add(u"elicitation/create"_s, 0, nullptr, nullptr);
    QCOMPARE(a, 1);
    QCOMPARE(b, 2);
    QCOMPARE(table.size(), 2);
    QCOMPARE(table.method(b), u"elicitation/create"_s);
    QVERIFY(table.finish(a, reply(ClientReply::Status::Result)));
    QVERIFY(!table.finish(a, reply(ClientReply::Status::Timeout))); // exactly once
    QCOMPARE(calls, QList<int>{static_cast<int>(ClientReply::Status::Result)});
    QVERIFY(table.finish(b, reply(ClientReply::Status::Cancelled))); // no callback: fine
    QCOMPARE(table.size(), 0);
    QCOMPARE(table.add(u"ping"_s, 0, nullptr, nullptr), 3); // ids are never reused
}

void TestSessionParts::requestTimeoutAndOwners()
{
    ClientRequestTable table;
    QSignalSpy timedOut(&table, &ClientRequestTable::timedOut);
    auto *owner = new ToolCall(nullptr, ToolCallRequest{});
    const qint64 mine = table.add(u"elicitation/create"_s, 20, nullptr, owner);
    const qint64 other = table.add(u"ping"_s, 0, nullptr, nullptr);
    const qint64 mine2 = table.add(u"elicitation/create"_s, 0, nullptr, owner);
    QCOMPARE(table.ids(owner), (QList<qint64>{mine, mine2}));
    QCOMPARE(table.ids(), (QList<qint64>{mine, other, mine2}));
    QVERIFY(table.isOwnedBy(mine, owner));
    QVERIFY(!table.isOwnedBy(other, owner));
    QVERIFY(timedOut.wait(2000));
    QCOMPARE(timedOut.at(0).at(0).toLongLong(), mine);
    QCOMPARE(timedOut.at(0).at(1).toInt(), 20);
    QVERIFY(table.contains(mine)); // the session decides; the table only reports
    QVERIFY(table.finish(mine, reply(ClientReply::Status::Timeout)));
    delete owner;
    QVERIFY(!table.isOwnedBy(mine2, nullptr)); // a dead owner is nobody
    QCOMPARE(table.ids(owner), QList<qint64>{});
}

void TestSessionParts::writerCoalescesAndFlushesAtTheLimit()
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

void TestSessionParts::writerReportsFailures()
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

QTEST_GUILESS_MAIN(TestSessionParts)
#include "tst_sessionparts.moc"
