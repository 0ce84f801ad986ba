#include "team/ApprovalStatement.h"

#include "core/CanonicalJson.h"
#include "core/Sha256.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

const QStringList &memberNames()
{
    static const QStringList names{
        u"approver"_s,      u"change_type"_s,    u"decided_at"_s, u"decision"_s,
        u"dialog_sha256"_s, u"dry_run_sha256"_s, u"expires_at"_s, u"format"_s,
        u"proposal_id"_s,   u"request_sha256"_s,
    };
    return names;
}

bool isHex64(const QString &s)
{
    static const QRegularExpression re(u"^[0-9a-f]{64}$"_s);
    return re.match(s).hasMatch();
}

} // namespace

QString statementTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(u"yyyy-MM-ddTHH:mm:ss.zzz'Z'"_s);
}

std::optional<qint64> statementTimeFromText(const QString &text)
{
    static const QRegularExpression re(u"^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$"_s);
    if (!re.match(text).hasMatch())
        return std::nullopt;
    QDateTime t = QDateTime::fromString(text.left(23), u"yyyy-MM-ddTHH:mm:ss.zzz"_s);
    if (!t.isValid())
        return std::nullopt;
    t.setTimeSpec(Qt::UTC);
    const qint64 ms = t.toMSecsSinceEpoch();
    if (statementTime(ms) != text) // no 24:00, no leap seconds: one text per instant
        return std::nullopt;
    return ms;
}

QJsonObject ApprovalStatement::toJson() const
{
    return QJsonObject{
        {u"format"_s, QString::fromLatin1(Format)},
        {u"proposal_id"_s, QString::fromLatin1(proposalId)},
        {u"change_type"_s, changeType},
        {u"request_sha256"_s, QString::fromLatin1(requestSha256)},
        {u"dry_run_sha256"_s, QString::fromLatin1(dryRunSha256)},
        {u"dialog_sha256"_s, QString::fromLatin1(dialogSha256)},
        {u"decision"_s, decision},
        {u"approver"_s, approver},
        {u"decided_at"_s, statementTime(decidedMs)},
        {u"expires_at"_s, statementTime(expiresMs)},
    };
}

QByteArray ApprovalStatement::canonical() const
{
    return canonicalJson(toJson());
}

std::optional<ApprovalStatement> ApprovalStatement::parse(const QByteArray &text, QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (text.size() > MaxBytes)
        return fail(u"the statement is over %1 bytes"_s.arg(MaxBytes));
    QString why;
    const auto canonicalText = canonicalizeText(text, &why, 2);
    if (!canonicalText)
        return fail(u"the statement is not strict JSON: %1"_s.arg(why));
    if (*canonicalText != text)
        return fail(u"the statement is not in its canonical form (RFC 8785)"_s);
    const QJsonDocument doc = QJsonDocument::fromJson(text);
    if (!doc.isObject())
        return fail(u"the statement is not a JSON object"_s);
    const QJsonObject o = doc.object();
    if (o.keys() != memberNames()) // QJsonObject's keys are sorted
        return fail(
            u"the statement must have exactly the members %1"_s.arg(memberNames().join(u", "_s)));
    for (const QString &k : memberNames())
        if (!o.value(k).isString() || o.value(k).toString().toUtf8().size() > 256)
            return fail(u"%1: must be a string of at most 256 bytes"_s.arg(k));
    auto str = [&o](const char *k) { return o.value(QLatin1StringView(k)).toString(); };
    if (str("format") != QLatin1StringView(Format))
        return fail(u"format: must be \"%1\""_s.arg(QLatin1StringView(Format)));
    static const QRegularExpression uuidRe(
        u"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"_s);
    if (!uuidRe.match(str("proposal_id")).hasMatch())
        return fail(u"proposal_id: must be a lower-case uuid"_s);
    static const QStringList changeTypes{u"connection_create"_s, u"network_create"_s,
                                         u"service_token_create"_s};
    if (!changeTypes.contains(str("change_type")))
        return fail(u"change_type: must be one of %1"_s.arg(changeTypes.join(u", "_s)));
    for (const char *k : {"request_sha256", "dry_run_sha256", "dialog_sha256"})
        if (!isHex64(str(k)))
            return fail(u"%1: must be 64 lower-case hex digits"_s.arg(QLatin1StringView(k)));
    if (str("decision") != u"approve"_s && str("decision") != u"deny"_s)
        return fail(u"decision: must be approve or deny"_s);
    static const QRegularExpression roleRe(u"^[^\\x00-\\x1f\\x7f]{1,63}$"_s);
    if (!roleRe.match(str("approver")).hasMatch() || str("approver").toUtf8().size() > 63)
        return fail(u"approver: must be a role name (1 to 63 bytes, no control characters)"_s);
    const auto decided = statementTimeFromText(str("decided_at"));
    const auto expires = statementTimeFromText(str("expires_at"));
    if (!decided || !expires)
        return fail(u"decided_at and expires_at: must be UTC times YYYY-MM-DDTHH:MM:SS.mmmZ"_s);
    ApprovalStatement s;
    s.proposalId = str("proposal_id").toLatin1();
    s.changeType = str("change_type");
    s.requestSha256 = str("request_sha256").toLatin1();
    s.dryRunSha256 = str("dry_run_sha256").toLatin1();
    s.dialogSha256 = str("dialog_sha256").toLatin1();
    s.decision = str("decision");
    s.approver = str("approver");
    s.decidedMs = *decided;
    s.expiresMs = *expires;
    return s;
}

QByteArray canonicalJsonSha256Hex(const QByteArray &json)
{
    const auto c = canonicalizeText(json);
    return c ? Sha256::hash(*c).toHex() : QByteArray();
}

} // namespace fb::team
