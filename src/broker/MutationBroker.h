#pragma once
// MutationBroker: the Safe Mutation Broker's two tools, fabric_propose_change and
// fabric_confirm_change, in the opt-in "mutate" toolset. Agents propose, Fabric's dry run
// decides, a person confirms; the confirm sends exactly the bytes the dry run validated, once.
#include "broker/Approver.h"
#include "broker/BrokerSettings.h"
#include "core/AuditSink.h"
#include "core/ChangeSpec.h"
#include "core/ProposalStore.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

namespace fb::mcp {
class ToolRegistry;
class ToolCall;
} // namespace fb::mcp

namespace fb {

class FabricClient;
struct FabricConfig;

class MutationBroker : public QObject {
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
    // Records one audit event (sink first, then the auditEvent signal). False when the sink
    // could not make it durable.
    bool audit(const QString &type, const QJsonObject &record);

    const BrokerSettings &settings() const { return m_settings; }
    ProposalStore *store() const { return m_store; }
    FabricClient *fabric() const { return m_fabric; }

    void propose(mcp::ToolCall *call);
    void confirm(mcp::ToolCall *call);

    // Where a create goes and as whom, recorded with each proposal and compared at confirm:
    // the endpoint URL (no user info, no trailing slash) and the credential identity ("client id
    // <id>", "static token sha256:<first 16 hex digits>" or "none"; never a secret).
    struct FabricBinding {
        QString endpoint;
        QString identity;
        bool operator==(const FabricBinding &) const = default;
    };
    static FabricBinding fabricBinding(const FabricConfig &config);

    static QJsonObject proposeOutputSchema();
    static QJsonObject confirmInputSchema();
    static QJsonObject confirmOutputSchema();

signals:
    // Every step worth an audit record, emitted synchronously *before* the step's effect
    // proceeds, so a durable audit writer connected directly holds up the create until its
    // "approved"/"sending" record is on disk. type: proposed, propose_failed, redemption,
    // approval_requested, decision, sending, executed.
    void auditEvent(const QString &type, const QJsonObject &record);
    // For the GUI: the confirm flow's progress for one proposal (by request hash).
    void approvalStarted(const fb::Proposal &proposal, const QString &channel);
    void approvalFinished(const fb::Proposal &proposal, const QString &status);
    void executionFinished(const fb::Proposal &proposal, bool executed, const QString &outcome);

private:
    friend class ProposeOperation;
    friend class ConfirmOperation;
    ProposalStore *m_store;
    FabricClient *m_fabric;
    BrokerSettings m_settings;
    Clock *m_clock;
    ChangeCompiler m_defaultCompiler;
    const ChangeCompiler *m_compiler;
    std::unique_ptr<Approver> m_defaultApprover;
    Approver *m_approver;
    AuditSink *m_audit = nullptr;
};

} // namespace fb
