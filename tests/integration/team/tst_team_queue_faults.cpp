// The team queue when the database or a process fails, on a real PostgreSQL 15 (a private
// cluster, TeamQueueFixture.h): the database lost mid-wait (the wait goes on and completes) and
// an abandoned consume cancelled on reconnect; an unreachable or slow database failing closed
// without blocking the event loop; a keychain password given to the server and never shown; and
// `unknown` after a crash (settled by the proposer's next start, or by anyone once the sending
// session is gone).
#include "TeamQueueFixture.h"
#include "TestEnvironment.h"
#include "team/TeamConfirm.h"

#include <QHash>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace fbtest;
using namespace fb::team;
using namespace Qt::StringLiterals;

class TstTeamQueueFaults : public QObject, private TeamQueueHarness {
    Q_OBJECT

private slots:
    void initTestCase() { initTeam(); }
    // What each case provokes on purpose (the sessions it ends, the database it cannot reach or
    // that does not answer, the password it withholds or gets wrong, the process that dies): the
    // warnings an operator reads, allowed in that case alone.
    void init()
    {
        static const QHash<QByteArray, QStringList> provoked{
            {"databaseLostWhileWaitingWaitsOnAndCompletes",
             {u"the team database connection was lost: "_s,
              u"proposal \\S+ waits on; the team database is unreachable: "_s}},
            {"abandonedConsumeIsCancelledOnReconnect",
             {u"the team database connection was lost: "_s,
              u"proposal \\S+ left behind by a crash: cancelled$"_s}},
            {"sendingLeftByADeadSessionBecomesUnknownForEveryone",
             {u"proposal \\S+ was left sending by a session that is gone: unknown$"_s}},
            {"unreachableDatabaseFailsClosed",
             {u"cannot connect to the team database: .*/nonexistent-fb-dir/"_s,
              u"team\\.database must not carry a password"_s}},
            {"aKeychainPasswordIsGivenToTheServerAndNeverShown",
             {u"cannot connect to the team database: .*(no password supplied|password "
              u"authentication failed for user \"erin\")"_s}},
            {"slowDatabaseFailsClosedWithoutBlocking",
             {u"(crash recovery: )?the team database did not answer within 300 ms$"_s}},
            {"crashAfterSendingLeavesUnknownNeverRetried",
             {u"proposal \\S+ left behind by a crash: unknown$"_s}}};
        failOnWarnings(provoked.value(QTest::currentTestFunction()));
    }

    void databaseLostWhileWaitingWaitsOnAndCompletes()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-7"_s);
        auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);
        const QByteArray id = publish(*carol, "token-lost", std::nullopt);
        const auto row = consume(*carol, "token-lost");
        QVERIFY(row);
        auto confirm = std::make_unique<TeamConfirm>(carol.get(), *row, 1);
        confirm->setApproverKeys(keys());
        QSignalSpy decided(confirm.get(), &TeamConfirm::decided);
        QSignalSpy connection(confirm.get(), &TeamConfirm::connectionChanged);
        QSignalSpy availability(carol.get(), &TeamQueue::availabilityChanged);
        confirm->start();
        // The server ends carol's sessions (as a restart or a network cut does).
        FB_SQL(*fx.super, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                          "usename = 'carol'");
        QTRY_VERIFY_WITH_TIMEOUT(!connection.isEmpty(), 10000);
        QVERIFY(!connection.first().at(0).toString().isEmpty());
        // An approval made while the proposer is away is not lost ...
        QVERIFY(decide(*alice, id, u"approve"_s));
        // ... the queue comes back by itself, the held proposal is not cancelled by its recovery,
        // and the wait reads the decisions again.
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 15000);
        QCOMPARE(decided.at(0).at(0).value<TeamConfirm::Verdict>(), TeamConfirm::Verdict::Met);
        QCOMPARE(stateOf(id), QByteArray("consumed"));
        QVERIFY(availability.size() >= 2);
        QCOMPARE(availability.first().at(0).toBool(), false);
        int sends = 0;
        confirm->beginSend([&](bool may, const QString &why) {
            QVERIFY2(may, qPrintable(why));
            ++sends;
        });
        QTRY_COMPARE_WITH_TIMEOUT(sends, 1, 10000);
        bool recorded = false;
        confirm->finish(u"created"_s, [&](bool ok) { recorded = ok; });
        QTRY_VERIFY_WITH_TIMEOUT(recorded, 10000);
        QCOMPARE(stateOf(id), QByteArray("created"));
    }

    void abandonedConsumeIsCancelledOnReconnect()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-17"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        const QByteArray id = publish(*carol, "token-abandoned", std::nullopt);
        QVERIFY(consume(*carol, "token-abandoned"));
        // Nobody holds it (the broker answered its confirm): the next connect cancels it.
        FB_SQL(*fx.super, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                          "usename = 'carol'");
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QByteArray("cancelled"), 15000);
    }

    void sendingLeftByADeadSessionBecomesUnknownForEveryone()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-31"_s);
        auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);
        const QByteArray id = publish(*carol, "token-orphan", priced(150));
        const auto row = consume(*carol, "token-orphan");
        QVERIFY(row);
        auto confirm = std::make_unique<TeamConfirm>(carol.get(), *row, 1);
        confirm->setApproverKeys(keys());
        QSignalSpy decided(confirm.get(), &TeamConfirm::decided);
        confirm->start();
        QVERIFY(decide(*alice, id, u"approve"_s));
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        bool may = false;
        confirm->beginSend([&](bool m, const QString &) { may = m; });
        QTRY_VERIFY_WITH_TIMEOUT(may, 10000);
        // While the sender's session lives, nobody settles it.
        alice->settleOrphans();
        QTest::qWait(300);
        QCOMPARE(stateOf(id), QByteArray("sending"));
        // The proposing process dies (its connection with it, never to come back).
        confirm.reset();
        carol.reset();
        alice->settleOrphans();
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QByteArray("unknown"), 10000);
        QVERIFY(!consume(*alice, "token-orphan"));
    }

    void unreachableDatabaseFailsClosed()
    {
        TeamQueue q(u"postgresql://carol@/nodb?host=/nonexistent-fb-dir&port=1"_s,
                    TeamIdentity{u"carol"_s, u"ws-1"_s, {}});
        q.connection().reconnectDelayMs = 10000;
        QSignalSpy availability(&q, &TeamQueue::availabilityChanged);
        q.start();
        QTRY_VERIFY_WITH_TIMEOUT(!availability.isEmpty(), 10000);
        QVERIFY(!q.isAvailable());
        QVERIFY(!q.unavailableReason().isEmpty());
        QString error;
        bool done = false;
        q.publish(u"connection_create"_s, Request, {}, std::nullopt, "{}", sha("t"), 60000,
                  [&](const std::optional<QByteArray> &id, const QString &e) {
                      QVERIFY(!id);
                      error = e;
                      done = true;
                  });
        QVERIFY(!done); // never completed inside the call
        QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
        QVERIFY2(error.contains(u"connect"_s), qPrintable(error));
        // A URI with a password is refused before any connection.
        TeamQueue withPassword(u"postgresql://carol:secret@/x"_s, TeamIdentity{});
        withPassword.start();
        QVERIFY(withPassword.unavailableReason().contains(u"password"_s));
        QVERIFY(!withPassword.unavailableReason().contains(u"secret"_s));
    }

    void aKeychainPasswordIsGivenToTheServerAndNeverShown()
    {
        FB_SQL(*fx.super,
               "CREATE ROLE erin LOGIN PASSWORD 'erin-pw-7731' IN ROLE fabric_approvers");
        QVERIFY2(fx.cluster.requirePasswordFor(u"erin"_s), qPrintable(fx.cluster.error()));
        // Without it the server refuses, and says so without any secret.
        TeamQueue without(fx.cluster.uri(u"erin"_s, db), TeamIdentity{u"erin"_s, u"ws-e"_s, {}});
        without.connection().reconnectDelayMs = 10000;
        QSignalSpy refused(&without, &TeamQueue::availabilityChanged);
        without.start();
        QTRY_VERIFY_WITH_TIMEOUT(!refused.isEmpty(), 10000);
        QVERIFY(!without.isAvailable());
        QVERIFY2(without.unavailableReason().contains(u"password"_s),
                 qPrintable(without.unavailableReason()));
        // With the password it connects; a wrong one is refused and never echoed.
        TeamQueue with(fx.cluster.uri(u"erin"_s, db), TeamIdentity{u"erin"_s, u"ws-e"_s, {}});
        with.setPassword(u"erin-pw-7731"_s);
        with.start();
        QTRY_VERIFY_WITH_TIMEOUT(with.isAvailable(), 10000);
        QVERIFY(with.isApprover() || QTest::qWaitFor([&] { return with.isApprover(); }, 5000));
        TeamQueue wrong(fx.cluster.uri(u"erin"_s, db), TeamIdentity{u"erin"_s, u"ws-e"_s, {}});
        wrong.connection().reconnectDelayMs = 10000;
        wrong.setPassword(u"not-erins-9920"_s);
        QSignalSpy wrongSpy(&wrong, &TeamQueue::availabilityChanged);
        wrong.start();
        QTRY_VERIFY_WITH_TIMEOUT(!wrongSpy.isEmpty(), 10000);
        QVERIFY(!wrong.isAvailable());
        QVERIFY(!wrong.unavailableReason().contains(u"not-erins-9920"_s));
    }

    void slowDatabaseFailsClosedWithoutBlocking()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-6"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        carol->connection().statementTimeoutMs = 300;
        // The event loop keeps turning while a statement waits on the server.
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&] { ++ticks; });
        ticker.start(10);
        std::optional<PgResult<PgRows>> slow;
        carol->connection().query("SELECT pg_sleep(2)", {},
                                  [&](const PgResult<PgRows> &r) { slow = r; });
        QSignalSpy availability(carol.get(), &TeamQueue::availabilityChanged);
        QTRY_VERIFY_WITH_TIMEOUT(slow.has_value(), 10000);
        QVERIFY(!slow->ok());
        QVERIFY2(slow->error.message.contains(u"did not answer within 300 ms"_s),
                 qPrintable(slow->error.message));
        QVERIFY(ticks >= 5);
        QVERIFY(!availability.isEmpty());
        QCOMPARE(availability.first().at(0).toBool(), false);
        // It reconnects by itself.
        carol->connection().statementTimeoutMs = 5000;
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
    }

    void crashAfterSendingLeavesUnknownNeverRetried()
    {
        QByteArray id;
        int sends = 0;
        {
            auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-8"_s);
            auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
            QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);
            id = publish(*carol, "token-crash", priced(150));
            const auto row = consume(*carol, "token-crash");
            QVERIFY(row);
            TeamConfirm confirm(carol.get(), *row, 1);
            confirm.setApproverKeys(keys());
            QSignalSpy decided(&confirm, &TeamConfirm::decided);
            confirm.start();
            QVERIFY(decide(*alice, id, u"approve"_s));
            QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
            confirm.beginSend([&](bool may, const QString &) { sends += may ? 1 : 0; });
            QTRY_COMPARE_WITH_TIMEOUT(sends, 1, 10000);
            QCOMPARE(stateOf(id), QByteArray("sending"));
            // The process dies here: no outcome is written.
        }
        QCOMPARE(stateOf(id), QByteArray("sending"));
        // The next start of that broker (same role, OS user, host) settles it as unknown.
        auto again = queueAs(u"carol"_s, u"carol"_s, u"ws-8"_s);
        QSignalSpy recovered(again.get(), &TeamQueue::recovered);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QByteArray("unknown"), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(recovered.size(), 1, 10000);
        QCOMPARE(recovered.at(0).at(1).toString(), u"unknown"_s);
        // Unknown is final for the send: the token cannot be consumed again.
        QVERIFY(!consume(*again, "token-crash"));
        QCOMPARE(sends, 1);
        // Everyone sees it.
        auto bob = queueAs(u"bob"_s, u"bob"_s, u"ws-3"_s);
        QTRY_VERIFY_WITH_TIMEOUT(bob->isAvailable(), 10000);
        std::optional<QList<TeamProposal>> open;
        bob->listOpen([&](const auto &v, const QString &) { open = v; });
        QTRY_VERIFY_WITH_TIMEOUT(open.has_value(), 10000);
        QVERIFY(std::any_of(open->begin(), open->end(), [&](const TeamProposal &p) {
            return p.id == id && p.state == u"unknown";
        }));
    }
};

QTEST_GUILESS_MAIN(TstTeamQueueFaults)
#include "tst_team_queue_faults.moc"
