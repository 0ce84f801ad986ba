// The team database's schema on a real PostgreSQL 15 (a private cluster, TeamFixture.h):
// migrations (init on empty, twice, a newer or changed schema refused), what row-level security
// and the privileges let each role do, the audit chain, and the one-winner consume. What
// `fabric-broker team init|status` and `audit verify --team` print: tests/integration/app/
// tst_teamcommand.
#include "TeamFixture.h"
#include "TestEnvironment.h"
#include "team/TeamAudit.h"

#include <QCryptographicHash>
#include <QTest>

using namespace fbtest;
using fb::team::Migration;
using fb::team::TeamAudit;
using fb::team::TeamSchema;

namespace {

const QByteArray Request = R"({"name":"vc-1","type":"EVPL_VC"})";

// One pending proposal made by carol (a proposer); returns its id.
QByteArray propose(PgConnection &carol, const QByteArray &token)
{
    const auto r = carol.exec(
        "INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, price, "
        "dry_run, os_user, host, mcp_client, token_sha256, expires_at) VALUES "
        "('connection_create', "
        "$1, sha256(convert_to($1, 'UTF8')), '{\"fabric_endpoint\":\"https://api.equinix.com\"}', "
        "NULL, '{\"uuid\":\"x\"}', 'carol', 'ws-1', 'claude-code 1.0', sha256($2::bytea), "
        "now() + interval '10 minutes') RETURNING id",
        {Request, token});
    if (!r.ok()) {
        qWarning("propose: %s", qUtf8Printable(r.error.text()));
        return {};
    }
    return r.value->value(0, "id");
}

constexpr const char *Consume = "SELECT id FROM fabric_team.consume(sha256($1::bytea))";

} // namespace

class TstTeamSchema : public QObject {
    Q_OBJECT

private:
    TeamFixture fx;

    std::unique_ptr<PgConnection> as(const QString &role, const QString &db)
    {
        return connectAs(fx.cluster, role, db);
    }

private slots:
    void init()
    {
        fbtest::failOnWarnings({QStringLiteral("propose: permission denied for table proposals ")});
    }

    void initTestCase()
    {
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
    }

    void initOnEmptyDatabase()
    {
        const QString db = fx.freshDatabase();
        auto owner = as(QStringLiteral("fb_owner"), db);
        QVERIFY(owner);
        QCOMPARE(TeamSchema::currentVersion(*owner).value_or(-1), 0);
        const auto r = TeamSchema::migrate(*owner);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.fromVersion, 0);
        QCOMPARE(r.toVersion, TeamSchema::knownVersion());
        QCOMPARE(r.applied.first(), QStringLiteral("001_initial"));
        QCOMPARE(r.applied.last(), QStringLiteral("006_transitions"));
        QCOMPARE(TeamSchema::currentVersion(*owner).value_or(-1), TeamSchema::knownVersion());
        const auto tables = owner->exec(
            "SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'fabric_team' AND tablename IN "
            "('proposals', 'approvals', 'team_audit', 'team_audit_head', 'schema_migrations') AND "
            "tableowner = 'fb_owner'");
        QVERIFY(tables.ok());
        QCOMPARE(tables.value->value(0, "n"), QByteArray("5"));
        const auto recorded = owner->exec("SELECT name, applied_by, encode(sha256, 'hex') AS sha "
                                          "FROM fabric_team.schema_migrations WHERE version = 1");
        QVERIFY(recorded.ok());
        QCOMPARE(recorded.value->value(0, "applied_by"), QByteArray("fb_owner"));
        QCOMPARE(recorded.value->value(0, "sha"), TeamSchema::builtIn().first().sha256().toHex());
    }

    void initTwiceIsIdempotent()
    {
        const QString db = fx.freshDatabase();
        auto owner = as(QStringLiteral("fb_owner"), db);
        QVERIFY(owner);
        const auto first = TeamSchema::migrate(*owner);
        QVERIFY2(first.ok, qPrintable(first.error));
        QCOMPARE(first.applied.size(), TeamSchema::knownVersion());
        const auto r = TeamSchema::migrate(*owner);
        QVERIFY2(r.ok, qPrintable(r.error));
        QVERIFY(r.applied.isEmpty());
        const auto rows = owner->exec("SELECT count(*) AS n FROM fabric_team.schema_migrations");
        QCOMPARE(rows.value->value(0, "n"), QByteArray::number(TeamSchema::knownVersion()));
        // The migration revoked CONNECT from PUBLIC; granted by hand, mallory still reads nothing
        // (what `team status` says: tests/integration/app/tst_teamcommand).
        FB_SQL(*fx.super,
               QStringLiteral("GRANT CONNECT ON DATABASE %1 TO mallory").arg(db).toUtf8());
        auto mallory = as(QStringLiteral("mallory"), db);
        QVERIFY(mallory);
        fb::team::PgError denied;
        QVERIFY(!TeamSchema::currentVersion(*mallory, &denied));
        QCOMPARE(denied.sqlState, QStringLiteral("42501"));
    }

    void migratesAnOlderSchemaAndRefusesANewerOne()
    {
        const QString db = fx.freshDatabase();
        auto owner = as(QStringLiteral("fb_owner"), db);
        QVERIFY(owner);
        QVERIFY(TeamSchema::migrate(*owner).ok);
        // A newer binary with one more migration migrates this schema on...
        QList<Migration> newer = TeamSchema::builtIn();
        Migration future;
        future.version = static_cast<int>(newer.size()) + 1;
        future.name = QStringLiteral("%1_future").arg(future.version, 3, 10, QLatin1Char('0'));
        future.sql = "CREATE TABLE fabric_team.future (x integer);";
        newer << future;
        const auto up = TeamSchema::migrate(*owner, newer);
        QVERIFY2(up.ok, qPrintable(up.error));
        QCOMPARE(up.applied, QStringList{future.name});
        // ...and this binary then refuses it, and changes nothing.
        const auto refused = TeamSchema::migrate(*owner);
        QVERIFY(!refused.ok);
        QVERIFY2(refused.error.contains(u"newer than this fabric-broker knows"),
                 qPrintable(refused.error));
        QCOMPARE(TeamSchema::currentVersion(*owner).value_or(-1), future.version);
    }

    void migratesFromVersionOne()
    {
        const QString db = fx.freshDatabase();
        auto owner = as(QStringLiteral("fb_owner"), db);
        QVERIFY(owner);
        auto r = TeamSchema::migrate(*owner, TeamSchema::builtIn().mid(0, 1));
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.toVersion, 1);
        r = TeamSchema::migrate(*owner);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.fromVersion, 1);
        QCOMPARE(
            r.applied,
            (QStringList{QStringLiteral("002_queue"), QStringLiteral("003_team_day"),
                         QStringLiteral("004_signed_approvals"), QStringLiteral("005_resolutions"),
                         QStringLiteral("006_transitions")}));
    }

    void refusesAChangedMigrationAndANonOwner()
    {
        const QString db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        auto alice = as(QStringLiteral("alice"), db);
        QVERIFY(alice);
        const auto notOwner = TeamSchema::migrate(*alice);
        QVERIFY(!notOwner.ok);
        QVERIFY2(notOwner.error.contains(u"belongs to the role fb_owner"),
                 qPrintable(notOwner.error));
        auto owner = as(QStringLiteral("fb_owner"), db);
        QVERIFY(owner);
        FB_SQL(*owner, "UPDATE fabric_team.schema_migrations SET sha256 = sha256('other') "
                       "WHERE version = 1");
        const auto changed = TeamSchema::migrate(*owner);
        QVERIFY(!changed.ok);
        QVERIFY2(changed.error.contains(u"other contents"), qPrintable(changed.error));
    }

    void rowsSayWhoWroteThem()
    {
        const QString db = fx.initializedDatabase();
        auto carol = as(QStringLiteral("carol"), db);
        auto alice = as(QStringLiteral("alice"), db);
        QVERIFY(carol && alice);
        const QByteArray id = propose(*carol, "tok-1");
        QVERIFY(!id.isEmpty());
        // The proposer is the connection's role, and nobody can write another name.
        const auto row = carol->exec("SELECT proposer, state FROM fabric_team.proposals");
        QCOMPARE(row.value->value(0, "proposer"), QByteArray("carol"));
        QCOMPARE(row.value->value(0, "state"), QByteArray("pending"));
        FB_SQL_REFUSED(*carol, "42501",
                       "INSERT INTO fabric_team.proposals (proposer, change_type, request, "
                       "request_sha256, binding, dry_run, os_user, host, mcp_client, token_sha256, "
                       "expires_at) VALUES ('dave', 'connection_create', '{}', sha256('{}'), "
                       "'{}', '{}', 'x', 'x', 'x', sha256('t2'), now() + interval '1 minute')");
        // The database checks the request's hash.
        FB_SQL_REFUSED(*carol, "23514",
                       "INSERT INTO fabric_team.proposals (change_type, request, request_sha256, "
                       "binding, dry_run, os_user, host, mcp_client, token_sha256, expires_at) "
                       "VALUES ('connection_create', '{}', sha256('{ }'), '{}', '{}', 'x', 'x', "
                       "'x', sha256('t3'), now() + interval '1 minute')");

        // An approval names its approver the same way.
        FB_SQL(*alice,
               "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256) "
               "VALUES ($1, 'approve', sha256('dialog text'))",
               {id});
        const auto approval = alice->exec("SELECT approver FROM fabric_team.approvals");
        QCOMPARE(approval.value->value(0, "approver"), QByteArray("alice"));
        FB_SQL_REFUSED(*alice, "42501",
                       "INSERT INTO fabric_team.approvals (proposal_id, approver, decision, "
                       "dialog_sha256) VALUES ($1, 'bob', 'approve', sha256('dialog text'))",
                       {id});
        // Not through a role alice may SET ROLE to either: the group role is not a person.
        FB_SQL(*alice, "SET ROLE fabric_approvers");
        FB_SQL_REFUSED(*alice, "42501",
                       "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256) "
                       "VALUES ($1, 'approve', sha256('dialog text'))",
                       {id});
        FB_SQL(*alice, "RESET ROLE");
        FB_SQL_REFUSED(*alice, "42501", "SET ROLE bob");
        // One decision per approver and proposal.
        FB_SQL_REFUSED(*alice, "23505",
                       "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256) "
                       "VALUES ($1, 'deny', sha256('dialog text'))",
                       {id});
        // The audit chain names the session's role for what each did.
        const auto audit =
            alice->exec("SELECT actor, event FROM fabric_team.team_audit ORDER BY seq");
        QVERIFY(audit.ok());
        QCOMPARE(audit.value->rowCount(), 2);
        QCOMPARE(audit.value->value(0, "actor"), QByteArray("carol"));
        QCOMPARE(audit.value->value(0, "event"), QByteArray("proposal_created"));
        QCOMPARE(audit.value->value(1, "actor"), QByteArray("alice"));
        QCOMPARE(audit.value->value(1, "event"), QByteArray("approval_recorded"));
        FB_SQL_REFUSED(*alice, "42501",
                       "INSERT INTO fabric_team.team_audit (actor, event) VALUES ('bob', 'note')");
    }

    void onlyMembersOfFabricApproversApprove()
    {
        const QString db = fx.initializedDatabase();
        // team init revoked CONNECT from PUBLIC; granted by hand, mallory still reads nothing.
        FB_SQL(*fx.super,
               QStringLiteral("GRANT CONNECT ON DATABASE %1 TO mallory").arg(db).toUtf8());
        auto carol = as(QStringLiteral("carol"), db);
        QVERIFY(carol);
        const QByteArray id = propose(*carol, "tok-1");
        QVERIFY(!id.isEmpty());
        for (const QString &role : {QStringLiteral("mallory"), QStringLiteral("carol")}) {
            auto c = as(role, db);
            QVERIFY(c);
            FB_SQL_REFUSED(*c, "42501",
                           "INSERT INTO fabric_team.approvals (proposal_id, decision, "
                           "dialog_sha256) VALUES ($1, 'approve', sha256('dialog text'))",
                           {id});
        }
        // mallory sees nothing at all; an approver cannot propose.
        auto mallory = as(QStringLiteral("mallory"), db);
        FB_SQL_REFUSED(*mallory, "42501", "SELECT * FROM fabric_team.proposals");
        FB_SQL_REFUSED(*mallory, "42501", "SELECT * FROM fabric_team.team_audit");
        auto bob = as(QStringLiteral("bob"), db);
        QVERIFY(bob);
        QVERIFY(propose(*bob, "tok-2").isEmpty());
        // A finished proposal takes no more decisions.
        FB_SQL(*carol, Consume, {"tok-1"});
        FB_SQL(*carol, "SELECT fabric_team.transition($1, 'consumed', 'denied')", {id});
        FB_SQL_REFUSED(*bob, "42501",
                       "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256) "
                       "VALUES ($1, 'approve', sha256('dialog text'))",
                       {id});
    }

    void signedApprovalColumns()
    {
        // 004: statement, signature and public key are written together by the approver, in
        // their forms only (whether one counts is the workstation's policy's business), and the
        // audit chain records the statement's SHA-256 and the key with the decision.
        const QString db = fx.initializedDatabase();
        auto carol = as(QStringLiteral("carol"), db);
        auto alice = as(QStringLiteral("alice"), db);
        auto bob = as(QStringLiteral("bob"), db);
        QVERIFY(carol && alice && bob);
        const QByteArray id = propose(*carol, "tok-1");
        const char *insert =
            "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256, statement, "
            "signature, public_key) VALUES ($1, 'approve', sha256('dialog text'), $2, "
            "decode($3, 'hex'), decode($4, 'hex'))";
        const QByteArray sig(128, 'a');
        const QByteArray key(64, 'b');
        FB_SQL_REFUSED(*bob, "23514", insert, {id, "{}", sig.left(126), key});
        FB_SQL_REFUSED(*bob, "23514", insert, {id, "{}", sig, key.left(62)});
        FB_SQL_REFUSED(*bob, "23514", insert, {id, QByteArray(2049, 'x'), sig, key});
        FB_SQL_REFUSED(*bob, "23514",
                       "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256, "
                       "statement) VALUES ($1, 'approve', sha256('dialog text'), '{}')",
                       {id});
        FB_SQL(*alice, insert, {id, "{\"a\":1}", sig, key});
        const auto audit = alice->exec(
            "SELECT detail::jsonb ->> 'statement_sha256' AS s, detail::jsonb ->> 'public_key' AS k "
            "FROM fabric_team.team_audit WHERE event = 'approval_recorded'");
        QVERIFY(audit.ok());
        QCOMPARE(audit.value->rowCount(), 1);
        QCOMPARE(audit.value->value(0, "s"),
                 QCryptographicHash::hash("{\"a\":1}", QCryptographicHash::Sha256).toHex());
        QCOMPARE(audit.value->value(0, "k"), QByteArray::fromHex(key).toBase64());
        FB_SQL_REFUSED(*alice, "42501", "UPDATE fabric_team.approvals SET statement = '{}'");
    }

    void nobodyButTheOwnerChangesApprovalsOrAudit()
    {
        const QString db = fx.initializedDatabase();
        // team init revoked CONNECT from PUBLIC; granted by hand, mallory still reads nothing.
        FB_SQL(*fx.super,
               QStringLiteral("GRANT CONNECT ON DATABASE %1 TO mallory").arg(db).toUtf8());
        auto carol = as(QStringLiteral("carol"), db);
        auto alice = as(QStringLiteral("alice"), db);
        QVERIFY(carol && alice);
        const QByteArray id = propose(*carol, "tok-1");
        FB_SQL(*alice,
               "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256) "
               "VALUES ($1, 'approve', sha256('dialog text'))",
               {id});
        for (const QString &role : {QStringLiteral("alice"), QStringLiteral("bob"),
                                    QStringLiteral("carol"), QStringLiteral("mallory")}) {
            auto c = as(role, db);
            QVERIFY(c);
            FB_SQL_REFUSED(*c, "42501", "UPDATE fabric_team.approvals SET decision = 'deny'");
            FB_SQL_REFUSED(*c, "42501", "DELETE FROM fabric_team.approvals");
            FB_SQL_REFUSED(*c, "42501", "TRUNCATE fabric_team.approvals");
            FB_SQL_REFUSED(*c, "42501", "UPDATE fabric_team.team_audit SET detail = '{}'");
            FB_SQL_REFUSED(*c, "42501", "DELETE FROM fabric_team.team_audit");
            FB_SQL_REFUSED(*c, "42501", "UPDATE fabric_team.team_audit_head SET seq = 0");
            FB_SQL_REFUSED(*c, "42501", "DELETE FROM fabric_team.proposals");
            FB_SQL_REFUSED(*c, "42501", "UPDATE fabric_team.proposals SET request = '{}'");
        }
        // A proposal's state moves along its graph only, and only its proposer moves it.
        auto dave = as(QStringLiteral("dave"), db);
        const auto notDaves = dave->exec(Consume, {"tok-1"});
        QVERIFY(notDaves.ok());
        QCOMPARE(notDaves.value->rowCount(), 0);
        // No role writes a state directly (migration 006): only through the schema's functions.
        FB_SQL_REFUSED(*carol, "42501",
                       "UPDATE fabric_team.proposals SET state = 'created' WHERE id = $1", {id});
        // The schema owner may change rows: that is what verify() is for.
        auto owner = as(QStringLiteral("fb_owner"), db);
        FB_SQL(*owner, "UPDATE fabric_team.approvals SET decision = 'deny'");
        // Not the columns of a proposal other than its state, though, nor its graph.
        FB_SQL_REFUSED(*owner, "23514", "UPDATE fabric_team.proposals SET host = 'elsewhere'");
        FB_SQL_REFUSED(*owner, "23514", "UPDATE fabric_team.proposals SET state = 'sending'");
    }

    void auditChainVerifiesAndAChangedRowBreaksIt()
    {
        const QString db = fx.initializedDatabase();
        auto carol = as(QStringLiteral("carol"), db);
        auto alice = as(QStringLiteral("alice"), db);
        QVERIFY(carol && alice);
        const QByteArray id = propose(*carol, "tok-1");
        FB_SQL(*alice,
               "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256) "
               "VALUES ($1, 'approve', sha256('dialog text'))",
               {id});
        FB_SQL(*carol, Consume, {"tok-1"});
        const auto appended =
            TeamAudit::append(*alice, QStringLiteral("note"), QString::fromUtf8(id),
                              QByteArray(R"({"text":"é ü 日本 \n","n":1.5})"));
        QVERIFY2(appended.ok(), qPrintable(appended.error.text()));
        QCOMPARE(*appended.value, qint64(4));

        auto v = TeamAudit::verify(*alice);
        QVERIFY2(v.ok, qPrintable(v.problem));
        {
            // The bytes hashed are the stored UTF-8, whatever the client's encoding is.
            ScopedEnvironmentVariable latin1("PGCLIENTENCODING", "LATIN1");
            auto bob = as(QStringLiteral("bob"), db);
            QVERIFY(bob);
            const auto inLatin1 = TeamAudit::verify(*bob);
            QVERIFY2(inLatin1.ok, qPrintable(inLatin1.problem));
        }
        QCOMPARE(v.rows, qint64(4));
        QCOMPARE(v.headSeq, qint64(4));
        // The schema owner changes one row: verify names it.
        auto owner = as(QStringLiteral("fb_owner"), db);
        FB_SQL(*owner, "UPDATE fabric_team.team_audit SET detail = '{\"from\":\"pending\","
                       "\"to\":\"created\"}' WHERE seq = 3");
        v = TeamAudit::verify(*alice);
        QVERIFY(!v.ok);
        QVERIFY(!v.dbError);
        QCOMPARE(v.firstBadSeq, qint64(3));
        QVERIFY2(v.problem.contains(u"row seq 3"), qPrintable(v.problem));
        // Rehashing that row in the database does not help: the next row's link breaks.
        FB_SQL(*owner, "UPDATE fabric_team.team_audit SET hash = fabric_team.team_audit_hash("
                       "prev_hash, seq, at, actor, event, proposal_id, detail) WHERE seq = 3");
        v = TeamAudit::verify(*alice);
        QCOMPARE(v.firstBadSeq, qint64(4));

        // Removing the last rows is found through the head.
        const QString db2 = fx.initializedDatabase();
        auto carol2 = as(QStringLiteral("carol"), db2);
        propose(*carol2, "tok-1");
        propose(*carol2, "tok-2");
        auto owner2 = as(QStringLiteral("fb_owner"), db2);
        FB_SQL(*owner2, "DELETE FROM fabric_team.team_audit WHERE seq = 2");
        v = TeamAudit::verify(*carol2);
        QVERIFY(!v.ok);
        QVERIFY2(v.problem.contains(u"recorded head"), qPrintable(v.problem));
    }

    void concurrentConsumeHasOneWinner()
    {
        const QString db = fx.initializedDatabase();
        auto first = as(QStringLiteral("carol"), db);
        auto second = as(QStringLiteral("carol"), db);
        QVERIFY(first && second);
        QVERIFY(!propose(*first, "tok-1").isEmpty());
        // The first consume holds the row; the second waits for it, then sees it consumed.
        FB_SQL(*first, "BEGIN");
        const auto won = first->exec(Consume, {"tok-1"});
        QVERIFY(won.ok());
        QCOMPARE(won.value->rowCount(), 1);
        QVERIFY(second->send(Consume, {"tok-1"}));
        const auto secondWaits = [&] {
            const auto w = fx.super->exec(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND "
                "wait_event_type = 'Lock' AND query LIKE 'SELECT id FROM fabric_team.consume%'",
                {db.toUtf8()});
            return w.ok() && w.value->value(0, "n") == "1";
        };
        QTRY_VERIFY_WITH_TIMEOUT(secondWaits(), 20000);
        FB_SQL(*first, "COMMIT");
        const auto lost = second->collect();
        QVERIFY2(lost.ok(), qPrintable(lost.error.text()));
        QCOMPARE(lost.value->rowCount(), 0);

        // Both sent at once, many times: one winner each time.
        for (int i = 0; i < 30; ++i) {
            const QByteArray token = "tok-race-" + QByteArray::number(i);
            QVERIFY(!propose(*first, token).isEmpty());
            QVERIFY(first->send(Consume, {token}));
            QVERIFY(second->send(Consume, {token}));
            const auto a = first->collect();
            const auto b = second->collect();
            QVERIFY(a.ok() && b.ok());
            QCOMPARE(a.value->rowCount() + b.value->rowCount(), 1);
        }
        // Consumed or not, a token never consumes twice.
        const auto again = first->exec(Consume, {"tok-1"});
        QCOMPARE(again.value->rowCount(), 0);
    }

    void concurrentAppendsKeepOneChain()
    {
        const QString db = fx.initializedDatabase();
        auto alice = as(QStringLiteral("alice"), db);
        auto bob = as(QStringLiteral("bob"), db);
        auto carol = as(QStringLiteral("carol"), db);
        QVERIFY(alice && bob && carol);
        const QByteArray insert = "INSERT INTO fabric_team.team_audit (event, detail) "
                                  "VALUES ('note', $1)";
        for (int i = 0; i < 40; ++i) {
            const QByteArray detail = "{\"i\":" + QByteArray::number(i) + "}";
            QVERIFY(alice->send(insert, {detail}));
            QVERIFY(bob->send(insert, {detail}));
            QVERIFY(carol->send(insert, {detail}));
            QVERIFY(alice->collect().ok());
            QVERIFY(bob->collect().ok());
            QVERIFY(carol->collect().ok());
        }
        const auto v = TeamAudit::verify(*alice);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.rows, qint64(120));
    }

    void cleanupTestCase() { fx.super.reset(); }
};

QTEST_GUILESS_MAIN(TstTeamSchema)
#include "tst_team_schema.moc"
