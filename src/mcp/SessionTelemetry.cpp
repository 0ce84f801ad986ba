// Session, what operations teams see (docs/observability.md): one server span and one
// mcp.server.operation.duration point per request, named and attributed as the OpenTelemetry
// MCP semantic conventions say, continuing the client's trace from params._meta.traceparent;
// mcp.server.session.duration when the session ends. Nothing here runs without a Telemetry.
//
// Every attribute is a name the server knows (a method it serves, a tool it serves, a protocol
// version it negotiated) or a bounded id: a method or tool name the client made up becomes
// "_OTHER", so neither a span nor a metric label carries a string the agent chose, and no
// argument value ever reaches them.
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"
#include "mcp/Session.h"
#include "telemetry/Telemetry.h"

#include <QDateTime>

#include <algorithm>
#include <chrono>

using namespace Qt::StringLiterals;

namespace fb::mcp {

namespace {

qint64 steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

const QString &knownMethod(const QString &method)
{
    static const QString known[] = {u"initialize"_s,           u"ping"_s,
                                    u"tools/list"_s,           u"tools/call"_s,
                                    u"logging/setLevel"_s,     u"server/discover"_s,
                                    u"subscriptions/listen"_s, u"tasks/get"_s,
                                    u"tasks/result"_s,         u"tasks/list"_s,
                                    u"tasks/cancel"_s};
    static const QString other = u"_OTHER"_s;
    for (const QString &name : known) {
        if (name == method)
            return name;
    }
    return other;
}

// network.transport of the conventions: stdio is a pipe, the per-user socket a Unix socket,
// Streamable HTTP runs over TCP.
QString networkTransport(const QString &transport)
{
    if (transport == "stdio"_L1)
        return u"pipe"_s;
    if (transport == "socket"_L1)
        return u"unix"_s;
    if (transport == "http"_L1)
        return u"tcp"_s;
    return u"_OTHER"_s;
}

// The span description of an error: the code's standard name, never the message (which may
// quote what the client sent).
QString errorDescription(const QString &errorType)
{
    bool ok = false;
    const int code = errorType.toInt(&ok);
    if (!ok)
        return errorType == "tool_error"_L1 ? u"The tool reported an error"_s : QString();
    switch (code) {
    case protocol::ParseError:
        return u"Parse error"_s;
    case protocol::InvalidRequest:
        return u"Invalid Request"_s;
    case protocol::MethodNotFound:
        return u"Method not found"_s;
    case protocol::InvalidParams:
        return u"Invalid params"_s;
    case protocol::InternalError:
        return u"Internal error"_s;
    default:
        return u"JSON-RPC error %1"_s.arg(code);
    }
}

constexpr qsizetype MaxRequestIdChars = 64;

// jsonrpc.request.id: an integer, or a string id of at most 64 of [A-Za-z0-9._:-] that is not a
// confirm token; anything else the client chose is "_OTHER" (docs/observability.md).
QString requestIdText(const QJsonValue &id)
{
    if (id.isDouble()) {
        const double v = id.toDouble();
        return v == double(qint64(v)) ? QString::number(qint64(v)) : u"_OTHER"_s;
    }
    const QString text = id.toString();
    if (text.isEmpty() || text.size() > MaxRequestIdChars || text.startsWith("chg-"_L1))
        return u"_OTHER"_s;
    for (const QChar c : text) {
        const bool ok = (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') ||
                        (c >= u'0' && c <= u'9') || c == u'.' || c == u'_' || c == u':' ||
                        c == u'-';
        if (!ok)
            return u"_OTHER"_s;
    }
    return text;
}

} // namespace

telemetry::Telemetry *Session::telemetry() const
{
    return m_server->telemetry();
}

bool Session::beginOperation(const QString &method, const QString &key, const QJsonValue &id,
                             const QJsonObject &params)
{
    telemetry::Telemetry *t = telemetry();
    if (!t)
        return false;
    if (m_ops.find(key) != m_ops.end())
        return false;
    Operation op;
    op.startNs = steadyNs();
    op.method = knownMethod(method);
    if (op.method == "tools/call"_L1) {
        const QString name = params.value("name"_L1).toString();
        const ToolDefinition *tool = m_server->registry()->servedTool(name);
        op.tool = tool ? name : u"_OTHER"_s;
    }
    // 2026-07-28: the request names its own (supported) version.
    if (const modern::Envelope envelope = modern::readEnvelope(params);
        envelope.kind == modern::Envelope::Kind::Modern)
        op.version = envelope.version;
    telemetry::Tracer *tracer = t->tracer();
    if (tracer->isEnabled()) {
        const QJsonValue traceparent = params.value("_meta"_L1).toObject().value("traceparent"_L1);
        std::optional<telemetry::SpanContext> parent;
        if (traceparent.isString())
            parent = telemetry::SpanContext::fromTraceparent(traceparent.toString());
        // The client is not trusted to turn the operator's tracing off: its context is the
        // parent, its sampled flag is not obeyed, and of its flags only "sampled" is kept.
        if (parent)
            parent->flags = 0x01;
        const QString name = op.tool.isEmpty() ? op.method : op.method + u' ' + op.tool;
        op.span = tracer->startSpan(name, telemetry::SpanKind::Server,
                                    parent.value_or(telemetry::SpanContext()));
        if (op.span.isRecording()) {
            op.span.setAttribute(u"mcp.method.name"_s, op.method);
            if (!op.tool.isEmpty()) {
                op.span.setAttribute(u"gen_ai.tool.name"_s, op.tool);
                op.span.setAttribute(u"gen_ai.operation.name"_s, u"execute_tool"_s);
            }
            op.span.setAttribute(u"jsonrpc.request.id"_s, requestIdText(id));
            if (m_spanSessionId.isEmpty())
                m_spanSessionId = QString::number(m_client.sessionId);
            op.span.setAttribute(u"mcp.session.id"_s, m_spanSessionId);
            op.span.setAttribute(u"network.transport"_s, networkTransport(m_client.transport));
        }
    }
    m_ops.emplace(key, std::move(op));
    return true;
}

void Session::endOperation(const QJsonValue &id, const QString &errorType)
{
    if (!m_ops.empty())
        endOperationByKey(protocol::idKey(id), errorType);
}

void Session::endOperationByKey(const QString &key, const QString &errorType)
{
    auto it = m_ops.find(key);
    if (it == m_ops.end())
        return;
    Operation op = std::move(it->second);
    m_ops.erase(it);
    telemetry::Telemetry *t = telemetry();
    if (!t)
        return;
    const double seconds = double(steadyNs() - op.startNs) / 1e9;
    // Appended in the order of their keys, as Attributes keeps them (tst_sessiontelemetry reads
    // the points back by these attributes).
    telemetry::Attributes attributes;
    attributes.items.reserve(6);
    if (!errorType.isEmpty())
        attributes.items.append({u"error.type"_s, errorType});
    if (!op.tool.isEmpty()) {
        attributes.items.append({u"gen_ai.operation.name"_s, u"execute_tool"_s});
        attributes.items.append({u"gen_ai.tool.name"_s, op.tool});
    }
    attributes.items.append({u"mcp.method.name"_s, op.method});
    const QString version = op.version.isEmpty() ? m_client.protocolVersion : op.version;
    if (!version.isEmpty())
        attributes.items.append({u"mcp.protocol.version"_s, version});
    attributes.items.append({u"network.transport"_s, networkTransport(m_client.transport)});
    Q_ASSERT(std::is_sorted(attributes.items.begin(), attributes.items.end()));
    t->operationDuration()->record(seconds, attributes);
    if (op.span.isRecording()) {
        // Known only now for initialize (negotiated) and kept per request in 2026-07-28.
        if (!version.isEmpty())
            op.span.setAttribute(u"mcp.protocol.version"_s, version);
        if (!errorType.isEmpty()) {
            op.span.setError(errorType, errorDescription(errorType));
            bool numeric = false;
            errorType.toInt(&numeric);
            if (numeric)
                op.span.setAttribute(u"rpc.response.status_code"_s, errorType);
        }
        op.span.end();
    }
}

void Session::settleOperation(const QString &method, const QString &key, const QString &errorType)
{
    if (m_ops.empty())
        return;
    if (!errorType.isEmpty())
        return endOperationByKey(key, errorType);
    // A tool call or a subscription still running ends when it is answered.
    if (method == "tools/call"_L1 && m_inFlight.contains(key))
        return;
    if (method == "subscriptions/listen"_L1 && m_listens.contains(key))
        return;
    endOperationByKey(key, QString());
}

void Session::endSessionTelemetry()
{
    telemetry::Telemetry *t = telemetry();
    auto open = std::exchange(m_ops, {});
    for (auto &[key, op] : open) {
        if (op.span.isRecording()) {
            op.span.setError(u"_OTHER"_s, u"The session ended before the answer"_s);
            op.span.end();
        }
    }
    if (!t || !m_initializeAnswered)
        return;
    const double seconds =
        double(QDateTime::currentMSecsSinceEpoch() - m_client.connectedAtMs) / 1000.0;
    telemetry::Attributes attributes;
    if (!m_client.protocolVersion.isEmpty())
        attributes.items.append({u"mcp.protocol.version"_s, m_client.protocolVersion});
    attributes.items.append({u"network.transport"_s, networkTransport(m_client.transport)});
    t->sessionDuration()->record(seconds, attributes);
}

telemetry::Span Session::startChildSpan(const QJsonValue &requestId, const QString &name) const
{
    if (m_ops.empty())
        return {};
    const auto it = m_ops.find(protocol::idKey(requestId));
    if (it == m_ops.end() || !it->second.span.isRecording())
        return {};
    telemetry::Telemetry *t = telemetry();
    if (!t)
        return {};
    return t->tracer()->startSpan(name, telemetry::SpanKind::Internal, it->second.span.context());
}

void Session::setOperationAttribute(const QJsonValue &requestId, const QString &key,
                                    const telemetry::AttributeValue &value)
{
    if (m_ops.empty())
        return;
    auto it = m_ops.find(protocol::idKey(requestId));
    if (it != m_ops.end())
        it->second.span.setAttribute(key, value);
}

} // namespace fb::mcp
