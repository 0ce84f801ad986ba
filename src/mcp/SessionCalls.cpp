// Session, the tools side: tools/list, tools/call and the calls in flight (queued start,
// cancellation by the client, the one response of each call).
#include "mcp/Logging.h"
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"
#include "mcp/Session.h"
#include "mcp/ToolRegistry.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace fb::mcp {

void Session::handleToolsList(const QJsonValue &id, const BatchPtr &batch, bool modernEra)
{
    // The cursor param is ignored: the whole list is returned, without nextCursor.
    const QByteArray tools = m_toolsetLimit.isEmpty()
                                 ? m_server->registry()->toolsListJson()
                                 : m_server->registry()->toolsListJson(m_toolsetLimit);
    if (batch || (modernEra && (tools.size() < 3 || !tools.startsWith('{')))) {
        QJsonObject result = QJsonDocument::fromJson(tools).object();
        if (modernEra) {
            result.insert(u"resultType"_s, u"complete"_s);
            result.insert(u"ttlMs"_s, modern::CacheTtlMs);
            result.insert(u"cacheScope"_s, QLatin1StringView(modern::CacheScope));
        }
        respond(id, result, batch);
        return;
    }
    QByteArray frame;
    const QByteArray idJson = protocol::valueToJson(id);
    frame.reserve(tools.size() + idJson.size() + 100);
    frame.append("{\"id\":");
    frame.append(idJson);
    frame.append(",\"jsonrpc\":\"2.0\",\"result\":");
    if (modernEra) {
        // The cache hints and resultType spliced around the cached {"tools":[...]}, keys in
        // the serializer's (sorted) order.
        frame.append("{\"cacheScope\":\"");
        frame.append(modern::CacheScope);
        frame.append("\",\"resultType\":\"complete\",");
        frame.append(QByteArrayView(tools).sliced(1, tools.size() - 2));
        frame.append(",\"ttlMs\":");
        frame.append(QByteArray::number(modern::CacheTtlMs));
        frame.append('}');
    } else {
        frame.append(tools);
    }
    frame.append('}');
    writeFrame(std::move(frame));
}

void Session::handleToolsCall(const QJsonValue &id, const QJsonObject &params,
                              const BatchPtr &batch, const modern::Envelope *envelope)
{
    const QJsonValue name = params.value("name"_L1);
    if (!name.isString()) {
        respondError(id, protocol::InvalidParams, u"Invalid params: \"name\" must be a string"_s,
                     batch);
        return;
    }
    const auto argsIt = params.constFind("arguments"_L1);
    QJsonObject arguments;
    if (argsIt != params.constEnd()) {
        if (!argsIt.value().isObject()) {
            respondError(id, protocol::InvalidParams,
                         u"Invalid params: \"arguments\" must be an object"_s, batch);
            return;
        }
        arguments = argsIt.value().toObject();
    }
    const QString toolName = name.toString();
    const ToolDefinition *tool = m_server->registry()->servedTool(toolName);
    if (tool && !m_toolsetLimit.isEmpty() && !m_toolsetLimit.contains(tool->toolset))
        tool = nullptr; // this session was narrowed: the tool does not exist for it
    if (!tool) {
        respondError(id, protocol::InvalidParams, u"Unknown tool: %1"_s.arg(toolName), batch);
        return;
    }
    const QString key = protocol::idKey(id);
    if (m_inFlight.contains(key)) {
        respondError(id, protocol::InvalidRequest,
                     u"Invalid Request: a request with this id is already in flight"_s, batch);
        return;
    }
    QJsonValue token = params.value("_meta"_L1).toObject().value("progressToken"_L1);
    if (!token.isString() && !token.isDouble())
        token = QJsonValue(QJsonValue::Undefined);

    ToolCallRequest request;
    request.id = id;
    request.tool = toolName;
    request.arguments = std::move(arguments);
    request.progressToken = token;
    request.params = params;
    if (envelope) {
        request.modern = true;
        request.mayBecomeTask = !tool->taskSupport.isEmpty() && modern::declaresTasks(*envelope);
        request.modernClient = modern::clientFor(m_client, *envelope);
        request.modernLogLevel = envelope->logLevel;
    }
    // A task-augmented call (2025-11-25) is answered now with its task and runs on its own.
    if (!envelope && params.contains("task"_L1) && servesTasks()) {
        startTaskCall(id, params, tool, std::move(request), batch);
        return;
    }
    InFlight rec;
    rec.id = id;
    ToolCall *call = new ToolCall(this, std::move(request));
    connect(call, &ToolCall::finished, this,
            [this, call](const QJsonObject &result) { toolCallFinished(call, result); });
    connect(call, &ToolCall::failed, this, [this, call](int code, const QString &message) {
        toolCallFailed(call, code, message);
    });
    rec.call = call;
    rec.handler = tool->handler;
    rec.batch = batch;
    if (batch)
        ++batch->pending;
    m_inFlight.insert(key, std::move(rec));
    m_startQueue.append(key);
    // Handlers start only after the whole current read buffer has been parsed, so a cancel
    // arriving in the same read reaches the call before it starts.
    if (!m_startScheduled) {
        m_startScheduled = true;
        QMetaObject::invokeMethod(this, &Session::startQueuedCalls, Qt::QueuedConnection);
    }
}

void Session::startQueuedCalls()
{
    m_startScheduled = false;
    const QList<QString> queue = std::exchange(m_startQueue, {});
    for (const QString &key : queue) {
        if (m_closed)
            return;
        auto it = m_inFlight.find(key);
        if (it == m_inFlight.end() || it->started)
            continue;
        ToolCall *call = it->call;
        if (call->isCancelled()) {
            qCDebug(lcMcpSession) << "session" << id() << "call" << it->id
                                  << "cancelled before it started";
            const BatchPtr batch = it->batch;
            m_inFlight.erase(it);
            delete call;
            if (batch)
                finishBatchItem(batch);
            continue;
        }
        it->started = true;
        const std::function<void(ToolCall *)> handler = it->handler;
        qCDebug(lcMcpSession) << "session" << id() << "tools/call" << call->toolName();
        if (handler)
            handler(call); // may finish synchronously: `it` is not used after this
        else
            call->finishError(u"Tool %1 has no handler"_s.arg(call->toolName()));
    }
}

void Session::handleCancelled(const QJsonObject &params)
{
    const QJsonValue requestId = params.value("requestId"_L1);
    if (!protocol::isValidRequestId(requestId))
        return;
    if (endListen(requestId))
        return;
    auto it = m_inFlight.find(protocol::idKey(requestId));
    if (it == m_inFlight.end() || !it->call) {
        // Unknown, already answered, or the initialize request: ignored per the spec.
        qCDebug(lcMcpSession) << "session" << id() << "cancel for unknown request" << requestId;
        return;
    }
    ToolCall *call = it->call;
    if (call->isFinished() || call->isCancelled())
        return;
    const QString reason = params.value("reason"_L1).toString();
    qCInfo(lcMcpSession) << "session" << id() << "client cancelled" << requestId << reason;
    call->markCancelled(reason.isEmpty() ? u"cancelled by the client"_s : reason);
}

void Session::toolCallFinished(ToolCall *call, const QJsonObject &callResult)
{
    QJsonObject result = callResult;
    if (call->isModernEra() && !result.contains("resultType"_L1))
        result.insert(u"resultType"_s, u"complete"_s);
    auto it = m_inFlight.find(protocol::idKey(call->requestId()));
    if (it == m_inFlight.end() || it->call != call)
        return;
    const InFlight rec = std::move(*it);
    m_inFlight.erase(it);
    if (!m_ops.empty())
        endOperation(rec.id, callResult.value("isError"_L1).toBool() ? u"tool_error"_s : QString());
    const bool send = !m_closed && (!call->isCancelled() || call->reportsEvenIfCancelled());
    if (rec.batch) {
        if (send)
            rec.batch->responses.append(
                QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, rec.id}, {u"result"_s, result}});
        finishBatchItem(rec.batch);
        return;
    }
    if (!send)
        return;
    // A result the tool serialized already (ToolCall::finishStructuredJson), unless the modern
    // era added resultType to it above.
    if (const QByteArray json = call->resultJson(); !json.isEmpty() && !call->isModernEra())
        respondJson(rec.id, json);
    else
        respond(rec.id, result, nullptr);
}

// A tool that refuses its params answers with a JSON-RPC error instead of a result.
void Session::toolCallFailed(ToolCall *call, int code, const QString &message)
{
    auto it = m_inFlight.find(protocol::idKey(call->requestId()));
    if (it == m_inFlight.end() || it->call != call)
        return;
    const InFlight rec = std::move(*it);
    m_inFlight.erase(it);
    if (!m_ops.empty())
        endOperation(rec.id, QString::number(code));
    if (!m_closed && !call->isCancelled())
        respondError(rec.id, code, message, rec.batch);
    if (rec.batch)
        finishBatchItem(rec.batch);
}

} // namespace fb::mcp
