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

QString failed(const PgResult<PgRows> &r)
{
    return teamFailure(r);
}

} // namespace

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
    // Wake-ups are coalesced: at most BurstPerWindow + 1 deliveries per coalesceMs, each one
    // proposalChanged per distinct id (at most MaxWoken) and one queueChanged, however many
    // NOTIFYs came.
    m_wake = new QTimer(this);
    m_wake->setSingleShot(true);
    connect(m_wake, &QTimer::timeout, this, &TeamQueue::deliverWakeUps);
    connect(&m_db, &PgAsync::notified, this, [this](const QString &, const QByteArray &payload) {
        // A uuid and nothing else; anything longer is not ours to pass on.
        if (payload.size() != 36)
            return;
        if (m_woken.size() < MaxWoken)
            m_woken.insert(payload);
        // The first BurstPerWindow wake-ups of a coalesceMs window go at once; the rest of
        // the window is one delivery at its end.
        if (!m_window.isValid() || m_window.elapsed() >= coalesceMs) {
            m_window.start();
            m_inWindow = 0;
        }
        if (m_wake->isActive())
            return;
        if (m_inWindow < BurstPerWindow) {
            ++m_inWindow;
            return deliverWakeUps();
        }
        m_wake->start(static_cast<int>(std::max<qint64>(1, coalesceMs - m_window.elapsed())));
    });
}

TeamQueue::~TeamQueue() = default;

void TeamQueue::deliverWakeUps()
{
    const QSet<QByteArray> woken = std::exchange(m_woken, {});
    QPointer<TeamQueue> self(this);
    for (const QByteArray &id : woken) {
        emit proposalChanged(id);
        if (!self)
            return;
    }
    emit queueChanged();
}

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
        // Only rows whose lease holder session is gone (fabric_team.recover_own): never
        // those of another live broker of the same role, OS user and host.
        self->m_db.query("SELECT id, state FROM fabric_team.recover_own($1, $2, $3::uuid[])",
                         params, [self](const PgResult<PgRows> &r) {
                             if (!self)
                                 return;
                             if (!r.ok()) {
                                 qCWarning(lcTeamQueue).noquote() << "crash recovery:" << failed(r);
                                 return;
                             }
                             for (int i = 0; i < r.value->rowCount(); ++i) {
                                 const QByteArray id = r.value->value(i, "id");
                                 const QString state =
                                     QString::fromLatin1(r.value->value(i, "state"));
                                 qCWarning(lcTeamQueue).noquote()
                                     << "proposal" << QString::fromLatin1(id)
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
    // The monthly amount the team's day counts is the database's reading of the price
    // (migration 006); monthly is what this broker read, for its own ledger only.
    Q_UNUSED(monthly);
    m_db.query(
        "INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, "
        "price, dry_run, os_user, host, mcp_client, token_sha256, expires_at) VALUES ($1, $2, "
        "sha256(convert_to($2, 'UTF8')), $3::jsonb, $4::jsonb, $5::jsonb, $6, $7, $8, "
        "decode($9, 'hex'), now() + $10::bigint * interval '1 millisecond') RETURNING id",
        {changeType.toUtf8(), request, QJsonDocument(binding).toJson(QJsonDocument::Compact),
         priceText, dryRun, m_identity.osUser.toUtf8(), m_identity.host.toUtf8(),
         // Never SQL NULL (a null QByteArray is): an unnamed client is the empty string.
         QByteArray("") +
             (mcpClient.isEmpty() ? m_identity.mcpClient : mcpClient).left(200).toUtf8(),
         tokenSha256.toHex(), QByteArray::number(ttlMs)},
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
    // fabric_team.consume moves it (and takes its lease); this statement's snapshot, taken
    // before, reads the row as it was.
    m_db.query("WITH won AS (SELECT c.id FROM fabric_team.consume(decode($1, 'hex')) c) SELECT " +
                   proposalColumns() +
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
    m_db.query("SELECT fabric_team.finish_send($1::uuid, $2) AS moved", {id, outcome.toUtf8()},
               [self, id, done = std::move(done)](const PgResult<PgRows> &r) {
                   if (self)
                       self->m_sending.remove(id);
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   if (r.value->value(0, "moved") != "t")
                       return done(false, u"the proposal is no longer sending"_s);
                   done(true, {});
               });
}

void TeamQueue::transition(const QByteArray &id, const QString &from, const QString &to,
                           TeamDone<bool> done)
{
    m_db.query("SELECT fabric_team.transition($1::uuid, $2, $3) AS moved",
               {id, from.toUtf8(), to.toUtf8()},
               [done = std::move(done), from](const PgResult<PgRows> &r) {
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   if (r.value->value(0, "moved") != "t")
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
            resolutionColumn("p") +
            ", (SELECT count(DISTINCT s.usesysid) FROM pg_stat_activity s, pg_roles r WHERE "
            "r.rolname = 'fabric_approvers' AND s.datname = current_database() AND s.usesysid "
            "IS NOT NULL AND s.usesysid <> (SELECT oid FROM pg_roles WHERE rolname = "
            "session_user) AND pg_has_role(s.usesysid, r.oid, 'MEMBER')) AS approvers_connected"
            " FROM fabric_team.proposals p WHERE p.id = $1::uuid",
        {id}, [done = std::move(done)](const PgResult<PgRows> &r) {
            if (!r.ok())
                return done(std::nullopt, failed(r));
            if (r.value->rowCount() != 1)
                return done(std::nullopt, u"the team proposal is gone"_s);
            Snapshot s;
            s.state = QString::fromUtf8(r.value->value(0, "state"));
            s.live = r.value->value(0, "live") == "t";
            s.resolution = resolutionFromJson(r.value->value(0, "resolution"));
            bool known = false;
            const int connected = r.value->value(0, "approvers_connected").toInt(&known);
            s.approversConnected = known ? connected : -1;
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

void TeamQueue::reportRejected(const QByteArray &id, const TeamApproval &approval,
                               const QString &reason, TeamDone<bool> done)
{
    const QJsonObject detail{{u"approval_id"_s, QString::fromLatin1(approval.id.left(64))},
                             {u"approver"_s, approval.approver.left(64)},
                             {u"decision"_s, approval.decision.left(16)},
                             {u"reason"_s, reason.left(1000)}};
    // With a wake-up, so the approvers' apps show it at once.
    // Only the proposal's own proposer role may (fabric_team.report_rejected, which records
    // who reported it and wakes the approvers' apps).
    m_db.query("SELECT fabric_team.report_rejected($1::uuid, $2) AS seq",
               {id, QJsonDocument(detail).toJson(QJsonDocument::Compact)},
               [done = std::move(done)](const PgResult<PgRows> &r) {
                   if (!done)
                       return;
                   if (!r.ok())
                       return done(std::nullopt, failed(r));
                   done(true, {});
               });
}

} // namespace fb::team
