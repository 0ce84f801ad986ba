#include "fabric/FabricResult.h"

namespace fb {

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
    switch (kind) {
    case Kind::Ok:
        return QStringLiteral("ok");
    case Kind::FabricError:
        return QStringLiteral("fabric_error");
    case Kind::AuthError:
        return QStringLiteral("auth_error");
    case Kind::HttpError:
        return QStringLiteral("http_error");
    case Kind::NetworkError:
        return QStringLiteral("network_error");
    case Kind::Timeout:
        return QStringLiteral("timeout");
    case Kind::OutcomeUnknown:
        return QStringLiteral("outcome_unknown");
    case Kind::DryRunUnsupported:
        return QStringLiteral("dry_run_unsupported");
    case Kind::InvalidResponse:
        return QStringLiteral("invalid_response");
    case Kind::Cancelled:
        return QStringLiteral("cancelled");
    }
    return QStringLiteral("unknown");
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
    switch (outcome) {
    case CreateOutcome::Created:
        return QStringLiteral("created");
    case CreateOutcome::Rejected:
        return QStringLiteral("rejected");
    case CreateOutcome::Unknown:
        return QStringLiteral("unknown");
    case CreateOutcome::NotSent:
        return QStringLiteral("not_sent");
    }
    return QStringLiteral("unknown");
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
