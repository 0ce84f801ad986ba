#include "team/ResolutionStatement.h"

#include "core/CanonicalJson.h"
#include "core/ChangeType.h"
#include "team/ApprovalStatement.h"

#include <QStringList>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

const QStringList &memberNames()
{
    static const QStringList names{
        u"change_type"_s, u"decided_at"_s,     u"dialog_sha256"_s, u"format"_s, u"outcome"_s,
        u"proposal_id"_s, u"request_sha256"_s, u"resolver"_s,      u"uuid"_s,
    };
    return names;
}

} // namespace

bool isResolutionUuid(const QString &text)
{
    return statementcheck::isLowerUuid(text);
}

QJsonObject ResolutionStatement::toJson() const
{
    return QJsonObject{
        {u"format"_s, QString::fromLatin1(Format)},
        {u"proposal_id"_s, QString::fromLatin1(proposalId)},
        {u"change_type"_s, changeType},
        {u"request_sha256"_s, QString::fromLatin1(requestSha256)},
        {u"outcome"_s, outcome},
        {u"uuid"_s, uuid},
        {u"dialog_sha256"_s, QString::fromLatin1(dialogSha256)},
        {u"resolver"_s, resolver},
        {u"decided_at"_s, statementTime(decidedMs)},
    };
}

QByteArray ResolutionStatement::canonical() const
{
    return canonicalJson(toJson());
}

std::optional<ResolutionStatement> ResolutionStatement::parse(const QByteArray &text,
                                                              QString *error)
{
    using namespace statementcheck;
    const auto object = parseObject(
        text, MaxBytes, [](const QJsonObject &) -> const QStringList & { return memberNames(); },
        error);
    if (!object)
        return std::nullopt;
    const QJsonObject &o = *object;
    auto str = [&o](const char *k) { return o.value(QLatin1StringView(k)).toString(); };
    if (str("format") != QLatin1StringView(Format))
        return refuse(error, u"format: must be \"%1\""_s.arg(QLatin1StringView(Format)));
    if (!isResolutionUuid(str("proposal_id")))
        return refuse(error, u"proposal_id: must be a lower-case uuid"_s);
    if (!changeTypeFromName(str("change_type")))
        return refuse(error,
                      u"change_type: must be one of %1"_s.arg(changeTypeNames().join(u", "_s)));
    for (const char *k : {"request_sha256", "dialog_sha256"})
        if (!isHex64(str(k)))
            return refuse(error,
                          u"%1: must be 64 lower-case hex digits"_s.arg(QLatin1StringView(k)));
    if (str("outcome") == u"created"_s) {
        if (!isResolutionUuid(str("uuid")))
            return refuse(error,
                          u"uuid: must be the lower-case uuid found when the outcome is created"_s);
    } else if (str("outcome") == u"not_created"_s) {
        if (!str("uuid").isEmpty())
            return refuse(error, u"uuid: must be empty when the outcome is not_created"_s);
    } else {
        return refuse(error, u"outcome: must be created or not_created"_s);
    }
    if (!isRoleName(str("resolver")))
        return refuse(error,
                      u"resolver: must be a role name (1 to 63 bytes, no control characters)"_s);
    const auto decided = statementTimeFromText(str("decided_at"));
    if (!decided)
        return refuse(error, u"decided_at: must be a UTC time YYYY-MM-DDTHH:MM:SS.mmmZ"_s);
    ResolutionStatement s;
    s.proposalId = str("proposal_id").toLatin1();
    s.changeType = str("change_type");
    s.requestSha256 = str("request_sha256").toLatin1();
    s.outcome = str("outcome");
    s.uuid = str("uuid");
    s.dialogSha256 = str("dialog_sha256").toLatin1();
    s.resolver = str("resolver");
    s.decidedMs = *decided;
    return s;
}

} // namespace fb::team
