#include "transport/http/HttpMessages.h"
#include "mcp/Protocol.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace fb::transport::http {

namespace protocol = mcp::protocol;

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 202:
        return "Accepted";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 413:
        return "Content Too Large";
    case 415:
        return "Unsupported Media Type";
    case 503:
        return "Service Unavailable";
    default:
        return "Error";
    }
}

QByteArray rpcError(const QJsonValue &id, int code, const QString &message, const QJsonValue &data)
{
    QJsonObject error{{u"code"_s, code}, {u"message"_s, message}};
    if (!data.isUndefined() && !data.isNull())
        error.insert(u"data"_s, data);
    return QJsonDocument(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"error"_s, error}})
        .toJson(QJsonDocument::Compact);
}

// A well-formed JSON-RPC 2.0 message: request, notification or response.
bool validMessage(const QJsonValue &value)
{
    if (!value.isObject())
        return false;
    const QJsonObject m = value.toObject();
    if (m.value("jsonrpc"_L1) != "2.0"_L1)
        return false;
    const auto id = m.constFind("id"_L1);
    if (id != m.constEnd() && !protocol::isValidRequestId(id.value()))
        return false;
    const auto method = m.constFind("method"_L1);
    if (method != m.constEnd()) {
        const QJsonValue params = m.value("params"_L1);
        return method.value().isString() && (params.isUndefined() || params.isObject());
    }
    return id != m.constEnd() && (m.contains("result"_L1) || m.contains("error"_L1));
}

QJsonValue envelopeClaim(const QJsonObject &message)
{
    return message.value("params"_L1)
        .toObject()
        .value("_meta"_L1)
        .toObject()
        .value(EnvelopeVersionKey);
}

bool isModernVersion(const QString &version)
{
    return version >= "2026-01-01"_L1;
}

// The Mcp-Name header mirrors this field of params (the SDK's table).
QString nameField(const QString &method)
{
    if (method == "tools/call"_L1 || method == "prompts/get"_L1)
        return u"name"_s;
    if (method == "resources/read"_L1)
        return u"uri"_s;
    if (method.startsWith("tasks/"_L1) && method != "tasks/list"_L1)
        return u"taskId"_s;
    return {};
}

// "=?base64?...?=" values are decoded; anything else is the plain value. Null: invalid.
std::optional<QString> decodeParamValue(const QByteArray &raw)
{
    const QByteArray v = raw.trimmed();
    if (v.startsWith("=?base64?") && v.endsWith("?=") && v.size() >= 11) {
        const auto decoded = QByteArray::fromBase64Encoding(
            v.mid(9, v.size() - 11), QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return std::nullopt;
        return QString::fromUtf8(*decoded);
    }
    return QString::fromLatin1(v);
}

int modernErrorStatus(const QByteArray &errorResponse)
{
    const int code = QJsonDocument::fromJson(errorResponse)
                         .object()
                         .value("error"_L1)
                         .toObject()
                         .value("code"_L1)
                         .toInt();
    switch (code) {
    case protocol::MethodNotFound:
        return 404;
    case protocol::ParseError:
    case protocol::InvalidRequest:
    case protocol::UnsupportedProtocolVersion:
    case MissingRequiredClientCapability:
    case HeaderMismatch:
        return 400;
    default:
        return 200;
    }
}

std::optional<Mismatch> modernHeaderMismatch(const QJsonObject &message, const QString &claimed,
                                             const QByteArray &versionHeader,
                                             const QByteArray &methodHeader,
                                             const QByteArray &nameHeader)
{
    const QString method = message.value("method"_L1).toString();
    const QString version = QString::fromLatin1(versionHeader);
    const QString methodName = QString::fromLatin1(methodHeader);
    if (!versionHeader.isEmpty() && version != claimed)
        return Mismatch{version, u"the body envelope names protocol version %1 but the "
                                 "MCP-Protocol-Version header names %2"_s.arg(claimed, version)};
    if (!methodHeader.isEmpty() && methodName != method)
        return Mismatch{methodName, u"the body names method %1 but the Mcp-Method header names "
                                    "%2"_s.arg(method, methodName)};
    if (!message.contains("id"_L1))
        return std::nullopt; // notifications: presence is not required
    if (versionHeader.isEmpty())
        return Mismatch{u"(missing)"_s,
                        u"the body envelope names protocol version %1 but the "
                        "required MCP-Protocol-Version header is absent"_s.arg(claimed)};
    if (methodHeader.isEmpty())
        return Mismatch{u"(missing)"_s, u"the body names method %1 but the required Mcp-Method "
                                        "header is absent"_s.arg(method)};
    const QString field = nameField(method);
    const QJsonValue bodyName = message.value("params"_L1).toObject().value(field);
    if (field.isEmpty() || !bodyName.isString())
        return std::nullopt;
    if (nameHeader.isEmpty())
        return Mismatch{u"(missing)"_s, u"the body carries params.%1 but the required Mcp-Name "
                                        "header is absent"_s.arg(field)};
    const QString shown = QString::fromLatin1(nameHeader.left(200));
    const std::optional<QString> decoded = decodeParamValue(nameHeader);
    if (!decoded)
        return Mismatch{shown, u"the Mcp-Name header carries an invalid Base64 sentinel value"_s};
    if (*decoded != bodyName.toString())
        return Mismatch{shown, u"the body's params.%1 and the Mcp-Name header differ"_s.arg(field)};
    return std::nullopt;
}

} // namespace fb::transport::http
