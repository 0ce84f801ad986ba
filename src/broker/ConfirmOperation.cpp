#include "broker/ConfirmOperation.h"

#include "broker/PolicyGate.h"
#include "broker/ProposalView.h"
#include "broker/ResultJson.h"
#include "core/TokenDigest.h"
#include "core/UntrustedText.h"
#include "fabric/FabricClient.h"
#include "mcp/ToolCall.h"

#include <QRegularExpression>
#include <QTimer>

#include <utility>

using namespace Qt::StringLiterals;

namespace fb {

namespace {

// What one confirm decided; finishWith() adds the broker's own parts.
ConfirmOutcome outcomeOf(const ConfirmChecks &checks, const QJsonObject &human, bool executed,
                         const QJsonObject &execution, const QString &message, bool isError)
{
    return {.checks = checks,
            .human = human,
            .executed = executed,
            .execution = execution,
            .message = message,
            .isError = isError,
            .proposal = {},
            .unconfirmed = false,
            .policy = {},
            .revalidation = {},
            .team = {}};
}

} // namespace

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
    m_state.tokenSha256 = tokenDigest(token.toString());
    m_state.checks = consumed.checks;
    if (consumed.proposal)
        m_state.proposal = *consumed.proposal;
    enter(ConfirmStage::Consumed);
    context()->audit(AuditEventType::Redemption,
                     m_state.redemptionRecord(consumed.outcome, call()->client().toJson()));
    if (!consumed.ok()) {
        const TokenError e =
            tokenError(consumed.outcome, m_state.proposal, context()->store()->maxPending());
        return finishNotExecuted(m_state.checks, e.kind, e.message,
                                 humanConfirmationJson(QStringLiteral("not_requested"), {}));
    }
    m_unknownArguments = unknown;
    if (context()->team())
        return consumeInTeam(); // the row's checks, then checkConsumed()
    checkConsumed();
}

// The token is consumed (here, and in team mode in the team's queue too): the arguments, the
// recompiled request and its binding, the policy, then Fabric's dry run once more.
void ConfirmOperation::checkConsumed()
{
    const QStringList &unknown = m_unknownArguments;
    if (!unknown.isEmpty()) {
        return finishNotExecuted(
            m_state.checks, QStringLiteral("invalid_arguments"),
            QStringLiteral("fabric_confirm_change takes only confirm_token; unknown "
                           "argument(s): %1. The token was consumed by this attempt and "
                           "nothing was sent; the spec cannot be changed at confirm time. "
                           "Propose again.")
                .arg(UntrustedText::escapeInvisible(
                    UntrustedText::bounded(unknown.join(QStringLiteral(", ")), 200))),
            humanConfirmationJson(QStringLiteral("not_requested"), {}));
    }

    // Recompile the stored spec; never a re-supplied one.
    const Proposal &proposal = m_state.proposal;
    const CompileResult recompiled =
        context()->compiler().compile(proposal.changeType, proposal.spec);
    const bool matches =
        recompiled.ok() && recompiled.request->sha256Hex() == proposal.requestSha256;
    m_state.checks.requestMatchesBinding = matches;
    if (!matches) {
        const QString detail =
            recompiled.ok()
                ? QStringLiteral("recompiling the stored spec produced request %1, but the "
                                 "token is bound to %2")
                      .arg(recompiled.request->sha256Hex(), proposal.requestSha256)
                : QStringLiteral("the stored spec no longer compiles: ") +
                      formatViolations(recompiled.violations);
        qCWarning(lcBroker).noquote() << "binding mismatch:" << detail;
        return finishNotExecuted(
            m_state.checks, QStringLiteral("binding_mismatch"),
            QStringLiteral("Refused: %1. Nothing was sent. Propose the change again.").arg(detail),
            humanConfirmationJson(QStringLiteral("not_requested"), {}));
    }
    m_state.request = *recompiled.request;

    // The binding also covers where the create goes and as whom.
    if (!bindingHolds(BindingCheck::AtConfirm,
                      humanConfirmationJson(QStringLiteral("not_requested"), {})))
        return;

    // The operator policy (docs/policy.md), before anyone is asked.
    const PolicyVerdict policy =
        policyAtConfirm(context()->settings().policy, m_state.proposal, context()->ledger(),
                        context()->nowMs(), m_state.tokenSha256);
    m_state.policy = policy.toJson();
    m_state.proposal.context.insert(QStringLiteral("policy"), m_state.policy);
    spanAttribute(QStringLiteral("fabric_broker.change_type"),
                  changeTypeName(m_state.proposal.changeType));
    spanAttribute(QStringLiteral("fabric_broker.request.sha256"), m_state.request.sha256Hex());
    spanAttribute(QStringLiteral("fabric_broker.policy.verdict"), policy.verdict);
    enter(ConfirmStage::Policy);
    context()->audit(AuditEventType::Policy, m_state.policyRecord());
    const QString channel = context()->approver()->channel();
    // In team mode the approvals are native dialogs on the approvers' workstations.
    if (policy.denied() || (policy.desktopRequired() && channel != u"desktop" && !m_team))
        return finishNotExecuted(
            m_state.checks,
            policy.denied() ? QStringLiteral("policy_denied")
                            : QStringLiteral("policy_requires_desktop"),
            policyConfirmMessage(policy),
            policy.denied()
                ? humanConfirmationJson(QStringLiteral("not_requested"), {})
                : humanConfirmationJson(QStringLiteral("unsupported_by_client"), channel,
                                        policy.rule + QStringLiteral(": ") + policy.reason));

    // Fabric's dry run of the bound bytes once more, before anyone is asked (docs/policy.md).
    revalidate();
}

void ConfirmOperation::askPerson()
{
    if (call()->isCancelled())
        return decided(HumanDecision{HumanStatus::CallCancelled, context()->approver()->channel(),
                                     QStringLiteral("the client cancelled the tool call"),
                                     context()->nowMs()});
    if (!spendAllows(false))
        return;

    // In team mode the person is the team (TeamConfirmFlow): the quorum is awaited.
    const QString channel = m_team ? u"team"_s : context()->approver()->channel();
    m_state.askedAtMs = context()->nowMs();
    enter(ConfirmStage::Asked);
    context()->audit(AuditEventType::ApprovalRequested,
                     m_state.approvalRequestedRecord(channel, call()->client().toJson()));
    context()->reportApprovalStarted(m_state.proposal, channel);
    m_waitSpan = startSpan(QStringLiteral("fabric_broker.wait_for_person"));
    m_waitSpan.setAttribute(QStringLiteral("fabric_broker.channel"), channel);
    // A wait that does not go through the client (the team, the desktop dialog) may make a
    // 2026-07-28 call a task: the client polls it instead of holding its request open.
    const bool throughClient = !m_team && context()->approver()->channel() == u"client";
    if (!throughClient && call()->becomeTask())
        publishTaskDetail();
    if (m_team)
        return askTeam();
    // 2026-07-28: the server sends the client no request; the question travels in the result.
    if (call()->isModernEra() && throughClient) {
        if (!call()->clientSupportsFormElicitation())
            return decided(
                HumanDecision{HumanStatus::UnsupportedByClient, QStringLiteral("client"),
                              QStringLiteral("the MCP client did not declare form elicitation"),
                              context()->nowMs()});
        return askByInputRequired();
    }
    startProgress();
    const ApprovalContext ctx{m_state.proposal, m_state.request, call()->client(),
                              context()->settings().elicitTimeoutMs};
    QPointer<ConfirmOperation> self(this);
    context()->approver()->requestApproval(call(), ctx, [self](const HumanDecision &d) {
        if (self)
            self->decided(d);
    });
}

void ConfirmOperation::startProgress(qint64 totalMs, const QString &waiting)
{
    // A task shows the message as its status (ToolCall::statusMessage), with or without a token.
    if (!call()->hasProgressToken() && !call()->isTask())
        return;
    // Keep clients that reset their timeout on progress from giving up while a person reads.
    // The total is what the wait can last: the elicitation timeout, or (team) the proposal's
    // expiry.
    const double total = static_cast<double>(
        std::max<qint64>(1, totalMs > 0 ? totalMs : context()->settings().elicitTimeoutMs));
    m_progressText =
        waiting.isEmpty() ? QStringLiteral("waiting for a person to approve") : waiting;
    m_progressTimer = new QTimer(this);
    connect(m_progressTimer, &QTimer::timeout, this, [this, total] {
        const qint64 waited = context()->nowMs() - m_state.askedAtMs;
        call()->progress(static_cast<double>(waited),
                         std::max(total, static_cast<double>(waited) + 1), m_progressText);
    });
    m_progressTimer->start(context()->settings().progressIntervalMs);
    call()->progress(0, total,
                     waiting.isEmpty() ? QStringLiteral("asking a person to approve") : waiting);
}

void ConfirmOperation::decided(const HumanDecision &d)
{
    if (m_state.answered())
        return;
    m_state.advance(ConfirmStage::Answered);
    if (!context()) {
        finishError(QStringLiteral("the broker shut down before the decision; "
                                   "nothing was sent"));
        return;
    }
    if (m_progressTimer)
        m_progressTimer->stop();
    context()->reportConfirmStage(m_state.proposal, ConfirmStage::Answered);
    const qint64 now = context()->nowMs();
    context()->audit(AuditEventType::Decision,
                     m_state.decisionRecord(d, now, call()->client().toJson()));
    {
        const QString status = humanStatusName(d.status);
        const QString channel = m_team ? QStringLiteral("team") : d.channel;
        m_waitSpan.setAttribute(QStringLiteral("fabric_broker.decision"), status);
        m_waitSpan.end();
        recordDecision(status, channel.isEmpty() ? QStringLiteral("none") : channel,
                       m_state.askedAtMs > 0 ? double(now - m_state.askedAtMs) / 1000.0 : -1);
    }
    context()->reportApprovalFinished(m_state.proposal, humanStatusName(d.status));

    // The TTL is checked again against the time the answer came. Unconfirmed execution is per
    // session: only a session whose own command line or environment asked for it (and only
    // while the instance's settings and policy allow it) is exempted; every other session
    // keeps the person in the loop.
    const BrokerSettings &settings = context()->settings();
    const bool unconfirmedAllowed =
        settings.allowUnconfirmedMutations && call()->client().asksUnconfirmedMutations;
    const AnswerStep step = afterAnswer(d, now, m_state.proposal.expiresAtMs, unconfirmedAllowed,
                                        settings.elicitTimeoutMs);
    m_state.human = step.human;
    // Settings saved another endpoint or other credentials while the person read: whatever
    // the answer, this proposal can no longer be sent (the dialog was denied with the reason).
    if (!bindingHolds(BindingCheck::AfterAnswer, step.human))
        return;
    switch (step.next) {
    case AfterAnswer::Send:
        return sendAfterRevalidation();
    case AfterAnswer::SendUnconfirmed:
        qCWarning(lcBroker).noquote()
            << "EXECUTING WITHOUT HUMAN CONFIRMATION (EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS"
               "=true):"
            << changeTypeName(m_state.proposal.changeType) << m_state.proposal.target;
        m_state.unconfirmed = true;
        return sendAfterRevalidation();
    case AfterAnswer::ExpiredDuringApproval:
        m_state.checks.notExpired = false;
        return finishNotExecuted(m_state.checks, step.reason, step.message, step.human);
    case AfterAnswer::NotApproved:
        return finishNotExecuted(m_state.checks, step.reason, step.message, step.human);
    }
}

void ConfirmOperation::execute()
{
    const QJsonObject &human = m_state.human;
    if (context()->isShuttingDown())
        return finishNotExecuted(m_state.checks, QStringLiteral("shutting_down"),
                                 QStringLiteral("Approved, but Fabric Broker is shutting "
                                                "down, so the create was not sent. Nothing "
                                                "was created; propose again after it "
                                                "restarts."),
                                 human);
    // Where the create goes and as whom, once more right before the bytes leave: Settings may
    // have saved other credentials or another endpoint while the person was reading.
    if (!bindingHolds(BindingCheck::BeforeSend, human))
        return;
    if (!spendAllows(true))
        return;
    // Team mode: `sending` is committed in the team's database (with the team's day) before a
    // byte leaves; then these checks run once more and the create goes.
    if (m_team && m_team->needsSendCommit())
        return beginTeamSend();
    // From here on the client must learn the outcome even if it cancels.
    call()->setReportEvenIfCancelled(true);
    const bool durable = context()->audit(AuditEventType::Sending, m_state.sendingRecord());
    if (!durable) {
        call()->setReportEvenIfCancelled(false);
        if (m_team) // committed as sending, but nothing was sent
            m_team->finish(QStringLiteral("failed"));
        return finishNotExecuted(m_state.checks, QStringLiteral("audit_unavailable"),
                                 QStringLiteral("Approved, but the audit log could not record "
                                                "it durably, so nothing was sent. The "
                                                "operator must fix the audit log; then "
                                                "propose again."),
                                 human);
    }
    enter(ConfirmStage::Sending);
    m_sendSpan = startSpan(QStringLiteral("fabric_broker.send"));
    FabricCall *create = context()->fabric()->create(m_state.request);
    m_create = create;
    context()->addInFlight(this);
    connect(create, &FabricCall::finished, this, [this](const FabricResult &r) { executed(r); });
    if (call()->isCancelled()) { // cancelled before the create could start
        m_state.endReason = call()->cancelReason();
        create->abortIfNotSent();
    }
    if (context())
        context()->reportCreatesInFlight();
}

// A cancel before the first byte of the create leaves (token fetch, connect) stops it; after
// that the create is on its way and the result reports its outcome.
void ConfirmOperation::onCancelled(const QString &reason)
{
    if (m_team)
        m_team->cancel(reason);
    if (m_create && !m_create->isFinished()) {
        const QString before = std::exchange(m_state.endReason, reason);
        if (!m_create->abortIfNotSent())
            m_state.endReason = before;
    }
}

// Team mode (TeamConfirmFlow): the token's row consumed and checked in the team's database,
// then checkConsumed().
void ConfirmOperation::consumeInTeam()
{
    m_team = new TeamConfirmFlow(context(), call(), this);
    QPointer<ConfirmOperation> self(this);
    m_team->consume(
        m_state.tokenSha256, m_state.proposal, m_state.checks,
        [self](const ConfirmChecks &checks, const std::optional<TeamConfirmFlow::Stop> &stop) {
            if (!self)
                return;
            self->m_state.checks = checks;
            if (stop)
                return self->stopWith(*stop, humanConfirmationJson(u"not_requested"_s, {}));
            self->checkConsumed();
        });
}

// The quorum awaited instead of a local prompt; the keep-alive runs until the proposal expires.
void ConfirmOperation::askTeam()
{
    QPointer<ConfirmOperation> self(this);
    m_team->ask(m_state.proposal, m_state.request, m_state.askedAtMs,
                [self](const HumanDecision &d) {
                    if (self)
                        self->decided(d);
                });
    connect(m_team, &TeamConfirmFlow::waitingTextChanged, this, [this](const QString &text) {
        if (!m_progressText.isEmpty())
            m_progressText = text;
    });
    startProgress(m_state.proposal.expiresAtMs - m_state.askedAtMs, m_team->waitingText());
    m_team->startWaiting();
}

// `sending` committed in the team's database first; then execute() runs its checks once more.
void ConfirmOperation::beginTeamSend()
{
    QPointer<ConfirmOperation> self(this);
    m_team->beginSend(m_state.proposal, [self](const std::optional<TeamConfirmFlow::Stop> &stop) {
        if (!self)
            return;
        if (stop)
            return self->stopWith(*stop, self->m_state.human);
        self->execute();
    });
}

void ConfirmOperation::stopWith(const TeamConfirmFlow::Stop &stop, const QJsonObject &human)
{
    if (stop.error)
        return finishError(stop.message);
    finishNotExecuted(m_state.checks, stop.kind, stop.message, human);
}

QString ConfirmOperation::target() const
{
    const QString name = m_state.proposal.spec.value(QStringLiteral("name")).toString();
    return name.isEmpty() ? m_state.proposal.target
                          : QStringLiteral("%1 (%2)").arg(name, m_state.proposal.target);
}

void ConfirmOperation::abandon(const QString &reason)
{
    if (!m_create || m_create->isFinished())
        return;
    m_state.endReason = reason;
    m_create->abort(); // finishes synchronously: not_sent, or sent with outcome unknown
}

void ConfirmOperation::executed(const FabricResult &r)
{
    m_create = nullptr;
    QPointer<BrokerContext> ctx = context();
    if (!ctx)
        return finishError(QStringLiteral("the broker shut down"));
    const ExecutionReport report =
        executionReport(r, m_state.proposal, m_state.endReason, m_state.unconfirmed);
    ctx->audit(AuditEventType::Executed, report.record);
    m_sendSpan.setAttribute(QStringLiteral("fabric_broker.outcome"), report.outcome);
    if (r.httpStatus > 0)
        m_sendSpan.setAttribute(QStringLiteral("http.response.status_code"), qint64(r.httpStatus));
    if (report.outcome != u"created")
        m_sendSpan.setError(report.outcome == u"unknown" ? QStringLiteral("outcome_unknown")
                                                         : QStringLiteral("not_created"));
    m_sendSpan.end();
    recordCreate(changeTypeName(m_state.proposal.changeType), report.outcome);
    ctx->reportExecutionFinished(m_state.proposal, report.executed, report.outcome);
    if (report.outcome == u"created" || report.outcome == u"unknown") {
        // It may exist: the day counts it from now on (a restart reads its "sending" record).
        if (m_state.reserved)
            ctx->ledger()->commit(m_state.tokenSha256, ctx->nowMs());
        else if (const auto p = monthlyPrice(
                     m_state.proposal.context.value(QStringLiteral("price")).toObject()))
            ctx->ledger()->addExecuted(m_state.tokenSha256, *p, ctx->nowMs());
        m_state.reserved = false;
    }
    ConfirmOutcome outcome =
        outcomeOf(m_state.checks, m_state.human, report.executed, report.execution, report.message,
                  report.outcome != u"created");
    // Team mode: the outcome goes into the team's row first (one bounded statement), so that the
    // result and the row agree; the create counts as in flight until then.
    QPointer<ConfirmOperation> self(this);
    auto complete = [self, ctx, outcome = std::move(outcome)]() mutable {
        if (!self)
            return;
        self->finishWith(std::move(outcome));
        if (ctx) {
            ctx->removeInFlight(self);
            ctx->reportCreatesInFlight();
        }
    };
    if (!m_team || !m_team->finish(report.outcome == u"created" || report.outcome == u"unknown"
                                       ? report.outcome
                                       : QStringLiteral("failed"),
                                   complete))
        complete();
}

void ConfirmOperation::finishNotExecuted(const ConfirmChecks &checks, const QString &kind,
                                         const QString &message, const QJsonObject &human)
{
    if (context())
        context()->reportExecutionFinished(m_state.proposal, false, kind);
    finishWith(
        outcomeOf(checks, human, false, ConfirmOutcome::notSentExecution(kind), message, true));
}

void ConfirmOperation::finishWith(ConfirmOutcome outcome)
{
    releaseSpend(); // every outcome but created/unknown (those were committed)
    if (m_team)
        m_team->end(outcome, !m_create.isNull());
    enter(ConfirmStage::Outcome);
    outcome.proposal = m_state.proposal;
    outcome.unconfirmed = m_state.unconfirmed;
    outcome.policy = m_state.policy;
    outcome.revalidation = m_state.revalidation;
    const QJsonObject structured = outcome.toJson();
    spanAttribute(QStringLiteral("fabric_broker.outcome"),
                  outcome.execution.value(QStringLiteral("outcome")).toString());
    // The broker's own kinds (policy_denied, shutting_down...) only: a cancel's reason is text the
    // client wrote (notifications/cancelled) and never reaches a span.
    if (const QString reason = outcome.execution.value(QStringLiteral("reason")).toString();
        !reason.isEmpty()) {
        static const QRegularExpression kind(QStringLiteral("^[a-z][a-z_]{0,47}$"));
        spanAttribute(QStringLiteral("fabric_broker.outcome.reason"),
                      kind.match(reason).hasMatch() ? reason : QStringLiteral("_OTHER"));
    }
    if (const QString failed = outcome.checks.firstFailure(); !failed.isEmpty())
        spanAttribute(QStringLiteral("fabric_broker.failed_check"), failed);
    finishStructured(structured, result::renderText(outcome.message, structured), outcome.isError);
}

} // namespace fb
