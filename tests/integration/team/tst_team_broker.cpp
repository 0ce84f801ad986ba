// The broker in team mode on a real PostgreSQL 15 (a private cluster, TeamFixture.h): a whole
// broker (BrokerHarness: the embedded sandbox, the real Fabric client, an MCP session driven as a
// client) whose queue is carol's or dave's, and the approvers' apps as TeamQueues deciding as
// their dialogs do. Covers: the proposal published (the token's SHA-256 only) before the agent
// gets the token; the confirm consumed in the database, waiting for the quorum, executed once
// after another workstation's approval; the proposer's own approval and the client's "accept"
// never counting; a deny ending it; two approvals above the threshold; the team's day refusing a
// second workstation's create in the database; a row consumed elsewhere failing
// not_previously_used; a row whose dry run or price the schema owner changed refused before
// anyone is asked; an unreachable database refusing proposals (no token).
#include "../broker/BrokerHarness.h"
#include "TeamFixture.h"
#include "TestEnvironment.h"
#include "core/AuditLog.h"
#include "core/AuditSink.h"
#include "core/TokenDigest.h"
#include "team/ApprovalVerify.h"
#include "team/TeamConfirm.h"
#include "team/TeamQueue.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fbtest;
using namespace fb::team;
using namespace Qt::StringLiterals;

class TstTeamBroker : public QObject {
    Q_OBJECT

    TeamFixture fx;
    QString db;
    std::unique_ptr<PgConnection> owner;
    int vlan = 3100;
    QTemporaryDir m_logs;
    int m_logCount = 0;
    std::vector<std::unique_ptr<fb::AuditLog>> m_auditLogs; // outlive every harness

    std::unique_ptr<TeamQueue> queueAs(const QString &role, const QString &host)
    {
        auto q =
            std::make_unique<TeamQueue>(fx.cluster.uri(role, db), TeamIdentity{role, host, {}});
        q->connection().reconnectDelayMs = 50;
        q->setRecoversOwn(true);
        q->start();
        return q;
    }

    // A broker on its own "workstation" (its own sandbox), in team mode through queue.
    std::unique_ptr<BrokerHarness> broker(TeamQueue *queue, fb::BrokerSettings settings = {},
                                          bool elicitation = false, bool withKeys = true)
    {
        settings.toolsets = {u"read"_s, u"mutate"_s};
        if (!settings.policy.teamApproverKeys && withKeys)
            settings.policy.teamApproverKeys = listedKeys();
        auto h = std::make_unique<BrokerHarness>(settings);
        h->broker->setTeam(queue);
        // Each workstation's own audit log (the local daily limit counts from it).
        auto log = std::make_unique<fb::AuditLog>();
        QString error;
        if (!m_logs.isValid() ||
            !log->open(m_logs.filePath(u"audit-%1.jsonl"_s.arg(++m_logCount)), &error))
            qWarning("audit log: %s", qUtf8Printable(error));
        h->broker->setAuditSink(log.get());
        m_auditLogs.push_back(std::move(log));
        h->initialize(elicitation);
        return h;
    }

    QJsonObject propose(BrokerHarness &h)
    {
        return h
            .callTool("fabric_propose_change", {{"change_type", "connection_create"},
                                                {"spec", BrokerHarness::connectionSpec(++vlan)}})
            .value("structuredContent")
            .toObject();
    }

    // Starts a confirm; returns its request id (the answer comes when the quorum is in).
    int startConfirm(BrokerHarness &h, const QString &token)
    {
        return h.startToolCall("fabric_confirm_change", {{"confirm_token", token}});
    }

    // The MCP client's form: "accept" (the proposer's acknowledgement).
    static void acceptElicitation(BrokerHarness &h)
    {
        const QJsonObject elicit = h.waitFor(
            [](const QJsonObject &m) { return m.value("method") == "elicitation/create"; });
        h.send({{"jsonrpc", "2.0"},
                {"id", elicit.value("id")},
                {"result",
                 QJsonObject{{"action", "accept"}, {"content", QJsonObject{{"confirm", true}}}}}});
    }

    static bool answered(BrokerHarness &h, int id)
    {
        return std::any_of(h.received.cbegin(), h.received.cend(),
                           [id](const QJsonObject &m) { return BrokerHarness::isAnswerTo(m, id); });
    }

    static QJsonObject result(BrokerHarness &h, int id)
    {
        return h.answerTo(id, 20000)
            .value("result")
            .toObject()
            .value("structuredContent")
            .toObject();
    }

    QByteArray stateOfToken(const QString &token)
    {
        const auto r = owner->exec("SELECT state FROM fabric_team.proposals WHERE token_sha256 = "
                                   "decode($1, 'hex')",
                                   {fb::tokenDigest(token).toLatin1()});
        return r.ok() && r.value->rowCount() == 1 ? r.value->value(0, "state") : QByteArray();
    }

    // Every approver's key, listed in the brokers' team.approver_keys: in team mode only signed
    // approvals count (issue #34).
    QMap<QString, TeamSigner> signers{{u"alice"_s, TeamSigner::make(u"alice"_s)},
                                      {u"bob"_s, TeamSigner::make(u"bob"_s)},
                                      {u"dave"_s, TeamSigner::make(u"dave"_s)}};

    QList<fb::ApproverKey> listedKeys() const
    {
        QList<fb::ApproverKey> keys;
        for (const TeamSigner &s : signers)
            keys << s.listed();
        return keys;
    }

    // What an approver's app does: finds the open row, signs the decision over the dialog's
    // text with the role's key, and records it.
    bool decide(TeamQueue &q, const QString &proposalId, const QString &decision)
    {
        std::optional<fb::team::TeamProposal> row;
        bool listed = false;
        q.listOpen([&](const std::optional<QList<fb::team::TeamProposal>> &rows, const QString &) {
            for (const auto &p : rows.value_or(QList<fb::team::TeamProposal>{}))
                if (p.id == proposalId.toLatin1())
                    row = p;
            listed = true;
        });
        if (!QTest::qWaitFor([&] { return listed; }, 10000) || !row)
            return false;
        const QByteArray text =
            QCryptographicHash::hash("the dialog's text", QCryptographicHash::Sha256);
        const TeamSigner &signer = signers[q.role()];
        const auto d = signDecision(*row, decision, text, signer.role, signer.privateKey,
                                    QDateTime::currentMSecsSinceEpoch());
        if (!d)
            return false;
        std::optional<bool> ok;
        bool done = false;
        q.decide(
            proposalId.toLatin1(), decision, text,
            [&](const std::optional<bool> &v, const QString &) {
                ok = v;
                done = true;
            },
            TeamQueue::Signature{d->statement, d->signature, d->publicKey});
        return QTest::qWaitFor([&] { return done; }, 10000) && ok.value_or(false);
    }

private slots:
    void init()
    {
        fbtest::failOnWarnings({QStringLiteral("cannot connect to the team database: "),
                                QStringLiteral("proposal \\S+ left behind by a crash: ")});
    }

    void initTestCase()
    {
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        FB_SQL(*fx.super, "GRANT fabric_approvers TO dave");
        owner = connectAs(fx.cluster, u"fb_owner"_s, db);
        QVERIFY(owner);
    }

    void approvedOnAnotherWorkstationExecutesOnce()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        auto alice = queueAs(u"alice"_s, u"ws-alice"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);
        auto h = broker(carol.get(), {}, true);
        const QJsonObject proposed = propose(*h);
        const QString token = proposed.value("confirm_token").toString();
        QVERIFY2(token.startsWith(u"chg-"_s), qPrintable(QJsonDocument(proposed).toJson()));
        const QString id = proposed.value("team").toObject().value("proposal_id").toString();
        QCOMPARE(id.size(), 36);
        QCOMPARE(proposed.value("team").toObject().value("required").toInt(), 1);
        // The row holds the token's SHA-256, never the token.
        QCOMPARE(stateOfToken(token), QByteArray("pending"));
        const auto leak = owner->exec("SELECT count(*) AS n FROM fabric_team.proposals WHERE "
                                      "request LIKE '%' || $1 || '%' OR dry_run::text LIKE '%' || "
                                      "$1 || '%'",
                                      {token.toLatin1()});
        QVERIFY(leak.ok());
        QCOMPARE(leak.value->value(0, "n"), QByteArray("0"));

        const int call = startConfirm(*h, token);
        // The client is asked only for the proposer's acknowledgement: its accept counts for
        // nothing.
        acceptElicitation(*h);
        QTRY_COMPARE_WITH_TIMEOUT(stateOfToken(token), QByteArray("consumed"), 10000);
        QTest::qWait(300);
        QVERIFY(!answered(*h, call));
        QCOMPARE(h->sandbox.realCreateCount(), 0);

        QVERIFY(decide(*alice, id, u"approve"_s));
        const QJsonObject s = result(*h, call);
        QVERIFY2(s.value("executed").toBool(), qPrintable(QJsonDocument(s).toJson()));
        QCOMPARE(h->sandbox.realCreateCount(), 1);
        const QJsonObject human = s.value("human_confirmation").toObject();
        QCOMPARE(human.value("status").toString(), u"accepted"_s);
        QCOMPARE(human.value("channel").toString(), u"team"_s);
        const QJsonObject team = s.value("team").toObject();
        QCOMPARE(team.value("proposal_id").toString(), id);
        QCOMPARE(team.value("approvals").toArray(), QJsonArray{u"alice"_s});
        QCOMPARE(team.value("required").toInt(), 1);
        QCOMPARE(team.value("proposer_acknowledged").toBool(), true);
        QCOMPARE(s.value("confirm_checks").toObject().value("not_previously_used").toBool(), true);
        // The result comes after the row says so.
        QCOMPARE(team.value("outcome_recorded").toString(), u"created"_s);
        QCOMPARE(stateOfToken(token), QByteArray("created"));
        // The token works once, here and in the team's queue.
        const QJsonObject again = h->callTool("fabric_confirm_change", {{"confirm_token", token}})
                                      .value("structuredContent")
                                      .toObject();
        QCOMPARE(again.value("executed").toBool(), false);
        QCOMPARE(h->sandbox.realCreateCount(), 1);
    }

    void ownApprovalAndClientAcceptNeverCountAndADenyEndsIt()
    {
        auto dave = queueAs(u"dave"_s, u"ws-dave"_s);
        auto bob = queueAs(u"bob"_s, u"ws-bob"_s);
        QTRY_VERIFY_WITH_TIMEOUT(dave->isAvailable() && bob->isAvailable(), 10000);
        auto h = broker(dave.get(), {}, true);
        const QJsonObject proposed = propose(*h);
        const QString token = proposed.value("confirm_token").toString();
        const QString id = proposed.value("team").toObject().value("proposal_id").toString();
        const int call = startConfirm(*h, token);
        acceptElicitation(*h);
        QTRY_COMPARE_WITH_TIMEOUT(stateOfToken(token), QByteArray("consumed"), 10000);
        // dave approves his own proposal (he is an approver too): it does not count.
        QVERIFY(decide(*dave, id, u"approve"_s));
        QTest::qWait(400);
        QVERIFY(!answered(*h, call));
        QVERIFY(decide(*bob, id, u"deny"_s));
        const QJsonObject s = result(*h, call);
        QCOMPARE(s.value("executed").toBool(), false);
        QCOMPARE(s.value("human_confirmation").toObject().value("status").toString(),
                 u"declined"_s);
        const QJsonObject team = s.value("team").toObject();
        QCOMPARE(team.value("denied_by").toString(), u"bob"_s);
        QCOMPARE(team.value("approvals").toArray(), QJsonArray{});
        QCOMPARE(team.value("proposer_acknowledged").toBool(), true);
        const QJsonArray notCounted = team.value("not_counted").toArray();
        QCOMPARE(notCounted.size(), 1);
        QCOMPARE(notCounted.at(0).toObject().value("approver").toString(), u"dave"_s);
        QCOMPARE(h->sandbox.realCreateCount(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(stateOfToken(token), QByteArray("denied"), 10000);
    }

    void twoApprovalsAboveTheThreshold()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        auto alice = queueAs(u"alice"_s, u"ws-alice"_s);
        auto bob = queueAs(u"bob"_s, u"ws-bob"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable() && bob->isAvailable(),
                                 10000);
        fb::BrokerSettings settings;
        // Every priced change (and every unpriced one) needs two.
        settings.policy.teamQuorum = fb::TeamQuorum{{fb::QuorumRule{fb::Money{0, "USD"}, 2}}, {}};
        auto h = broker(carol.get(), settings);
        const QJsonObject proposed = propose(*h);
        QCOMPARE(proposed.value("team").toObject().value("required").toInt(), 2);
        const QString token = proposed.value("confirm_token").toString();
        const QString id = proposed.value("team").toObject().value("proposal_id").toString();
        const int call = startConfirm(*h, token);
        QTRY_COMPARE_WITH_TIMEOUT(stateOfToken(token), QByteArray("consumed"), 10000);
        QVERIFY(decide(*alice, id, u"approve"_s));
        QTest::qWait(400);
        QVERIFY(!answered(*h, call));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
        QVERIFY(decide(*bob, id, u"approve"_s));
        const QJsonObject s = result(*h, call);
        QVERIFY2(s.value("executed").toBool(), qPrintable(QJsonDocument(s).toJson()));
        QCOMPARE(s.value("team").toObject().value("approvals").toArray(),
                 (QJsonArray{u"alice"_s, u"bob"_s}));
        QCOMPARE(h->sandbox.realCreateCount(), 1);
    }

    void theTeamsDayIsCountedAcrossWorkstations()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        auto dave = queueAs(u"dave"_s, u"ws-dave"_s);
        auto alice = queueAs(u"alice"_s, u"ws-alice"_s);
        QTRY_VERIFY_WITH_TIMEOUT(
            carol->isAvailable() && dave->isAvailable() && alice->isAvailable(), 10000);
        auto first = broker(carol.get());
        const QJsonObject p1 = propose(*first);
        const QJsonObject price = p1.value("price").toObject();
        const auto monthly = fb::monthlyPrice(price);
        QVERIFY2(monthly, qPrintable(QJsonDocument(price).toJson()));
        // Room for this day's creates so far and one more of these, not two.
        const auto spent = owner->exec(
            "SELECT coalesce(sum(monthly_amount), 0)::text AS s FROM fabric_team.proposals WHERE "
            "state IN ('sending', 'created', 'unknown') AND monthly_currency = $1",
            {monthly->currency.toLatin1()});
        QVERIFY(spent.ok());
        fb::BrokerSettings settings;
        settings.policy.maxPerDay = fb::Money{
            spent.value->value(0, "s").toDouble() + monthly->amount * 1.5, monthly->currency};
        first = broker(carol.get(), settings);
        auto second = broker(dave.get(), settings);
        const QJsonObject a = propose(*first);
        const QJsonObject b = propose(*second);
        QVERIFY2(a.contains("confirm_token"), qPrintable(QJsonDocument(a).toJson()));
        QVERIFY2(b.contains("confirm_token"), qPrintable(QJsonDocument(b).toJson()));
        const int callA = startConfirm(*first, a.value("confirm_token").toString());
        const int callB = startConfirm(*second, b.value("confirm_token").toString());
        QTRY_VERIFY_WITH_TIMEOUT(stateOfToken(a.value("confirm_token").toString()) == "consumed" &&
                                     stateOfToken(b.value("confirm_token").toString()) ==
                                         "consumed",
                                 10000);
        QVERIFY(decide(*alice, a.value("team").toObject().value("proposal_id").toString(),
                       u"approve"_s));
        QVERIFY(result(*first, callA).value("executed").toBool());
        // Each workstation's own ledger would let the second one through; the team's does not.
        QVERIFY(decide(*alice, b.value("team").toObject().value("proposal_id").toString(),
                       u"approve"_s));
        const QJsonObject refused = result(*second, callB);
        QCOMPARE(refused.value("executed").toBool(), false);
        QCOMPARE(refused.value("execution").toObject().value("reason").toString(),
                 u"team_send_refused"_s);
        QVERIFY2(refused.value("message").toString().contains(u"daily limit"_s),
                 qPrintable(refused.value("message").toString()));
        QCOMPARE(first->sandbox.realCreateCount(), 1);
        QCOMPARE(second->sandbox.realCreateCount(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(stateOfToken(b.value("confirm_token").toString()),
                                  QByteArray("cancelled"), 10000);
    }

    void aRowConsumedElsewhereFailsNotPreviouslyUsed()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        auto h = broker(carol.get());
        const QString token = propose(*h).value("confirm_token").toString();
        auto other = connectAs(fx.cluster, u"carol"_s, db);
        QVERIFY(other);
        FB_SQL(*other, "SELECT count(*) FROM fabric_team.consume(decode($1, 'hex'))",
               {fb::tokenDigest(token).toLatin1()});
        const QJsonObject s = h->callTool("fabric_confirm_change", {{"confirm_token", token}})
                                  .value("structuredContent")
                                  .toObject();
        QCOMPARE(s.value("executed").toBool(), false);
        QCOMPARE(s.value("confirm_checks").toObject().value("not_previously_used").toBool(true),
                 false);
        QCOMPARE(s.value("failed_check").toString(), u"not_previously_used"_s);
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    // The schema owner can switch the guard off and change what approvers will be shown; the
    // proposing broker compares the row's dry run and price with its own before anyone is asked.
    void aRowWhoseDryRunOrPriceTheOwnerChangedIsRefused_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("named");
        QTest::newRow("dry run") << u"dry_run = dry_run || '{\"state\": \"PROVISIONED\"}'"_s
                                 << u"dry-run response"_s;
        QTest::newRow("price") << u"price = '{\"priced\": true, \"monthly\": 1}'"_s << u"price"_s;
    }
    void aRowWhoseDryRunOrPriceTheOwnerChangedIsRefused()
    {
        QFETCH(QString, change);
        QFETCH(QString, named);
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        auto h = broker(carol.get());
        const QString token = propose(*h).value("confirm_token").toString();
        QVERIFY(!token.isEmpty());
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals DISABLE TRIGGER USER");
        const auto r = owner->exec(
            u"UPDATE fabric_team.proposals SET %1 WHERE token_sha256 = decode($1, 'hex')"_s
                .arg(change)
                .toUtf8(),
            {fb::tokenDigest(token).toLatin1()});
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals ENABLE TRIGGER USER");
        QVERIFY2(r.ok(), qPrintable(r.error.text()));
        const QJsonObject s = h->callTool("fabric_confirm_change", {{"confirm_token", token}})
                                  .value("structuredContent")
                                  .toObject();
        QCOMPARE(s.value("executed").toBool(), false);
        QCOMPARE(s.value("failed_check").toString(), u"request_matches_binding"_s);
        QCOMPARE(s.value("execution").toObject().value("reason").toString(), u"binding_mismatch"_s);
        QVERIFY2(s.value("message").toString().contains(named),
                 qPrintable(s.value("message").toString()));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    // Issue #34: an unsigned approval never counts, so without the administrator's
    // team.approver_keys team mode gives out no token at all.
    void withoutApproverKeysNoProposalIsTaken()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        auto h = broker(carol.get(), {}, false, false);
        const QJsonObject s = propose(*h);
        QVERIFY(!s.contains("confirm_token"));
        const QJsonObject error = s.value("error").toObject();
        QCOMPARE(error.value("kind").toString(), u"team_unavailable"_s);
        QVERIFY2(error.value("message").toString().contains("team.approver_keys"),
                 qPrintable(error.value("message").toString()));
        QCOMPARE(h->store.pendingCount(), 0);
    }

    // Issue #34, item 3: the owner moves a fresh proposal's token hash onto another row of the
    // same request (one that could already hold approvals); the confirm consumes that row, which
    // is not the one this broker published for the token.
    void aRowOtherThanThePublishedOneIsRefused()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        auto h = broker(carol.get());
        const QJsonObject spec = BrokerHarness::connectionSpec(++vlan);
        auto proposeSame = [&] {
            return h
                ->callTool("fabric_propose_change",
                           {{"change_type", "connection_create"}, {"spec", spec}})
                .value("structuredContent")
                .toObject();
        };
        const QJsonObject older = proposeSame();
        const QJsonObject fresh = proposeSame();
        const QString olderId = older.value("team").toObject().value("proposal_id").toString();
        const QString token = fresh.value("confirm_token").toString();
        QVERIFY(!olderId.isEmpty() && !token.isEmpty());
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals DISABLE TRIGGER USER");
        const auto aside = owner->exec("UPDATE fabric_team.proposals SET token_sha256 = "
                                       "sha256('moved') WHERE token_sha256 = decode($1, 'hex')",
                                       {fb::tokenDigest(token).toLatin1()});
        const auto moved = owner->exec("UPDATE fabric_team.proposals SET token_sha256 = "
                                       "decode($1, 'hex') WHERE id = $2::uuid",
                                       {fb::tokenDigest(token).toLatin1(), olderId.toLatin1()});
        QVERIFY2(aside.ok(), qPrintable(aside.error.text()));
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals ENABLE TRIGGER USER");
        QVERIFY2(moved.ok(), qPrintable(moved.error.text()));
        const QJsonObject s = h->callTool("fabric_confirm_change", {{"confirm_token", token}})
                                  .value("structuredContent")
                                  .toObject();
        QCOMPARE(s.value("executed").toBool(), false);
        QCOMPARE(s.value("failed_check").toString(), u"request_matches_binding"_s);
        QCOMPARE(s.value("execution").toObject().value("reason").toString(), u"binding_mismatch"_s);
        QVERIFY2(s.value("message").toString().contains("not the proposal this broker published"),
                 qPrintable(s.value("message").toString()));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    // Issue #34, item 10: a team confirm nobody approves ends timed_out at its proposal's expiry,
    // every time, and says so (not the elicitation timeout).
    void aConfirmNobodyApprovesEndsAtItsExpiry()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        fb::BrokerSettings settings;
        settings.proposalTtlMs = 4000;
        auto h = broker(carol.get(), settings);
        QList<int> calls;
        QStringList tokens;
        // Each confirm starts right after its proposal (a slow build, ASan, must not let a token
        // expire before its confirm begins).
        for (int i = 0; i < 10; ++i) {
            const QString token = propose(*h).value("confirm_token").toString();
            QVERIFY(!token.isEmpty());
            tokens << token;
            calls << startConfirm(*h, token);
        }
        // Every one ends within the TTL and the allowed clock skew (the e2e team-expiry times
        // each against its expires_at), not at the elicitation timeout (300 s).
        for (int call : calls) {
            const QJsonObject s =
                h->answerTo(call, 4000 + fb::team::TeamConfirm::MaxClockSkewMs + 3000)
                    .value("result")
                    .toObject()
                    .value("structuredContent")
                    .toObject();
            QCOMPARE(s.value("executed").toBool(true), false);
            QCOMPARE(s.value("human_confirmation").toObject().value("status").toString(),
                     u"timed_out"_s);
            QVERIFY2(s.value("message").toString().contains("expired at"),
                     qPrintable(s.value("message").toString()));
            QVERIFY2(!s.value("message").toString().contains("300000"),
                     qPrintable(s.value("message").toString()));
        }
        for (const QString &token : tokens)
            QTRY_COMPARE_WITH_TIMEOUT(stateOfToken(token), QByteArray("expired"), 5000);
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    void aProposalRightAfterTheStartWaitsForTheFirstConnect()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s); // started, not connected yet
        QVERIFY(!carol->hasSettled());
        auto h = broker(carol.get());
        const QJsonObject s = propose(*h);
        QVERIFY2(s.value("confirm_token").toString().startsWith(u"chg-"_s),
                 qPrintable(QJsonDocument(s).toJson()));
        QCOMPARE(stateOfToken(s.value("confirm_token").toString()), QByteArray("pending"));
    }

    void anUnreachableDatabaseRefusesProposals()
    {
        TeamQueue gone(u"postgresql://carol@/nodb?host=/nonexistent-fb-dir&port=1"_s,
                       TeamIdentity{u"carol"_s, u"ws-x"_s, {}});
        gone.connection().reconnectDelayMs = 10000;
        QSignalSpy availability(&gone, &TeamQueue::availabilityChanged);
        gone.start();
        QTRY_VERIFY_WITH_TIMEOUT(!availability.isEmpty(), 10000);
        auto h = broker(&gone);
        const QJsonObject s = propose(*h);
        QVERIFY(!s.contains("confirm_token"));
        QCOMPARE(s.value("error").toObject().value("kind").toString(), u"team_unavailable"_s);
        QCOMPARE(h->store.pendingCount(), 0);
        // Reads keep working.
        const QJsonObject read =
            h->callTool("fabric_list_ports", {}).value("structuredContent").toObject();
        QVERIFY(!read.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstTeamBroker)
#include "tst_team_broker.moc"
