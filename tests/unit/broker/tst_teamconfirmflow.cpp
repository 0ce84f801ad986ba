// TeamConfirmFlow (src/broker/TeamConfirmFlow): the team-mode steps of one confirm, in-process
// against a team queue whose database cannot be reached (the full flow on a real PostgreSQL is
// tests/integration/team/tst_team_broker). A database that cannot be asked refuses the confirm
// (team_unavailable), after the first connect was given its moment; every way a consumed row
// can fail the confirm_checks (missing, used, expired, not the row this broker published, no
// approver keys, another proposal, token hash or proposer) clears its check and says why; a row
// that holds is kept. The wait: the team's verdict reaches the confirm as a person's answer
// (expired while unreachable: timed_out; a cancel: declined), a policy reload changes the quorum
// and the keep-alive's words, a send the quorum does not allow is refused, and the result
// carries the team's part.
#include "TestEnvironment.h"
#include "broker/BrokerContext.h"
#include "broker/TeamConfirmFlow.h"
#include "broker/TeamMode.h"
#include "core/Clock.h"
#include "core/ProposalStore.h"
#include "core/TokenDigest.h"
#include "team/TeamQueue.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

const QByteArray kBody = R"({"name":"lab-net","type":"EVPLAN"})";
const QString kToken = u"chg-0123456789abcdef"_s;
const QByteArray kRowId = "6f1c1f6e-0000-4000-8000-000000000001";

Proposal proposal()
{
    Proposal p;
    p.changeType = ChangeType::NetworkCreate;
    p.requestSha256 = requestSha256(ChangeType::NetworkCreate, kBody);
    p.fabricEndpoint = u"https://api.equinix.com"_s;
    p.credentialIdentity = u"client id abc"_s;
    p.context = QJsonObject{{"validated", QJsonObject{{"uuid", "x"}, {"name", "lab-net"}}}};
    p.expiresAtMs = QDateTime::currentMSecsSinceEpoch() + 60000;
    return p;
}

ConfirmChecks allHold()
{
    ConfirmChecks c;
    c.proposalExists = true;
    c.notEvicted = true;
    c.notPreviouslyUsed = true;
    c.notExpired = true;
    c.requestMatchesBinding = true;
    return c;
}

// The five predicates in ConfirmChecks' order: proposal_exists, not_evicted, not_expired,
// not_previously_used, request_matches_binding.
QList<std::optional<bool>> predicates(const ConfirmChecks &c)
{
    return {c.proposalExists, c.notEvicted, c.notExpired, c.notPreviouslyUsed,
            c.requestMatchesBinding};
}

// A database that cannot be asked: the URI is refused before any connect.
const QString kBadUri = u"mysql://carol@db/team"_s;

} // namespace

class TestTeamConfirmFlow : public QObject {
    Q_OBJECT

    std::unique_ptr<ManualClock> clock;
    std::unique_ptr<ProposalStore> store;
    std::unique_ptr<BrokerContext> context;
    std::unique_ptr<team::TeamQueue> queue;

    // The broker in team mode through a queue that has not started (started: it settled,
    // unavailable).
    void makeBroker(bool started = true, BrokerSettings settings = withKeys())
    {
        clock = std::make_unique<ManualClock>(QDateTime::currentMSecsSinceEpoch());
        store = std::make_unique<ProposalStore>(clock.get());
        context = std::make_unique<BrokerContext>(store.get(), nullptr, settings, clock.get());
        queue = std::make_unique<team::TeamQueue>(kBadUri, team::TeamIdentity{u"carol"_s, {}, {}});
        context->setTeam(queue.get());
        if (started)
            startQueue();
    }

    void startQueue()
    {
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"^team\\.database must be"_s));
        queue->start();
    }

    static BrokerSettings withKeys()
    {
        BrokerSettings s;
        s.policy.teamApproverKeys = QList<ApproverKey>{};
        return s;
    }

    // The row this broker published for proposal() and kToken, consumed by this attempt.
    team::TeamProposal row(const Proposal &p) const
    {
        team::TeamProposal r;
        r.id = kRowId;
        r.changeType = u"network_create"_s;
        r.request = kBody;
        r.binding = teamBindingJson(p.fabricEndpoint, p.credentialIdentity);
        r.dryRun = R"({"name":"lab-net","uuid":"x"})";
        r.proposer = queue->role();
        r.tokenSha256 = tokenDigest(kToken).toLatin1();
        r.expiresMs = p.expiresAtMs;
        r.state = u"consumed"_s;
        return r;
    }

    void publish(const team::TeamProposal &r)
    {
        context->rememberPublished(tokenDigest(kToken), {r.id, r.expiresMs});
    }

    // A flow whose row held, ready to ask.
    std::unique_ptr<TeamConfirmFlow> consumedFlow(const Proposal &p)
    {
        auto flow = std::make_unique<TeamConfirmFlow>(context.get(), nullptr);
        const team::TeamProposal r = row(p);
        publish(r);
        ConfirmChecks checks = allHold();
        const auto stop = flow->checkReply({r, true, {}}, tokenDigest(kToken), p, checks);
        if (stop)
            qWarning("the row did not hold: %s", qUtf8Printable(stop->message));
        return flow;
    }

private slots:
    void init() { fbtest::failOnWarnings(); }

    // The wait's progress message (and a task's status): the count, and when nobody else is
    // connected, that nobody may see it now; never when that is unknown.
    void theProgressTextSaysWhoCouldAct()
    {
        team::QuorumCount count;
        count.required = 2;
        count.counted = QStringList{QStringLiteral("alice")};
        count.approversConnected = 0;
        const QString alone = TeamConfirmFlow::teamProgressText(count);
        QVERIFY(alone.startsWith(QStringLiteral("1 of 2 team approvals; no approver other than "
                                                "the proposer is connected")));
        QVERIFY(alone.contains(QStringLiteral("waiting until the proposal expires")));
        count.approversConnected = 1;
        QCOMPARE(TeamConfirmFlow::teamProgressText(count), QStringLiteral("1 of 2 team approvals"));
        count.approversConnected = -1;
        QCOMPARE(TeamConfirmFlow::teamProgressText(count), QStringLiteral("1 of 2 team approvals"));
    }

    void cleanup()
    {
        context.reset();
        queue.reset();
        store.reset();
        clock.reset();
    }

    void aDatabaseThatCannotBeAskedRefuses()
    {
        makeBroker();
        TeamConfirmFlow flow(context.get(), nullptr);
        int calls = 0;
        ConfirmChecks after;
        std::optional<TeamConfirmFlow::Stop> stop;
        flow.consume(tokenDigest(kToken), proposal(), allHold(),
                     [&](const ConfirmChecks &c, const std::optional<TeamConfirmFlow::Stop> &s) {
                         ++calls;
                         after = c;
                         stop = s;
                     });
        QCOMPARE(calls, 1);
        QVERIFY(stop);
        QVERIFY(!stop->error);
        QCOMPARE(stop->kind, "team_unavailable");
        QVERIFY2(stop->message.startsWith(u"Team mode: the team's database cannot be asked "
                                          "(team.database must be a libpq"_s),
                 qPrintable(stop->message));
        QVERIFY(stop->message.endsWith(u"Propose again when the database is back."_s));
        QCOMPARE(predicates(after), predicates(allHold()));
        QVERIFY(!flow.hasRow());
        ConfirmOutcome outcome;
        flow.end(outcome, false);
        QVERIFY(outcome.team.isEmpty()); // no row, no team part
    }

    void theFirstConnectIsAwaited()
    {
        makeBroker(false);
        TeamConfirmFlow flow(context.get(), nullptr);
        int calls = 0;
        std::optional<TeamConfirmFlow::Stop> stop;
        flow.consume(tokenDigest(kToken), proposal(), allHold(),
                     [&](const ConfirmChecks &, const std::optional<TeamConfirmFlow::Stop> &s) {
                         ++calls;
                         stop = s;
                     });
        QCOMPARE(calls, 0); // waiting for the first connect
        startQueue();       // it settles: unavailable
        QCOMPARE(calls, 1);
        QVERIFY(stop);
        QCOMPARE(stop->kind, "team_unavailable");
        QTest::qWait(50);
        QCOMPARE(calls, 1); // once
    }

    void aFlowGoneWhileWaitingAnswersNothing()
    {
        makeBroker(false);
        auto flow = std::make_unique<TeamConfirmFlow>(context.get(), nullptr);
        int calls = 0;
        flow->consume(
            tokenDigest(kToken), proposal(), allHold(),
            [&](const ConfirmChecks &, const std::optional<TeamConfirmFlow::Stop> &) { ++calls; });
        flow.reset();
        startQueue();
        QCOMPARE(calls, 0);
    }

    void everyFailedCheckIsNamed_data()
    {
        QTest::addColumn<int>("failure");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("words");
        QTest::addColumn<int>("check"); // which check it clears; -1: none
        QTest::addColumn<bool>("keepsRow");
        QTest::newRow("unreachable") << 0 << "team_unavailable"
                                     << "cannot be asked (connection refused)" << -1 << false;
        QTest::newRow("missing") << 1 << "team_proposal_missing"
                                 << "has no proposal for this token" << 0 << false;
        QTest::newRow("used") << 2 << "replayed_token"
                              << "is already approved: tokens" << 3 << false;
        QTest::newRow("expired") << 3 << "expired_token"
                                 << "the proposal expired in the team's" << 2 << false;
        QTest::newRow("not published") << 4 << "binding_mismatch"
                                       << "(none published by this process)" << 4 << true;
        QTest::newRow("another row") << 5 << "binding_mismatch"
                                     << "is not the proposal this broker published" << 4 << true;
        QTest::newRow("a later expiry") << 6 << "binding_mismatch"
                                        << "is not the proposal this broker published" << 4 << true;
        QTest::newRow("no approver keys") << 7 << "team_unavailable"
                                          << "team.approver_keys is not set" << -1 << true;
        QTest::newRow("another proposal")
            << 8 << "binding_mismatch"
            << "Refused: the team's row is a connection_create" << 4 << true;
        QTest::newRow("another token hash")
            << 9 << "binding_mismatch"
            << "holds another token hash than this confirm's" << 4 << true;
        QTest::newRow("another proposer") << 10 << "binding_mismatch"
                                          << "the team's row names proposer mallory" << 4 << true;
    }

    void everyFailedCheckIsNamed()
    {
        QFETCH(int, failure);
        QFETCH(QString, kind);
        QFETCH(QString, words);
        QFETCH(int, check);
        QFETCH(bool, keepsRow);
        BrokerSettings settings = withKeys();
        if (failure == 7)
            settings.policy.teamApproverKeys.reset();
        makeBroker(true, settings);
        const Proposal p = proposal();
        team::TeamProposal r = row(p);
        team::TeamConsumeReply reply{r, true, {}};
        publish(r);
        switch (failure) {
        case 0:
            reply = {std::nullopt, false, u"connection refused"_s};
            break;
        case 1:
            reply = {std::nullopt, false, {}};
            break;
        case 2:
            reply.row->state = u"approved"_s;
            reply.consumedNow = false;
            break;
        case 3:
            reply.row->state = u"pending"_s;
            reply.consumedNow = false;
            break;
        case 4:
            QVERIFY(context->takePublished(tokenDigest(kToken)));
            break;
        case 5:
            reply.row->id = "6f1c1f6e-0000-4000-8000-000000000002";
            break;
        case 6:
            reply.row->expiresMs = p.expiresAtMs + team::TeamConfirm::MaxClockSkewMs + 1;
            break;
        case 8:
            reply.row->changeType = u"connection_create"_s;
            break;
        case 9:
            reply.row->tokenSha256 = tokenDigest(u"chg-another"_s).toLatin1();
            break;
        case 10:
            reply.row->proposer = u"mallory"_s;
            break;
        }
        TeamConfirmFlow flow(context.get(), nullptr);
        ConfirmChecks checks = allHold();
        const auto stop = flow.checkReply(reply, tokenDigest(kToken), p, checks);
        QVERIFY(stop);
        QVERIFY(!stop->error);
        QCOMPARE(stop->kind, kind);
        QVERIFY2(stop->message.contains(words), qPrintable(stop->message));
        QVERIFY2(stop->message.contains(u"Nothing was sent"_s), qPrintable(stop->message));
        const QList<std::optional<bool>> held = predicates(checks);
        for (int i = 0; i < held.size(); ++i)
            QCOMPARE(held.at(i), std::optional<bool>(i != check));
        QCOMPARE(flow.hasRow(), keepsRow);
        ConfirmOutcome outcome;
        flow.end(outcome, false);
        if (keepsRow) // consumed: the result names the row (and the row is cancelled)
            QCOMPARE(outcome.team,
                     QJsonObject({{"proposal_id", QString::fromLatin1(reply.row->id)}}));
        else
            QVERIFY(outcome.team.isEmpty());
    }

    void aRowThatHoldsIsKept()
    {
        makeBroker();
        const Proposal p = proposal();
        const team::TeamProposal r = row(p);
        publish(r);
        TeamConfirmFlow flow(context.get(), nullptr);
        ConfirmChecks checks = allHold();
        QVERIFY(!flow.checkReply({r, true, {}}, tokenDigest(kToken), p, checks));
        QVERIFY(flow.hasRow());
        QCOMPARE(predicates(checks), predicates(allHold()));
        QVERIFY(!flow.needsSendCommit()); // nobody was asked yet
        QVERIFY(!flow.finish(u"created"_s, [] { QFAIL("nothing to write"); }));
        // Taken once: the same token cannot name the row again.
        TeamConfirmFlow again(context.get(), nullptr);
        ConfirmChecks second = allHold();
        const auto stop = again.checkReply({r, true, {}}, tokenDigest(kToken), p, second);
        QVERIFY(stop);
        QCOMPARE(stop->kind, "binding_mismatch");
    }

    void theBrokerGoneEndsTheCall()
    {
        makeBroker();
        const Proposal p = proposal();
        TeamConfirmFlow flow(context.get(), nullptr);
        context.reset();
        ConfirmChecks checks = allHold();
        const auto stop = flow.checkReply({row(p), true, {}}, tokenDigest(kToken), p, checks);
        QVERIFY(stop);
        QVERIFY(stop->error);
        QCOMPARE(stop->message, "the broker shut down; nothing was sent");
    }

    void anExpiryWhileUnreachableTimesOut()
    {
        makeBroker();
        Proposal p = proposal();
        p.expiresAtMs = QDateTime::currentMSecsSinceEpoch() - 1000;
        auto flow = consumedFlow(p);
        QVERIFY(flow->hasRow());
        std::optional<HumanDecision> decision;
        int decisions = 0;
        flow->ask(p, CompiledRequest{}, clock->nowMs(), [&](const HumanDecision &d) {
            ++decisions;
            decision = d;
        });
        QVERIFY(flow->waitingText().startsWith(
            u"waiting for 1 team approval(s) until the proposal expires at "_s));
        QCOMPARE(decisions, 0); // not before the wait starts
        flow->startWaiting();
        QCOMPARE(decisions, 1);
        QCOMPARE(decision->status, HumanStatus::TimedOut);
        QCOMPARE(decision->channel, "team");
        QVERIFY2(decision->detail.contains(u"while the team database was unreachable, with 0 of "
                                           "1 approvals"_s),
                 qPrintable(decision->detail));
        QCOMPARE(decision->decidedAtMs, clock->nowMs());
        // Not sent: end() cancels the row and the result carries the team's part.
        QVERIFY(flow->needsSendCommit());
        ConfirmOutcome outcome;
        flow->end(outcome, false);
        QCOMPARE(outcome.team.value("proposal_id"), QString::fromLatin1(kRowId));
        QCOMPARE(outcome.team.value("required"), 1);
        QCOMPARE(outcome.team.value("signed_approvals"), true);
        QVERIFY(!outcome.team.contains("outcome_recorded"));
    }

    void aCancelWithdrawsTheWait()
    {
        makeBroker();
        const Proposal p = proposal();
        auto flow = consumedFlow(p);
        std::optional<HumanDecision> decision;
        flow->ask(p, CompiledRequest{}, clock->nowMs(),
                  [&](const HumanDecision &d) { decision = d; });
        flow->startWaiting();
        QVERIFY(!decision); // the quorum is awaited (the database may come back)
        flow->cancel(u"the session ended"_s);
        QVERIFY(decision);
        QCOMPARE(decision->status, HumanStatus::Declined);
        QCOMPARE(decision->detail, "the client cancelled the tool call: the session ended");
        flow->cancel(u"again"_s); // decided: nothing more
        QCOMPARE(decision->detail, "the client cancelled the tool call: the session ended");
    }

    void aPolicyReloadChangesTheQuorum()
    {
        makeBroker();
        const Proposal p = proposal();
        auto flow = consumedFlow(p);
        flow->ask(p, CompiledRequest{}, clock->nowMs(), [](const HumanDecision &) {});
        QSignalSpy texts(flow.get(), &TeamConfirmFlow::waitingTextChanged);
        flow->startWaiting();
        BrokerSettings raised = withKeys();
        TeamQuorum quorum;
        quorum.unpriced = 2;
        raised.policy.teamQuorum = quorum;
        context->setSettings(raised);
        QCOMPARE(texts.size(), 1);
        QVERIFY(texts.at(0).at(0).toString().startsWith(u"waiting for 2 team approval(s)"_s));
        QCOMPARE(flow->waitingText(), texts.at(0).at(0).toString());
        flow->cancel(u"done"_s);
        ConfirmOutcome outcome;
        flow->end(outcome, false);
        QCOMPARE(outcome.team.value("required"), 2);
    }

    void aSendWithoutTheQuorumIsRefused()
    {
        makeBroker();
        const Proposal p = proposal();
        auto flow = consumedFlow(p);
        flow->ask(p, CompiledRequest{}, clock->nowMs(), [](const HumanDecision &) {});
        flow->startWaiting();
        int calls = 0;
        std::optional<TeamConfirmFlow::Stop> stop;
        flow->beginSend(p, [&](const std::optional<TeamConfirmFlow::Stop> &s) {
            ++calls;
            stop = s;
        });
        QTRY_COMPARE(calls, 1);
        QVERIFY(stop);
        QVERIFY(!stop->error);
        QCOMPARE(stop->kind, "team_send_refused");
        QCOMPARE(stop->message, "Approved by the team, but the team's database did not let it be "
                                "sent: the quorum is not met. Nothing was sent; the token is "
                                "used up.");
        QVERIFY(flow->needsSendCommit()); // nothing was committed
        QVERIFY(!flow->finish(u"failed"_s));
    }
};

QTEST_GUILESS_MAIN(TestTeamConfirmFlow)
#include "tst_teamconfirmflow.moc"
