#include "broker/TeamMode.h"

#include "core/TeamPolicy.h"
#include "mcp/ClientInfo.h"
#include "team/ApprovalStatement.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace fb {

QJsonObject teamBindingJson(const QString &endpoint, const QString &credentialIdentity)
{
    return {{u"fabric_endpoint"_s, endpoint}, {u"credential_identity"_s, credentialIdentity}};
}

QString teamRowMismatch(const team::TeamProposal &row, const Proposal &proposal)
{
    if (row.changeType != changeTypeName(proposal.changeType))
        return u"the team's row is a %1, this proposal a %2"_s.arg(
            row.changeType.left(40), changeTypeName(proposal.changeType));
    // The row's request_sha256 is the body's alone (the database checks it); the binding covers
    // the change type too, so the bound hash is recomputed from the row's bytes.
    const QString rowBinding = requestSha256(proposal.changeType, row.request);
    if (rowBinding != proposal.requestSha256)
        return u"the team's row holds request %1, this proposal is bound to %2"_s.arg(
            rowBinding, proposal.requestSha256);
    if (row.binding != teamBindingJson(proposal.fabricEndpoint, proposal.credentialIdentity))
        return u"the team's row was proposed against another Fabric endpoint or credentials"_s;
    // What the approvers are shown and sign beside the request: Fabric's dry-run response (in
    // every statement) and the price. The row's must be what this broker published, compared in
    // their RFC 8785 forms (jsonb keeps neither the bytes nor the key order).
    const auto canonical = [](const QJsonObject &o) {
        return team::canonicalJsonSha256Hex(QJsonDocument(o).toJson(QJsonDocument::Compact));
    };
    const QByteArray rowDryRun = team::canonicalJsonSha256Hex(row.dryRun);
    if (rowDryRun.isEmpty() ||
        rowDryRun != canonical(proposal.context.value(u"validated"_s).toObject()))
        return u"the team's row holds another dry-run response than Fabric gave this broker"_s;
    const QJsonObject price = proposal.context.value(u"price"_s).toObject();
    const bool priced = price.value(u"priced"_s).toBool();
    if (priced != row.price.has_value() || (priced && canonical(*row.price) != canonical(price)))
        return u"the team's row holds another price than this broker computed"_s;
    return {};
}

QString teamClientLabel(const mcp::ClientInfo &client)
{
    const QString label =
        client.version.isEmpty() ? client.name : client.name + u' ' + client.version;
    return label.left(200);
}

} // namespace fb
