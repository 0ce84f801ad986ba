#include "team/ApprovalStatement.h"

#include "core/CanonicalJson.h"
#include "core/ChangeType.h"
#include "core/Sha256.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

// Each version's members, sorted (as QJsonObject's keys are).
const QStringList &memberNames(int version)
{
    static const QStringList v1{
        u"approver"_s,      u"change_type"_s,    u"decided_at"_s, u"decision"_s,
        u"dialog_sha256"_s, u"dry_run_sha256"_s, u"expires_at"_s, u"format"_s,
        u"proposal_id"_s,   u"request_sha256"_s,
    };
    static const QStringList v2{
        u"approver"_s,        u"change_type"_s,    u"credential_identity"_s, u"decided_at"_s,
        u"decision"_s,        u"dialog_sha256"_s,  u"dry_run_sha256"_s,      u"expires_at"_s,
        u"fabric_endpoint"_s, u"format"_s,         u"price_sha256"_s,        u"proposal_id"_s,
        u"proposer"_s,        u"request_sha256"_s, u"token_sha256"_s,
    };
    return version == 1 ? v1 : v2;
}

// The binding's text: at most 256 bytes (the parser's bound), no control characters.
bool isBindingText(const QString &s)
{
    static const QRegularExpression re(u"^[^\\x00-\\x1f\\x7f]*\\z"_s);
    return re.match(s).hasMatch();
}

} // namespace

namespace statementcheck {

std::nullopt_t refuse(QString *error, const QString &why)
{
    if (error)
        *error = why;
    return std::nullopt;
}

std::optional<QJsonObject>
parseObject(const QByteArray &text, int maxBytes,
            const std::function<const QStringList &(const QJsonObject &)> &membersOf,
            QString *error)
{
    if (text.size() > maxBytes)
        return refuse(error, u"the statement is over %1 bytes"_s.arg(maxBytes));
    QString why;
    const auto canonicalText = canonicalizeText(text, &why, 2);
    if (!canonicalText)
        return refuse(error, u"the statement is not strict JSON: %1"_s.arg(why));
    if (*canonicalText != text)
        return refuse(error, u"the statement is not in its canonical form (RFC 8785)"_s);
    const QJsonDocument doc = QJsonDocument::fromJson(text);
    if (!doc.isObject())
        return refuse(error, u"the statement is not a JSON object"_s);
    const QJsonObject o = doc.object();
    const QStringList &members = membersOf(o);
    if (o.keys() != members)
        return refuse(
            error, u"the statement must have exactly the members %1"_s.arg(members.join(u", "_s)));
    for (const QString &k : members)
        if (!o.value(k).isString() || o.value(k).toString().toUtf8().size() > 256)
            return refuse(error, u"%1: must be a string of at most 256 bytes"_s.arg(k));
    return o;
}

bool isRoleName(const QString &s)
{
    static const QRegularExpression roleRe(u"^[^\\x00-\\x1f\\x7f]{1,63}\\z"_s);
    return roleRe.match(s).hasMatch() && s.toUtf8().size() <= 63;
}

bool isHex64(const QString &s)
{
    static const QRegularExpression re(u"^[0-9a-f]{64}\\z"_s);
    return re.match(s).hasMatch();
}

bool isLowerUuid(const QString &s)
{
    static const QRegularExpression re(
        u"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\z"_s);
    return re.match(s).hasMatch();
}

} // namespace statementcheck

QString statementTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(u"yyyy-MM-ddTHH:mm:ss.zzz'Z'"_s);
}

std::optional<qint64> statementTimeFromText(const QString &text)
{
    static const QRegularExpression re(
        u"^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z\\z"_s);
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

qint64 statementExpiryMs(qint64 microseconds)
{
    // Round half away from zero, as PostgreSQL's numeric-to-bigint cast.
    const qint64 whole = microseconds / 1000;
    const qint64 rest = microseconds % 1000; // same sign as microseconds
    if (rest >= 500)
        return whole + 1;
    if (rest <= -500)
        return whole - 1;
    return whole;
}

QByteArray priceSha256Hex(const std::optional<QJsonObject> &price)
{
    return Sha256::hash(canonicalJson(price ? QJsonValue(*price) : QJsonValue(QJsonValue::Null)))
        .toHex();
}

QJsonObject ApprovalStatement::toJson() const
{
    QJsonObject o{
        {u"format"_s, QString::fromLatin1(version == 2 ? Format : FormatV1)},
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
    if (version == 2) { // what version 2 binds beside version 1's members
        o.insert(u"price_sha256"_s, QString::fromLatin1(priceSha256));
        o.insert(u"fabric_endpoint"_s, fabricEndpoint);
        o.insert(u"credential_identity"_s, credentialIdentity);
        o.insert(u"token_sha256"_s, QString::fromLatin1(tokenSha256));
        o.insert(u"proposer"_s, proposer);
    }
    return o;
}

QByteArray ApprovalStatement::canonical() const
{
    return canonicalJson(toJson());
}

std::optional<ApprovalStatement> ApprovalStatement::parse(const QByteArray &text, QString *error)
{
    using namespace statementcheck;
    auto versionOf = [](const QJsonObject &o) {
        return o.value(u"format"_s).toString() == QLatin1StringView(FormatV1) ? 1 : 2;
    };
    const auto object = parseObject(
        text, MaxBytes,
        [&](const QJsonObject &o) -> const QStringList & { return memberNames(versionOf(o)); },
        error);
    if (!object)
        return std::nullopt;
    const QJsonObject &o = *object;
    const int version = versionOf(o);
    if (version == 2 && o.value(u"format"_s).toString() != QLatin1StringView(Format))
        return refuse(error, u"format: must be \"%1\" (or \"%2\" in old history)"_s.arg(
                                 QLatin1StringView(Format), QLatin1StringView(FormatV1)));
    auto str = [&o](const char *k) { return o.value(QLatin1StringView(k)).toString(); };
    if (!isLowerUuid(str("proposal_id")))
        return refuse(error, u"proposal_id: must be a lower-case uuid"_s);
    if (!changeTypeFromName(str("change_type")))
        return refuse(error,
                      u"change_type: must be one of %1"_s.arg(changeTypeNames().join(u", "_s)));
    QList<const char *> hashes{"request_sha256", "dry_run_sha256", "dialog_sha256"};
    if (version == 2)
        hashes << "price_sha256"
               << "token_sha256";
    for (const char *k : std::as_const(hashes))
        if (!isHex64(str(k)))
            return refuse(error,
                          u"%1: must be 64 lower-case hex digits"_s.arg(QLatin1StringView(k)));
    if (str("decision") != u"approve"_s && str("decision") != u"deny"_s)
        return refuse(error, u"decision: must be approve or deny"_s);
    if (!isRoleName(str("approver")))
        return refuse(error,
                      u"approver: must be a role name (1 to 63 bytes, no control characters)"_s);
    if (version == 2 && !isRoleName(str("proposer")))
        return refuse(error,
                      u"proposer: must be a role name (1 to 63 bytes, no control characters)"_s);
    if (version == 2)
        for (const char *k : {"fabric_endpoint", "credential_identity"})
            if (!isBindingText(str(k)))
                return refuse(error,
                              u"%1: must have no control characters"_s.arg(QLatin1StringView(k)));
    const auto decided = statementTimeFromText(str("decided_at"));
    const auto expires = statementTimeFromText(str("expires_at"));
    if (!decided || !expires)
        return refuse(error,
                      u"decided_at and expires_at: must be UTC times YYYY-MM-DDTHH:MM:SS.mmmZ"_s);
    ApprovalStatement s;
    s.version = version;
    s.proposalId = str("proposal_id").toLatin1();
    s.changeType = str("change_type");
    s.requestSha256 = str("request_sha256").toLatin1();
    s.dryRunSha256 = str("dry_run_sha256").toLatin1();
    s.dialogSha256 = str("dialog_sha256").toLatin1();
    s.decision = str("decision");
    s.approver = str("approver");
    s.decidedMs = *decided;
    s.expiresMs = *expires;
    if (version == 2) {
        s.priceSha256 = str("price_sha256").toLatin1();
        s.fabricEndpoint = str("fabric_endpoint");
        s.credentialIdentity = str("credential_identity");
        s.tokenSha256 = str("token_sha256").toLatin1();
        s.proposer = str("proposer");
    }
    return s;
}

QByteArray canonicalJsonSha256Hex(const QByteArray &json)
{
    const auto c = canonicalizeText(json);
    return c ? Sha256::hash(*c).toHex() : QByteArray();
}

} // namespace fb::team
