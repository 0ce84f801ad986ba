// Issue #34's attacks on the team database (items 4, 5, 6 and the recovery of item 9), on a real
// PostgreSQL 15 with the schema `team init` makes (TeamFixture.h): each one refused, the reason
// asserted. Members speak plain SQL here, as an agent with the proposer's role would.
#include "TeamFixture.h"
#include "TestEnvironment.h"
#include "team/TeamQueue.h"

#include <QElapsedTimer>
#include <QTest>

#include <algorithm>

using namespace fbtest;
using namespace Qt::StringLiterals;
using fb::team::TeamIdentity;
using fb::team::TeamProposal;
using fb::team::TeamQueue;

namespace {

// One pending proposal by the session's role, priced at amount USD a month; its id.
QByteArray propose(PgConnection &as, const QByteArray &token, const QByteArray &amount = "150",
                   const QByteArray &expires = "10 minutes")
{
    const QByteArray request = "{\"name\":\"" + token + "\"}";
    const auto r = as.exec(
        "INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, price, "
        "dry_run, os_user, host, mcp_client, token_sha256, expires_at) VALUES "
        "('connection_create', $1, sha256(convert_to($1, 'UTF8')), '{}', "
        "jsonb_build_object('priced', true, 'currency', 'USD', 'monthly_recurring', $3::numeric), "
        "'{}', 'os', 'ws-1', 'agent', sha256($2::bytea), now() + $4::interval) RETURNING id",
        {request, token, amount, expires});
    if (!r.ok())
        qWarning("propose: %s", qUtf8Printable(r.error.text()));
    return r.ok() ? r.value->value(0, "id") : QByteArray();
}

// approver's approval of id (begin_send moves nothing that no other role approved).
void approve(PgConnection &approver, const QByteArray &id)
{
    const auto r =
        approver.exec("INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256) "
                      "VALUES ($1::uuid, 'approve', sha256('seen'))",
                      {id});
    if (!r.ok())
        qWarning("approve: %s", qUtf8Printable(r.error.text()));
}

// consume, approver's approval and begin_send in this session; the reply's moved and reason.
QByteArray consumeAndSend(PgConnection &as, PgConnection &approver, const QByteArray &token,
                          const QByteArray &id, const QByteArray &limit = "1000")
{
    const auto c =
        as.exec("SELECT count(*) AS n FROM fabric_team.consume(sha256($1::bytea))", {token});
    if (!c.ok() || c.value->value(0, "n") != "1")
        return "not consumed";
    approve(approver, id);
    const auto b = as.exec("SELECT moved, reason FROM fabric_team.begin_send($1::uuid, "
                           "$2::numeric, 'USD')",
                           {id, limit});
    if (!b.ok())
        return b.error.text().toUtf8();
    return b.value->value(0, "moved") == "t" ? QByteArray("moved") : b.value->value(0, "reason");
}

QByteArray stateOf(PgConnection &as, const QByteArray &id)
{
    const auto r = as.exec("SELECT state FROM fabric_team.proposals WHERE id = $1::uuid", {id});
    return r.ok() ? r.value->value(0, "state") : QByteArray();
}

} // namespace

class TstTeamTrust : public QObject {
    Q_OBJECT

private:
    TeamFixture fx;
    QString db;
    std::unique_ptr<PgConnection> bob; // an approver

    std::unique_ptr<PgConnection> as(const QString &role)
    {
        return connectAs(fx.cluster, role, db);
    }

private slots:
    void initTestCase() { QVERIFY2(fx.setUp(), "PostgreSQL did not start"); }
    void init()
    {
        fbtest::failOnWarnings();
        db = fx.initializedDatabase();
        bob = as(u"bob"_s);
        QVERIFY(bob);
    }

    // Item 4: no role writes a state; a send ends only from the session that holds it.
    void aProposerCannotWriteStatesOrFinishAnotherSessionsSend()
    {
        auto carol = as(u"carol"_s), carol2 = as(u"carol"_s);
        QVERIFY(carol && carol2);
        const QByteArray id = propose(*carol, "t1");
        FB_SQL_REFUSED(*carol, "42501", "UPDATE fabric_team.proposals SET state = 'consumed'");
        QCOMPARE(consumeAndSend(*carol, *bob, "t1", id), QByteArray("moved"));
        FB_SQL_REFUSED(*carol2, "42501", "UPDATE fabric_team.proposals SET state = 'failed'");
        FB_SQL_REFUSED(*carol2, "42501", "SELECT fabric_team.finish_send($1::uuid, 'failed')",
                       {id});
        FB_SQL_REFUSED(*carol2, "42501",
                       "SELECT fabric_team.transition($1::uuid, 'sending', 'failed')", {id});
        QCOMPARE(stateOf(*carol2, id), QByteArray("sending"));
        // The sending session's own outcome is taken.
        FB_SQL(*carol, "SELECT fabric_team.finish_send($1::uuid, 'created')", {id});
        QCOMPARE(stateOf(*carol2, id), QByteArray("created"));
    }

    // Item 4: an unsigned not_created resolution does not take the create out of the day.
    void anUnsignedResolutionLeavesTheCreateInTheDay()
    {
        auto carol = as(u"carol"_s), alice = as(u"alice"_s);
        QVERIFY(carol && alice);
        const QByteArray lost = propose(*carol, "lost", "150");
        QCOMPARE(consumeAndSend(*carol, *bob, "lost", lost, "200"), QByteArray("moved"));
        FB_SQL(*carol, "SELECT fabric_team.finish_send($1::uuid, 'unknown')", {lost});
        FB_SQL(*alice,
               "INSERT INTO fabric_team.resolutions (proposal_id, outcome, dialog_sha256) VALUES "
               "($1::uuid, 'not_created', sha256('looked'))",
               {lost});
        QCOMPARE(stateOf(*alice, lost), QByteArray("not_created"));
        const QByteArray next = propose(*carol, "next", "100");
        QVERIFY(consumeAndSend(*carol, *bob, "next", next, "200").contains("add up to 150"));
        // Signed (the database checks the form; the apps check the key), it leaves the day.
        auto owner = as(u"fb_owner"_s);
        FB_SQL(*owner,
               "UPDATE fabric_team.resolutions SET statement = '{}', signature = "
               "sha512('s'), public_key = sha256('k') WHERE proposal_id = $1::uuid",
               {lost});
        const auto b =
            carol->exec("SELECT moved FROM fabric_team.begin_send($1::uuid, 200, 'USD')", {next});
        QVERIFY2(b.ok() && b.value->value(0, "moved") == "t", qPrintable(b.error.text()));
    }

    // Item 5: no way to an `unknown` worth USD 10^12 without a send the day allows.
    void aProposerCannotWalkAHugeRowToUnknown()
    {
        auto carol = as(u"carol"_s);
        QVERIFY(carol);
        FB_SQL_REFUSED(*carol, "42501",
                       "INSERT INTO fabric_team.proposals (change_type, request, request_sha256, "
                       "binding, price, dry_run, os_user, host, mcp_client, token_sha256, "
                       "expires_at, state) VALUES ('connection_create', '{}', "
                       "sha256(convert_to('{}', 'UTF8')), '{}', NULL, '{}', 'o', 'h', 'a', "
                       "sha256('x'), now() + interval '1 hour', 'unknown')");
        FB_SQL_REFUSED(*carol, "42501",
                       "INSERT INTO fabric_team.proposals (change_type, request, request_sha256, "
                       "binding, price, dry_run, os_user, host, mcp_client, token_sha256, "
                       "expires_at, monthly_amount, monthly_currency) VALUES "
                       "('connection_create', '{}', sha256(convert_to('{}', 'UTF8')), '{}', "
                       "NULL, '{}', 'o', 'h', 'a', sha256('y'), now() + interval '1 hour', "
                       "1e12, 'USD')");
        const QByteArray id = propose(*carol, "huge", "1000000000000");
        FB_SQL_REFUSED(*carol, "42501", "UPDATE fabric_team.proposals SET state = 'unknown'");
        FB_SQL(*carol, "SELECT count(*) FROM fabric_team.consume(sha256('huge'::bytea))");
        FB_SQL_REFUSED(*carol, "42501",
                       "SELECT fabric_team.transition($1::uuid, 'consumed', 'unknown')", {id});
        // Nobody else approved it: begin_send moves nothing, with or without a limit.
        const auto alone = carol->exec(
            "SELECT moved, reason FROM fabric_team.begin_send($1::uuid, NULL, NULL)", {id});
        QVERIFY(alone.ok());
        QCOMPARE(alone.value->value(0, "moved"), QByteArray("f"));
        QVERIFY(alone.value->value(0, "reason").contains("other than the proposer"));
        approve(*bob, id);
        const auto b = carol->exec("SELECT moved, reason FROM fabric_team.begin_send($1::uuid, "
                                   "1000, 'USD')",
                                   {id});
        QVERIFY(b.ok());
        QCOMPARE(b.value->value(0, "moved"), QByteArray("f"));
        QVERIFY(b.value->value(0, "reason").contains("exceed the daily limit"));
        const auto f =
            carol->exec("SELECT fabric_team.finish_send($1::uuid, 'unknown') AS moved", {id});
        QVERIFY(f.ok());
        QCOMPARE(f.value->value(0, "moved"), QByteArray("f"));
        QCOMPARE(stateOf(*carol, id), QByteArray("consumed"));
    }

    // Item 5: 210 junk proposals of one proposer do not push another's off the first page.
    void junkOfOneProposerLeavesAnotherOnTheFirstPage()
    {
        auto carol = as(u"carol"_s), dave = as(u"dave"_s);
        QVERIFY(carol && dave);
        const QByteArray real = propose(*dave, "real");
        FB_SQL(*carol,
               "INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, "
               "dry_run, os_user, host, mcp_client, token_sha256, expires_at) SELECT "
               "'connection_create', '{}', sha256(convert_to('{}', 'UTF8')), '{}', '{}', 'o', 'h', "
               "'junk', sha256(('junk' || n)::bytea), now() + interval '1 hour' FROM "
               "generate_series(1, 210) n");
        TeamQueue alice(fx.cluster.uri(u"alice"_s, db), TeamIdentity{u"alice"_s, u"ws-2"_s, {}});
        alice.settleIntervalMs = 0;
        alice.start();
        QTRY_VERIFY_WITH_TIMEOUT(alice.isAvailable(), 10000);
        std::optional<QList<TeamProposal>> page;
        alice.listOpen([&](const auto &v, const QString &) { page = v; });
        QTRY_VERIFY_WITH_TIMEOUT(page.has_value(), 10000);
        QCOMPARE(page->size(), TeamQueue::PageSize);
        QVERIFY(std::any_of(page->cbegin(), page->cend(),
                            [&](const TeamProposal &p) { return p.id == real; }));
        std::optional<QList<TeamProposal>> second;
        alice.listOpen(1, [&](const auto &v, const QString &) { second = v; });
        QTRY_VERIFY_WITH_TIMEOUT(second.has_value(), 10000);
        QCOMPARE(second->size(), 11); // paging reaches the rest
    }

    // Item 5: a rejection report comes only from the proposal's own proposer, naming it.
    void aRejectionReportByAnotherRoleIsRefused()
    {
        auto carol = as(u"carol"_s), dave = as(u"dave"_s), alice = as(u"alice"_s);
        QVERIFY(carol && dave && alice);
        const QByteArray id = propose(*carol, "r1");
        const QByteArray detail = R"({"approver":"bob","reason":"bob may be compromised"})";
        FB_SQL_REFUSED(*dave, "42501", "SELECT fabric_team.report_rejected($1::uuid, $2)",
                       {id, detail});
        FB_SQL_REFUSED(*alice, "42501",
                       "INSERT INTO fabric_team.team_audit (event, proposal_id, detail) VALUES "
                       "('approval_rejected', $1::uuid, $2)",
                       {id, detail});
        FB_SQL(*carol, "SELECT fabric_team.report_rejected($1::uuid, $2)", {id, detail});
        const auto r = alice->exec("SELECT actor, detail::jsonb ->> 'reported_by' AS by FROM "
                                   "fabric_team.team_audit WHERE event = 'approval_rejected'");
        QVERIFY(r.ok() && r.value->rowCount() == 1);
        QCOMPARE(r.value->value(0, "actor"), QByteArray("carol"));
        QCOMPARE(r.value->value(0, "by"), QByteArray("carol"));
    }

    // Item 6: after team init only the two groups (and the owner) may connect.
    void aRoleInNeitherGroupCannotConnect()
    {
        auto c = fb::team::PgConnection::open(fx.cluster.uri(u"mallory"_s, db));
        QVERIFY(!c.ok());
        QVERIFY2(c.error.text().contains(u"permission denied for database"_s),
                 qPrintable(c.error.text()));
        QVERIFY(as(u"alice"_s) && as(u"carol"_s) && as(u"fb_owner"_s));
    }

    // Item 6: the old advisory lock keys stall nothing.
    void anAdvisoryLockDoesNotStallBeginSend()
    {
        auto carol = as(u"carol"_s), dave = as(u"dave"_s);
        QVERIFY(carol && dave);
        FB_SQL(*dave, "SELECT pg_advisory_lock(hashtext('fabric_team.team_day'))");
        const QByteArray id = propose(*carol, "a1");
        QElapsedTimer t;
        t.start();
        QCOMPARE(consumeAndSend(*carol, *bob, "a1", id), QByteArray("moved"));
        QVERIFY(t.elapsed() < 2000);
        // Nor can a member take the locks begin_send uses.
        FB_SQL_REFUSED(*dave, "42501", "SELECT FROM fabric_team.team_day_lock FOR UPDATE");
        FB_SQL_REFUSED(*dave, "42501", "SELECT FROM fabric_team.leases FOR UPDATE");
        FB_SQL_REFUSED(*dave, "42501", "SELECT FROM fabric_team.proposals FOR UPDATE");
    }

    // Item 9: recovery leaves a live session's rows alone, even of the same role, user and host.
    void recoveryLeavesALiveSessionsSendAlone()
    {
        auto sender = as(u"carol"_s), other = as(u"carol"_s), alice = as(u"alice"_s);
        QVERIFY(sender && other && alice);
        const QByteArray sending = propose(*sender, "s1");
        QCOMPARE(consumeAndSend(*sender, *bob, "s1", sending), QByteArray("moved"));
        const QByteArray waiting = propose(*sender, "s2");
        FB_SQL(*sender, "SELECT count(*) FROM fabric_team.consume(sha256('s2'::bytea))");
        const auto r = other->exec("SELECT count(*) AS n FROM fabric_team.recover_own('os', "
                                   "'ws-1', '{}')");
        QVERIFY(r.ok());
        QCOMPARE(r.value->value(0, "n"), QByteArray("0"));
        FB_SQL(*alice, "SELECT fabric_team.settle_orphans()");
        QCOMPARE(stateOf(*alice, sending), QByteArray("sending"));
        QCOMPARE(stateOf(*alice, waiting), QByteArray("consumed"));
        // The sender gone, its rows move on.
        sender.reset();
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const auto s = fx.super->exec("SELECT count(*) AS n FROM pg_stat_activity WHERE "
                                              "usename = 'carol'");
                return s.ok() && s.value->value(0, "n") == "1";
            }(),
            10000);
        FB_SQL(*alice, "SELECT fabric_team.settle_orphans()");
        QCOMPARE(stateOf(*alice, sending), QByteArray("unknown"));
        FB_SQL(*other, "SELECT fabric_team.recover_own('os', 'ws-1', '{}')");
        QCOMPARE(stateOf(*alice, waiting), QByteArray("cancelled"));
    }
};

QTEST_GUILESS_MAIN(TstTeamTrust)
#include "tst_team_trust.moc"
