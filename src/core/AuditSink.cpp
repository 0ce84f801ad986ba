#include "core/AuditSink.h"

#include <QCryptographicHash>

namespace fb {

QString tokenDigest(const QString &token)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(token.toUtf8(), QCryptographicHash::Sha256).toHex());
}

} // namespace fb
