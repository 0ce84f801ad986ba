#include "core/CompiledRequest.h"

#include <QCryptographicHash>
#include <QJsonDocument>

namespace fb {

QString requestSha256(ChangeType type, const QByteArray &body)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(changeTypeName(type).toUtf8());
    hash.addData(QByteArrayView("\n"));
    hash.addData(body);
    return QString::fromLatin1(hash.result().toHex());
}

QString CompiledRequest::sha256Hex() const { return requestSha256(changeType, body); }

QJsonObject CompiledRequest::toJson() const
{
    return {{QStringLiteral("method"), QString::fromLatin1(method)},
            {QStringLiteral("path"), path},
            {QStringLiteral("body"), QJsonDocument::fromJson(body).object()}};
}

} // namespace fb
