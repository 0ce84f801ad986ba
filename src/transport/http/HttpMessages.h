#pragma once
// HttpMessages: the message rules of the Streamable HTTP transport (HttpServer): JSON-RPC error
// bodies, the shape check of posted messages, and the 2026-07-28 standard-header checks
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name against the body), as the official SDK's server
// applies them.
#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <optional>

namespace fb::transport::http {

inline constexpr int HeaderMismatch = -32020; // the SDK's HEADER_MISMATCH_ERROR_CODE
inline constexpr int MissingRequiredClientCapability = -32021;
inline const QString EnvelopeVersionKey = QStringLiteral("io.modelcontextprotocol/protocolVersion");

QByteArray reasonPhrase(int status); // "OK", "Not Found", ...
// {"jsonrpc":"2.0","id":id,"error":{code,message[,data]}}
QByteArray rpcError(const QJsonValue &id, int code, const QString &message,
                    const QJsonValue &data = {});
// A well-formed JSON-RPC 2.0 request, notification or response.
bool validMessage(const QJsonValue &value);
// params._meta["io.modelcontextprotocol/protocolVersion"]: undefined when the message has none.
QJsonValue envelopeClaim(const QJsonObject &message);
bool isModernVersion(const QString &version); // 2026 and later
// The params field Mcp-Name mirrors for this method ("name", "uri", "taskId"), or empty.
QString nameField(const QString &method);
// "=?base64?...?=" decoded, anything else as is; nullopt for a broken sentinel.
std::optional<QString> decodeParamValue(const QByteArray &raw);

// The HTTP status of a 2026-07-28 error response: -32601 404; -32700, -32600, -32022, -32021,
// -32020 400 (the SDK's ladder table); any other code is in-band, 200.
int modernErrorStatus(const QByteArray &errorResponse);

struct Mismatch {
    QString header; // the header's value, or "(missing)"
    QString what;   // what disagrees
};
// The first disagreement between a modern message (whose envelope names `claimed`) and its
// standard headers, or nullopt. Requests need all of them; notifications only must not disagree.
std::optional<Mismatch> modernHeaderMismatch(const QJsonObject &message, const QString &claimed,
                                             const QByteArray &versionHeader,
                                             const QByteArray &methodHeader,
                                             const QByteArray &nameHeader);

} // namespace fb::transport::http
