// ProposeOperation in team mode (docs/team.md, "The flow"): the proposal is published to the
// team's queue (the token's SHA-256 only, never the token) before the agent gets the token; a
// database that cannot take it means no token at all.
#include "broker/ProposeOperation.h"

#include "broker/PolicyGate.h"
#include "broker/ResultJson.h"
#include "broker/TeamMode.h"
#include "core/TokenDigest.h"
#include "mcp/ToolCall.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace fb {

void ProposeOperation::publishToTeam()
{
    team::TeamQueue *queue = context()->team();
    const Proposal &stored = m_added.proposal;
    const int required = teamRequired(context()->settings().policy, m_priceResult);
    const std::optional<Money> monthly = monthlyPrice(m_priceResult);
    const bool priced = m_priceResult.value(u"priced"_s).toBool();
    QPointer<ProposeOperation> self(this);
    queue->publish(
        changeTypeName(m_type), m_request.body,
        teamBindingJson(m_binding.endpoint, m_binding.identity),
        priced ? std::optional<QJsonObject>(m_priceResult) : std::nullopt,
        QJsonDocument(m_dryRunResult.body.toObject()).toJson(QJsonDocument::Compact),
        TokenDigest::of(stored.token).bytes(),
        std::max<qint64>(1000, stored.expiresAtMs - context()->nowMs()),
        [self, required, tokenSha = tokenDigest(stored.token), expiresAtMs = stored.expiresAtMs](
            const std::optional<QByteArray> &id, const QString &error) {
            if (!self)
                return;
            if (!self->context())
                return self->finishError(u"the broker shut down; no token was given out"_s);
            if (!id) {
                // The token exists only here and was never shown: used up, so it never works.
                self->context()->store()->consume(self->m_added.proposal.token);
                return self->failTeam(error);
            }
            self->context()->rememberPublished(tokenSha, {*id, expiresAtMs});
            self->m_team = {{u"proposal_id"_s, QString::fromLatin1(*id)},
                            {u"required"_s, required}};
            self->finishProposed();
        },
        monthly, teamClientLabel(call()->client()));
}

void ProposeOperation::failTeam(const QString &reason)
{
    const QString message =
        u"Team mode: the team database cannot take proposals (%1). Fabric's dry run validated "
        "the request, but no token was minted: a proposal the team cannot see cannot be "
        "approved. Propose again when the database is back."_s.arg(reason.left(500));
    const QJsonObject structured{
        {u"error"_s, QJsonObject{{u"kind"_s, u"team_unavailable"_s}, {u"message"_s, message}}},
        {u"change_type"_s, changeTypeName(m_type)},
        {u"target"_s, m_target},
        {u"request_sha256"_s, m_request.sha256Hex()}};
    context()->audit(AuditEventType::ProposeFailed, structured);
    finishStructured(structured, result::renderText(message, structured), true);
}

} // namespace fb
