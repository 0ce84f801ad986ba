#pragma once
// TeamMode: what the broker's two operations share in team mode (docs/team.md, "The flow"): the
// quorum a proposal needs under the current policy, the binding as the team's row records it, and
// the comparison of a consumed row with this broker's own proposal. Pure functions.
#include "broker/BrokerContext.h"
#include "core/CompiledRequest.h"
#include "core/TeamPolicy.h" // teamRequired: team.quorum's count for a price
#include "team/TeamQueue.h"

#include <QJsonObject>
#include <QString>

namespace fb {

// Why team mode refuses every proposal and confirm while the administrator's policy lists no
// team.approver_keys (issue #34): an unsigned approval never counts.
inline const QString TeamKeysMissing = QStringLiteral(
    "team.approver_keys is not set by the administrator's policy: in team mode only signed "
    "approvals count, so no proposal could ever be approved (docs/team.md, \"Who turns team "
    "mode on\")");
// {"fabric_endpoint": ..., "credential_identity": ...}: what the row's binding holds.
QJsonObject teamBindingJson(const QString &endpoint, const QString &credentialIdentity);
// What differs between the consumed row and this broker's proposal (change type, the request
// bytes under the binding formula, the Fabric binding, Fabric's dry-run response, the price), in
// words; empty when they agree.
QString teamRowMismatch(const team::TeamProposal &row, const Proposal &proposal);
// The MCP client as the row records it: "name version", bounded.
QString teamClientLabel(const mcp::ClientInfo &client);

} // namespace fb
