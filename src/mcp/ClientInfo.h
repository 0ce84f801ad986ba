#pragma once
// ClientInfo: who is on the other end of one MCP session.
#include <QJsonObject>
#include <QMetaType>
#include <QString>

namespace fb::mcp {

struct ClientInfo {
    quint64 sessionId = 0;
    // clientInfo strings, as the client wrote them but made safe to show and store by
    // setFromInitialize(): at most MaxTextLength code points, control/separator/bidi and other
    // invisible characters escaped ("\n", "\u202E"; core/UntrustedText.h).
    QString name;            // clientInfo.name
    QString title;           // clientInfo.title
    QString version;         // clientInfo.version
    QString protocolVersion; // negotiated
    QString transport;       // "stdio" or "socket"
    QJsonObject capabilities;
    qint64 connectedAtMs = 0;
    bool initialized = false; // notifications/initialized received
    // This session's own command line or environment asked for unconfirmed execution
    // (EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true): the process's stdio session when its
    // environment set it, a relayed session whose hello said so and was accepted. Never a
    // session that did not ask (another relayed client, a socket or HTTP client).
    bool asksUnconfirmedMutations = false;

    static constexpr qsizetype MaxTextLength = 100;
    // Fills name, title and version from the initialize request's clientInfo object.
    void setFromInitialize(const QJsonObject &clientInfo);
    // A clientInfo string under the rules above (non-strings become empty).
    static QString untrustedText(const QJsonValue &value);

    // Form elicitation: "elicitation": {} (2025-06-18) or "elicitation": {"form": {}}.
    bool supportsFormElicitation() const;
    QJsonObject toJson() const; // for GUI/audit; no secrets exist here
};

} // namespace fb::mcp

Q_DECLARE_METATYPE(fb::mcp::ClientInfo)
