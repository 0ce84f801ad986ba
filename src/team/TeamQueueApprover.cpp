// TeamQueue's approver side (docs/team.md, "The queue"): the fair listing of open proposals,
// decisions, resolutions of unknown outcomes, and the rejection reports shown with them.
#include "team/TeamQueue.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

QString failed(const PgResult<PgRows> &r)
{
    return teamFailure(r);
}

// The last parameters of a decision's and of a resolution's row: os_user, host, statement,
// signature (hex), public_key (hex). NULLs for an unsigned row: a text parameter given as a null
// QByteArray is SQL NULL.
QList<QByteArray> signerParams(const TeamIdentity &identity,
                               const std::optional<TeamQueue::Signature> &signedBy)
{
    if (!signedBy)
        return {identity.osUser.toUtf8(), identity.host.toUtf8(), {}, {}, {}};
    return {identity.osUser.toUtf8(), identity.host.toUtf8(), signedBy->statement,
            signedBy->signature.toHex(), signedBy->publicKey.toHex()};
}

} // namespace

void TeamQueue::listOpen(int page, TeamDone<QList<TeamProposal>> done)
{
    // What is open to a decision now comes first, then what the team must see (an unknown
    // outcome until a person resolves it, however old; left sending or resolved in the last
    // day). Within each, a proposer's newest PerProposer come before anyone's older ones, so
    // one proposer's junk cannot push another's proposal off the first page; newest first.
    const QByteArray open = "(state IN ('pending', 'consumed') AND expires_at > now())";
    m_db.query("SELECT * FROM (SELECT " + proposalColumns() + ", " + resolutionColumn("proposals") +
                   ", created_at AS created, " + open +
                   " AS open, row_number() OVER (PARTITION BY proposer, " + open +
                   " ORDER BY created_at DESC, id) AS nth FROM fabric_team.proposals WHERE " +
                   open +
                   " OR state = 'unknown' OR (state = 'sending' AND state_changed_at > now() - "
                   "interval '1 day') OR EXISTS (SELECT FROM fabric_team.resolutions r WHERE "
                   "r.proposal_id = proposals.id AND r.resolved_at > now() - interval '1 day')) o "
                   "ORDER BY o.open DESC, (o.nth > $1::int), o.created DESC, o.id LIMIT $2::int "
                   "OFFSET $3::int",
               {QByteArray::number(PerProposer), QByteArray::number(PageSize),
                QByteArray::number(std::max(0, page) * PageSize)},
               [done = std::move(done)](const PgResult<PgRows> &r) {
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   QList<TeamProposal> out;
                   for (int i = 0; i < r.value->rowCount(); ++i)
                       if (const auto p = proposalFromRow(*r.value, i))
                           out << *p;
                   done(out, {});
               });
}

void TeamQueue::decide(const QByteArray &id, const QString &decision,
                       const QByteArray &dialogSha256, TeamDone<bool> done,
                       const std::optional<Signature> &signedBy)
{
    m_db.query("INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256, os_user, "
               "host, statement, signature, public_key) VALUES ($1::uuid, $2, decode($3, 'hex'), "
               "$4, $5, $6, decode($7, 'hex'), decode($8, 'hex'))",
               QList<QByteArray>{id, decision.toUtf8(), dialogSha256.toHex()} +
                   signerParams(m_identity, signedBy),
               [done = std::move(done)](const PgResult<PgRows> &r) {
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   done(true, {});
               });
}

void TeamQueue::resolve(const QByteArray &id, const QString &outcome, const QString &uuid,
                        const QByteArray &dialogSha256, TeamDone<bool> done,
                        const std::optional<Signature> &signedBy)
{
    // NULLs for what is not given: a text parameter given as a null QByteArray is SQL NULL. The
    // database fills in the resolver (current_user) and the time, checks who may resolve it and
    // moves the proposal on; its notify trigger wakes every app.
    m_db.query("INSERT INTO fabric_team.resolutions (proposal_id, outcome, uuid, dialog_sha256, "
               "os_user, host, statement, signature, public_key) VALUES ($1::uuid, $2, $3, "
               "decode($4, 'hex'), $5, $6, $7, decode($8, 'hex'), decode($9, 'hex'))",
               QList<QByteArray>{id, outcome.toUtf8(),
                                 uuid.isEmpty() ? QByteArray() : uuid.toLower().toUtf8(),
                                 dialogSha256.toHex()} +
                   signerParams(m_identity, signedBy),
               [done = std::move(done)](const PgResult<PgRows> &r) {
                   if (!r.ok()) {
                       QString why = failed(r);
                       if (r.error.sqlState == u"42501"_s)
                           why += u" (only an approver other than the proposer's role resolves "
                                  "a proposal whose outcome is unknown, once)"_s;
                       else if (r.error.sqlState == u"23505"_s)
                           why += u" (it is already resolved)"_s;
                       return done(std::nullopt, why);
                   }
                   done(true, {});
               });
}

void TeamQueue::rejections(const QByteArray &id, TeamDone<QJsonArray> done)
{
    m_db.query(
        "SELECT a.actor, a.detail FROM fabric_team.team_audit a JOIN fabric_team.proposals p "
        "ON p.id = a.proposal_id AND p.proposer = a.actor WHERE a.event = 'approval_rejected' "
        "AND a.proposal_id = $1::uuid ORDER BY a.seq LIMIT 50",
        {id}, [done = std::move(done)](const PgResult<PgRows> &r) {
            if (!r.ok())
                return done(std::nullopt, failed(r));
            QJsonArray out;
            for (int i = 0; i < r.value->rowCount(); ++i) {
                const QJsonObject d = teamObjectOf(r.value->value(i, "detail"));
                out.append(QJsonObject{
                    {u"approval_id"_s, d.value(u"approval_id"_s).toString().left(64)},
                    {u"approver"_s, d.value(u"approver"_s).toString().left(64)},
                    {u"reason"_s, d.value(u"reason"_s).toString().left(1000)},
                    {u"reported_by"_s, QString::fromUtf8(r.value->value(i, "actor")).left(64)}});
            }
            done(out, {});
        });
}

} // namespace fb::team
