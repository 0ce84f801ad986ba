#pragma once
// ConfirmOperation: one fabric_confirm_change call. Consume the token (the seed's predicates in
// order), recompile and check the binding, apply the operator policy, re-run Fabric's dry run,
// ask a person, re-check the TTL, check the binding again, then send exactly once. Where it is
// lives in one ConfirmState (its stages and audit records); the result is ConfirmOutcome's.
#include "broker/ConfirmOutcome.h"
#include "broker/ConfirmState.h"
#include "broker/ConfirmStateStore.h"
#include "broker/TeamConfirmFlow.h"
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
    // The 2026-07-28 multi-round-trip: round 1 answers input_required, round 2 resumes.
    void askByInputRequired();
    void answerInputRequired(const PendingConfirm &record);
    void resume(const QJsonObject &params);
    void restore(const PendingConfirm &record);
    void replayedState(const std::optional<PendingConfirm> &record);
    void lateRetry(const PendingConfirm &record);
    void askPerson();
    void revalidate();
    void revalidated(const FabricResult &r);
    QString revalidationMessage(const FabricResult &r) const;
    void sendAfterRevalidation();
    void startProgress(qint64 totalMs = 0, const QString &waiting = {});
    void decided(const HumanDecision &d);
    void execute();
    // What changed in the Fabric binding (endpoint, credentials) since the proposal, or empty.
    QString bindingChange() const;
    // The three moments the binding is checked: before anything is asked, when the person has
    // answered, right before the create is sent. Each says its own words and logs (or not) its
    // own way.
    enum class BindingCheck { AtConfirm, AfterAnswer, BeforeSend };
    // False: the binding changed; refused (binding_mismatch, with human), the result is on its
    // way.
    bool bindingHolds(BindingCheck when, const QJsonObject &human);
    void enter(ConfirmStage stage);
    void publishTaskDetail();
    // The daily limit with every reservation counted, when asking (then the price is reserved)
    // and right before the create is sent. False: refused, the result is on its way.
    bool spendAllows(bool beforeSend);
    void releaseSpend();
    void executed(const FabricResult &r);
    void finishNotExecuted(const ConfirmChecks &checks, const QString &kind, const QString &message,
                           const QJsonObject &human);
    void finishWith(ConfirmOutcome outcome);
    void checkConsumed();

    // Team mode (TeamConfirmFlow, docs/team.md): the hand-off of each team step.
    void consumeInTeam();
    void askTeam();
    void beginTeamSend();
    void stopWith(const TeamConfirmFlow::Stop &stop, const QJsonObject &human);

    ConfirmState m_state;
    QPointer<FabricCall> m_create; // the real create, while it is in flight
    QTimer *m_progressTimer = nullptr;
    QString m_progressText; // what the keep-alive says (a team confirm's quorum may change)
    // The steps' spans (docs/observability.md): the dry run, the wait for a person, the send.
    telemetry::Span m_dryRunSpan;
    telemetry::Span m_waitSpan;
    telemetry::Span m_sendSpan;
    QStringList m_unknownArguments;
    QPointer<TeamConfirmFlow> m_team; // in team mode, from the consume on (a child)
};

} // namespace fb
