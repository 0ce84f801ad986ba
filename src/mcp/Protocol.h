#pragma once
// JSON-RPC / MCP protocol constants and small helpers shared by the engine.
#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace fb::mcp::protocol {

inline constexpr int ParseError = -32700;
inline constexpr int InvalidRequest = -32600;
inline constexpr int MethodNotFound = -32601;
inline constexpr int InvalidParams = -32602;
inline constexpr int InternalError = -32603;
// Server-defined: a relayed session asked for settings the running instance cannot honour.
inline constexpr int SessionSettingsConflict = -32001;
// 2026-07-28: the request's protocol version is not one the server serves (data: {supported,
// requested}).
inline constexpr int UnsupportedProtocolVersion = -32022;
// 2026-07-28: the request needs a client capability (or extension) it did not declare.
inline constexpr int MissingRequiredClientCapability = -32021;

// Supported protocol versions, newest first. The first one is answered to unknown versions.
const QStringList &supportedVersions();
QString latestVersion();
// Batches (JSON arrays) are accepted only on sessions that negotiated this version.
QString batchVersion();

// A request id is a JSON string or number (fractional numbers are accepted and echoed as
// received). null, booleans, objects and arrays are not ids.
bool isValidRequestId(const QJsonValue &id);
// A map key identifying an id: "s<string>" or "i<integer>" or "d<double>". 1 and 1.0 are the
// same id; "1" and 1 are not.
QString idKey(const QJsonValue &id);
// Compact JSON text of a single value (string escaping included).
QByteArray valueToJson(const QJsonValue &value);
// The same text appended to out (an integer id without a temporary).
void appendValueJson(QByteArray &out, const QJsonValue &value);

// A request whose envelope is flat: "jsonrpc":"2.0", "id" (an integer of at most 15 digits, or a
// string of printable ASCII without escapes) and "method" (such a string), each exactly once, in
// any order, with JSON whitespace between tokens, and no other member (no "params"). Pings and
// parameterless requests, most of a pipelined client's traffic, are answered without building a
// JSON document. Anything else returns false and goes through the full parser, which answers it
// exactly as before; the views point into frame.
struct FlatRequest {
    QByteArrayView method;
    QByteArrayView id; // the id's JSON text without quotes
    bool idIsString = false;
};
bool scanFlatRequest(QByteArrayView frame, FlatRequest *out);

// RFC 5424 severities as used by logging/setLevel: index 0 = debug ... 7 = emergency,
// -1 = not a level.
int logLevelIndex(QStringView level);
const QStringList &logLevels();

} // namespace fb::mcp::protocol
