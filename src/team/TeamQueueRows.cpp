#include "team/TeamQueueRows.h"

#include <QJsonDocument>
#include <QSysInfo>

#include <pwd.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

// The columns every statement that returns proposals selects, in proposalFromRow's names.
const QByteArray Columns =
    "id, change_type, request, encode(request_sha256, 'hex') AS request_sha256, "
    "binding::text AS binding, price::text AS price, dry_run::text AS dry_run, proposer, os_user, "
    "host, mcp_client, encode(token_sha256, 'hex') AS token_sha256, "
    "(extract(epoch FROM created_at) * 1000)::bigint AS created_ms, "
    "(extract(epoch FROM expires_at) * 1000)::bigint AS expires_ms, state, "
    "(expires_at > now()) AS live";

} // namespace

QString teamFailure(const PgResult<PgRows> &r)
{
    return r.error.sqlState.isEmpty() ? r.error.message
                                      : u"the team database refused it: "_s + r.error.text();
}

QJsonObject teamObjectOf(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

TeamIdentity TeamIdentity::local()
{
    QString user;
    if (const passwd *pw = getpwuid(geteuid()); pw && pw->pw_name)
        user = QString::fromLocal8Bit(pw->pw_name);
    if (user.isEmpty())
        user = u"uid %1"_s.arg(geteuid());
    QString host = QSysInfo::machineHostName();
    if (host.isEmpty())
        host = u"localhost"_s;
    return TeamIdentity{user.left(128), host.left(128), {}};
}

QJsonObject QuorumCount::toJson() const
{
    return {{u"required"_s, required},
            {u"approvals"_s, QJsonArray::fromStringList(counted)},
            {u"not_counted"_s, notCounted},
            {u"denied_by"_s, deniedBy.isEmpty() ? QJsonValue() : QJsonValue(deniedBy)},
            {u"proposer_acknowledged"_s, proposerAcknowledged}};
}

QuorumCount countQuorum(const TeamProposal &proposal, const QList<TeamApproval> &approvals,
                        int required, const std::function<QString(const TeamApproval &)> &rejects)
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
        else if (const QString why = rejects ? rejects(a) : QString(); !why.isEmpty())
            q.notCounted.append(QJsonObject{{u"approver"_s, a.approver},
                                            {u"why"_s, why},
                                            {u"approval_id"_s, QString::fromLatin1(a.id)},
                                            {u"rejected"_s, true}});
        else
            q.counted.append(a.approver);
    }
    return q;
}

QByteArray proposalColumns()
{
    return Columns;
}

QByteArray resolutionColumn(const QByteArray &proposals)
{
    return "(SELECT json_build_object('id', r.id, 'resolver', r.resolver, 'outcome', r.outcome, "
           "'uuid', r.uuid, 'dialog_sha256', encode(r.dialog_sha256, 'hex'), 'resolved_ms', "
           "(extract(epoch FROM r.resolved_at) * 1000)::bigint, 'os_user', r.os_user, 'host', "
           "r.host, 'statement', r.statement, 'signature', encode(r.signature, 'hex'), "
           "'public_key', encode(r.public_key, 'hex'))::text FROM fabric_team.resolutions r WHERE "
           "r.proposal_id = " +
           proposals + ".id) AS resolution";
}

std::optional<TeamResolution> resolutionFromJson(const QByteArray &json)
{
    if (json.isNull())
        return std::nullopt;
    const QJsonObject o = teamObjectOf(json);
    auto text = [&o](const char *key) { return o.value(QLatin1StringView(key)).toString(); };
    auto hex = [&](const char *key) { return QByteArray::fromHex(text(key).toLatin1()); };
    TeamResolution r;
    r.id = text("id").toLatin1();
    r.resolver = text("resolver");
    r.outcome = text("outcome");
    r.uuid = text("uuid");
    r.dialogSha256 = hex("dialog_sha256");
    r.resolvedMs = static_cast<qint64>(o.value(u"resolved_ms"_s).toDouble());
    r.osUser = text("os_user");
    r.host = text("host");
    r.statement = text("statement").toUtf8();
    r.signature = hex("signature");
    r.publicKey = hex("public_key");
    if (r.id.isEmpty() || r.outcome.isEmpty())
        return std::nullopt;
    return r;
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
    p.binding = teamObjectOf(rows.value(row, "binding"));
    const QByteArray price = rows.value(row, "price");
    if (!price.isNull())
        p.price = teamObjectOf(price);
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
    p.resolution = resolutionFromJson(rows.value(row, "resolution"));
    if (p.id.isEmpty() || p.state.isEmpty())
        return std::nullopt;
    return p;
}

} // namespace fb::team
