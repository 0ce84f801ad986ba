#pragma once
// BrokerContext: what every broker operation needs, in one place: the proposal store, the Fabric
// client, the compiler, the approver, the audit sink, the clock and the settings, the
// shutting-down flag and the creates in flight. It is also the one place that records audit
// events (audit()) and the source of the signals the GUI follows; the MutationBroker facade
// owns it and forwards its signals.
#include "broker/Approver.h"
#include "broker/BrokerEvents.h"
#include "broker/BrokerSettings.h"
#include "broker/ConfirmState.h"
#include "broker/ConfirmStateStore.h"
#include "core/AuditSink.h"
#include "core/ChangeSpec.h"
#include "core/Clock.h"
#include "core/ProposalStore.h"
#include "core/SpendLedger.h"
#include "telemetry/Telemetry.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QLoggingCategory>
#include <QObject>
#include <QPointer>

#include <memory>

Q_DECLARE_LOGGING_CATEGORY(lcBroker)

namespace fb {

class FabricClient;
struct FabricConfig;
class ConfirmOperation;
namespace team {
class TeamQueue;
}

// Where a create goes and as whom, recorded with each proposal and compared at confirm: the
// endpoint URL (no user info, no trailing slash) and the credential identity ("client id <id>",
// "static token sha256:<first 16 hex digits>" or "none"; never a secret).
struct FabricBinding {
    QString endpoint;
    QString identity;
    bool operator==(const FabricBinding &) const = default;

    static FabricBinding of(const FabricConfig &config);
    // What differs from `before`, in words ("the Fabric endpoint changed from … to …"); empty
    // when nothing does.
    QString changesSince(const FabricBinding &before) const;
};

class BrokerContext : public BrokerEvents {
    Q_OBJECT
public:
    BrokerContext(ProposalStore *store, FabricClient *fabric, BrokerSettings settings, Clock *clock,
                  QObject *parent = nullptr);
    ~BrokerContext() override;

    ProposalStore *store() const { return m_store; }
    // Null once the Fabric client is gone.
    FabricClient *fabric() const;
    const BrokerSettings &settings() const { return m_settings; }
    // The settings changed while running (broker/PolicyApply's LiveSettings): the next step of
    // every operation reads them.
    // Emits settingsChanged(): a waiting team confirm adopts a revoked key or another quorum.
    void setSettings(const BrokerSettings &settings)
    {
        m_settings = settings;
        emit settingsChanged();
    }
    Clock *clock() const { return m_clock; }
    qint64 nowMs() const { return m_clock->nowMs(); }

    const ChangeCompiler &compiler() const { return *m_compiler; }
    void setCompiler(const ChangeCompiler *compiler); // nullptr: the real ChangeCompiler
    Approver *approver() const { return m_approver; }
    void setApprover(Approver *approver); // nullptr: client elicitation
    AuditSink *auditSink() const { return m_audit; }
    // Also seeds the spend ledger from the log when the sink is an AuditLog (docs/policy.md).
    void setAuditSink(AuditSink *sink);
    // The last 24 hours of creates and the reservations of confirms waiting for a person.
    SpendLedger *ledger() { return &m_ledger; }
    // The process's metrics (docs/observability.md), or null. Decisions and creates are counted
    // here, not through the session: a create may outlive its client's session.
    void setTelemetry(telemetry::Telemetry *telemetry) { m_telemetry = telemetry; }
    // Team confirms waiting for their quorum (TeamConfirmFlow registers itself while it lives),
    // for the quorum progress gauges.
    void addTeamWait(QObject *flow) { m_teamWaits.append(flow); }
    QList<QObject *> teamWaits();
    telemetry::Telemetry *telemetry() const { return m_telemetry.data(); }
    // Team mode (docs/team.md): the team's queue, or null (single-user). Not owned.
    team::TeamQueue *team() const;
    void setTeam(team::TeamQueue *queue);
    // The rows this broker published to the team's queue, by the token's SHA-256 (hex): a
    // consumed row that is not the one published for its token is another proposal (an owner
    // can move a token hash onto an older, approved row). Bounded; expired entries are dropped.
    struct PublishedTeamRow {
        QByteArray id;
        qint64 expiresAtMs = 0;
    };
    void rememberPublished(const QString &tokenSha256, const PublishedTeamRow &row);
    std::optional<PublishedTeamRow> takePublished(const QString &tokenSha256);
    // The multi-round-trip confirms waiting for their retry (2026-07-28 era).
    ConfirmStateStore *confirmStates() { return &m_confirmStates; }

    // The one place that records an audit event: the sink first, then the auditEvent signal
    // (synchronously, before the step's effect proceeds). False when the sink could not make it
    // durable.
    bool audit(AuditEventType type, const QJsonObject &record);

    // For the GUI: the confirm flow's progress for one proposal.
    void reportApprovalStarted(const Proposal &proposal, const QString &channel);
    void reportApprovalFinished(const Proposal &proposal, const QString &status);
    void reportExecutionFinished(const Proposal &proposal, bool executed, const QString &outcome);
    // A confirm entered a stage (ConfirmState): emits confirmStage.
    void reportConfirmStage(const Proposal &proposal, ConfirmStage stage);

    // Creates approved and handed to Fabric whose outcome is not in yet.
    void addInFlight(ConfirmOperation *operation);
    void removeInFlight(ConfirmOperation *operation);
    // Emits createsInFlightChanged(createsInFlight()).
    void reportCreatesInFlight();
    int createsInFlight() const;
    QStringList createsInFlightTargets() const;

    bool isShuttingDown() const { return m_shuttingDown; }
    void beginShutdown();
    // Ends every create still in flight now (see MutationBroker::abandonInFlight).
    void abandonInFlight(const QString &reason);

signals:
    // The other signals (auditEvent, approvalStarted, …) are BrokerEvents'.
    void settingsChanged();

private:
    void confirmStateTimedOut(const PendingConfirm &record);
    void confirmStateEnded(const PendingConfirm &record, const QString &reason);
    void fabricConfigChanged();

    ProposalStore *m_store;
    QPointer<FabricClient> m_fabric;
    BrokerSettings m_settings;
    Clock *m_clock;
    ChangeCompiler m_defaultCompiler;
    const ChangeCompiler *m_compiler;
    std::unique_ptr<Approver> m_defaultApprover;
    Approver *m_approver;
    AuditSink *m_audit = nullptr;
    QList<QPointer<ConfirmOperation>> m_executing; // creates in flight, oldest first
    bool m_shuttingDown = false;
    ConfirmStateStore m_confirmStates;
    SpendLedger m_ledger;
    QPointer<telemetry::Telemetry> m_telemetry;
    QList<QPointer<QObject>> m_teamWaits;
    FabricBinding m_binding;  // the Fabric client's, as last seen
    QPointer<QObject> m_team; // a team::TeamQueue
    QHash<QString, PublishedTeamRow> m_published;
};

} // namespace fb
