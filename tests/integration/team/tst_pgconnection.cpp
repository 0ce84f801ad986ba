// PgConnection on a real PostgreSQL 15 (a private cluster, tests/support/PgCluster): URIs only,
// parameterized statements (NULL as a null value), errors as values with the server's SQLSTATE
// and the connection usable after them, UTC and a pinned search_path, scripts, the asynchronous
// send/collect, describe() without the password, one REPEATABLE READ snapshot per PgReadSnapshot
// scope, and bytea's text form both ways.
#include "PgCluster.h"
#include "TestEnvironment.h"
#include "team/PgConnection.h"

#include <QTest>

using namespace fb::team;
using fbtest::PgCluster;

class TestPgConnection : public QObject {
    Q_OBJECT
private:
    PgCluster cluster;
    std::unique_ptr<PgConnection> db;

    std::unique_ptr<PgConnection> openUri(const QString &uri)
    {
        auto c = PgConnection::open(uri);
        if (!c.ok())
            return nullptr;
        return std::move(*c.value);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(cluster.start(), qPrintable(cluster.error()));
        db = openUri(cluster.uri(PgCluster::superuser()));
        QVERIFY(db);
    }

    void init() { fbtest::failOnWarnings(); }

    void onlyUris()
    {
        const auto r = PgConnection::open(QStringLiteral("host=/tmp dbname=postgres"));
        QVERIFY(!r.ok());
        QVERIFY2(r.error.message.contains(QStringLiteral("not a PostgreSQL connection URI")),
                 qPrintable(r.error.text()));
        QVERIFY(!PgConnection::open(QStringLiteral("postgresql://x@/db?nosuchoption=1")).ok());
        // A database that does not exist: refused, the reason given.
        const auto missing = PgConnection::open(cluster.uri(PgCluster::superuser(), "nowhere"));
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error.text().contains(QStringLiteral("nowhere")),
                 qPrintable(missing.error.text()));
    }

    void sessionSettingsArePinned()
    {
        // Whatever the role's defaults: UTC, and no search_path an object could be planted in.
        QCOMPARE(db->exec("SHOW TimeZone").value->rows.first().first(), QByteArray("UTC"));
        QCOMPARE(db->exec("SHOW search_path").value->rows.first().first(),
                 QByteArray("pg_catalog, pg_temp"));
    }

    void parametersAndNull()
    {
        const auto r =
            db->exec("SELECT $1::int + 1 AS n, $2::text IS NULL AS missing, $3::text AS t",
                     {"41", QByteArray(), "ü 'quoted'"});
        QVERIFY2(r.ok(), qPrintable(r.error.text()));
        QCOMPARE(r.value->columns, QList<QByteArray>({"n", "missing", "t"}));
        QCOMPARE(r.value->rowCount(), 1);
        QCOMPARE(r.value->value(0, "n"), QByteArray("42"));
        QCOMPARE(r.value->value(0, "missing"), QByteArray("t"));
        QCOMPARE(r.value->value(0, "t"), QStringLiteral("ü 'quoted'").toUtf8());
        QVERIFY(r.value->value(0, "absent").isNull());
        const auto null = db->exec("SELECT NULL::text AS v");
        QVERIFY(null.ok());
        QVERIFY(null.value->value(0, "v").isNull());
    }

    void errorsAreValues()
    {
        const auto r = db->exec("SELECT * FROM no_such_table");
        QVERIFY(!r.ok());
        QCOMPARE(r.error.sqlState, QStringLiteral("42P01"));
        QVERIFY2(r.error.message.contains(QStringLiteral("no_such_table")),
                 qPrintable(r.error.message));
        QVERIFY(!r.error.message.contains(u'\n'));
        // The connection goes on.
        QVERIFY(db->exec("SELECT 1").ok());
        // A failed statement inside a transaction, rolled back, and the connection goes on.
        QVERIFY(db->exec("BEGIN").ok());
        QCOMPARE(db->exec("SELECT 1/0").error.sqlState, QStringLiteral("22012"));
        QCOMPARE(db->exec("SELECT 1").error.sqlState, QStringLiteral("25P02"));
        QVERIFY(db->exec("ROLLBACK").ok());
    }

    void scriptsAndAffectedRows()
    {
        const auto script = db->execScript(
            "CREATE TABLE IF NOT EXISTS public.t_rows (n int); TRUNCATE public.t_rows;"
            "INSERT INTO public.t_rows VALUES (1), (2), (3);");
        QVERIFY2(script.ok(), qPrintable(script.error.text()));
        const auto update = db->exec("UPDATE public.t_rows SET n = n + 10 WHERE n >= $1", {"2"});
        QVERIFY(update.ok());
        QCOMPARE(update.value->affected, 2);
        const auto rows = db->exec("SELECT n FROM public.t_rows ORDER BY n");
        QCOMPARE(rows.value->rowCount(), 3);
        QCOMPARE(rows.value->rows.at(2).first(), QByteArray("13"));
        QVERIFY(!db->execScript("SELECT 1; SELECT nonsense;").ok());
    }

    void sendThenCollect()
    {
        QVERIFY(db->send("SELECT $1::int * 2 AS v", {"21"}));
        const auto r = db->collect();
        QVERIFY2(r.ok(), qPrintable(r.error.text()));
        QCOMPARE(r.value->value(0, "v"), QByteArray("42"));
        QVERIFY(db->send("SELECT * FROM no_such_table"));
        QCOMPARE(db->collect().error.sqlState, QStringLiteral("42P01"));
        QVERIFY(db->exec("SELECT 1").ok());
    }

    void describeNeverShowsThePassword()
    {
        // Local connections are trusted here, so the password is given and ignored.
        QString uri = cluster.uri(PgCluster::superuser());
        uri.replace(QStringLiteral("postgresql://fb_super@"),
                    QStringLiteral("postgresql://fb_super:s3cret-pw@"));
        const auto c = openUri(uri);
        QVERIFY(c);
        QVERIFY2(!c->describe().contains(QStringLiteral("s3cret")), qPrintable(c->describe()));
        QVERIFY2(c->describe().startsWith(QStringLiteral("role fb_super on database postgres at ")),
                 qPrintable(c->describe()));
        QCOMPARE(c->role(), QStringLiteral("fb_super"));
        QVERIFY(c->serverVersion() >= 150000);
    }

    void readSnapshotIsOneSnapshot()
    {
        QVERIFY(db->execScript(
                      "CREATE TABLE IF NOT EXISTS public.t_snap (n int); TRUNCATE public.t_snap;")
                    .ok());
        const auto other = openUri(cluster.uri(PgCluster::superuser()));
        QVERIFY(other);
        {
            PgReadSnapshot snapshot(*db);
            QVERIFY(snapshot.ok());
            QCOMPARE(db->exec("SELECT count(*) AS c FROM public.t_snap").value->value(0, "c"),
                     QByteArray("0"));
            QVERIFY(other->exec("INSERT INTO public.t_snap VALUES (1)").ok());
            // Committed meanwhile, not seen in this snapshot; and it is read-only.
            QCOMPARE(db->exec("SELECT count(*) AS c FROM public.t_snap").value->value(0, "c"),
                     QByteArray("0"));
            QCOMPARE(db->exec("INSERT INTO public.t_snap VALUES (2)").error.sqlState,
                     QStringLiteral("25006"));
        }
        QCOMPARE(db->exec("SELECT count(*) AS c FROM public.t_snap").value->value(0, "c"),
                 QByteArray("1"));
    }

    void byteaText()
    {
        const QByteArray raw("\x00\x01\xfe\xff", 4);
        QCOMPARE(byteaLiteral(raw), QByteArray("\\x0001feff"));
        QCOMPARE(fromByteaText("\\x0001feff"), std::optional<QByteArray>(raw));
        QCOMPARE(fromByteaText("\\x"), std::optional<QByteArray>(QByteArray()));
        QVERIFY(!fromByteaText("0001"));
        QVERIFY(!fromByteaText("\\x0"));
        QVERIFY(!fromByteaText("\\x00FF")); // PostgreSQL prints lower case
        // What the server prints is read back.
        const auto r = db->exec("SELECT $1::bytea AS b", {byteaLiteral(raw)});
        QVERIFY2(r.ok(), qPrintable(r.error.text()));
        QCOMPARE(fromByteaText(r.value->value(0, "b")), std::optional<QByteArray>(raw));
        QCOMPARE(pgLine("first line\n  second\n"), QStringLiteral("first line second"));
        QCOMPARE(pgLine(nullptr), QString());
    }
};

QTEST_GUILESS_MAIN(TestPgConnection)
#include "tst_pgconnection.moc"
