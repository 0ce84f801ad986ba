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

} // namespace fb
