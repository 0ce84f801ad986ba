#pragma once
// TeamMode: what the broker's two operations share in team mode (docs/team.md, "The flow"): the
// quorum a proposal needs under the current policy, the binding as the team's row records it, and
// the comparison of a consumed row with this broker's own proposal. Pure functions.
#include "broker/BrokerContext.h"
#include "core/CompiledRequest.h"
#include "core/TeamPolicy.h"
#include "team/TeamQueue.h"

#include <QJsonObject>
#include <QString>

namespace fb {

// team.quorum's count for a change with this price context (1 without the key).
int teamRequired(const Policy &policy, const QJsonObject &priceContext);
// The keys whose signed approvals count (team.approver_keys of the effective policy); nullopt
// when the policy does not set it (approvals need not be signed). A value that does not parse
// counts as an empty list: no approval counts (the policy loader refuses such a file anyway).
std::optional<QList<ApproverKey>> teamApproverKeys(const Policy &policy);
// {"fabric_endpoint": ..., "credential_identity": ...}: what the row's binding holds.
QJsonObject teamBindingJson(const QString &endpoint, const QString &credentialIdentity);
// What differs between the consumed row and this broker's proposal (change type, the request
// bytes under the binding formula, the Fabric binding, Fabric's dry-run response, the price), in
// words; empty when they agree.
QString teamRowMismatch(const team::TeamProposal &row, const Proposal &proposal);
// The MCP client as the row records it: "name version", bounded.
QString teamClientLabel(const mcp::ClientInfo &client);

} // namespace fb
