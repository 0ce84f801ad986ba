// ConfirmOutcome: the seed's table "fabric_confirm_change by client capability and answer",
// row by row, through the pure functions that turn the checks, the person's answer and the
// create's result into the confirm result.
#include "TestEnvironment.h"
#include "broker/ClientElicitationApprover.h"
#include "broker/ConfirmOutcome.h"

#include <QJsonArray>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kProposedAt = 1'700'000'000'000;
constexpr qint64 kExpiresAt = kProposedAt + 600'000;
constexpr int kTimeoutMs = 300'000;

Proposal sampleProposal()
{
    Proposal p;
    p.token = u"chg-0123456789abcdef0123456789abcdef"_s;
    p.changeType = ChangeType::ConnectionCreate;
    p.spec = QJsonObject{{u"name"_s, u"lab-1"_s}};
    p.requestSha256 = QString(64, u'a');
    p.target = u"port p-1 -> port p-2, VLAN 100"_s;
    p.proposedAtMs = kProposedAt;
    p.expiresAtMs = kExpiresAt;
    return p;
}

// The first four predicates as the store reports a consumed token, and the binding held.
ConfirmChecks consumedChecks()
{
    ConfirmChecks c;
    c.proposalExists = true;
    c.notEvicted = true;
    c.notExpired = true;
    c.notPreviouslyUsed = true;
    c.requestMatchesBinding = true;
    return c;
}

FabricResult createdResult()
{
    FabricResult r;
    r.kind = FabricResult::Kind::Ok;
    r.httpStatus = 201;
    r.body = QJsonObject{{u"uuid"_s, u"c-1"_s}, {u"name"_s, u"lab-1"_s}};
    r.requestSent = true;
    r.correlationId = u"corr-1"_s;
    return r;
}

// One confirm from the person's answer on: the table's decision, then the create (created) when
// it says send, then the result JSON.
QJsonObject confirmResult(const HumanDecision &decision, qint64 answeredAtMs, bool allowUnconfirmed)
{
    const Proposal proposal = sampleProposal();
    ConfirmOutcome outcome;
    outcome.checks = consumedChecks();
    outcome.proposal = proposal;
    const AnswerStep step =
        afterAnswer(decision, answeredAtMs, proposal.expiresAtMs, allowUnconfirmed, kTimeoutMs);
    outcome.human = step.human;
    if (step.next == AfterAnswer::Send || step.next == AfterAnswer::SendUnconfirmed) {
        outcome.unconfirmed = step.next == AfterAnswer::SendUnconfirmed;
        const ExecutionReport report =
            executionReport(createdResult(), proposal, {}, outcome.unconfirmed);
        outcome.executed = report.executed;
        outcome.execution = report.execution;
        outcome.message = report.message;
        outcome.isError = report.outcome != u"created";
    } else {
        if (step.expired)
            outcome.checks.notExpired = false;
        outcome.execution = ConfirmOutcome::notSentExecution(step.reason);
        outcome.message = step.message;
    }
    return outcome.toJson();
}

HumanDecision clientAnswer(const QJsonObject &elicitationResult)
{
    QString detail;
    const HumanStatus status =
        ClientElicitationApprover::statusForResult(elicitationResult, &detail);
    return HumanDecision{status, u"client"_s, detail, kProposedAt + 1000};
}

QJsonObject acceptWith(const QJsonValue &confirm)
{
    QJsonObject content;
    if (!confirm.isUndefined())
        content.insert(u"confirm"_s, confirm);
    return QJsonObject{{u"action"_s, u"accept"_s}, {u"content"_s, content}};
}

} // namespace

class TestConfirmOutcome : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void seedTable_data()
    {
        QTest::addColumn<HumanDecision>("decision");
        QTest::addColumn<qint64>("answeredAt");
        QTest::addColumn<bool>("allowUnconfirmed");
        QTest::addColumn<QString>("status");
        QTest::addColumn<bool>("executed");
        QTest::addColumn<bool>("notExpired");

        const qint64 inTime = kProposedAt + 1000;
        const auto decided = [](HumanStatus s) {
            return HumanDecision{s, u"client"_s, u"detail"_s, kProposedAt + 1000};
        };
        // declared form elicitation
        QTest::newRow("accept with confirm = true")
            << clientAnswer(acceptWith(true)) << inTime << false << u"accepted"_s << true << true;
        QTest::newRow("decline") << clientAnswer(QJsonObject{{u"action"_s, u"decline"_s}}) << inTime
                                 << false << u"declined"_s << false << true;
        QTest::newRow("accept with confirm = false")
            << clientAnswer(acceptWith(false)) << inTime << false << u"declined"_s << false << true;
        QTest::newRow("accept without confirm")
            << clientAnswer(acceptWith(QJsonValue::Undefined)) << inTime << false << u"declined"_s
            << false << true;
        QTest::newRow("accept with a non-boolean confirm")
            << clientAnswer(acceptWith(u"true"_s)) << inTime << false << u"declined"_s << false
            << true;
        QTest::newRow("cancel") << clientAnswer(QJsonObject{{u"action"_s, u"cancel"_s}}) << inTime
                                << false << u"cancelled"_s << false << true;
        QTest::newRow("none within the timeout")
            << decided(HumanStatus::TimedOut) << inTime << false << u"timed_out"_s << false << true;
        QTest::newRow("the round trip failed")
            << decided(HumanStatus::Failed) << inTime << false << u"failed"_s << false << true;
        QTest::newRow("the client cancelled the tool call")
            << decided(HumanStatus::CallCancelled) << inTime << false << u"call_cancelled"_s
            << false << true;
        QTest::newRow("accept, but after the TTL") << clientAnswer(acceptWith(true)) << kExpiresAt
                                                   << false << u"accepted"_s << false << false;
        QTest::newRow("accept, long after the TTL")
            << clientAnswer(acceptWith(true)) << kExpiresAt + 5000 << false << u"accepted"_s
            << false << false;
        // did not declare it
        QTest::newRow("not asked") << decided(HumanStatus::UnsupportedByClient) << inTime << false
                                   << u"unsupported_by_client"_s << false << true;
        QTest::newRow("not asked, operator opted in")
            << decided(HumanStatus::UnsupportedByClient) << inTime << true
            << u"unsupported_by_client"_s << true << true;
        // the opt-in changes nothing for a person's refusal
        QTest::newRow("decline, operator opted in")
            << clientAnswer(QJsonObject{{u"action"_s, u"decline"_s}}) << inTime << true
            << u"declined"_s << false << true;
    }

    void seedTable()
    {
        QFETCH(HumanDecision, decision);
        QFETCH(qint64, answeredAt);
        QFETCH(bool, allowUnconfirmed);
        QFETCH(QString, status);
        QFETCH(bool, executed);
        QFETCH(bool, notExpired);

        const QJsonObject r = confirmResult(decision, answeredAt, allowUnconfirmed);
        QCOMPARE(r.value(u"human_confirmation"_s).toObject().value(u"status"_s).toString(), status);
        QCOMPARE(r.value(u"executed"_s).toBool(), executed);
        const QJsonObject checks = r.value(u"confirm_checks"_s).toObject();
        QCOMPARE(checks.value(u"not_expired"_s).toBool(), notExpired);
        // The token stays consumed in every row.
        QCOMPARE(checks.value(u"not_previously_used"_s).toBool(), true);
        QCOMPARE(r.value(u"failed_check"_s).toString(), notExpired ? QString() : u"not_expired"_s);
        QCOMPARE(r.value(u"failed_check"_s).isNull(), notExpired);
        const QJsonObject execution = r.value(u"execution"_s).toObject();
        QCOMPARE(execution.value(u"outcome"_s).toString(), executed ? u"created"_s : u"not_sent"_s);
        if (!executed)
            QVERIFY(!execution.value(u"reason"_s).toString().isEmpty());
        QCOMPARE(r.value(u"unconfirmed_execution"_s).toBool(),
                 executed && status == u"unsupported_by_client");
        if (r.value(u"unconfirmed_execution"_s).toBool())
            QVERIFY(r.value(u"message"_s).toString().startsWith(u"WARNING: executed WITHOUT"_s));
        QVERIFY(!r.value(u"message"_s).toString().isEmpty());
        // The proposal's binding is reported; the policy was not evaluated in these rows.
        QCOMPARE(r.value(u"request_sha256"_s).toString(), QString(64, u'a'));
        QVERIFY(r.value(u"policy"_s).isNull());
        QCOMPARE(r.value(u"revalidation"_s).toObject().value(u"ran"_s).toBool(), false);
    }

    void humanConfirmationShape()
    {
        const QJsonObject none = humanConfirmationJson(u"not_requested"_s, {});
        QVERIFY(none.value(u"channel"_s).isNull());
        QVERIFY(!none.contains(u"detail"_s));
        const QJsonObject one = humanConfirmationJson(u"accepted"_s, u"desktop"_s, u"ok"_s);
        QCOMPARE(one.value(u"channel"_s).toString(), u"desktop"_s);
        QCOMPARE(one.value(u"detail"_s).toString(), u"ok"_s);
    }

    void timeoutMessageNamesTheTimeout()
    {
        const AnswerStep step =
            afterAnswer(HumanDecision{HumanStatus::TimedOut, u"client"_s, {}, kProposedAt},
                        kProposedAt, kExpiresAt, false, 1234);
        QCOMPARE(step.next, AfterAnswer::NotApproved);
        QCOMPARE(step.reason, u"not_approved"_s);
        QVERIFY(step.message.contains(u"1234 ms"_s));
    }

    void tokenErrors_data()
    {
        QTest::addColumn<int>("outcome");
        QTest::addColumn<QString>("kind");
        QTest::newRow("unknown") << int(ConsumeOutcome::Unknown) << u"unknown_token"_s;
        QTest::newRow("evicted") << int(ConsumeOutcome::Evicted) << u"evicted_token"_s;
        QTest::newRow("expired") << int(ConsumeOutcome::Expired) << u"expired_token"_s;
        QTest::newRow("replayed") << int(ConsumeOutcome::PreviouslyUsed) << u"replayed_token"_s;
    }

    void tokenErrors()
    {
        QFETCH(int, outcome);
        QFETCH(QString, kind);
        const TokenError e = tokenError(static_cast<ConsumeOutcome>(outcome), sampleProposal(), 7);
        QCOMPARE(e.kind, kind);
        // Every token error tells the agent to propose again.
        QVERIFY2(e.message.contains(u"ropose"_s), qPrintable(e.message));
        if (kind == u"evicted_token")
            QVERIFY(e.message.contains(u"more than 7 proposals"_s));
    }

    void executionOutcomes()
    {
        const Proposal p = sampleProposal();
        FabricResult rejected;
        rejected.kind = FabricResult::Kind::FabricError;
        rejected.httpStatus = 400;
        rejected.requestSent = true;
        rejected.errors.append(FabricError{u"EQ-1"_s, u"bad"_s, {}, {}, {}});
        const ExecutionReport r = executionReport(rejected, p, {}, false);
        QCOMPARE(r.outcome, u"rejected"_s);
        QCOMPARE(r.executed, true);
        QCOMPARE(r.execution.value(u"fabric_errors"_s).toArray().size(), 1);

        FabricResult lost;
        lost.kind = FabricResult::Kind::OutcomeUnknown;
        lost.requestSent = true;
        const ExecutionReport u = executionReport(lost, p, u"shutting down"_s, false);
        QCOMPARE(u.outcome, u"unknown"_s);
        QCOMPARE(u.execution.value(u"lookup"_s).toObject().value(u"search_tool"_s).toString(),
                 u"fabric_search_connections"_s);
        QCOMPARE(u.record.value(u"reason"_s).toString(), u"shutting down"_s);
        QVERIFY(u.message.contains(u"NOT retried"_s));

        FabricResult aborted;
        aborted.kind = FabricResult::Kind::Cancelled;
        const ExecutionReport n = executionReport(aborted, p, u"cancelled by the client"_s, false);
        QCOMPARE(n.outcome, u"not_sent"_s);
        QCOMPARE(n.executed, false);
        QVERIFY(n.message.contains(u"cancelled by the client"_s));
    }
};

QTEST_GUILESS_MAIN(TestConfirmOutcome)
#include "tst_confirmoutcome.moc"
