#include "team/TeamQueue.h"

#include "core/TeamPolicy.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPointer>

Q_LOGGING_CATEGORY(lcTeamQueue, "fabricbroker.team.queue")

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

const QByteArray Channel = "fabric_team";

// The columns every statement that returns proposals selects, in proposalFromRow's names.
const QByteArray Columns =
    "id, change_type, request, encode(request_sha256, 'hex') AS request_sha256, "
    "binding::text AS binding, price::text AS price, dry_run::text AS dry_run, proposer, os_user, "
    "host, mcp_client, encode(token_sha256, 'hex') AS token_sha256, "
    "(extract(epoch FROM created_at) * 1000)::bigint AS created_ms, "
    "(extract(epoch FROM expires_at) * 1000)::bigint AS expires_ms, state, "
    "(expires_at > now()) AS live";

QJsonObject objectOf(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

QString failed(const PgResult<PgRows> &r)
{
    return r.error.sqlState.isEmpty() ? r.error.message
                                      : u"the team database refused it: "_s + r.error.text();
}

} // namespace

QJsonObject QuorumCount::toJson() const
{
    return {{u"required"_s, required},
            {u"approvals"_s, QJsonArray::fromStringList(counted)},
            {u"not_counted"_s, notCounted},
            {u"denied_by"_s, deniedBy.isEmpty() ? QJsonValue() : QJsonValue(deniedBy)},
            {u"proposer_acknowledged"_s, proposerAcknowledged}};
}

QuorumCount countQuorum(const TeamProposal &proposal, const QList<TeamApproval> &approvals,
                        int required)
{
    QuorumCount q;
    q.required = std::max(1, required);
    auto skip = [&](const TeamApproval &a, const QString &why) {
        q.notCounted.append(QJsonObject{{u"approver"_s, a.approver}, {u"why"_s, why}});
    };
    for (const TeamApproval &a : approvals) {
        if (a.decision == u"deny") {
            if (q.deniedBy.isEmpty())
                q.deniedBy = a.approver;
            continue;
        }
        if (a.decision != u"approve")
            continue;
        if (a.approver == proposal.proposer)
            skip(a, u"the proposer's own role"_s);
        else if (a.osUser == proposal.osUser && a.host == proposal.host)
            skip(a, u"the proposing OS user on the proposing host"_s);
        else if (q.counted.contains(a.approver))
            skip(a, u"this role already counted"_s);
        else
            q.counted.append(a.approver);
    }
    return q;
}

std::optional<TeamProposal> proposalFromRow(const PgRows &rows, int row)
{
    if (row < 0 || row >= rows.rowCount())
        return std::nullopt;
    auto text = [&](const char *c) { return QString::fromUtf8(rows.value(row, c)); };
    TeamProposal p;
    p.id = rows.value(row, "id");
    p.changeType = text("change_type");
    p.request = rows.value(row, "request");
    p.requestSha256 = rows.value(row, "request_sha256");
    p.binding = objectOf(rows.value(row, "binding"));
    const QByteArray price = rows.value(row, "price");
    if (!price.isNull())
        p.price = objectOf(price);
    p.dryRun = rows.value(row, "dry_run");
    p.proposer = text("proposer");
    p.osUser = text("os_user");
    p.host = text("host");
    p.mcpClient = text("mcp_client");
    p.tokenSha256 = rows.value(row, "token_sha256");
    p.createdMs = rows.value(row, "created_ms").toLongLong();
    p.expiresMs = rows.value(row, "expires_ms").toLongLong();
    p.state = text("state");
    p.live = rows.value(row, "live") == "t";
    if (p.id.isEmpty() || p.state.isEmpty())
        return std::nullopt;
    return p;
}

TeamQueue::TeamQueue(const QString &uri, const TeamIdentity &identity, QObject *parent)
    : QObject(parent)
    , m_uri(uri)
    , m_identity(identity)
{
    connect(&m_db, &PgAsync::connected, this, [this] {
        emit availabilityChanged(true, {});
        recover();
    });
    connect(&m_db, &PgAsync::disconnected, this,
            [this](const QString &reason) { emit availabilityChanged(false, reason); });
    connect(&m_db, &PgAsync::notified, this, [this](const QString &, const QByteArray &payload) {
        // A uuid and nothing else; anything longer is not ours to pass on.
        if (payload.size() == 36)
            emit proposalChanged(payload);
    });
}

TeamQueue::~TeamQueue() = default;

void TeamQueue::start()
{
    const QString why = teamDatabaseUriError(m_uri);
    if (!why.isEmpty()) {
        qCWarning(lcTeamQueue).noquote() << "team.database" << why;
        emit availabilityChanged(false, u"team.database "_s + why);
        return;
    }
    m_db.open(m_uri, {QString::fromLatin1(Channel)});
}

QString TeamQueue::unavailableReason() const
{
    const QString why = teamDatabaseUriError(m_uri);
    return why.isEmpty() ? m_db.unavailableReason() : u"team.database "_s + why;
}

void TeamQueue::recover()
{
    QStringList held;
    for (const QByteArray &id : std::as_const(m_held))
        held << QString::fromLatin1(id);
    const QByteArray array = "{" + held.join(u',').toLatin1() + "}";
    QPointer<TeamQueue> self(this);
    const QList<QByteArray> params{m_identity.osUser.toUtf8(), m_identity.host.toUtf8(), array};
    auto settle = [self, params](const PgResult<PgRows> &member) {
        if (!self || !member.ok())
            return;
        self->m_approver = member.value->value(0, "approver") == "t";
        emit self->rolesKnown();
        // Only a proposer moves proposals; an approver's app has nothing to settle.
        if (member.value->value(0, "proposer") != "t")
            return;
        self->m_db.query(
            "UPDATE fabric_team.proposals SET state = CASE state WHEN 'sending' THEN 'unknown' "
            "ELSE 'cancelled' END WHERE proposer = current_user AND os_user = $1 AND host = $2 "
            "AND state IN ('consumed', 'sending') AND NOT (id = ANY ($3::uuid[])) "
            "RETURNING id, state",
            params, [self](const PgResult<PgRows> &r) {
                if (!self)
                    return;
                if (!r.ok()) {
                    qCWarning(lcTeamQueue).noquote() << "crash recovery:" << failed(r);
                    return;
                }
                for (int i = 0; i < r.value->rowCount(); ++i) {
                    const QByteArray id = r.value->value(i, "id");
                    const QString state = QString::fromLatin1(r.value->value(i, "state"));
                    qCWarning(lcTeamQueue).noquote() << "proposal" << QString::fromLatin1(id)
                                                     << "left behind by a crash:" << state;
                    emit self->recovered(id, state);
                }
            });
    };
    m_db.query("SELECT pg_has_role('fabric_proposers', 'MEMBER') AS proposer, "
               "pg_has_role('fabric_approvers', 'MEMBER') AS approver",
               {}, settle);
}

void TeamQueue::publish(const QString &changeType, const QByteArray &request,
                        const QJsonObject &binding, const std::optional<QJsonObject> &price,
                        const QByteArray &dryRun, const QByteArray &tokenSha256, qint64 ttlMs,
                        TeamDone<QByteArray> done)
{
    const QByteArray priceText =
        price ? QJsonDocument(*price).toJson(QJsonDocument::Compact) : QByteArray();
    m_db.query("INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, "
               "price, dry_run, os_user, host, mcp_client, token_sha256, expires_at) VALUES ($1, "
               "$2, sha256(convert_to($2, 'UTF8')), $3::jsonb, $4::jsonb, $5::jsonb, $6, $7, $8, "
               "decode($9, 'hex'), now() + $10::bigint * interval '1 millisecond') RETURNING id",
               {changeType.toUtf8(), request, QJsonDocument(binding).toJson(QJsonDocument::Compact),
                priceText, dryRun, m_identity.osUser.toUtf8(), m_identity.host.toUtf8(),
                m_identity.mcpClient.left(200).toUtf8(), tokenSha256.toHex(),
                QByteArray::number(ttlMs)},
               [done = std::move(done)](const PgResult<PgRows> &r) {
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   done(r.value->value(0, "id"), {});
               });
}

void TeamQueue::consume(const QByteArray &tokenSha256, TeamDone<TeamProposal> done)
{
    m_db.query("UPDATE fabric_team.proposals SET state = 'consumed' WHERE token_sha256 = "
               "decode($1, 'hex') AND state = 'pending' AND expires_at > now() RETURNING " +
                   Columns,
               {tokenSha256.toHex()}, [done = std::move(done)](const PgResult<PgRows> &r) {
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   const auto p = proposalFromRow(*r.value, 0);
                   if (!p)
                       return done(std::nullopt,
                                   u"no pending team proposal has this token (unknown, already "
                                   "used or expired)"_s);
                   done(p, {});
               });
}

void TeamQueue::transition(const QByteArray &id, const QString &from, const QString &to,
                           TeamDone<bool> done)
{
    m_db.query("UPDATE fabric_team.proposals SET state = $3 WHERE id = $1::uuid AND state = $2",
               {id, from.toUtf8(), to.toUtf8()},
               [done = std::move(done), from](const PgResult<PgRows> &r) {
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   if (r.value->affected != 1)
                       return done(false, u"the proposal is no longer %1"_s.arg(from));
                   done(true, {});
               });
}

void TeamQueue::read(const QByteArray &id, TeamDone<Snapshot> done)
{
    m_db.query(
        "SELECT p.state, (p.expires_at > now()) AS live, coalesce((SELECT json_agg(json_build_"
        "object('approver', a.approver, 'decision', a.decision, 'os_user', a.os_user, 'host', "
        "a.host) ORDER BY a.decided_at, a.approver) FROM fabric_team.approvals a WHERE "
        "a.proposal_id = p.id), '[]') AS approvals FROM fabric_team.proposals p WHERE p.id = "
        "$1::uuid",
        {id}, [done = std::move(done)](const PgResult<PgRows> &r) {
            if (!r.ok())
                return done(std::nullopt, failed(r));
            if (r.value->rowCount() != 1)
                return done(std::nullopt, u"the team proposal is gone"_s);
            Snapshot s;
            s.state = QString::fromUtf8(r.value->value(0, "state"));
            s.live = r.value->value(0, "live") == "t";
            const QJsonArray list = QJsonDocument::fromJson(r.value->value(0, "approvals")).array();
            for (const QJsonValue &v : list) {
                const QJsonObject o = v.toObject();
                s.approvals << TeamApproval{
                    o.value(u"approver"_s).toString(), o.value(u"decision"_s).toString(),
                    o.value(u"os_user"_s).toString(), o.value(u"host"_s).toString()};
            }
            done(s, {});
        });
}

void TeamQueue::listOpen(TeamDone<QList<TeamProposal>> done)
{
    m_db.query("SELECT " + Columns +
                   " FROM fabric_team.proposals WHERE (state IN ('pending', 'consumed') AND "
                   "expires_at > now()) OR (state IN ('sending', 'unknown') AND "
                   "state_changed_at > now() - interval '1 day') ORDER BY created_at LIMIT 200",
               {}, [done = std::move(done)](const PgResult<PgRows> &r) {
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
                       const QByteArray &dialogSha256, TeamDone<bool> done)
{
    m_db.query("INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256, os_user, "
               "host) VALUES ($1::uuid, $2, decode($3, 'hex'), $4, $5)",
               {id, decision.toUtf8(), dialogSha256.toHex(), m_identity.osUser.toUtf8(),
                m_identity.host.toUtf8()},
               [done = std::move(done)](const PgResult<PgRows> &r) {
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   done(true, {});
               });
}

} // namespace fb::team
