// ConfirmOperation's checks right before it asks and right before it sends: the Fabric binding
// (endpoint and credentials), the daily limit against the spend ledger with reservations, and
// the re-validation (Fabric's dry run of the bound request, run again).
#include "broker/ConfirmOperation.h"

#include "broker/ConfirmOutcome.h"
#include "broker/PolicyGate.h"
#include "fabric/FabricClient.h"
#include "mcp/ToolCall.h"

#include <QDateTime>

namespace fb {

QString ConfirmOperation::bindingChange() const
{
    const FabricClient *fabric = context()->fabric();
    if (!fabric)
        return QStringLiteral("the Fabric client is gone");
    const Proposal &p = m_state.proposal;
    return FabricBinding::of(fabric->config())
        .changesSince(FabricBinding{p.fabricEndpoint, p.credentialIdentity});
}

bool ConfirmOperation::bindingHolds(BindingCheck when, const QJsonObject &human)
{
    const QString detail = bindingChange();
    if (detail.isEmpty())
        return true;
    m_state.checks.requestMatchesBinding = false;
    const char *logged = nullptr; // the log line's prefix, when this moment logs
    QString message;
    switch (when) {
    case BindingCheck::AtConfirm:
        logged = "binding mismatch:";
        message = QStringLiteral("Refused: %1 since Fabric's dry run validated this proposal. "
                                 "Nothing was sent and no person was asked. Propose the change "
                                 "again.");
        break;
    case BindingCheck::AfterAnswer:
        // The dialog was already denied with the reason: nothing more to log.
        message = QStringLiteral("Refused: %1 while the person was asked. Nothing was created. "
                                 "Propose the change again.");
        break;
    case BindingCheck::BeforeSend:
        logged = "binding changed before send:";
        message = QStringLiteral("Refused: %1 since Fabric's dry run validated this proposal, so "
                                 "the approved create was not sent. Nothing was created. Propose "
                                 "the change again.");
        break;
    }
    if (logged)
        qCWarning(lcBroker).noquote() << logged << detail;
    finishNotExecuted(m_state.checks, QStringLiteral("binding_mismatch"), message.arg(detail),
                      human);
    return false;
}

bool ConfirmOperation::spendAllows(bool beforeSend)
{
    BrokerContext *ctx = context();
    const Policy &policy = ctx->settings().policy;
    const std::optional<Money> price =
        monthlyPrice(m_state.proposal.context.value(QStringLiteral("price")).toObject());
    if (!price)
        return true;
    if (policy.maxPerDay) {
        const PolicyVerdict v = policyAtConfirm(policy, m_state.proposal, ctx->ledger(),
                                                ctx->nowMs(), m_state.tokenSha256);
        // The dialog shows the day with the reservations ("... waiting for approval").
        m_state.policy = v.toJson();
        m_state.proposal.context.insert(QStringLiteral("policy"), m_state.policy);
        if (v.denied()) {
            ctx->audit(AuditEventType::Policy,
                       m_state.policyRecord(beforeSend ? QStringLiteral("before_send")
                                                       : QStringLiteral("before_asking")));
            finishNotExecuted(
                m_state.checks, QStringLiteral("policy_denied"),
                beforeSend ? QStringLiteral("Approved, but the operator policy (%1) refused it "
                                            "right before sending: %2. Nothing was sent; the "
                                            "token is used up.")
                                 .arg(v.rule, v.reason)
                           : policyConfirmMessage(v),
                beforeSend ? m_state.human
                           : humanConfirmationJson(QStringLiteral("not_requested"), {}));
            return false;
        }
    }
    if (!beforeSend && ctx->ledger()->reserve(m_state.tokenSha256, *price, ctx->nowMs()))
        m_state.reserved = true;
    return true;
}

void ConfirmOperation::releaseSpend()
{
    if (m_state.reserved && context())
        context()->ledger()->release(m_state.tokenSha256);
    m_state.reserved = false;
}

void ConfirmOperation::enter(ConfirmStage stage)
{
    if (m_state.advance(stage) && context())
        context()->reportConfirmStage(m_state.proposal, stage);
    publishTaskDetail();
}

// What tasks/get shows of a confirm that runs as a task (under _meta, beside the status
// message): the stage, the request's SHA-256, the change type, the proposal's expiry and
// price, and who is asked. Values the broker made; nothing the agent wrote but the bound hash.
void ConfirmOperation::publishTaskDetail()
{
    if (!call() || !call()->isTask())
        return;
    QJsonObject detail{{QStringLiteral("stage"), confirmStageName(m_state.stage)}};
    if (!m_state.proposal.requestSha256.isEmpty()) {
        detail.insert(QStringLiteral("request_sha256"), m_state.proposal.requestSha256);
        detail.insert(QStringLiteral("change_type"), changeTypeName(m_state.proposal.changeType));
        detail.insert(QStringLiteral("expires_at"),
                      QDateTime::fromMSecsSinceEpoch(m_state.proposal.expiresAtMs, Qt::UTC)
                          .toString(Qt::ISODateWithMs));
        const QJsonValue price = m_state.proposal.context.value(QStringLiteral("price"));
        if (price.isObject())
            detail.insert(QStringLiteral("price"), price);
    }
    if (m_state.stage >= ConfirmStage::Asked && context())
        detail.insert(QStringLiteral("channel"),
                      m_team ? QStringLiteral("team") : context()->approver()->channel());
    call()->setTaskDetail(detail);
}

// Re-runs Fabric's dry run of exactly the bound request: before anyone is asked, and again
// right before the create when the person took longer than revalidate_before_send_after_ms.
void ConfirmOperation::revalidate()
{
    m_dryRunSpan = startSpan(QStringLiteral("fabric_broker.dry_run"));
    m_dryRunSpan.setAttribute(QStringLiteral("fabric_broker.step"),
                              m_state.revalidatingBeforeSend()
                                  ? QStringLiteral("revalidate_before_send")
                                  : QStringLiteral("revalidate"));
    FabricCall *dry = context()->fabric()->dryRun(m_state.request);
    connect(dry, &FabricCall::finished, this, [this](const FabricResult &r) { revalidated(r); });
}

void ConfirmOperation::revalidated(const FabricResult &r)
{
    if (!context()) // it died while the dry run ran (its late answer or the client's abort)
        return finishError(QStringLiteral("the broker shut down during the "
                                          "re-validation; nothing was sent"));
    const bool beforeSend = m_state.revalidatingBeforeSend();
    m_dryRunSpan.setAttribute(QStringLiteral("fabric_broker.dry_run.ok"), r.ok());
    if (r.httpStatus > 0)
        m_dryRunSpan.setAttribute(QStringLiteral("http.response.status_code"),
                                  qint64(r.httpStatus));
    if (!r.ok())
        m_dryRunSpan.setError(QStringLiteral("fabric_rejected"));
    m_dryRunSpan.end();
    const QJsonObject record = m_state.recordRevalidation(r);
    enter(beforeSend ? ConfirmStage::RevalidatedBeforeSend : ConfirmStage::Revalidated);
    context()->audit(AuditEventType::Revalidation, record);
    if (!r.ok())
        return finishNotExecuted(
            m_state.checks, QStringLiteral("revalidation_failed"), revalidationMessage(r),
            beforeSend ? m_state.human
                       : humanConfirmationJson(QStringLiteral("not_requested"), {}));
    if (beforeSend)
        return execute();
    askPerson();
}

QString ConfirmOperation::revalidationMessage(const FabricResult &r) const
{
    const QString when = m_state.revalidatingBeforeSend()
                             ? QStringLiteral("right before sending (the person took "
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
void ConfirmOperation::sendAfterRevalidation()
{
    const qint64 waited = context()->nowMs() - m_state.askedAtMs;
    const qint64 limit = context()->settings().policy.revalidateAfter();
    if (waited <= limit) {
        m_state.revalidation.insert(
            QStringLiteral("before_send"),
            QJsonObject{
                {QStringLiteral("ran"), false},
                {QStringLiteral("reason"), QStringLiteral("the answer came after %1 ms, within "
                                                          "revalidate_before_send_after_ms (%2)")
                                               .arg(waited)
                                               .arg(limit)}});
        return execute();
    }
    revalidate();
}

} // namespace fb
