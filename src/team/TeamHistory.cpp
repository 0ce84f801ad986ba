#include "team/TeamHistory.h"

#include "core/UntrustedText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

const QByteArray BundleFormat = "fabric-broker team bundle 2";
const QByteArray OldBundleFormat = "fabric-broker team bundle 1";

QJsonValue orNull(const std::optional<qint64> &v)
{
    return v ? QJsonValue(static_cast<double>(*v)) : QJsonValue(QJsonValue::Null);
}

QJsonObject proposalJson(const TeamProposal &p, const std::optional<qint64> &sentMs)
{
    return {{u"id"_s, QString::fromLatin1(p.id)},
            {u"change_type"_s, p.changeType},
            {u"request"_s, QString::fromUtf8(p.request)},
            {u"request_sha256"_s, QString::fromLatin1(p.requestSha256)},
            {u"price"_s, p.price ? QJsonValue(*p.price) : QJsonValue(QJsonValue::Null)},
            {u"binding"_s, p.binding},
            {u"token_sha256"_s, QString::fromLatin1(p.tokenSha256)},
            {u"dry_run"_s, QString::fromUtf8(p.dryRun)},
            {u"proposer"_s, p.proposer},
            {u"os_user"_s, p.osUser},
            {u"host"_s, p.host},
            {u"state"_s, p.state},
            {u"created_ms"_s, static_cast<double>(p.createdMs)},
            {u"expires_ms"_s, static_cast<double>(p.expiresMs)},
            {u"sent_ms"_s, orNull(sentMs)}};
}

QJsonObject approvalJson(const HistoryApproval &a)
{
    return {{u"id"_s, QString::fromLatin1(a.id)},
            {u"proposal_id"_s, QString::fromLatin1(a.proposalId)},
            {u"approver"_s, a.row.approver},
            {u"decision"_s, a.row.decision},
            {u"os_user"_s, a.osUser},
            {u"host"_s, a.host},
            {u"dialog_sha256"_s, QString::fromLatin1(a.row.dialogSha256.toHex())},
            {u"statement"_s, QString::fromUtf8(a.row.statement)},
            {u"signature"_s, QString::fromLatin1(a.row.signature.toBase64())},
            {u"public_key"_s, QString::fromLatin1(a.row.publicKey.toBase64())}};
}

QJsonObject resolutionJson(const HistoryResolution &r)
{
    return {{u"id"_s, QString::fromLatin1(r.row.id)},
            {u"proposal_id"_s, QString::fromLatin1(r.proposalId)},
            {u"resolver"_s, r.row.resolver},
            {u"outcome"_s, r.row.outcome},
            {u"uuid"_s, r.row.uuid},
            {u"dialog_sha256"_s, QString::fromLatin1(r.row.dialogSha256.toHex())},
            {u"resolved_ms"_s, static_cast<double>(r.row.resolvedMs)},
            {u"os_user"_s, r.row.osUser},
            {u"host"_s, r.row.host},
            {u"statement"_s, QString::fromUtf8(r.row.statement)},
            {u"signature"_s, QString::fromLatin1(r.row.signature.toBase64())},
            {u"public_key"_s, QString::fromLatin1(r.row.publicKey.toBase64())}};
}

QJsonObject auditJson(const HistoryAuditRow &r)
{
    return {{u"seq"_s, static_cast<double>(r.seq)},
            {u"at_us"_s, static_cast<double>(r.atMicros)},
            {u"actor"_s, QString::fromUtf8(r.actor)},
            {u"event"_s, QString::fromUtf8(r.event)},
            {u"proposal_id"_s, QString::fromLatin1(r.proposalId)},
            {u"detail"_s, QString::fromUtf8(r.detail)},
            {u"prev_hash"_s, QString::fromLatin1(r.prevHash.toHex())},
            {u"hash"_s, QString::fromLatin1(r.hash.toHex())}};
}

// Exactly these members, each a string unless listed: in numbers a number, in nullableNumbers
// a number or null, in nullableObjects an object or null.
struct Members {
    QStringList strings;
    QStringList numbers = {};
    QStringList nullableNumbers = {};
    QStringList nullableObjects = {};
};

bool hasExactly(const QJsonObject &o, const Members &m)
{
    QStringList names = m.strings + m.numbers + m.nullableNumbers + m.nullableObjects;
    names.sort();
    if (o.keys() != names)
        return false;
    for (const QString &k : names) {
        const QJsonValue v = o.value(k);
        const bool ok = m.numbers.contains(k)           ? v.isDouble()
                        : m.nullableNumbers.contains(k) ? v.isDouble() || v.isNull()
                        : m.nullableObjects.contains(k) ? v.isObject() || v.isNull()
                                                        : v.isString();
        if (!ok)
            return false;
    }
    return true;
}

qint64 integer(const QJsonValue &v)
{
    return static_cast<qint64>(v.toDouble());
}

std::optional<qint64> nullableInteger(const QJsonValue &v)
{
    return v.isNull() ? std::nullopt : std::optional<qint64>(integer(v));
}

// Calls row(rows, i) for each row of a query's result; false, with the error in *error, when the
// query failed.
template <typename Row> bool eachRow(const PgResult<PgRows> &result, QString *error, Row row)
{
    if (!result.ok()) {
        *error = result.error.text();
        return false;
    }
    for (int i = 0; i < result.value->rowCount(); ++i)
        row(*result.value, i);
    return true;
}

} // namespace

QString shown(const QString &text)
{
    return UntrustedText::bounded(UntrustedText::escapeInvisible(text), 200);
}

QString shown(const QByteArray &utf8)
{
    return shown(QString::fromUtf8(utf8));
}

std::optional<TeamHistory> TeamHistory::read(PgConnection &db, std::optional<qint64> sinceMs,
                                             QString *error)
{
    auto fail = [error](const PgError &e) {
        *error = e.text();
        return std::nullopt;
    };
    const PgReadSnapshot snapshot(db);
    if (!snapshot.ok())
        return fail(snapshot.error());
    const QByteArray since = QByteArray::number(sinceMs.value_or(0));
    // The proposals made since then, by the row's clock or its proposal_created event's (a few
    // microseconds later), so that the replay finds every row of the window.
    const QByteArray ids =
        "(SELECT id FROM fabric_team.proposals WHERE created_at >= "
        "to_timestamp($1::bigint / 1000.0) UNION SELECT proposal_id FROM fabric_team.team_audit "
        "WHERE at >= to_timestamp($1::bigint / 1000.0) AND event = 'proposal_created' AND "
        "proposal_id IS NOT NULL)";
    // select ending in "WHERE <a proposal id column>": the rows of the window's proposals.
    auto inWindow = [&](const QByteArray &select, const char *orderBy) {
        return db.exec(select + " IN " + ids + " ORDER BY " + orderBy, {since});
    };
    TeamHistory h;
    h.sinceMs = sinceMs;
    const bool proposalsRead =
        eachRow(inWindow("SELECT " + proposalColumns() +
                             ", (extract(epoch FROM sent_at) * 1000)::bigint AS sent_ms FROM "
                             "fabric_team.proposals WHERE id",
                         "created_at, id"),
                error, [&](const PgRows &r, int i) {
                    const auto p = proposalFromRow(r, i);
                    if (!p)
                        return;
                    h.proposals.append(*p);
                    if (const QByteArray sent = r.value(i, "sent_ms"); !sent.isNull())
                        h.sentMs.insert(p->id, sent.toLongLong());
                });
    if (!proposalsRead)
        return std::nullopt;
    const bool approvalsRead = eachRow(
        inWindow("SELECT id, proposal_id, approver, decision, os_user, host, "
                 "encode(dialog_sha256, 'hex') AS dialog, statement, encode(signature, 'hex') AS "
                 "signature, encode(public_key, 'hex') AS key FROM fabric_team.approvals WHERE "
                 "proposal_id",
                 "decided_at, id"),
        error, [&](const PgRows &a, int i) {
            h.approvals.append(HistoryApproval{
                a.value(i, "id"), a.value(i, "proposal_id"),
                SignedApproval{QString::fromUtf8(a.value(i, "approver")),
                               QString::fromUtf8(a.value(i, "decision")),
                               QByteArray::fromHex(a.value(i, "dialog")), a.value(i, "statement"),
                               QByteArray::fromHex(a.value(i, "signature")),
                               QByteArray::fromHex(a.value(i, "key"))},
                QString::fromUtf8(a.value(i, "os_user")), QString::fromUtf8(a.value(i, "host"))});
        });
    if (!approvalsRead)
        return std::nullopt;
    // A version-4 schema has no resolutions (and no proposal could be resolved).
    const auto present =
        db.exec("SELECT to_regclass('fabric_team.resolutions') IS NOT NULL AS present");
    if (!present.ok())
        return fail(present.error);
    if (present.value->value(0, "present") == "t") {
        const bool resolutionsRead = eachRow(
            inWindow("SELECT p.id AS proposal_id, " + resolutionColumn("p") +
                         " FROM fabric_team.proposals p WHERE p.id IN (SELECT proposal_id FROM "
                         "fabric_team.resolutions) AND p.id",
                     "p.created_at, p.id"),
            error, [&](const PgRows &rr, int i) {
                if (const auto row = resolutionFromJson(rr.value(i, "resolution")))
                    h.resolutions.append(HistoryResolution{rr.value(i, "proposal_id"), *row});
            });
        if (!resolutionsRead)
            return std::nullopt;
    }
    const bool auditRead = eachRow(
        db.exec("SELECT seq, (extract(epoch FROM at) * 1000000)::bigint AS at_us, actor, event, "
                "proposal_id, detail, encode(prev_hash, 'hex') AS prev, encode(hash, 'hex') AS "
                "hash FROM fabric_team.team_audit ORDER BY seq"),
        error, [&](const PgRows &t, int i) {
            h.audit.append(
                HistoryAuditRow{t.value(i, "seq").toLongLong(), t.value(i, "at_us").toLongLong(),
                                t.value(i, "actor"), t.value(i, "event"), t.value(i, "proposal_id"),
                                t.value(i, "detail"), QByteArray::fromHex(t.value(i, "prev")),
                                QByteArray::fromHex(t.value(i, "hash"))});
        });
    if (!auditRead)
        return std::nullopt;
    return h;
}

QByteArray TeamHistory::toBundle() const
{
    auto line = [](const QString &kind, const QJsonValue &v) -> QByteArray {
        return QJsonDocument(QJsonObject{{kind, v}}).toJson(QJsonDocument::Compact) + '\n';
    };
    QByteArray out = QJsonDocument(QJsonObject{{u"format"_s, QString::fromLatin1(BundleFormat)},
                                               {u"approver_keys"_s, ApproverKey::toJson(keys)},
                                               {u"since_ms"_s, orNull(sinceMs)}})
                         .toJson(QJsonDocument::Compact) +
                     '\n';
    for (const TeamProposal &p : proposals)
        out += line(u"proposal"_s,
                    proposalJson(p, sentMs.contains(p.id) ? std::optional(sentMs.value(p.id))
                                                          : std::nullopt));
    for (const HistoryApproval &a : approvals)
        out += line(u"approval"_s, approvalJson(a));
    for (const HistoryResolution &r : resolutions)
        out += line(u"resolution"_s, resolutionJson(r));
    for (const HistoryAuditRow &r : audit)
        out += line(u"audit"_s, auditJson(r));
    return out;
}

std::optional<TeamHistory> TeamHistory::fromBundle(const QByteArray &bundle, QString *error)
{
    if (bundle.size() > MaxBundleBytes) {
        *error = u"the bundle is over %1 bytes"_s.arg(MaxBundleBytes);
        return std::nullopt;
    }
    TeamHistory h;
    const QList<QByteArray> lines = bundle.split('\n');
    for (qsizetype n = 0; n < lines.size(); ++n) {
        const QByteArray &text = lines.at(n);
        if (text.isEmpty() && n == lines.size() - 1)
            break;
        auto bad = [&](const QString &why) {
            *error = u"line %1: %2"_s.arg(n + 1).arg(why);
            return std::nullopt;
        };
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(text, &pe);
        if (!doc.isObject())
            return bad(u"not a JSON object"_s);
        const QJsonObject o = doc.object();
        if (n == 0) {
            if (o.value(u"format"_s).toString() == QLatin1StringView(OldBundleFormat))
                return bad(u"a bundle of format 1 has no prices, OS users, hosts or sent times "
                           "of its proposals: export it again with this fabric-broker"_s);
            const QJsonValue since = o.value(u"since_ms"_s);
            if (o.size() != 3 ||
                o.value(u"format"_s).toString() != QLatin1StringView(BundleFormat) ||
                !o.contains(u"since_ms"_s) || !(since.isDouble() || since.isNull()))
                return bad(u"not a fabric-broker team bundle (format \"%1\")"_s.arg(
                    QLatin1StringView(BundleFormat)));
            QStringList errors;
            const auto keys =
                ApproverKey::parse(o.value(u"approver_keys"_s), u"approver_keys"_s, &errors);
            if (!keys)
                return bad(shown(errors.join(u"; "_s)));
            h.keys = *keys;
            h.sinceMs = nullableInteger(o.value(u"since_ms"_s));
            continue;
        }
        if (o.size() != 1)
            return bad(
                u"must be one of {\"proposal\"|\"approval\"|\"resolution\"|\"audit\": {...}}"_s);
        const QString kind = o.keys().first();
        const QJsonObject v = o.value(kind).toObject();
        auto text8 = [&v](const char *k) {
            return v.value(QLatin1StringView(k)).toString().toUtf8();
        };
        auto string = [&v](const char *k) { return v.value(QLatin1StringView(k)).toString(); };
        if (kind == u"proposal" &&
            hasExactly(v, Members{{u"id"_s, u"change_type"_s, u"request"_s, u"request_sha256"_s,
                                   u"token_sha256"_s, u"dry_run"_s, u"proposer"_s, u"os_user"_s,
                                   u"host"_s, u"state"_s},
                                  {u"created_ms"_s, u"expires_ms"_s},
                                  {u"sent_ms"_s},
                                  {u"price"_s, u"binding"_s}})) {
            TeamProposal p;
            p.id = text8("id");
            p.changeType = string("change_type");
            p.request = text8("request");
            p.requestSha256 = text8("request_sha256");
            if (v.value(u"price"_s).isObject())
                p.price = v.value(u"price"_s).toObject();
            p.binding = v.value(u"binding"_s).toObject();
            p.tokenSha256 = text8("token_sha256");
            p.dryRun = text8("dry_run");
            p.proposer = string("proposer");
            p.osUser = string("os_user");
            p.host = string("host");
            p.state = string("state");
            p.createdMs = integer(v.value(u"created_ms"_s));
            p.expiresMs = integer(v.value(u"expires_ms"_s));
            if (const auto sent = nullableInteger(v.value(u"sent_ms"_s)))
                h.sentMs.insert(p.id, *sent);
            h.proposals.append(p);
        } else if (kind == u"approval" &&
                   hasExactly(v, Members{{u"id"_s, u"proposal_id"_s, u"approver"_s, u"decision"_s,
                                          u"os_user"_s, u"host"_s, u"dialog_sha256"_s,
                                          u"statement"_s, u"signature"_s, u"public_key"_s}})) {
            h.approvals.append(HistoryApproval{
                text8("id"), text8("proposal_id"),
                SignedApproval{string("approver"), string("decision"),
                               QByteArray::fromHex(text8("dialog_sha256")), text8("statement"),
                               QByteArray::fromBase64(text8("signature")),
                               QByteArray::fromBase64(text8("public_key"))},
                string("os_user"), string("host")});
        } else if (kind == u"resolution" &&
                   hasExactly(v, Members{{u"id"_s, u"proposal_id"_s, u"resolver"_s, u"outcome"_s,
                                          u"uuid"_s, u"dialog_sha256"_s, u"os_user"_s, u"host"_s,
                                          u"statement"_s, u"signature"_s, u"public_key"_s},
                                         {u"resolved_ms"_s}})) {
            TeamResolution r;
            r.id = text8("id");
            r.resolver = string("resolver");
            r.outcome = string("outcome");
            r.uuid = string("uuid");
            r.dialogSha256 = QByteArray::fromHex(text8("dialog_sha256"));
            r.resolvedMs = integer(v.value(u"resolved_ms"_s));
            r.osUser = string("os_user");
            r.host = string("host");
            r.statement = text8("statement");
            r.signature = QByteArray::fromBase64(text8("signature"));
            r.publicKey = QByteArray::fromBase64(text8("public_key"));
            h.resolutions.append(HistoryResolution{text8("proposal_id"), r});
        } else if (kind == u"audit" &&
                   hasExactly(v, Members{{u"actor"_s, u"event"_s, u"proposal_id"_s, u"detail"_s,
                                          u"prev_hash"_s, u"hash"_s},
                                         {u"seq"_s, u"at_us"_s}})) {
            h.audit.append(HistoryAuditRow{integer(v.value(u"seq"_s)), integer(v.value(u"at_us"_s)),
                                           text8("actor"), text8("event"), text8("proposal_id"),
                                           text8("detail"), QByteArray::fromHex(text8("prev_hash")),
                                           QByteArray::fromHex(text8("hash"))});
        } else {
            return bad(u"a %1 line without exactly its members and types"_s.arg(shown(kind)));
        }
    }
    return h;
}

} // namespace fb::team
