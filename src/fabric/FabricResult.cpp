#include "fabric/FabricResult.h"

#include <cstddef>
#include <utility>

namespace fb {

namespace {

// The name beside value in a table of {value, name}; "unknown" for a value the table lacks.
template <typename Enum, std::size_t N>
QString nameIn(const std::pair<Enum, const char *> (&names)[N], Enum value)
{
    for (const auto &[v, name] : names) {
        if (v == value)
            return QString::fromLatin1(name);
    }
    return QStringLiteral("unknown");
}

} // namespace

QJsonObject FabricError::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("error_code"), errorCode);
    o.insert(QStringLiteral("error_message"), errorMessage);
    if (!correlationId.isEmpty())
        o.insert(QStringLiteral("correlation_id"), correlationId);
    if (!details.isEmpty())
        o.insert(QStringLiteral("details"), details);
    if (!additionalInfo.isEmpty())
        o.insert(QStringLiteral("additional_info"), propertyReasonsJson(additionalInfo));
    return o;
}

QString FabricResult::kindName(Kind kind)
{
    static constexpr std::pair<Kind, const char *> names[] = {
        {Kind::Ok, "ok"},
        {Kind::FabricError, "fabric_error"},
        {Kind::AuthError, "auth_error"},
        {Kind::HttpError, "http_error"},
        {Kind::NetworkError, "network_error"},
        {Kind::Timeout, "timeout"},
        {Kind::OutcomeUnknown, "outcome_unknown"},
        {Kind::DryRunUnsupported, "dry_run_unsupported"},
        {Kind::InvalidResponse, "invalid_response"},
        {Kind::Cancelled, "cancelled"}};
    return nameIn(names, kind);
}

QJsonObject FabricResult::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("kind"), kindName(kind));
    o.insert(QStringLiteral("http_status"), httpStatus);
    o.insert(QStringLiteral("message"), message);
    o.insert(QStringLiteral("correlation_id"), correlationId);
    QJsonArray list;
    for (const FabricError &e : errors)
        list.append(e.toJson());
    o.insert(QStringLiteral("errors"), list);
    return o;
}

QString createOutcomeName(CreateOutcome outcome)
{
    static constexpr std::pair<CreateOutcome, const char *> names[] = {
        {CreateOutcome::Created, "created"},
        {CreateOutcome::Rejected, "rejected"},
        {CreateOutcome::Unknown, "unknown"},
        {CreateOutcome::NotSent, "not_sent"}};
    return nameIn(names, outcome);
}

CreateOutcome decideCreateOutcome(bool sent, int httpStatus, bool fabricErrorList, bool uuid)
{
    if (!sent)
        return CreateOutcome::NotSent;
    if (httpStatus >= 200 && httpStatus < 300)
        return uuid ? CreateOutcome::Created : CreateOutcome::Unknown;
    if (httpStatus >= 400 && httpStatus < 500 && fabricErrorList)
        return CreateOutcome::Rejected;
    return CreateOutcome::Unknown; // no answer, 1xx, 3xx, 4xx without an ErrorList, 5xx
}

CreateOutcome createOutcome(const FabricResult &result)
{
    if (!result.requestSent)
        return CreateOutcome::NotSent;
    if (result.kind == FabricResult::Kind::OutcomeUnknown)
        return CreateOutcome::Unknown;
    const QJsonValue uuid = result.body.toObject().value(QLatin1StringView("uuid"));
    const bool hasUuid = result.ok() && uuid.isString() && !uuid.toString().isEmpty();
    return decideCreateOutcome(true, result.httpStatus, !result.errors.isEmpty(), hasUuid);
}

} // namespace fb
