#include "gui/ClientText.h"

#include <QCoreApplication>

namespace fb::ClientText {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("fb::ClientText", text);
}
} // namespace

quint64 sessionId(const QJsonObject &client)
{
    const QJsonValue v = client.value(QStringLiteral("sessionId"));
    if (v.isString())
        return v.toString().toULongLong();
    return static_cast<quint64>(v.toInteger());
}

QString nameAndVersion(const QJsonObject &client)
{
    const QString name = client.value(QStringLiteral("name")).toString();
    if (name.isEmpty())
        return tr("unknown client");
    const QString version = client.value(QStringLiteral("version")).toString();
    return version.isEmpty() ? name : name + u' ' + version;
}

QString summary(const QJsonObject &client)
{
    if (client.isEmpty())
        return tr("unknown client");
    QStringList extra;
    if (const quint64 id = sessionId(client))
        extra << tr("session %1").arg(id);
    const QString transport = client.value(QStringLiteral("transport")).toString();
    if (!transport.isEmpty())
        extra << transport;
    QString text = nameAndVersion(client);
    if (!extra.isEmpty())
        text += QStringLiteral(" (") + extra.join(QStringLiteral(", ")) + u')';
    return text;
}

QString summary(const mcp::ClientInfo &client)
{
    if (client.name.isEmpty() && client.sessionId == 0)
        return tr("unknown client");
    return summary(client.toJson());
}

} // namespace fb::ClientText
