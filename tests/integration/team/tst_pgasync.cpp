// PgAsync on a real PostgreSQL 15 (a private cluster, tests/support/PgCluster), driven from the
// event loop: statements run in the order queued, each completed exactly once and never before
// query() returns; errors are values; NOTIFY on a listened channel arrives as notified(); a
// statement over its deadline fails and the connection comes back by itself; close() fails what
// is queued; an unreachable server is reported, its statements failing with the reason.
#include "PgCluster.h"
#include "TestEnvironment.h"
#include "team/PgAsync.h"
#include "team/PgConnection.h"

#include <QHash>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fb::team;
using fbtest::PgCluster;

namespace {

// What one statement's completion delivered.
struct Outcome {
    int calls = 0;
    std::optional<PgResult<PgRows>> result;
    PgAsync::Done done()
    {
        return [this](const PgResult<PgRows> &r) {
            ++calls;
            result = r;
        };
    }
};

} // namespace

class TestPgAsync : public QObject {
    Q_OBJECT
private:
    PgCluster cluster;

    // An open connection as the superuser, listening on "wake".
    bool openReady(PgAsync &db)
    {
        QSignalSpy connected(&db, &PgAsync::connected);
        db.open(cluster.uri(PgCluster::superuser()), {QStringLiteral("wake")});
        return connected.wait(10000) && db.isConnected();
    }

private slots:
    void initTestCase() { QVERIFY2(cluster.start(), qPrintable(cluster.error())); }

    void init()
    {
        // The warnings each test provokes (PgAsync logs why a connection ends).
        static const QHash<QByteArray, QStringList> provoked{
            {"overItsDeadlineFailsAndReconnects",
             {QStringLiteral("the team database did not answer within 300 ms$")}},
            {"closeFailsWhatIsQueued", {QStringLiteral("the team connection was closed$")}},
            {"unreachableServerIsReported",
             {QStringLiteral("cannot connect to the team database: "),
              QStringLiteral("the team connection was closed$")}}};
        fbtest::failOnWarnings(provoked.value(QTest::currentTestFunction()));
    }

    void statementsInOrderEachOnce()
    {
        PgAsync db;
        QVERIFY(openReady(db));
        QCOMPARE(db.role(), QStringLiteral("fb_super"));
        QVERIFY(db.unavailableReason().isEmpty());
        QList<int> order;
        Outcome a, b, c;
        bool returned = false;
        db.query("SELECT $1::int + 1 AS n", {"1"}, [&](const PgResult<PgRows> &r) {
            QVERIFY(returned); // never from inside query()
            order << 1;
            a.done()(r);
        });
        returned = true;
        db.query("SELECT * FROM no_such_table", {}, [&](const PgResult<PgRows> &r) {
            order << 2;
            b.done()(r);
        });
        db.query("SELECT $1::text IS NULL AS missing", {QByteArray()},
                 [&](const PgResult<PgRows> &r) {
                     order << 3;
                     c.done()(r);
                 });
        QTRY_COMPARE_WITH_TIMEOUT(order.size(), 3, 10000);
        QCOMPARE(order, QList<int>({1, 2, 3}));
        QCOMPARE(a.calls + b.calls + c.calls, 3);
        QCOMPARE(a.result->value->value(0, "n"), QByteArray("2"));
        QVERIFY(!b.result->ok());
        QCOMPARE(b.result->error.sqlState, QStringLiteral("42P01"));
        QCOMPARE(c.result->value->value(0, "missing"), QByteArray("t"));
    }

    void notifyArrives()
    {
        PgAsync db;
        QVERIFY(openReady(db));
        QSignalSpy notified(&db, &PgAsync::notified);
        auto other = PgConnection::open(cluster.uri(PgCluster::superuser()));
        QVERIFY(other.ok());
        QVERIFY((*other.value)->exec("SELECT pg_notify('wake', 'hello')").ok());
        QVERIFY((*other.value)->exec("SELECT pg_notify('elsewhere', 'no')").ok());
        QTRY_COMPARE_WITH_TIMEOUT(notified.count(), 1, 10000);
        QCOMPARE(notified.first().at(0).toString(), QStringLiteral("wake"));
        QCOMPARE(notified.first().at(1).toByteArray(), QByteArray("hello"));
    }

    void overItsDeadlineFailsAndReconnects()
    {
        PgAsync db;
        db.statementTimeoutMs = 300;
        db.reconnectDelayMs = 50;
        QVERIFY(openReady(db));
        QSignalSpy disconnected(&db, &PgAsync::disconnected);
        QSignalSpy connected(&db, &PgAsync::connected);
        Outcome slow, queued;
        db.query("SELECT pg_sleep(30)", {}, slow.done());
        db.query("SELECT 1", {}, queued.done());
        QTRY_COMPARE_WITH_TIMEOUT(slow.calls, 1, 10000);
        QVERIFY(!slow.result->ok());
        QTRY_COMPARE_WITH_TIMEOUT(queued.calls, 1, 10000); // dropped with the connection
        QVERIFY(!queued.result->ok());
        QVERIFY(disconnected.count() >= 1);
        QTRY_VERIFY_WITH_TIMEOUT(connected.count() >= 1 && db.isConnected(), 10000);
        Outcome after;
        db.query("SELECT 7 AS v", {}, after.done());
        QTRY_COMPARE_WITH_TIMEOUT(after.calls, 1, 10000);
        QCOMPARE(after.result->value->value(0, "v"), QByteArray("7"));
    }

    void closeFailsWhatIsQueued()
    {
        PgAsync db;
        QVERIFY(openReady(db));
        Outcome one, two;
        db.query("SELECT pg_sleep(0.2)", {}, one.done());
        db.query("SELECT 1", {}, two.done());
        db.close();
        QVERIFY(!db.isConnected());
        QTRY_COMPARE_WITH_TIMEOUT(one.calls + two.calls, 2, 10000);
        QVERIFY(!two.result->ok());
        // Closed: a statement fails, later, with the reason.
        Outcome late;
        bool returned = false;
        db.query("SELECT 1", {}, [&](const PgResult<PgRows> &r) {
            QVERIFY(returned);
            late.done()(r);
        });
        returned = true;
        QTRY_COMPARE_WITH_TIMEOUT(late.calls, 1, 10000);
        QVERIFY(!late.result->ok());
        QCOMPARE(one.calls, 1);
        QCOMPARE(two.calls, 1);
    }

    void unreachableServerIsReported()
    {
        QTemporaryDir nowhere;
        PgAsync db;
        db.reconnectDelayMs = 50;
        QSignalSpy disconnected(&db, &PgAsync::disconnected);
        db.open(QStringLiteral("postgresql://fb_super@/postgres?host=") + nowhere.path() +
                    QStringLiteral("&port=1"),
                {});
        QTRY_VERIFY_WITH_TIMEOUT(!db.unavailableReason().isEmpty(), 10000);
        QVERIFY(!db.isConnected());
        Outcome o;
        db.query("SELECT 1", {}, o.done());
        QTRY_COMPARE_WITH_TIMEOUT(o.calls, 1, 10000);
        QVERIFY(!o.result->ok());
        QVERIFY(disconnected.count() >= 1);
        QVERIFY2(!disconnected.first().at(0).toString().isEmpty(), "the reason is given");
        db.close();
    }
};

QTEST_GUILESS_MAIN(TestPgAsync)
#include "tst_pgasync.moc"
