// ClientRequestTable (ClientRequests.h), a session's requests to its client: ids never reused,
// exactly one way out for each, timeouts reported (the session decides), owners held weakly.
#include "TestEnvironment.h"
#include "mcp/ClientRequests.h"
#include "mcp/ToolCall.h"

#include <QSignalSpy>
#include <QTest>

using namespace fb::mcp;
using namespace Qt::StringLiterals;

namespace {

ClientReply reply(ClientReply::Status status)
{
    ClientReply r;
    r.status = status;
    return r;
}

} // namespace

class TestClientRequests : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void requestIdsAndOneWayOut();
    void requestTimeoutAndOwners();
};

void TestClientRequests::requestIdsAndOneWayOut()
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

void TestClientRequests::requestTimeoutAndOwners()
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

QTEST_GUILESS_MAIN(TestClientRequests)
#include "tst_clientrequests.moc"
