#pragma once
// ConfirmOperation: one fabric_confirm_change call. Consume the token (the seed's predicates in
// order), recompile and check the binding, apply the operator policy, re-run Fabric's dry run,
// ask a person, re-check the TTL, then send exactly once. The result itself is ConfirmOutcome's.
#include "broker/ConfirmOutcome.h"
#include "broker/ToolOperation.h"
#include "core/CompiledRequest.h"
#include "core/Policy.h"

#include <QPointer>

class QTimer;

namespace fb {

class FabricCall;

class ConfirmOperation : public ToolOperation {
    Q_OBJECT
public:
    ConfirmOperation(BrokerContext *context, mcp::ToolCall *call);
    void start() override;

    // "<name> (<target line>)", or the target line for a spec without a name.
    QString target() const;
    // The shutdown grace is over (or the broker is being destroyed): end the create now.
    void abandon(const QString &reason);

protected:
    void onCancelled(const QString &reason) override;

private:
    void askPerson();
    void revalidate(bool beforeSend);
    void revalidated(const FabricResult &r, bool beforeSend);
    QString revalidationMessage(const FabricResult &r, bool beforeSend) const;
    void sendAfterRevalidation(const QJsonObject &human, bool unconfirmed);
    void startProgress();
    void decided(const HumanDecision &d);
    void execute(const QJsonObject &human, bool unconfirmed);
    void executed(const FabricResult &r);
    void finishNotExecuted(const ConfirmChecks &checks, const QString &kind, const QString &message,
                           const QJsonObject &human);
    void finishWith(ConfirmOutcome outcome);

    QPointer<FabricCall> m_create; // the real create, while it is in flight
    QString m_endReason;           // why the create was cut short (cancel, shutdown)
    ConfirmChecks m_checks;
    Proposal m_proposal;
    CompiledRequest m_request;
    QJsonObject m_human;
    QTimer *m_progressTimer = nullptr;
    qint64 m_askedAtMs = 0;
    bool m_decided = false;
    bool m_unconfirmed = false;
    PolicyVerdict m_policy;
    bool m_policyEvaluated = false;
    QJsonObject m_revalidation; // {ran, ok, fabric_errors, before_send {...}}
};

} // namespace fb
