#include "team/TeamVerify.h"

#include "core/Sha256.h"
#include "core/UntrustedText.h"
#include "team/ApprovalKeys.h"
#include "team/TeamAudit.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

const QByteArray BundleFormat = "fabric-broker team bundle 1";

// A database's text on a terminal: every character that is not plainly shown becomes '?'.
QString shown(const QString &text)
{
    QString out;
    UntrustedText::detail::forEachCodePoint(text, [&out](qsizetype, char32_t c) {
        out += UntrustedText::isForbidden(c) || UntrustedText::isDefaultIgnorable(c) || c < 0x20 ||
                       c == 0x7f
                   ? QString(u'?')
                   : QString::fromUcs4(&c, 1);
        return true;
    });
    return out.left(200);
}
QString shown(const QByteArray &utf8)
{
    return shown(QString::fromUtf8(utf8));
}

QString timeText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

QJsonObject proposalJson(const TeamProposal &p)
{
    return {{u"id"_s, QString::fromLatin1(p.id)},
            {u"change_type"_s, p.changeType},
            {u"request"_s, QString::fromUtf8(p.request)},
            {u"request_sha256"_s, QString::fromLatin1(p.requestSha256)},
            {u"dry_run"_s, QString::fromUtf8(p.dryRun)},
            {u"proposer"_s, p.proposer},
            {u"state"_s, p.state},
            {u"created_ms"_s, static_cast<double>(p.createdMs)},
            {u"expires_ms"_s, static_cast<double>(p.expiresMs)}};
}

QJsonObject approvalJson(const HistoryApproval &a)
{
    return {{u"id"_s, QString::fromLatin1(a.id)},
            {u"proposal_id"_s, QString::fromLatin1(a.proposalId)},
            {u"approver"_s, a.row.approver},
            {u"decision"_s, a.row.decision},
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

// Exactly these members, each a string, or each a number when listed in numbers.
bool hasExactly(const QJsonObject &o, QStringList names, const QStringList &numbers)
{
    QStringList keys = o.keys();
    names.sort();
    if (keys != names)
        return false;
    for (const QString &k : keys) {
        const QJsonValue v = o.value(k);
        if (numbers.contains(k) ? !v.isDouble() : !v.isString())
            return false;
    }
    return true;
}

qint64 integer(const QJsonValue &v)
{
    return static_cast<qint64>(v.toDouble());
}

} // namespace

std::optional<TeamHistory> TeamHistory::read(PgConnection &db, std::optional<qint64> sinceMs,
                                             QString *error)
{
    auto fail = [error](const PgError &e) {
        *error = e.text();
        return std::nullopt;
    };
    if (auto r = db.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); !r.ok())
        return fail(r.error);
    struct Rollback {
        PgConnection &db;
        ~Rollback() { db.exec("ROLLBACK"); }
    } rollback{db};
    const QByteArray since = QByteArray::number(sinceMs.value_or(0));
    const QByteArray where = "created_at >= to_timestamp($1::bigint / 1000.0)";
    TeamHistory h;
    const auto proposals =
        db.exec("SELECT " + proposalColumns() + " FROM fabric_team.proposals WHERE " + where +
                    " ORDER BY created_at, id",
                {since});
    if (!proposals.ok())
        return fail(proposals.error);
    for (int i = 0; i < proposals.value->rowCount(); ++i)
        if (const auto p = proposalFromRow(*proposals.value, i))
            h.proposals.append(*p);
    const auto approvals = db.exec(
        "SELECT id, proposal_id, approver, decision, encode(dialog_sha256, 'hex') AS dialog, "
        "statement, encode(signature, 'hex') AS signature, encode(public_key, 'hex') AS key "
        "FROM fabric_team.approvals WHERE proposal_id IN (SELECT id FROM fabric_team.proposals "
        "WHERE " +
            where + ") ORDER BY decided_at, id",
        {since});
    if (!approvals.ok())
        return fail(approvals.error);
    const PgRows &a = *approvals.value;
    for (int i = 0; i < a.rowCount(); ++i)
        h.approvals.append(HistoryApproval{
            a.value(i, "id"), a.value(i, "proposal_id"),
            SignedApproval{QString::fromUtf8(a.value(i, "approver")),
                           QString::fromUtf8(a.value(i, "decision")),
                           QByteArray::fromHex(a.value(i, "dialog")), a.value(i, "statement"),
                           QByteArray::fromHex(a.value(i, "signature")),
                           QByteArray::fromHex(a.value(i, "key"))}});
    // A version-4 schema has no resolutions (and no proposal could be resolved).
    const auto present =
        db.exec("SELECT to_regclass('fabric_team.resolutions') IS NOT NULL AS present");
    if (!present.ok())
        return fail(present.error);
    if (present.value->value(0, "present") == "t") {
        const auto resolutions =
            db.exec("SELECT r.proposal_id, " + resolutionColumn("p") +
                        " FROM fabric_team.resolutions r JOIN fabric_team.proposals p ON p.id = "
                        "r.proposal_id WHERE p." +
                        where + " ORDER BY r.resolved_at, r.id",
                    {since});
        if (!resolutions.ok())
            return fail(resolutions.error);
        const PgRows &rr = *resolutions.value;
        for (int i = 0; i < rr.rowCount(); ++i)
            if (const auto row = resolutionFromJson(rr.value(i, "resolution")))
                h.resolutions.append(HistoryResolution{rr.value(i, "proposal_id"), *row});
    }
    const auto audit = db.exec(
        "SELECT seq, (extract(epoch FROM at) * 1000000)::bigint AS at_us, actor, event, "
        "proposal_id, detail, encode(prev_hash, 'hex') AS prev, encode(hash, 'hex') AS hash "
        "FROM fabric_team.team_audit ORDER BY seq");
    if (!audit.ok())
        return fail(audit.error);
    const PgRows &t = *audit.value;
    for (int i = 0; i < t.rowCount(); ++i)
        h.audit.append(HistoryAuditRow{
            t.value(i, "seq").toLongLong(), t.value(i, "at_us").toLongLong(), t.value(i, "actor"),
            t.value(i, "event"), t.value(i, "proposal_id"), t.value(i, "detail"),
            QByteArray::fromHex(t.value(i, "prev")), QByteArray::fromHex(t.value(i, "hash"))});
    return h;
}

QByteArray TeamHistory::toBundle() const
{
    auto line = [](const QString &kind, const QJsonValue &v) -> QByteArray {
        return QJsonDocument(QJsonObject{{kind, v}}).toJson(QJsonDocument::Compact) + '\n';
    };
    QByteArray out = QJsonDocument(QJsonObject{{u"format"_s, QString::fromLatin1(BundleFormat)},
                                               {u"approver_keys"_s, ApproverKey::toJson(keys)}})
                         .toJson(QJsonDocument::Compact) +
                     '\n';
    for (const TeamProposal &p : proposals)
        out += line(u"proposal"_s, proposalJson(p));
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
            if (o.size() != 2 || o.value(u"format"_s).toString() != QLatin1StringView(BundleFormat))
                return bad(u"not a fabric-broker team bundle (format \"%1\")"_s.arg(
                    QLatin1StringView(BundleFormat)));
            QStringList errors;
            const auto keys =
                ApproverKey::parse(o.value(u"approver_keys"_s), u"approver_keys"_s, &errors);
            if (!keys)
                return bad(errors.join(u"; "_s));
            h.keys = *keys;
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
        if (kind == u"proposal" &&
            hasExactly(v,
                       {u"id"_s, u"change_type"_s, u"request"_s, u"request_sha256"_s, u"dry_run"_s,
                        u"proposer"_s, u"state"_s, u"created_ms"_s, u"expires_ms"_s},
                       {u"created_ms"_s, u"expires_ms"_s})) {
            TeamProposal p;
            p.id = text8("id");
            p.changeType = v.value(u"change_type"_s).toString();
            p.request = text8("request");
            p.requestSha256 = text8("request_sha256");
            p.dryRun = text8("dry_run");
            p.proposer = v.value(u"proposer"_s).toString();
            p.state = v.value(u"state"_s).toString();
            p.createdMs = integer(v.value(u"created_ms"_s));
            p.expiresMs = integer(v.value(u"expires_ms"_s));
            h.proposals.append(p);
        } else if (kind == u"approval" &&
                   hasExactly(v,
                              {u"id"_s, u"proposal_id"_s, u"approver"_s, u"decision"_s,
                               u"dialog_sha256"_s, u"statement"_s, u"signature"_s, u"public_key"_s},
                              {})) {
            h.approvals.append(HistoryApproval{
                text8("id"), text8("proposal_id"),
                SignedApproval{v.value(u"approver"_s).toString(), v.value(u"decision"_s).toString(),
                               QByteArray::fromHex(text8("dialog_sha256")), text8("statement"),
                               QByteArray::fromBase64(text8("signature")),
                               QByteArray::fromBase64(text8("public_key"))}});
        } else if (kind == u"resolution" &&
                   hasExactly(v,
                              {u"id"_s, u"proposal_id"_s, u"resolver"_s, u"outcome"_s, u"uuid"_s,
                               u"dialog_sha256"_s, u"resolved_ms"_s, u"os_user"_s, u"host"_s,
                               u"statement"_s, u"signature"_s, u"public_key"_s},
                              {u"resolved_ms"_s})) {
            TeamResolution r;
            r.id = text8("id");
            r.resolver = v.value(u"resolver"_s).toString();
            r.outcome = v.value(u"outcome"_s).toString();
            r.uuid = v.value(u"uuid"_s).toString();
            r.dialogSha256 = QByteArray::fromHex(text8("dialog_sha256"));
            r.resolvedMs = integer(v.value(u"resolved_ms"_s));
            r.osUser = v.value(u"os_user"_s).toString();
            r.host = v.value(u"host"_s).toString();
            r.statement = text8("statement");
            r.signature = QByteArray::fromBase64(text8("signature"));
            r.publicKey = QByteArray::fromBase64(text8("public_key"));
            h.resolutions.append(HistoryResolution{text8("proposal_id"), r});
        } else if (kind == u"audit" &&
                   hasExactly(v,
                              {u"seq"_s, u"at_us"_s, u"actor"_s, u"event"_s, u"proposal_id"_s,
                               u"detail"_s, u"prev_hash"_s, u"hash"_s},
                              {u"seq"_s, u"at_us"_s})) {
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

TeamVerifyReport verifyHistory(const TeamHistory &history, const QList<ApproverKey> &keys)
{
    TeamVerifyReport r;
    QByteArray prev(32, '\0');
    qint64 expected = 1;
    for (const HistoryAuditRow &row : history.audit) {
        const QString where = u"team audit row seq %1: "_s.arg(row.seq);
        if (row.seq != expected) {
            r.failures.append(where + u"expected seq %1 (rows missing)"_s.arg(expected));
            break;
        }
        if (row.prevHash != prev) {
            r.failures.append(where + u"prev_hash is not the hash of the row before it"_s);
            break;
        }
        if (TeamAudit::rowHash(prev, row.seq, row.atMicros, row.actor, row.event, row.proposalId,
                               row.detail) != row.hash) {
            r.failures.append(where + u"its content does not match its hash"_s);
            break;
        }
        prev = row.hash;
        ++expected;
    }
    QHash<QByteArray, QList<QString>> approvedBy;
    QHash<QByteArray, const TeamProposal *> byId;
    for (const TeamProposal &p : history.proposals) {
        // The database checks this (a CHECK constraint); a bundle is only a file.
        if (Sha256::hash(p.request).toHex() != p.requestSha256.toLower())
            r.failures.append(
                u"proposal %1: its request_sha256 is not the SHA-256 of its request"_s.arg(
                    shown(p.id)));
        if (byId.contains(p.id))
            r.failures.append(u"proposal %1: listed twice"_s.arg(shown(p.id)));
        byId.insert(p.id, &p);
    }
    for (const HistoryApproval &a : history.approvals) {
        const QString row = u"approval %1 (proposal %2, %3, %4)"_s.arg(
            shown(a.id), shown(a.proposalId), shown(a.row.approver), shown(a.row.decision));
        const TeamProposal *p = byId.value(a.proposalId);
        if (!p) {
            r.failures.append(row + u": its proposal is not in the history"_s);
            continue;
        }
        const ApprovalCheck c = verifyApproval(*p, a.row, keys);
        if (!c.counts) {
            r.failures.append(row + u": "_s + shown(c.reason));
            continue;
        }
        approvedBy[a.proposalId].append(u"%1 by %2 [%3] at %4, who saw dialog text %5"_s.arg(
            c.statement->decision == u"approve" ? u"approved"_s : u"denied"_s,
            shown(c.statement->approver), c.fingerprint, timeText(c.statement->decidedMs),
            QString::fromLatin1(c.statement->dialogSha256.left(16))));
    }
    QSet<QByteArray> resolved;
    for (const HistoryResolution &res : history.resolutions) {
        const QString row = u"resolution %1 (proposal %2, %3, %4)"_s.arg(
            shown(res.row.id), shown(res.proposalId), shown(res.row.resolver),
            shown(res.row.outcome));
        const TeamProposal *p = byId.value(res.proposalId);
        if (!p) {
            r.failures.append(row + u": its proposal is not in the history"_s);
            continue;
        }
        if (resolved.contains(res.proposalId)) {
            r.failures.append(row + u": its proposal is resolved twice"_s);
            continue;
        }
        resolved.insert(res.proposalId);
        const ApprovalCheck c = verifyResolution(*p, res.row, keys);
        if (!c.counts) {
            r.failures.append(row + u": "_s + shown(c.reason));
            continue;
        }
        if (p->state != res.row.outcome) {
            r.failures.append(row + u": its proposal is %1, not %2"_s.arg(shown(p->state),
                                                                          shown(res.row.outcome)));
            continue;
        }
        const auto s = ResolutionStatement::parse(res.row.statement, nullptr);
        approvedBy[res.proposalId].append(
            u"resolved %1%2 by %3 [%4] at %5, who saw dialog text %6"_s.arg(
                s->outcome, s->uuid.isEmpty() ? QString() : u" (uuid %1)"_s.arg(s->uuid),
                shown(s->resolver), c.fingerprint, timeText(s->decidedMs),
                QString::fromLatin1(s->dialogSha256.left(16))));
    }
    for (const TeamProposal &p : history.proposals)
        if (p.state == u"not_created" && !resolved.contains(p.id))
            r.failures.append(
                u"proposal %1: not_created without a resolution (only a resolution moves an "
                "unknown outcome)"_s.arg(shown(p.id)));
    static const QStringList creates{u"sending"_s, u"created"_s, u"failed"_s, u"unknown"_s,
                                     u"not_created"_s};
    for (const TeamProposal &p : history.proposals) {
        if (!creates.contains(p.state))
            continue;
        const QStringList by = approvedBy.value(p.id);
        r.creates.append(
            u"%1 proposal %2 %3 (%4, proposed by %5; request %6, dry run %7): %8"_s.arg(
                timeText(p.createdMs), shown(p.id), shown(p.changeType), shown(p.state),
                shown(p.proposer), shown(p.requestSha256.left(16)),
                QString::fromLatin1(canonicalJsonSha256Hex(p.dryRun).left(16)),
                by.isEmpty() ? u"no verified approval"_s : by.join(u"; "_s)));
    }
    return r;
}

} // namespace fb::team
