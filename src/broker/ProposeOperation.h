#pragma once
// ProposeOperation: one fabric_propose_change call. Validate and compile, run Fabric's dry run
// and the price lookup in parallel, name the target from Fabric, and mint the token only when
// the dry run succeeded and the operator policy allows it.
#include "broker/ToolOperation.h"
#include "core/ChangeSpec.h"
#include "core/CompiledRequest.h"
#include "core/ProposalStore.h"
#include "fabric/FabricResult.h"

#include <QHash>
#include <QList>
#include <QPointer>

namespace fb {

class FabricCall;

class ProposeOperation : public ToolOperation {
    Q_OBJECT
public:
    ProposeOperation(BrokerContext *context, mcp::ToolCall *call);
    void start() override;

protected:
    void onCancelled(const QString &reason) override;

private:
    void startNow();
    void startNameLookups();
    void abortAll();
    void failInvalid(const QList<SpecViolation> &violations);
    void maybeFinish();
    void failDryRun();
    // No token for this proposal: the result and the audit record carry error ({kind, message,
    // ...}) with the change type, the target and the request's hash.
    void failWithoutToken(const QJsonObject &error);
    // After the token is minted: the rest of the result, the audit record.
    void finishProposed();
    // Team mode (TeamProposeStep): publish the proposal, then finishProposed(); or refuse, with
    // no token, when the team database cannot take it.
    void publishToTeam();

    ChangeType m_type = ChangeType::ConnectionCreate;
    QJsonObject m_spec;
    CompiledRequest m_request;
    QString m_target;
    FabricBinding m_binding;
    QList<QPointer<FabricCall>> m_lookups;
    qsizetype m_lookupsDone = 0;
    QHash<QString, QString> m_fabricNames; // uuid -> name, from the lookups
    QHash<QString, QString> m_providers;   // service profile uuid -> provider organisation
    QPointer<FabricCall> m_dryRun;
    QPointer<FabricCall> m_price;
    telemetry::Span m_dryRunSpan; // docs/observability.md
    telemetry::Span m_priceSpan;
    FabricResult m_dryRunResult;
    QJsonObject m_priceResult;
    bool m_haveDryRun = false;
    bool m_havePrice = false;
    bool m_finished = false;
    QJsonObject m_policy;
    AddResult m_added;
    QJsonObject m_team; // {proposal_id, required} once published
};

} // namespace fb
