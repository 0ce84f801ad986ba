#include "broker/TeamProposeStep.h"

#include "broker/PolicyGate.h"
#include "broker/TeamMode.h"
#include "core/TokenDigest.h"
#include "mcp/ClientInfo.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace fb {

TeamProposeStep::TeamProposeStep(BrokerContext *context, QObject *parent)
    : QObject(parent)
    , m_context(context)
{
}

std::optional<QString> TeamProposeStep::unavailable(const BrokerContext &context)
{
    const team::TeamQueue *team = context.team();
    if (!team)
        return std::nullopt;
    if (!team->isAvailable())
        return team->unavailableReason();
    if (!context.settings().policy.teamApproverKeys)
        return TeamKeysMissing;
    return std::nullopt;
}

QJsonObject TeamProposeStep::refusal(const QString &reason)
{
    return {{u"kind"_s, u"team_unavailable"_s},
            {u"message"_s,
             u"Team mode: the team database cannot take proposals (%1). Fabric's dry run "
             "validated the request, but no token was minted: a proposal the team cannot see "
             "cannot be approved. Propose again once that is fixed."_s.arg(reason.left(500))}};
}

void TeamProposeStep::publish(const Proposal &stored, const CompiledRequest &request,
                              const mcp::ClientInfo &client,
                              std::function<void(const Published &)> done)
{
    team::TeamQueue *queue = m_context->team();
    const QJsonObject price = stored.context.value(u"price"_s).toObject();
    const int required = teamRequired(m_context->settings().policy, price);
    const std::optional<Money> monthly = monthlyPrice(price);
    const bool priced = price.value(u"priced"_s).toBool();
    QPointer<TeamProposeStep> self(this);
    queue->publish(
        changeTypeName(stored.changeType), request.body,
        teamBindingJson(stored.fabricEndpoint, stored.credentialIdentity),
        priced ? std::optional<QJsonObject>(price) : std::nullopt,
        QJsonDocument(stored.context.value(u"validated"_s).toObject())
            .toJson(QJsonDocument::Compact),
        TokenDigest::of(stored.token).bytes(),
        std::max<qint64>(1000, stored.expiresAtMs - m_context->nowMs()),
        [self, required, token = stored.token, expiresAtMs = stored.expiresAtMs,
         done = std::move(done)](const std::optional<QByteArray> &id, const QString &error) {
            if (!self)
                return;
            BrokerContext *ctx = self->m_context;
            if (!ctx)
                return done(Published{true, std::nullopt, {}});
            if (!id) {
                // The token exists only here and was never shown: used up, so it never works.
                ctx->store()->consume(token);
                return done(Published{false, std::nullopt, error});
            }
            ctx->rememberPublished(tokenDigest(token), {*id, expiresAtMs});
            done(Published{false,
                           QJsonObject{{u"proposal_id"_s, QString::fromLatin1(*id)},
                                       {u"required"_s, required}},
                           {}});
        },
        monthly, teamClientLabel(client));
}

} // namespace fb
