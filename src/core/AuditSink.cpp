#include "core/AuditSink.h"

#include <QCryptographicHash>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcAuditSink, "fabricbroker.core.audit")

namespace fb {

bool AuditSink::record(const QString &typeName, const QJsonObject &data)
{
    const std::optional<AuditEventType> type = auditEventFromName(typeName);
    if (!type) {
        qCCritical(lcAuditSink).noquote()
            << "refusing an audit record of unknown type" << typeName.left(64);
        return false;
    }
    return record(*type, data);
}

QString tokenDigest(const QString &token)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(token.toUtf8(), QCryptographicHash::Sha256).toHex());
}

} // namespace fb
