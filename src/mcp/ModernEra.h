#pragma once
// The 2026-07-28 era ("modern"): no initialize, every request names its protocol version,
// client capabilities and (optionally) client identity in a per-request _meta envelope.
// This file holds the pure parts: reading the envelope and building server/discover.
#include "mcp/ClientInfo.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace fb::mcp {

struct ServerOptions;

namespace modern {

inline constexpr char ProtocolVersionKey[] = "io.modelcontextprotocol/protocolVersion";
inline constexpr char ClientCapabilitiesKey[] = "io.modelcontextprotocol/clientCapabilities";
inline constexpr char ClientInfoKey[] = "io.modelcontextprotocol/clientInfo";
inline constexpr char LogLevelKey[] = "io.modelcontextprotocol/logLevel";
inline constexpr char ServerInfoKey[] = "io.modelcontextprotocol/serverInfo";
// The Tasks extension (SEP-2663): advertised in server/discover, declared by a client per request
// under clientCapabilities.extensions.
inline constexpr char TasksExtension[] = "io.modelcontextprotocol/tasks";
// Cache hints of tools/list and server/discover: the tool list can change at run time (settings,
// toolsets) and depends on the user, so nothing is reused and nothing is shared.
inline constexpr int CacheTtlMs = 0;
inline constexpr char CacheScope[] = "private";

// Revisions of the modern era we serve (newest first).
const QStringList &versions();
// Every revision we speak, modern and 2025 era, newest first (server/discover, -32022 data).
const QStringList &allVersions();

struct Envelope {
    enum class Kind {
        None,        // no envelope key in _meta: a 2025-era request
        Modern,      // complete and supported
        Invalid,     // a required key missing or of the wrong type: -32602 (see error)
        Unsupported, // a protocol version we do not serve: -32022 (see requested)
    };
    Kind kind = Kind::None;
    QString error;     // Invalid: what is wrong
    QString requested; // Unsupported: the version the client asked for (bounded, escaped)
    QString version;
    QJsonObject capabilities;
    QJsonObject clientInfo; // empty when the optional key is absent
    int logLevel = -1;      // index into protocol::logLevels(); -1 = no notifications/message
};

// Reads params._meta. A request is modern as soon as one of the three envelope keys is there.
Envelope readEnvelope(const QJsonObject &params);

// Whether the request's client capabilities declare the Tasks extension.
bool declaresTasks(const Envelope &envelope);

// The per-request identity of a modern request: the session's connection facts, the envelope's
// client info (under ClientInfo::setFromInitialize's rules), version and capabilities.
ClientInfo clientFor(const ClientInfo &session, const Envelope &envelope);

// error.data of -32022.
QJsonObject unsupportedVersionData(const QString &requested);

// The server/discover result (resultType, supportedVersions, capabilities, instructions,
// ttlMs, cacheScope, _meta serverInfo).
QJsonObject discoverResult(const ServerOptions &options);

// The same serverInfo object initialize answers.
QJsonObject serverInfo(const ServerOptions &options);

} // namespace modern
} // namespace fb::mcp
