#pragma once
// ClientInfo: who is on the other end of one MCP session.
#include <QJsonObject>
#include <QMetaType>
#include <QString>

namespace fb::mcp {

struct ClientInfo {
    quint64 sessionId = 0;
    QString name;            // clientInfo.name
    QString title;           // clientInfo.title
    QString version;         // clientInfo.version
    QString protocolVersion; // negotiated
    QString transport;       // "stdio" or "socket"
    QJsonObject capabilities;
    qint64 connectedAtMs = 0;
    bool initialized = false; // notifications/initialized received

    // Form elicitation: "elicitation": {} (2025-06-18) or "elicitation": {"form": {}}.
    bool supportsFormElicitation() const;
    QJsonObject toJson() const; // for GUI/audit; no secrets exist here
};

} // namespace fb::mcp

Q_DECLARE_METATYPE(fb::mcp::ClientInfo)
