#include "sandbox/SandboxReply.h"

#include <QJsonDocument>

namespace fb {

SandboxReply SandboxReply::json(int status, const QJsonObject &object)
{
    SandboxReply r;
    r.status = status;
    r.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return r;
}

SandboxReply SandboxReply::json(int status, const QJsonArray &array)
{
    SandboxReply r;
    r.status = status;
    r.body = QJsonDocument(array).toJson(QJsonDocument::Compact);
    return r;
}

SandboxReply SandboxReply::created(const QJsonObject &resource)
{
    SandboxReply r = json(201, resource);
    r.realCreate = true;
    return r;
}

SandboxReply SandboxReply::errors(int status, const QJsonArray &errorList)
{
    return json(status, errorList);
}

SandboxReply SandboxReply::error(int status, const QString &code, const QString &message,
                                 const QString &correlationId, const QString &details,
                                 const QString &property, const QString &reason)
{
    PropertyReasons info;
    if (!property.isEmpty() || !reason.isEmpty())
        info.append({property, reason});
    return errors(status, QJsonArray{fabricError(code, message, correlationId, details, info)});
}

QJsonObject fabricError(const QString &code, const QString &message, const QString &correlationId,
                        const QString &details, const PropertyReasons &additionalInfo)
{
    QJsonObject e{{QStringLiteral("errorCode"), code},
                  {QStringLiteral("errorMessage"), message},
                  {QStringLiteral("correlationId"), correlationId}};
    if (!details.isEmpty())
        e.insert(QStringLiteral("details"), details);
    if (!additionalInfo.isEmpty())
        e.insert(QStringLiteral("additionalInfo"), propertyReasonsJson(additionalInfo));
    return e;
}

QByteArray httpReasonPhrase(int status)
{
    switch (status) {
    case 200:
        return QByteArrayLiteral("OK");
    case 201:
        return QByteArrayLiteral("Created");
    case 202:
        return QByteArrayLiteral("Accepted");
    case 204:
        return QByteArrayLiteral("No Content");
    case 400:
        return QByteArrayLiteral("Bad Request");
    case 401:
        return QByteArrayLiteral("Unauthorized");
    case 403:
        return QByteArrayLiteral("Forbidden");
    case 404:
        return QByteArrayLiteral("Not Found");
    case 405:
        return QByteArrayLiteral("Method Not Allowed");
    case 415:
        return QByteArrayLiteral("Unsupported Media Type");
    case 429:
        return QByteArrayLiteral("Too Many Requests");
    case 500:
        return QByteArrayLiteral("Internal Server Error");
    case 502:
        return QByteArrayLiteral("Bad Gateway");
    case 503:
        return QByteArrayLiteral("Service Unavailable");
    case 504:
        return QByteArrayLiteral("Gateway Timeout");
    default:
        return QByteArrayLiteral("Status");
    }
}

} // namespace fb
