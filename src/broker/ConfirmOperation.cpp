#include "broker/ConfirmOperation.h"

#include "broker/ClientElicitationApprover.h"
#include "broker/PolicyGate.h"
#include "broker/ProposalView.h"
#include "broker/ResultJson.h"
#include "core/UntrustedText.h"
#include "fabric/FabricClient.h"
#include "mcp/Protocol.h"
#include "mcp/ToolCall.h"

#include <QTimer>

#include <utility>

using namespace Qt::StringLiterals;

namespace fb {

ConfirmOperation::ConfirmOperation(BrokerContext *context, mcp::ToolCall *call)
    : ToolOperation(context, call)
{
}

void ConfirmOperation::start()
{
    if (call()->isModernEra()) {
        const QJsonObject params = call()->requestParams();
        if (params.contains(u"requestState"_s) || params.contains(u"inputResponses"_s))
            return resume(params);
    }
    const QJsonObject args = call()->arguments();
    const QStringList unknown = result::unknownArguments(args, {QStringLiteral("confirm_token")});
    const QJsonValue token = args.value(QStringLiteral("confirm_token"));
    if (!token.isString()) {
        // Nothing is consumed: the arguments name no token.
        return finishNotExecuted(
            ConfirmChecks{}, QStringLiteral("invalid_arguments"),
            QStringLiteral("confirm_token is required and must be a string (the chg- token "
                           "returned by fabric_propose_change). No token was consumed."),
            humanConfirmationJson(QStringLiteral("not_requested"), {}));
    }

    // A named token is consumed by this first attempt, whatever else the call carries.
    const ConsumeResult consumed = context()->store()->consume(token.toString());
    m_tokenSha256 = tokenDigest(token.toString());
    m_checks = consumed.checks;
    if (consumed.proposal)
        m_proposal = *consumed.proposal;
    context()->audit(AuditEventType::Redemption,
                     {{QStringLiteral("token_sha256"), tokenDigest(token.toString())},
                      {QStringLiteral("outcome"), consumeOutcomeName(consumed.outcome)},
                      {QStringLiteral("confirm_checks"), m_checks.toJson()},
                      {QStringLiteral("request_sha256"),
                       consumed.proposal ? QJsonValue(m_proposal.requestSha256) : QJsonValue()},
                      {QStringLiteral("client"), call()->client().toJson()}});
    if (!consumed.ok()) {
        const TokenError e =
            tokenError(consumed.outcome, m_proposal, context()->store()->maxPending());
        return finishNotExecuted(m_checks, e.kind, e.message,
                                 humanConfirmationJson(QStringLiteral("not_requested"), {}));
    }
    if (!unknown.isEmpty()) {
        return finishNotExecuted(
            m_checks, QStringLiteral("invalid_arguments"),
            QStringLiteral("fabric_confirm_change takes only confirm_token; unknown "
                           "argument(s): %1. The token was consumed by this attempt and "
                           "nothing was sent; the spec cannot be changed at confirm time. "
                           "Propose again.")
                .arg(UntrustedText::escapeInvisible(
                    UntrustedText::bounded(unknown.join(QStringLiteral(", ")), 200))),
            humanConfirmationJson(QStringLiteral("not_requested"), {}));
    }

    // Recompile the stored spec; never a re-supplied one.
    const CompileResult recompiled =
        context()->compiler().compile(m_proposal.changeType, m_proposal.spec);
    const bool matches =
        recompiled.ok() && recompiled.request->sha256Hex() == m_proposal.requestSha256;
    m_checks.requestMatchesBinding = matches;
    if (!matches) {
        const QString detail =
            recompiled.ok()
                ? QStringLiteral("recompiling the stored spec produced request %1, but the "
                                 "token is bound to %2")
                      .arg(recompiled.request->sha256Hex(), m_proposal.requestSha256)
                : QStringLiteral("the stored spec no longer compiles: ") +
                      formatViolations(recompiled.violations);
        qCWarning(lcBroker).noquote() << "binding mismatch:" << detail;
        return finishNotExecuted(
            m_checks, QStringLiteral("binding_mismatch"),
            QStringLiteral("Refused: %1. Nothing was sent. Propose the change again.").arg(detail),
            humanConfirmationJson(QStringLiteral("not_requested"), {}));
    }
    m_request = *recompiled.request;

    // The binding also covers where the create goes and as whom.
    const FabricBinding now = FabricBinding::of(context()->fabric()->config());
    QStringList changed;
    if (now.endpoint != m_proposal.fabricEndpoint)
        changed << QStringLiteral("the Fabric endpoint changed from %1 to %2")
                       .arg(m_proposal.fabricEndpoint, now.endpoint);
    if (now.identity != m_proposal.credentialIdentity)
        changed << QStringLiteral("the credentials changed from %1 to %2")
                       .arg(m_proposal.credentialIdentity, now.identity);
    if (!changed.isEmpty()) {
        m_checks.requestMatchesBinding = false;
        const QString detail = changed.join(QStringLiteral(" and "));
        qCWarning(lcBroker).noquote() << "binding mismatch:" << detail;
        return finishNotExecuted(
            m_checks, QStringLiteral("binding_mismatch"),
            QStringLiteral("Refused: %1 since Fabric's dry run validated this proposal. "
                           "Nothing was sent and no person was asked. Propose the change "
                           "again.")
                .arg(detail),
            humanConfirmationJson(QStringLiteral("not_requested"), {}));
    }

    // The operator policy (docs/policy.md), before anyone is asked.
    const PolicyVerdict policy = policyAtConfirm(context()->settings().policy, m_proposal,
                                                 context()->auditSink(), context()->nowMs());
    m_policy = policy.toJson();
    m_proposal.context.insert(QStringLiteral("policy"), m_policy);
    context()->audit(AuditEventType::Policy,
                     {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                      {QStringLiteral("stage"), QStringLiteral("confirm")},
                      {QStringLiteral("policy"), m_policy}});
    const QString channel = context()->approver()->channel();
    if (policy.denied() || (policy.desktopRequired() && channel != u"desktop"))
        return finishNotExecuted(
            m_checks,
            policy.denied() ? QStringLiteral("policy_denied")
                            : QStringLiteral("policy_requires_desktop"),
            policyConfirmMessage(policy),
            policy.denied()
                ? humanConfirmationJson(QStringLiteral("not_requested"), {})
                : humanConfirmationJson(QStringLiteral("unsupported_by_client"), channel,
                                        policy.rule + QStringLiteral(": ") + policy.reason));

    // Fabric's dry run of the bound bytes once more, before anyone is asked (docs/policy.md).
    revalidate(false);
}

void ConfirmOperation::askByInputRequired()
{
    PendingConfirm record;
    record.sessionId = call()->client().sessionId;
    record.tokenSha256 = m_tokenSha256;
    record.proposal = m_proposal;
    record.request = m_request;
    record.checks = m_checks;
    record.policy = m_policy;
    record.revalidation = m_revalidation;
    record.client = call()->client().toJson();
    record.askedAtMs = m_askedAtMs;
    record.deadlineMs = m_askedAtMs + context()->settings().elicitTimeoutMs;
    const QString state = context()->confirmStates()->issue(record);
    const ApprovalContext ctx{m_proposal, m_request, call()->client(),
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
        return lateRetry(*found.record);
    case ConfirmStateStore::Status::Taken:
        break;
    }
    restore(*found.record);
    const std::optional<QJsonObject> answer =
        ConfirmStateStore::answerIn(params.value(u"inputResponses"_s));
    if (!answer) {
        // A retry without the person's answer: ask again, same deadline.
        PendingConfirm again = *found.record;
        const QString next = context()->confirmStates()->issue(again);
        const ApprovalContext ctx{m_proposal, m_request, call()->client(),
                                  context()->settings().elicitTimeoutMs};
        return void(finishOnce(ConfirmStateStore::inputRequiredResult(
            ClientElicitationApprover::elicitationParams(ctx, context()->nowMs()), next)));
    }
    QString detail;
    const HumanStatus status = ClientElicitationApprover::statusForResult(*answer, &detail);
    decided(HumanDecision{status, QStringLiteral("client"), detail, context()->nowMs()});
}

void ConfirmOperation::restore(const PendingConfirm &record)
{
    m_tokenSha256 = record.tokenSha256;
    m_proposal = record.proposal;
    m_request = record.request;
    m_checks = record.checks;
    m_policy = record.policy;
    m_revalidation = record.revalidation;
    m_askedAtMs = record.askedAtMs;
}

// A retry of a state another retry already took: the seed's replayed-token error.
void ConfirmOperation::replayedState(const std::optional<PendingConfirm> &record)
{
    if (record)
        m_proposal = record->proposal;
    ConfirmChecks checks;
    checks.proposalExists = true;
    checks.notEvicted = true;
    checks.notPreviouslyUsed = false;
    m_checks = checks;
    context()->audit(
        AuditEventType::Redemption,
        {{QStringLiteral("token_sha256"), record ? record->tokenSha256 : QString()},
         {QStringLiteral("outcome"), consumeOutcomeName(ConsumeOutcome::PreviouslyUsed)},
         {QStringLiteral("confirm_checks"), checks.toJson()},
         {QStringLiteral("request_sha256"),
          record ? QJsonValue(m_proposal.requestSha256) : QJsonValue()},
         {QStringLiteral("request_state"), QStringLiteral("already_used")},
         {QStringLiteral("client"), call()->client().toJson()}});
    const TokenError e =
        tokenError(ConsumeOutcome::PreviouslyUsed, m_proposal, context()->store()->maxPending());
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
    const AnswerStep step = afterAnswer(d, d.decidedAtMs, m_proposal.expiresAtMs, false, timeoutMs);
    finishNotExecuted(m_checks, step.reason,
                      step.message + QStringLiteral(" This answer came after that deadline."),
                      step.human);
}

void ConfirmOperation::askPerson()
{
    if (call()->isCancelled())
        return decided(HumanDecision{HumanStatus::CallCancelled, context()->approver()->channel(),
                                     QStringLiteral("the client cancelled the tool call"),
                                     context()->nowMs()});

    ApprovalContext ctx{m_proposal, m_request, call()->client(),
                        context()->settings().elicitTimeoutMs};
    m_askedAtMs = context()->nowMs();
    context()->audit(AuditEventType::ApprovalRequested,
                     {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                      {QStringLiteral("channel"), context()->approver()->channel()},
                      {QStringLiteral("client"), call()->client().toJson()}});
    context()->reportApprovalStarted(m_proposal, context()->approver()->channel());
    // 2026-07-28: the server sends the client no request; the question travels in the result.
    if (call()->isModernEra() && context()->approver()->channel() == u"client") {
        if (!call()->clientSupportsFormElicitation())
            return decided(
                HumanDecision{HumanStatus::UnsupportedByClient, QStringLiteral("client"),
                              QStringLiteral("the MCP client did not declare form elicitation"),
                              context()->nowMs()});
        return askByInputRequired();
    }
    startProgress();
    QPointer<ConfirmOperation> self(this);
    context()->approver()->requestApproval(call(), ctx, [self](const HumanDecision &d) {
        if (self)
            self->decided(d);
    });
}

// Re-runs Fabric's dry run of exactly the bound request. beforeSend: the second run, right
// before the create, when the person took longer than revalidate_before_send_after_ms.
void ConfirmOperation::revalidate(bool beforeSend)
{
    FabricCall *dry = context()->fabric()->dryRun(m_request);
    connect(dry, &FabricCall::finished, this,
            [this, beforeSend](const FabricResult &r) { revalidated(r, beforeSend); });
}

void ConfirmOperation::revalidated(const FabricResult &r, bool beforeSend)
{
    if (!context()) // it died while the dry run ran (its late answer or the client's abort)
        return finishError(QStringLiteral("the broker shut down during the "
                                          "re-validation; nothing was sent"));
    const QJsonObject run{{QStringLiteral("ran"), true},
                          {QStringLiteral("ok"), r.ok()},
                          {QStringLiteral("fabric_errors"), result::fabricErrorsJson(r)},
                          {QStringLiteral("correlation_id"), r.correlationId}};
    if (beforeSend)
        m_revalidation.insert(QStringLiteral("before_send"), run);
    else
        m_revalidation = run;
    context()->audit(AuditEventType::Revalidation,
                     {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                      {QStringLiteral("stage"), beforeSend ? QStringLiteral("before_send")
                                                           : QStringLiteral("before_asking")},
                      {QStringLiteral("ok"), r.ok()},
                      {QStringLiteral("dry_run"), r.toJson()}});
    if (!r.ok())
        return finishNotExecuted(
            m_checks, QStringLiteral("revalidation_failed"), revalidationMessage(r, beforeSend),
            beforeSend ? m_human : humanConfirmationJson(QStringLiteral("not_requested"), {}));
    if (beforeSend)
        return execute(m_human, m_unconfirmed);
    askPerson();
}

QString ConfirmOperation::revalidationMessage(const FabricResult &r, bool beforeSend) const
{
    const QString when = beforeSend ? QStringLiteral("right before sending (the person took "
                                                     "longer than %1 ms)")
                                          .arg(context()->settings().policy.revalidateAfter())
                                    : QStringLiteral("before anyone was asked");
    if (!r.requestSent || r.httpStatus == 0 || r.httpStatus >= 500)
        return QStringLiteral("Fabric's dry run could not be re-run %1 (%2), so nothing was "
                              "sent; the token is used up. Propose the change again.")
            .arg(when, r.message);
    return QStringLiteral("Fabric's dry run now rejects this request (%1): %2. Nothing was "
                          "sent; the token is used up. Re-propose the change (for example "
                          "with another VLAN) to get a new token.")
        .arg(when, r.message);
}

// After an approval: re-validate first when the person took longer than the policy allows.
void ConfirmOperation::sendAfterRevalidation(const QJsonObject &human, bool unconfirmed)
{
    const qint64 waited = context()->nowMs() - m_askedAtMs;
    const qint64 limit = context()->settings().policy.revalidateAfter();
    if (waited <= limit) {
        m_revalidation.insert(QStringLiteral("before_send"),
                              QJsonObject{{QStringLiteral("ran"), false},
                                          {QStringLiteral("reason"),
                                           QStringLiteral("the answer came after %1 ms, within "
                                                          "revalidate_before_send_after_ms (%2)")
                                               .arg(waited)
                                               .arg(limit)}});
        return execute(human, unconfirmed);
    }
    m_human = human;
    m_unconfirmed = unconfirmed;
    revalidate(true);
}

void ConfirmOperation::startProgress()
{
    if (!call()->hasProgressToken())
        return;
    // Keep clients that reset their timeout on progress from giving up while a person reads.
    m_progressTimer = new QTimer(this);
    connect(m_progressTimer, &QTimer::timeout, this, [this] {
        const qint64 waited = context()->nowMs() - m_askedAtMs;
        call()->progress(static_cast<double>(waited),
                         static_cast<double>(context()->settings().elicitTimeoutMs),
                         QStringLiteral("waiting for a person to approve"));
    });
    m_progressTimer->start(context()->settings().progressIntervalMs);
    call()->progress(0, context()->settings().elicitTimeoutMs,
                     QStringLiteral("asking a person to approve"));
}

void ConfirmOperation::decided(const HumanDecision &d)
{
    if (m_decided)
        return;
    m_decided = true;
    if (!context()) {
        finishError(QStringLiteral("the broker shut down before the decision; "
                                   "nothing was sent"));
        return;
    }
    if (m_progressTimer)
        m_progressTimer->stop();
    const qint64 now = context()->nowMs();
    const QString status = humanStatusName(d.status);
    context()->audit(AuditEventType::Decision,
                     {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                      {QStringLiteral("status"), status},
                      {QStringLiteral("channel"), d.channel},
                      {QStringLiteral("detail"), d.detail},
                      {QStringLiteral("decision_latency_ms"),
                       static_cast<double>(m_askedAtMs ? now - m_askedAtMs : 0)},
                      {QStringLiteral("client"), call()->client().toJson()}});
    context()->reportApprovalFinished(m_proposal, status);

    const BrokerSettings &settings = context()->settings();
    const AnswerStep step =
        afterAnswer(d, now, m_proposal.expiresAtMs, settings.allowUnconfirmedMutations,
                    settings.elicitTimeoutMs);
    switch (step.next) {
    case AfterAnswer::Send:
        return sendAfterRevalidation(step.human, false);
    case AfterAnswer::SendUnconfirmed:
        qCWarning(lcBroker).noquote()
            << "EXECUTING WITHOUT HUMAN CONFIRMATION (EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS"
               "=true):"
            << changeTypeName(m_proposal.changeType) << m_proposal.target;
        return sendAfterRevalidation(step.human, true);
    case AfterAnswer::ExpiredDuringApproval:
        m_checks.notExpired = false;
        return finishNotExecuted(m_checks, step.reason, step.message, step.human);
    case AfterAnswer::NotApproved:
        return finishNotExecuted(m_checks, step.reason, step.message, step.human);
    }
}

void ConfirmOperation::execute(const QJsonObject &human, bool unconfirmed)
{
    if (context()->isShuttingDown())
        return finishNotExecuted(m_checks, QStringLiteral("shutting_down"),
                                 QStringLiteral("Approved, but Fabric Broker is shutting "
                                                "down, so the create was not sent. Nothing "
                                                "was created; propose again after it "
                                                "restarts."),
                                 human);
    // From here on the client must learn the outcome even if it cancels.
    call()->setReportEvenIfCancelled(true);
    m_human = human;
    m_unconfirmed = unconfirmed;
    const bool durable = context()->audit(
        AuditEventType::Sending, {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                                  {QStringLiteral("request"), m_request.toJson()},
                                  {QStringLiteral("human_confirmation"), human},
                                  {QStringLiteral("unconfirmed_execution"), unconfirmed}});
    if (!durable) {
        call()->setReportEvenIfCancelled(false);
        return finishNotExecuted(m_checks, QStringLiteral("audit_unavailable"),
                                 QStringLiteral("Approved, but the audit log could not record "
                                                "it durably, so nothing was sent. The "
                                                "operator must fix the audit log; then "
                                                "propose again."),
                                 human);
    }
    FabricCall *create = context()->fabric()->create(m_request);
    m_create = create;
    context()->addInFlight(this);
    connect(create, &FabricCall::finished, this, [this](const FabricResult &r) { executed(r); });
    if (call()->isCancelled()) { // cancelled before the create could start
        m_endReason = call()->cancelReason();
        create->abortIfNotSent();
    }
    if (context())
        context()->reportCreatesInFlight();
}

// A cancel before the first byte of the create leaves (token fetch, connect) stops it; after
// that the create is on its way and the result reports its outcome.
void ConfirmOperation::onCancelled(const QString &reason)
{
    if (m_create && !m_create->isFinished()) {
        const QString before = std::exchange(m_endReason, reason);
        if (!m_create->abortIfNotSent())
            m_endReason = before;
    }
}

QString ConfirmOperation::target() const
{
    const QString name = m_proposal.spec.value(QStringLiteral("name")).toString();
    return name.isEmpty() ? m_proposal.target
                          : QStringLiteral("%1 (%2)").arg(name, m_proposal.target);
}

void ConfirmOperation::abandon(const QString &reason)
{
    if (!m_create || m_create->isFinished())
        return;
    m_endReason = reason;
    m_create->abort(); // finishes synchronously: not_sent, or sent with outcome unknown
}

void ConfirmOperation::executed(const FabricResult &r)
{
    m_create = nullptr;
    QPointer<BrokerContext> ctx = context();
    if (!ctx)
        return finishError(QStringLiteral("the broker shut down"));
    const ExecutionReport report = executionReport(r, m_proposal, m_endReason, m_unconfirmed);
    ctx->audit(AuditEventType::Executed, report.record);
    ctx->reportExecutionFinished(m_proposal, report.executed, report.outcome);
    ConfirmOutcome outcome;
    outcome.checks = m_checks;
    outcome.human = m_human;
    outcome.executed = report.executed;
    outcome.execution = report.execution;
    outcome.message = report.message;
    outcome.isError = report.outcome != u"created";
    finishWith(std::move(outcome));
    if (ctx) {
        ctx->removeInFlight(this);
        ctx->reportCreatesInFlight();
    }
}

void ConfirmOperation::finishNotExecuted(const ConfirmChecks &checks, const QString &kind,
                                         const QString &message, const QJsonObject &human)
{
    if (context())
        context()->reportExecutionFinished(m_proposal, false, kind);
    ConfirmOutcome outcome;
    outcome.checks = checks;
    outcome.human = human;
    outcome.executed = false;
    outcome.execution = ConfirmOutcome::notSentExecution(kind);
    outcome.message = message;
    outcome.isError = true;
    finishWith(std::move(outcome));
}

void ConfirmOperation::finishWith(ConfirmOutcome outcome)
{
    outcome.proposal = m_proposal;
    outcome.unconfirmed = m_unconfirmed;
    outcome.policy = m_policy;
    outcome.revalidation = m_revalidation;
    const QJsonObject structured = outcome.toJson();
    finishStructured(structured, result::renderText(outcome.message, structured), outcome.isError);
}

} // namespace fb
