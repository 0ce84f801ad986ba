#include "team/TeamQueue.h"

#include "core/TeamPolicy.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPointer>
#include <QSysInfo>

#include <pwd.h>
#include <unistd.h>

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
    const QJsonObject o = objectOf(json);
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
    p.resolution = resolutionFromJson(rows.value(row, "resolution"));
    if (p.id.isEmpty() || p.state.isEmpty())
        return std::nullopt;
    return p;
}

TeamQueue::TeamQueue(const QString &uri, const TeamIdentity &identity, QObject *parent)
    : QObject(parent)
    , m_uri(uri)
    , m_identity(identity)
{
    m_settle = new QTimer(this);
    connect(m_settle, &QTimer::timeout, this, &TeamQueue::settleOrphans);
    connect(&m_db, &PgAsync::connected, this, [this] { recover(); });
    connect(&m_db, &PgAsync::disconnected, this, [this](const QString &reason) {
        m_settle->stop();
        m_settled = true;
        emit availabilityChanged(false, reason);
    });
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
        m_settled = true;
        emit availabilityChanged(false, u"team.database "_s + why);
        return;
    }
    m_db.open(m_uri, {QString::fromLatin1(Channel)});
}

void TeamQueue::whenSettled(QObject *context, int timeoutMs, std::function<void()> then)
{
    if (m_settled)
        return then();
    auto fired = std::make_shared<bool>(false);
    auto once = [fired, then = std::move(then)] {
        if (std::exchange(*fired, true))
            return;
        then();
    };
    connect(
        this, &TeamQueue::availabilityChanged, context, [once](bool, const QString &) { once(); },
        Qt::SingleShotConnection);
    QTimer::singleShot(timeoutMs, context, once);
}

QString TeamQueue::unavailableReason() const
{
    const QString why = teamDatabaseUriError(m_uri);
    if (!why.isEmpty())
        return u"team.database "_s + why;
    if (m_db.isConnected() && !m_schemaError.isEmpty())
        return m_schemaError;
    return m_db.isConnected() ? QString() : m_db.unavailableReason();
}

void TeamQueue::recover()
{
    QPointer<TeamQueue> self(this);
    m_schemaError = u"connected; the team database's schema is being checked"_s;
    // The schema first: a database this binary cannot use is no team queue at all.
    m_db.query("SELECT coalesce(max(version), 0) AS v FROM fabric_team.schema_migrations", {},
               [self](const PgResult<PgRows> &r) {
                   if (!self)
                       return;
                   const int version = r.ok() ? r.value->value(0, "v").toInt() : 0;
                   if (version < RequiredSchemaVersion) {
                       self->m_schemaError =
                           r.ok() ? u"the team database's schema is version %1; this "
                                    "fabric-broker needs %2: the schema owner runs "
                                    "`fabric-broker team init URI`"_s.arg(version)
                                        .arg(RequiredSchemaVersion)
                                  : u"the team schema cannot be read: "_s + failed(r);
                       qCWarning(lcTeamQueue).noquote() << self->m_schemaError;
                       self->m_settled = true;
                       emit self->availabilityChanged(false, self->m_schemaError);
                       return;
                   }
                   self->m_schemaError.clear();
                   self->m_settled = true;
                   emit self->availabilityChanged(true, {});
               });
    // A reconnect lost the session's sending locks: take those still in flight again.
    if (!m_sending.isEmpty()) {
        QStringList ids;
        for (const QByteArray &id : std::as_const(m_sending))
            ids << QString::fromLatin1(id);
        m_db.query("SELECT pg_advisory_lock(fabric_team.sending_lock_key(id)) FROM "
                   "unnest($1::uuid[]) AS id",
                   {"{" + ids.join(u',').toLatin1() + "}"}, [](const PgResult<PgRows> &r) {
                       if (!r.ok())
                           qCWarning(lcTeamQueue).noquote() << "sending locks:" << failed(r);
                   });
    }
    QStringList held;
    for (const QByteArray &id : std::as_const(m_held))
        held << QString::fromLatin1(id);
    const QByteArray array = "{" + held.join(u',').toLatin1() + "}";
    const QList<QByteArray> params{m_identity.osUser.toUtf8(), m_identity.host.toUtf8(), array};
    auto settle = [self, params](const PgResult<PgRows> &member) {
        if (!self)
            return;
        if (!member.ok())
            return self->settleOrphans();
        self->m_approver = member.value->value(0, "approver") == "t";
        emit self->rolesKnown();
        // Only a proposer moves its own proposals; anyone settles those of sessions gone.
        if (member.value->value(0, "proposer") != "t" || !self->m_recoversOwn)
            return self->settleOrphans();
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
        // After this process's own recovery, so that it reports what it settled itself.
        self->settleOrphans();
    };
    m_db.query("SELECT pg_has_role('fabric_proposers', 'MEMBER') AS proposer, "
               "pg_has_role('fabric_approvers', 'MEMBER') AS approver",
               {}, settle);
    if (settleIntervalMs > 0)
        m_settle->start(settleIntervalMs);
}

void TeamQueue::settleOrphans()
{
    if (!m_db.isConnected())
        return;
    m_db.query("SELECT id FROM fabric_team.settle_orphans() AS id", {},
               [](const PgResult<PgRows> &r) {
                   if (!r.ok())
                       return; // an older schema or a role without the right: said elsewhere
                   for (int i = 0; i < r.value->rowCount(); ++i)
                       qCWarning(lcTeamQueue).noquote()
                           << "proposal" << QString::fromLatin1(r.value->value(i, "id"))
                           << "was left sending by a session that is gone: unknown";
               });
}

void TeamQueue::publish(const QString &changeType, const QByteArray &request,
                        const QJsonObject &binding, const std::optional<QJsonObject> &price,
                        const QByteArray &dryRun, const QByteArray &tokenSha256, qint64 ttlMs,
                        TeamDone<QByteArray> done, const std::optional<Money> &monthly,
                        const QString &mcpClient)
{
    const QByteArray priceText =
        price ? QJsonDocument(*price).toJson(QJsonDocument::Compact) : QByteArray();
    m_db.query(
        "INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, "
        "price, dry_run, os_user, host, mcp_client, token_sha256, expires_at, monthly_amount, "
        "monthly_currency) VALUES ($1, $2, sha256(convert_to($2, 'UTF8')), $3::jsonb, "
        "$4::jsonb, $5::jsonb, $6, $7, $8, decode($9, 'hex'), now() + $10::bigint * "
        "interval '1 millisecond', $11::numeric, $12) RETURNING id",
        {changeType.toUtf8(), request, QJsonDocument(binding).toJson(QJsonDocument::Compact),
         priceText, dryRun, m_identity.osUser.toUtf8(), m_identity.host.toUtf8(),
         // Never SQL NULL (a null QByteArray is): an unnamed client is the empty string.
         QByteArray("") +
             (mcpClient.isEmpty() ? m_identity.mcpClient : mcpClient).left(200).toUtf8(),
         tokenSha256.toHex(), QByteArray::number(ttlMs),
         monthly ? QByteArray::number(monthly->amount, 'f', 6) : QByteArray(),
         monthly ? monthly->currency.toLatin1() : QByteArray()},
        [done = std::move(done)](const PgResult<PgRows> &r) {
            if (!r.ok())
                return done(std::nullopt, failed(r));
            done(r.value->value(0, "id"), {});
        });
}

void TeamQueue::consume(const QByteArray &tokenSha256, TeamDone<TeamProposal> done)
{
    consumeChecked(tokenSha256, [done = std::move(done)](const TeamConsumeReply &r) {
        if (!r.error.isEmpty())
            return done(std::nullopt, r.error);
        if (!r.consumedNow)
            return done(std::nullopt, u"no pending team proposal has this token (unknown, already "
                                      "used or expired)"_s);
        done(r.row, {});
    });
}

void TeamQueue::consumeChecked(const QByteArray &tokenSha256,
                               std::function<void(const TeamConsumeReply &)> done)
{
    // The main query reads the snapshot from before the UPDATE of its own CTE: the row as it
    // was, and `won` says whether this statement moved it.
    m_db.query("WITH won AS (UPDATE fabric_team.proposals SET state = 'consumed' WHERE "
               "token_sha256 = decode($1, 'hex') AND state = 'pending' AND expires_at > now() "
               "RETURNING id) SELECT " +
                   Columns +
                   ", EXISTS (SELECT FROM won) AS won FROM fabric_team.proposals WHERE "
                   "token_sha256 = decode($1, 'hex')",
               {tokenSha256.toHex()}, [done = std::move(done)](const PgResult<PgRows> &r) {
                   TeamConsumeReply reply;
                   if (!r.ok()) {
                       reply.error = failed(r);
                       return done(reply);
                   }
                   reply.row = proposalFromRow(*r.value, 0);
                   reply.consumedNow = reply.row && r.value->value(0, "won") == "t";
                   if (reply.consumedNow)
                       reply.row->state = u"consumed"_s;
                   done(reply);
               });
}

void TeamQueue::beginSend(const QByteArray &id, const std::optional<Money> &dayLimit,
                          std::function<void(const TeamSendReply &)> done)
{
    QPointer<TeamQueue> self(this);
    m_db.query("SELECT moved, spent::text AS spent, reason FROM fabric_team.begin_send($1::uuid, "
               "$2::numeric, $3)",
               {id, dayLimit ? QByteArray::number(dayLimit->amount, 'f', 6) : QByteArray(),
                dayLimit ? dayLimit->currency.toLatin1() : QByteArray()},
               [self, id, done = std::move(done)](const PgResult<PgRows> &r) {
                   TeamSendReply reply;
                   if (!r.ok()) {
                       reply.reason = failed(r);
                       return done(reply);
                   }
                   reply.moved = r.value->value(0, "moved") == "t";
                   const QByteArray spent = r.value->value(0, "spent");
                   if (!spent.isNull())
                       reply.daySpent = spent.toDouble();
                   reply.reason = QString::fromUtf8(r.value->value(0, "reason")).left(500);
                   if (reply.moved && self)
                       self->m_sending.insert(id);
                   done(reply);
               });
}

void TeamQueue::finishSend(const QByteArray &id, const QString &outcome, TeamDone<bool> done)
{
    QPointer<TeamQueue> self(this);
    m_db.query("WITH moved AS (UPDATE fabric_team.proposals SET state = $2 WHERE id = $1::uuid "
               "AND state = 'sending' RETURNING id) SELECT (SELECT count(*) FROM moved) AS n, "
               "pg_advisory_unlock(fabric_team.sending_lock_key($1::uuid)) AS unlocked",
               {id, outcome.toUtf8()},
               [self, id, done = std::move(done)](const PgResult<PgRows> &r) {
                   if (self)
                       self->m_sending.remove(id);
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   if (r.value->value(0, "n") != "1")
                       return done(false, u"the proposal is no longer sending"_s);
                   done(true, {});
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
        "object('id', a.id, 'approver', a.approver, 'decision', a.decision, 'os_user', "
        "a.os_user, 'host', a.host, 'dialog_sha256', encode(a.dialog_sha256, 'hex'), "
        "'statement', a.statement, 'signature', encode(a.signature, 'hex'), 'public_key', "
        "encode(a.public_key, 'hex')) ORDER BY a.decided_at, a.approver) FROM "
        "fabric_team.approvals a WHERE a.proposal_id = p.id), '[]') AS approvals, " +
            resolutionColumn("p") + " FROM fabric_team.proposals p WHERE p.id = $1::uuid",
        {id}, [done = std::move(done)](const PgResult<PgRows> &r) {
            if (!r.ok())
                return done(std::nullopt, failed(r));
            if (r.value->rowCount() != 1)
                return done(std::nullopt, u"the team proposal is gone"_s);
            Snapshot s;
            s.state = QString::fromUtf8(r.value->value(0, "state"));
            s.live = r.value->value(0, "live") == "t";
            s.resolution = resolutionFromJson(r.value->value(0, "resolution"));
            const QJsonArray list = QJsonDocument::fromJson(r.value->value(0, "approvals")).array();
            for (const QJsonValue &v : list) {
                const QJsonObject o = v.toObject();
                auto text = [&o](const char *key) {
                    return o.value(QLatin1StringView(key)).toString();
                };
                auto hex = [&](const char *key) {
                    return QByteArray::fromHex(text(key).toLatin1());
                };
                TeamApproval a{text("approver"), text("decision"), text("os_user"), text("host")};
                a.id = text("id").toLatin1();
                a.dialogSha256 = hex("dialog_sha256");
                a.statement = text("statement").toUtf8();
                a.signature = hex("signature");
                a.publicKey = hex("public_key");
                s.approvals << a;
            }
            done(s, {});
        });
}

void TeamQueue::listOpen(TeamDone<QList<TeamProposal>> done)
{
    // An unknown outcome until a person resolves it, however old; resolved in the last day:
    // the team sees who settled it, and how.
    m_db.query("SELECT " + Columns + ", " + resolutionColumn("proposals") +
                   " FROM fabric_team.proposals WHERE (state IN ('pending', 'consumed') AND "
                   "expires_at > now()) OR state = 'unknown' OR (state = 'sending' AND "
                   "state_changed_at > now() - interval '1 day') OR EXISTS (SELECT FROM "
                   "fabric_team.resolutions r WHERE r.proposal_id = proposals.id AND "
                   "r.resolved_at > now() - interval '1 day') ORDER BY created_at LIMIT 200",
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
                       const QByteArray &dialogSha256, TeamDone<bool> done,
                       const std::optional<Signature> &signedBy)
{
    // NULLs for an unsigned decision: a text parameter given as a null QByteArray is SQL NULL.
    const Signature sig = signedBy.value_or(Signature{});
    m_db.query("INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256, os_user, "
               "host, statement, signature, public_key) VALUES ($1::uuid, $2, decode($3, 'hex'), "
               "$4, $5, $6, decode($7, 'hex'), decode($8, 'hex'))",
               {id, decision.toUtf8(), dialogSha256.toHex(), m_identity.osUser.toUtf8(),
                m_identity.host.toUtf8(), signedBy ? sig.statement : QByteArray(),
                signedBy ? sig.signature.toHex() : QByteArray(),
                signedBy ? sig.publicKey.toHex() : QByteArray()},
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
    const Signature sig = signedBy.value_or(Signature{});
    m_db.query("INSERT INTO fabric_team.resolutions (proposal_id, outcome, uuid, dialog_sha256, "
               "os_user, host, statement, signature, public_key) VALUES ($1::uuid, $2, $3, "
               "decode($4, 'hex'), $5, $6, $7, decode($8, 'hex'), decode($9, 'hex'))",
               {id, outcome.toUtf8(), uuid.isEmpty() ? QByteArray() : uuid.toLower().toUtf8(),
                dialogSha256.toHex(), m_identity.osUser.toUtf8(), m_identity.host.toUtf8(),
                signedBy ? sig.statement : QByteArray(),
                signedBy ? sig.signature.toHex() : QByteArray(),
                signedBy ? sig.publicKey.toHex() : QByteArray()},
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

void TeamQueue::reportRejected(const QByteArray &id, const TeamApproval &approval,
                               const QString &reason, TeamDone<bool> done)
{
    const QJsonObject detail{{u"approval_id"_s, QString::fromLatin1(approval.id.left(64))},
                             {u"approver"_s, approval.approver.left(64)},
                             {u"decision"_s, approval.decision.left(16)},
                             {u"reason"_s, reason.left(1000)}};
    // With a wake-up, so the approvers' apps show it at once.
    m_db.query("WITH a AS (INSERT INTO fabric_team.team_audit (event, proposal_id, detail) VALUES "
               "('approval_rejected', $1::uuid, $2) RETURNING proposal_id) SELECT "
               "pg_notify('fabric_team', proposal_id::text) FROM a",
               {id, QJsonDocument(detail).toJson(QJsonDocument::Compact)},
               [done = std::move(done)](const PgResult<PgRows> &r) {
                   if (!done)
                       return;
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   done(true, {});
               });
}

void TeamQueue::rejections(const QByteArray &id, TeamDone<QJsonArray> done)
{
    m_db.query(
        "SELECT actor, detail FROM fabric_team.team_audit WHERE event = 'approval_rejected' "
        "AND proposal_id = $1::uuid ORDER BY seq LIMIT 50",
        {id}, [done = std::move(done)](const PgResult<PgRows> &r) {
            if (!r.ok())
                return done(std::nullopt, failed(r));
            QJsonArray out;
            for (int i = 0; i < r.value->rowCount(); ++i) {
                const QJsonObject d = objectOf(r.value->value(i, "detail"));
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
