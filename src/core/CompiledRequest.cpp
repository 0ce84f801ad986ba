#include "core/CompiledRequest.h"

#include "core/Sha256.h"

#include <QJsonDocument>

namespace fb {

QString requestSha256(ChangeType type, const QByteArray &body)
{
    Sha256 hash;
    hash.addData(changeTypeName(type).toUtf8());
    hash.addData(QByteArrayView("\n"));
    hash.addData(body);
    const auto digest = hash.result();
    return QString::fromLatin1(
        QByteArray::fromRawData(reinterpret_cast<const char *>(digest.data()), 32).toHex());
}

QString CompiledRequest::sha256Hex() const
{
    return requestSha256(changeType, body);
}

QJsonObject CompiledRequest::toJson() const
{
    return {{QStringLiteral("method"), QString::fromLatin1(method)},
            {QStringLiteral("path"), path},
            {QStringLiteral("body"), QJsonDocument::fromJson(body).object()}};
}

} // namespace fb
