// ConfirmOperation's multi-round-trip path (the 2026-07-28 era): round 1 answers input_required
// with the elicitation and an HMAC-bound requestState; round 2 resumes from that state with the
// person's answer, or is a replay, a retry without an answer, or a retry after the deadline.
#include "broker/ConfirmOperation.h"

#include "broker/ClientElicitationApprover.h"
#include "core/TokenDigest.h"
#include "mcp/Protocol.h"
#include "mcp/ToolCall.h"

using namespace Qt::StringLiterals;

namespace fb {

void ConfirmOperation::askByInputRequired()
{
    answerInputRequired(
        m_state.toPending(call()->client().sessionId, call()->client().toJson(),
                          m_state.askedAtMs + context()->settings().elicitTimeoutMs));
}

// Issues a requestState for the record and answers input_required with the elicitation.
void ConfirmOperation::answerInputRequired(const PendingConfirm &record)
{
    const QString state = context()->confirmStates()->issue(record);
    const ApprovalContext ctx{m_state.proposal, m_state.request, call()->client(),
                              context()->settings().elicitTimeoutMs};
    finishOnce(ConfirmStateStore::inputRequiredResult(
        ClientElicitationApprover::elicitationParams(ctx, context()->nowMs()), state));
}

void ConfirmOperation::resume(const QJsonObject &params)
{
    const QJsonValue state = params.value(u"requestState"_s);
    const QJsonValue token = call()->arguments().value(u"confirm_token"_s);
    if (!state.isString() || !token.isString())
        return finishProtocolError(mcp::protocol::InvalidParams,
                                   u"inputResponses need the requestState of the "
                                   "fabric_confirm_change call that asked, and its "
                                   "confirm_token"_s);
    ConfirmStateStore::Lookup found = context()->confirmStates()->take(
        state.toString(), call()->client().sessionId, tokenDigest(token.toString()));
    switch (found.status) {
    case ConfirmStateStore::Status::Invalid:
        qCWarning(lcBroker) << "refused a requestState that this process did not issue for "
                               "this session and token";
        return finishProtocolError(mcp::protocol::InvalidParams,
                                   u"invalid requestState: not issued by this server for this "
                                   "session and confirm token; nothing was sent"_s);
    case ConfirmStateStore::Status::Completed:
        return replayedState(found.record);
    case ConfirmStateStore::Status::TimedOut:
        if (!found.endReason.isEmpty()) { // the binding changed while the person was asked
            restore(*found.record);
            m_state.checks.requestMatchesBinding = false;
            return finishNotExecuted(
                m_state.checks, QStringLiteral("binding_mismatch"),
                QStringLiteral("Refused: %1. Nothing was created. Propose the change again.")
                    .arg(found.endReason),
                humanConfirmationJson(QStringLiteral("declined"), QStringLiteral("client"),
                                      found.endReason));
        }
        return lateRetry(*found.record);
    case ConfirmStateStore::Status::Taken:
        break;
    }
    restore(*found.record);
    const std::optional<QJsonObject> answer =
        ConfirmStateStore::answerIn(params.value(u"inputResponses"_s));
    if (!answer) {
        // A retry without the person's answer: ask again, same deadline.
        return answerInputRequired(*found.record);
    }
    QString detail;
    const HumanStatus status = ClientElicitationApprover::statusForResult(*answer, &detail);
    decided(HumanDecision{status, QStringLiteral("client"), detail, context()->nowMs()});
}

void ConfirmOperation::restore(const PendingConfirm &record)
{
    m_state = ConfirmState::fromPending(record);
    if (context())
        context()->reportConfirmStage(m_state.proposal, m_state.stage);
}

// A retry of a state another retry already took: the seed's replayed-token error.
void ConfirmOperation::replayedState(const std::optional<PendingConfirm> &record)
{
    if (record) {
        m_state.proposal = record->proposal;
        m_state.tokenSha256 = record->tokenSha256;
    }
    ConfirmChecks checks;
    checks.proposalExists = true;
    checks.notEvicted = true;
    checks.notPreviouslyUsed = false;
    m_state.checks = checks;
    enter(ConfirmStage::Consumed);
    context()->audit(AuditEventType::Redemption,
                     m_state.redemptionRecord(ConsumeOutcome::PreviouslyUsed,
                                              call()->client().toJson(),
                                              QStringLiteral("already_used")));
    const TokenError e = tokenError(ConsumeOutcome::PreviouslyUsed, m_state.proposal,
                                    context()->store()->maxPending());
    finishNotExecuted(checks, e.kind, e.message,
                      humanConfirmationJson(QStringLiteral("not_requested"), {}));
}

// A retry after the deadline: the timeout was recorded when it passed; say so.
void ConfirmOperation::lateRetry(const PendingConfirm &record)
{
    restore(record);
    const int timeoutMs = context()->settings().elicitTimeoutMs;
    const HumanDecision d{
        HumanStatus::TimedOut, QStringLiteral("client"),
        QStringLiteral("no retry with the person's answer within %1 ms").arg(timeoutMs),
        context()->nowMs()};
    enter(ConfirmStage::Answered);
    const AnswerStep step =
        afterAnswer(d, d.decidedAtMs, m_state.proposal.expiresAtMs, false, timeoutMs);
    finishNotExecuted(m_state.checks, step.reason,
                      step.message + QStringLiteral(" This answer came after that deadline."),
                      step.human);
}

} // namespace fb
