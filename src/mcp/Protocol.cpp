#include "mcp/Protocol.h"
#include "mcp/Logging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

namespace fb::mcp {
Q_LOGGING_CATEGORY(lcMcpServer, "fabricbroker.mcp.server")
Q_LOGGING_CATEGORY(lcMcpSession, "fabricbroker.mcp.session")
Q_LOGGING_CATEGORY(lcMcpTransport, "fabricbroker.mcp.transport")
} // namespace fb::mcp

using namespace Qt::StringLiterals;

namespace fb::mcp::protocol {

const QStringList &supportedVersions()
{
    static const QStringList versions{u"2025-11-25"_s, u"2025-06-18"_s, u"2025-03-26"_s,
                                      u"2024-11-05"_s};
    return versions;
}

QString latestVersion()
{
    return supportedVersions().constFirst();
}

QString batchVersion()
{
    return u"2025-03-26"_s;
}

bool isValidRequestId(const QJsonValue &id)
{
    return id.isString() || id.isDouble();
}

QString idKey(const QJsonValue &id)
{
    if (id.isString())
        return u's' + id.toString();
    const double d = id.toDouble();
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.2e18) {
        const qint64 i = id.toInteger(static_cast<qint64>(d));
        return u'i' + QString::number(i);
    }
    return u'd' + QString::number(d, 'g', 17);
}

QByteArray valueToJson(const QJsonValue &value)
{
    // Integer ids are by far the most common: no document round trip for them.
    if (value.isDouble()) {
        const double d = value.toDouble();
        if (d == std::floor(d) && std::fabs(d) < 9007199254740992.0)
            return QByteArray::number(static_cast<qint64>(d));
    }
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

const QStringList &logLevels()
{
    static const QStringList levels{u"debug"_s, u"info"_s,     u"notice"_s, u"warning"_s,
                                    u"error"_s, u"critical"_s, u"alert"_s,  u"emergency"_s};
    return levels;
}

int logLevelIndex(QStringView level)
{
    const QStringList &levels = logLevels();
    for (int i = 0; i < levels.size(); ++i) {
        if (levels.at(i) == level)
            return i;
    }
    return -1;
}

} // namespace fb::mcp::protocol
