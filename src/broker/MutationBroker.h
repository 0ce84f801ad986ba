#pragma once
// MutationBroker: the Safe Mutation Broker's two tools, fabric_propose_change and
// fabric_confirm_change, in the opt-in "mutate" toolset. Agents propose, Fabric's dry run
// decides, a person confirms; the confirm sends exactly the bytes the dry run validated, once.
#include "broker/Approver.h"
#include "broker/BrokerContext.h"
#include "broker/BrokerSettings.h"
#include "core/AuditSink.h"
#include "core/ChangeSpec.h"
#include "core/ProposalStore.h"

#include <QJsonObject>
#include <QObject>

#include <memory>

namespace fb::mcp {
class ToolRegistry;
class ToolCall;
} // namespace fb::mcp

namespace fb {

class FabricClient;
namespace team {
class TeamQueue;
}
struct FabricConfig;

// The signals (auditEvent, approvalStarted, …) are BrokerEvents', forwarded from the context.
class MutationBroker : public BrokerEvents {
    Q_OBJECT
public:
    MutationBroker(ProposalStore *store, FabricClient *fabric, BrokerSettings settings,
                   Clock *clock = Clock::system(), QObject *parent = nullptr);
    ~MutationBroker() override;

    void registerTools(mcp::ToolRegistry *registry);
    // The channel that asks people; not owned. Defaults to client elicitation.
    void setApprover(Approver *approver);
    Approver *approver() const;
    // Tests inject a drifting compiler; not owned. Defaults to the real ChangeCompiler.
    void setCompiler(const ChangeCompiler *compiler);
    // Durable audit trail; not owned. Without one, audit events are only emitted as signals.
    void setAuditSink(AuditSink *sink);
    // Team mode (docs/team.md): proposals are published to and confirmed through this queue;
    // not owned. Null: single-user.
    void setTeam(team::TeamQueue *queue);
    // Metrics of decisions and creates (docs/observability.md); not owned, null = none.
    void setTelemetry(telemetry::Telemetry *telemetry);
    // Records one audit event (sink first, then the auditEvent signal). False when the sink
    // could not make it durable.
    bool audit(AuditEventType type, const QJsonObject &record);

    const BrokerSettings &settings() const;
    // Only LiveSettings (broker/PolicyApply) calls this: the one path from a setting here.
    void setSettings(const BrokerSettings &settings);
    ProposalStore *store() const;
    FabricClient *fabric() const;

    void propose(mcp::ToolCall *call);
    void confirm(mcp::ToolCall *call);

    // Where a create goes and as whom, recorded with each proposal and compared at confirm:
    // the endpoint URL (no user info, no trailing slash) and the credential identity ("client id
    // <id>", "static token sha256:<first 16 hex digits>" or "none"; never a secret).
    using FabricBinding = fb::FabricBinding;
    static FabricBinding fabricBinding(const FabricConfig &config);
    // Creates approved and handed to Fabric whose outcome is not in yet, and each one's name
    // and target line ("<name> (<target>)").
    int createsInFlight() const;
    QStringList createsInFlightTargets() const;
    // The spend ledger's last 24 hours now (executed and reserved, per currency), for metrics.
    SpendLedger::Totals spendTotals() const;
    // Team confirms waiting for their quorum: approvals counted and required of each.
    struct QuorumProgress {
        QString requestSha256;
        int counted = 0;
        int required = 0;
    };
    QList<QuorumProgress> teamQuorumProgress() const;
    // The process is ending: from now on no create is sent (a confirm that reaches the send
    // step ends executed:false, outcome "not_sent", reason "shutting_down"); creates already in
    // flight carry on until their outcome arrives or abandonInFlight() is called.
    void beginShutdown();
    bool isShuttingDown() const;
    // Ends every create still in flight now (the shutdown grace is over): one whose request
    // has not left is aborted (outcome "not_sent"); one that left is recorded as sent with
    // outcome "unknown" and `reason` in its "executed" audit record. Either way the record is
    // written and the client answered if its session is still open. Also run by the destructor.
    void abandonInFlight(const QString &reason);

    static QJsonObject proposeOutputSchema();
    static QJsonObject confirmInputSchema();
    static QJsonObject confirmOutputSchema();
    // "Tokens expire after <TTL>; at most <capacity> are pending." from the settings, as the
    // tool descriptions and the server instructions say it.
    static QString tokenLimitsText(const BrokerSettings &settings);
    // 600000 -> "10 minutes", 90000 -> "90 seconds", 1500 -> "1500 ms".
    static QString durationText(qint64 ms);

private:
    // The operations' shared state and the source of the BrokerEvents signals (forwarded).
    std::unique_ptr<BrokerContext> m_context;
};

} // namespace fb
