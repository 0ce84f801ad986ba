// ConfirmOperation's checks right before it asks and right before it sends: the Fabric binding
// (endpoint and credentials) and the daily limit against the spend ledger with reservations.
#include "broker/ConfirmOperation.h"

#include "broker/PolicyGate.h"
#include "fabric/FabricClient.h"

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
}

} // namespace fb
