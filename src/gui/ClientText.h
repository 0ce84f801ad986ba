#pragma once
// ClientText: how the GUI names an MCP client, from the broker's ClientInfo JSON (the
// "client" entry of a proposal's context) or a live ClientInfo. Names come from the client's
// own initialize handshake: shown as such, never as something the broker vouches for.
#include "mcp/ClientInfo.h"

#include <QJsonObject>
#include <QString>

namespace fb::ClientText {

// "Claude Code 2.1.0 (session 3, stdio)"; "unknown client" when empty.
QString summary(const QJsonObject &client);
QString summary(const mcp::ClientInfo &client);
// "Claude Code 2.1.0"
QString nameAndVersion(const QJsonObject &client);
// The session id whether it was serialised as a string or a number; 0 when absent.
quint64 sessionId(const QJsonObject &client);

} // namespace fb::ClientText
