#include "mcp/Session.h"
#include "mcp/Logging.h"
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"
#include "mcp/ToolCall_p.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QLocalSocket>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace fb::mcp {

namespace {

QJsonObject errorObject(int code, const QString &message, const QJsonValue &data)
{
    QJsonObject error{{u"code"_s, code}, {u"message"_s, message}};
    if (!data.isUndefined() && !data.isNull())
        error.insert(u"data"_s, data);
    return error;
}

void notSentLater(std::function<void(const ClientReply &)> callback, const QString &why)
{
    ClientReply reply;
    reply.status = ClientReply::Status::NotSent;
    reply.message = why;
    QTimer::singleShot(0, QCoreApplication::instance(), [cb = std::move(callback), reply] {
        if (cb)
            cb(reply);
    });
}

} // namespace

Session::Session(McpServer *server, quint64 id, const QString &transport, QIODevice *input,
                 QIODevice *output, QObject *parent)
    : QObject(parent)
    , m_server(server)
    , m_input(input)
    , m_output(output)
    , m_reader(server->options().maxFrameBytes)
    , m_maxPendingWrite(server->options().maxPendingWriteBytes)
{
    m_client.sessionId = id;
    m_client.transport = transport;
    m_client.connectedAtMs = QDateTime::currentMSecsSinceEpoch();
    m_socket = qobject_cast<QLocalSocket *>(input);
}

Session::~Session()
{
    close(u"session destroyed"_s);
    // Calls that never started are owned here; started ones belong to their handlers and
    // delete themselves when they finish.
    for (const InFlight &rec : std::as_const(m_inFlight)) {
        if (!rec.started)
            delete rec.call;
    }
}

QString Session::logLevel() const
{
    return protocol::logLevels().at(m_logLevel);
}

void Session::start()
{
    // Devices destroyed under the session end it.
    connect(m_input, &QObject::destroyed, this, [this] { close(u"input device destroyed"_s); });
    if (m_output != m_input)
        connect(m_output, &QObject::destroyed, this,
                [this] { close(u"output device destroyed"_s); });
    connect(m_input, &QIODevice::readyRead, this, &Session::onReadyRead);
    connect(m_input, &QIODevice::readChannelFinished, this, &Session::onInputFinished);
    if (m_socket) {
        connect(m_socket, &QLocalSocket::disconnected, this, &Session::onInputFinished);
        connect(m_socket, &QLocalSocket::errorOccurred, this,
                [this](QLocalSocket::LocalSocketError error) {
                    if (error != QLocalSocket::PeerClosedError)
                        qCInfo(lcMcpTransport)
                            << "session" << id() << "socket error" << m_socket->errorString();
                    onInputFinished();
                });
    }
    // Data that arrived before the session existed.
    QMetaObject::invokeMethod(
        this,
        [this] {
            onReadyRead();
            if (m_socket && m_socket->state() == QLocalSocket::UnconnectedState)
                onInputFinished();
        },
        Qt::QueuedConnection);
}

void Session::onReadyRead()
{
    if (m_closed || !m_input)
        return;
    // Every answer produced while handling this read leaves in one write (pipelined clients).
    CoalescedWrites coalesce(this);
    for (;;) {
        const QByteArray chunk = m_input->readAll();
        if (chunk.isEmpty())
            break;
        m_reader.feed(chunk, [this](FrameReader::Event event, const QByteArray &frame) {
            if (m_closed)
                return;
            if (event == FrameReader::Event::Oversized) {
                qCWarning(lcMcpSession) << "session" << id() << "discarding a frame larger than"
                                        << m_reader.maxFrameBytes() << "bytes";
                respondError(QJsonValue::Null, protocol::InvalidRequest,
                             u"Invalid Request: frame exceeds the maximum size of %1 bytes"_s.arg(
                                 m_reader.maxFrameBytes()),
                             nullptr);
                return;
            }
            handleFrame(frame);
        });
        if (m_closed)
            return;
    }
}

void Session::onInputFinished()
{
    if (m_closed)
        return;
    onReadyRead();
    if (m_closed)
        return;
    m_reader.finish([this](FrameReader::Event event, const QByteArray &frame) {
        if (event == FrameReader::Event::Frame && !m_closed)
            handleFrame(frame);
    });
    qCInfo(lcMcpSession) << "session" << id() << "end of input";
    close(u"end of input"_s);
}

// The first line of a socket session may be a relay's hello (see McpServer.h). It is not
// JSON-RPC: it is consumed here and answered with one welcome line.
bool Session::handleRelayHello(const QByteArray &frame)
{
    const RelayHelloHandler &handler = m_server->relayHelloHandler();
    if (!handler || m_client.transport != "socket"_L1 || !frame.contains(RelayHelloKey))
        return false;
    const QJsonObject message = QJsonDocument::fromJson(frame).object();
    const QJsonValue hello = message.value(QLatin1StringView(RelayHelloKey));
    if (!hello.isObject() || message.contains("jsonrpc"_L1))
        return false;
    const SessionPolicy policy = handler(hello.toObject());
    m_toolsetLimit = policy.toolsets;
    m_refusal = policy.refusal;
    m_refusalData = policy.refusalData;
    if (!m_refusal.isEmpty())
        qCWarning(lcMcpSession).noquote() << "session" << id() << "refused:" << m_refusal;
    else if (!m_toolsetLimit.isEmpty())
        qCInfo(lcMcpSession).noquote()
            << "session" << id() << "narrowed to the toolsets" << m_toolsetLimit.join(u',');
    writeFrame(QJsonDocument(QJsonObject{{QLatin1StringView(RelayWelcomeKey), policy.welcome}})
                   .toJson(QJsonDocument::Compact));
    return true;
}

void Session::handleFrame(const QByteArray &frame)
{
    if (std::exchange(m_firstFrame, false) && handleRelayHello(frame))
        return;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(frame, &error);
    if (error.error != QJsonParseError::NoError) {
        // A bare JSON scalar ("5", "\"x\"") is valid JSON but not a request: -32600.
        const char first = frame.trimmed().isEmpty() ? 0 : frame.trimmed().at(0);
        if (first != '{' && first != '[') {
            QJsonParseError wrapped;
            QJsonDocument::fromJson('[' + frame + ']', &wrapped);
            if (wrapped.error == QJsonParseError::NoError) {
                respondError(QJsonValue::Null, protocol::InvalidRequest,
                             u"Invalid Request: a message must be a JSON object"_s, nullptr);
                return;
            }
        }
        qCDebug(lcMcpSession) << "session" << id() << "parse error" << error.errorString();
        respondError(QJsonValue::Null, protocol::ParseError,
                     u"Parse error: %1 at offset %2"_s.arg(error.errorString()).arg(error.offset),
                     nullptr);
        return;
    }
    if (doc.isArray())
        handleBatch(doc.array());
    else
        handleMessage(doc.object(), nullptr);
}

void Session::handleBatch(const QJsonArray &array)
{
    if (m_client.protocolVersion != protocol::batchVersion()) {
        respondError(QJsonValue::Null, protocol::InvalidRequest,
                     u"Invalid Request: JSON-RPC batches are only supported with protocol "
                     "version %1"_s.arg(protocol::batchVersion()),
                     nullptr);
        return;
    }
    if (array.isEmpty()) {
        respondError(QJsonValue::Null, protocol::InvalidRequest, u"Invalid Request: empty batch"_s,
                     nullptr);
        return;
    }
    auto batch = std::make_shared<Batch>();
    for (const QJsonValue &item : array) {
        if (m_closed)
            return;
        if (!item.isObject()) {
            respondError(QJsonValue::Null, protocol::InvalidRequest,
                         u"Invalid Request: a message must be a JSON object"_s, batch);
            continue;
        }
        handleMessage(item.toObject(), batch);
    }
    batch->sealed = true;
    if (batch->pending == 0)
        flushBatch(batch);
}

void Session::handleMessage(const QJsonObject &message, const BatchPtr &batch)
{
    const auto idIt = message.constFind("id"_L1);
    const bool hasId = idIt != message.constEnd();
    const QJsonValue id = hasId ? idIt.value() : QJsonValue();
    const QJsonValue replyId = hasId && protocol::isValidRequestId(id) ? id : QJsonValue();

    if (message.value("jsonrpc"_L1) != QJsonValue(u"2.0"_s)) {
        respondError(replyId, protocol::InvalidRequest,
                     u"Invalid Request: \"jsonrpc\" must be \"2.0\""_s, batch);
        return;
    }
    const auto methodIt = message.constFind("method"_L1);
    if (methodIt == message.constEnd()) {
        if (hasId && (message.contains("result"_L1) || message.contains("error"_L1))) {
            handleClientResponse(message);
            return;
        }
        respondError(replyId, protocol::InvalidRequest, u"Invalid Request: missing \"method\""_s,
                     batch);
        return;
    }
    if (!methodIt.value().isString()) {
        respondError(replyId, protocol::InvalidRequest,
                     u"Invalid Request: \"method\" must be a string"_s, batch);
        return;
    }
    const QString method = methodIt.value().toString();
    const QJsonValue params = message.value("params"_L1);
    if (!hasId) {
        handleNotification(method, params.toObject());
        return;
    }
    if (!protocol::isValidRequestId(id)) {
        respondError(QJsonValue::Null, protocol::InvalidRequest,
                     u"Invalid Request: \"id\" must be a string or a number"_s, batch);
        return;
    }
    if (!params.isUndefined() && !params.isObject()) {
        respondError(id, protocol::InvalidParams, u"Invalid params: \"params\" must be an object"_s,
                     batch);
        return;
    }
    handleRequest(method, id, params.toObject(), batch);
}

void Session::handleNotification(const QString &method, const QJsonObject &params)
{
    if (method == "notifications/cancelled"_L1) {
        handleCancelled(params);
    } else if (method == "notifications/initialized"_L1) {
        if (!m_initializeAnswered) {
            qCWarning(lcMcpSession)
                << "session" << id() << "notifications/initialized before initialize, ignored";
            return;
        }
        if (!m_client.initialized) {
            m_client.initialized = true;
            emit initialized();
        }
    } else {
        qCDebug(lcMcpSession) << "session" << id() << "ignoring notification" << method;
    }
}

void Session::handleRequest(const QString &method, const QJsonValue &id, const QJsonObject &params,
                            const BatchPtr &batch)
{
    if (!m_refusal.isEmpty() && method != "ping"_L1) {
        respondError(id, protocol::SessionSettingsConflict, m_refusal, batch, m_refusalData);
        return;
    }
    const modern::Envelope envelope = modern::readEnvelope(params);
    if (envelope.kind != modern::Envelope::Kind::None || method == "server/discover"_L1) {
        handleModernRequest(method, id, params, envelope, batch);
        return;
    }
    if (method == "initialize"_L1) {
        handleInitialize(id, params, batch);
        return;
    }
    if (method == "ping"_L1) {
        respond(id, QJsonObject(), batch);
        return;
    }
    const bool known =
        method == "tools/list"_L1 || method == "tools/call"_L1 || method == "logging/setLevel"_L1;
    if (!known) {
        respondError(id, protocol::MethodNotFound, u"Method not found: %1"_s.arg(method), batch);
        return;
    }
    if (!m_initializeAnswered) {
        respondError(id, protocol::InvalidRequest,
                     u"Invalid Request: the session is not initialized (send initialize first)"_s,
                     batch);
        return;
    }
    if (method == "tools/list"_L1)
        handleToolsList(id, batch);
    else if (method == "tools/call"_L1)
        handleToolsCall(id, params, batch);
    else
        handleSetLevel(id, params, batch);
}

// 2026-07-28: each request carries its version, capabilities and client info; there is no
// initialize. Methods the revision removed (initialize, ping, logging/setLevel) do not exist.
void Session::handleModernRequest(const QString &method, const QJsonValue &id,
                                  const QJsonObject &params, const modern::Envelope &envelope,
                                  const BatchPtr &batch)
{
    using Kind = modern::Envelope::Kind;
    if (envelope.kind == Kind::Invalid) {
        respondError(id, protocol::InvalidParams, envelope.error, batch);
        return;
    }
    if (envelope.kind == Kind::Unsupported) {
        respondError(id, protocol::UnsupportedProtocolVersion,
                     u"Unsupported protocol version: %1"_s.arg(envelope.requested), batch,
                     modern::unsupportedVersionData(envelope.requested));
        return;
    }
    if (method == "server/discover"_L1) {
        // Also without an envelope: it is how a client learns which era to speak.
        respond(id, modern::discoverResult(m_server->options()), batch);
        return;
    }
    if (method != "tools/list"_L1 && method != "tools/call"_L1) {
        respondError(id, protocol::MethodNotFound, u"Method not found: %1"_s.arg(method), batch);
        return;
    }
    if (!std::exchange(m_modernSeen, true))
        qCInfo(lcMcpSession).noquote()
            << "session" << this->id() << "serves the" << envelope.version << "era";
    if (!m_initializeAnswered) {
        // What the session list shows; capabilities stay per request.
        m_client.protocolVersion = envelope.version;
        const ClientInfo identity = modern::clientFor(m_client, envelope);
        m_client.name = identity.name;
        m_client.title = identity.title;
        m_client.version = identity.version;
    }
    if (method == "tools/list"_L1)
        handleToolsList(id, batch, true);
    else
        handleToolsCall(id, params, batch, &envelope);
}

void Session::handleInitialize(const QJsonValue &id, const QJsonObject &params,
                               const BatchPtr &batch)
{
    if (m_initializeAnswered) {
        respondError(id, protocol::InvalidRequest,
                     u"Invalid Request: the session is already initialized"_s, batch);
        return;
    }
    const QJsonValue requested = params.value("protocolVersion"_L1);
    if (!requested.isString()) {
        respondError(id, protocol::InvalidParams,
                     u"Invalid params: \"protocolVersion\" must be a string"_s, batch);
        return;
    }
    const QString version = requested.toString();
    const QStringList &supported = protocol::supportedVersions();
    m_client.protocolVersion = supported.contains(version) ? version : protocol::latestVersion();
    m_client.capabilities = params.value("capabilities"_L1).toObject();
    m_client.setFromInitialize(params.value("clientInfo"_L1).toObject());

    const ServerOptions &options = m_server->options();
    QJsonObject serverInfo{{u"name"_s, options.name}, {u"version"_s, options.version}};
    if (!options.title.isEmpty())
        serverInfo.insert(u"title"_s, options.title);
    QJsonObject result{
        {u"protocolVersion"_s, m_client.protocolVersion},
        {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}},
                                        {u"logging"_s, QJsonObject()}}},
        {u"serverInfo"_s, serverInfo},
    };
    if (!options.instructions.isEmpty())
        result.insert(u"instructions"_s, options.instructions);
    m_initializeAnswered = true;
    qCInfo(lcMcpSession) << "session" << id << "initialize from" << m_client.name
                         << m_client.version << "requested" << version << "negotiated"
                         << m_client.protocolVersion;
    respond(id, result, batch);
}

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

    InFlight rec;
    rec.id = id;
    rec.call = new ToolCall(this, id, toolName, std::move(arguments), token);
    rec.call->d->params = params;
    if (envelope) {
        rec.call->d->modern = true;
        rec.call->d->client = modern::clientFor(m_client, *envelope);
        rec.call->d->modernLogLevel = envelope->logLevel;
    }
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

void Session::handleSetLevel(const QJsonValue &id, const QJsonObject &params, const BatchPtr &batch)
{
    const int level = protocol::logLevelIndex(params.value("level"_L1).toString());
    if (level < 0) {
        respondError(id, protocol::InvalidParams,
                     u"Invalid params: \"level\" must be one of %1"_s.arg(
                         protocol::logLevels().join(u", "_s)),
                     batch);
        return;
    }
    m_logLevel = level;
    respond(id, QJsonObject(), batch);
}

void Session::handleCancelled(const QJsonObject &params)
{
    const QJsonValue requestId = params.value("requestId"_L1);
    if (!protocol::isValidRequestId(requestId))
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
    markCancelled(call, reason.isEmpty() ? u"cancelled by the client"_s : reason);
}

void Session::markCancelled(ToolCall *call, const QString &reason)
{
    if (call->d->cancelled || call->d->finished)
        return;
    call->d->cancelled = true;
    call->d->cancelReason = reason;
    const QList<qint64> outstanding = std::exchange(call->d->clientRequests, {});
    if (call->d->session) {
        for (qint64 rid : outstanding)
            call->d->session->cancelClientRequest(rid, u"The tool call was cancelled"_s);
    }
    emit call->cancelled(reason);
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
    const bool send = !m_closed && (!call->isCancelled() || call->d->reportEvenIfCancelled);
    if (rec.batch) {
        if (send)
            rec.batch->responses.append(
                QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, rec.id}, {u"result"_s, result}});
        finishBatchItem(rec.batch);
        return;
    }
    if (send)
        respond(rec.id, result, nullptr);
}

void Session::handleClientResponse(const QJsonObject &message)
{
    const QJsonValue idValue = message.value("id"_L1);
    const qint64 rid = idValue.isDouble() ? idValue.toInteger(-1) : -1;
    auto it = m_clientRequests.find(rid);
    if (it == m_clientRequests.end()) {
        qCInfo(lcMcpSession) << "session" << id() << "ignoring a reply to unknown request"
                             << idValue;
        return;
    }
    ClientRequest req = std::move(*it);
    m_clientRequests.erase(it);
    delete req.timer;
    if (req.owner)
        req.owner->d->clientRequests.removeAll(rid);
    ClientReply reply;
    if (message.contains("error"_L1)) {
        reply.status = ClientReply::Status::Error;
        reply.error = message.value("error"_L1).toObject();
        reply.message = reply.error.value("message"_L1).toString();
    } else {
        reply.status = ClientReply::Status::Result;
        reply.result = message.value("result"_L1).toObject();
    }
    if (req.callback)
        req.callback(reply);
}

qint64 Session::sendClientRequest(const QString &method, const QJsonObject &params, int timeoutMs,
                                  std::function<void(const ClientReply &)> callback,
                                  ToolCall *owner)
{
    if (m_closed) {
        notSentLater(std::move(callback), u"The session has ended"_s);
        return 0;
    }
    if (m_modernSeen && !m_initializeAnswered) {
        notSentLater(std::move(callback),
                     u"In the 2026-07-28 era the server sends no requests to the client"_s);
        return 0;
    }
    if (method != "ping"_L1 && !m_client.initialized) {
        notSentLater(std::move(callback), u"The session is not initialized"_s);
        return 0;
    }
    if (method == "elicitation/create"_L1) {
        if (m_client.protocolVersion < u"2025-06-18"_s) {
            notSentLater(std::move(callback),
                         u"Elicitation needs protocol version 2025-06-18 or later (session uses "
                         "%1)"_s.arg(m_client.protocolVersion));
            return 0;
        }
        if (!m_client.supportsFormElicitation()) {
            notSentLater(std::move(callback),
                         u"The client did not declare the elicitation capability"_s);
            return 0;
        }
    }
    const qint64 rid = ++m_nextClientRequestId;
    ClientRequest req;
    req.method = method;
    req.callback = std::move(callback);
    req.owner = owner;
    if (timeoutMs > 0) {
        req.timer = new QTimer(this);
        req.timer->setSingleShot(true);
        connect(req.timer, &QTimer::timeout, this,
                [this, rid, timeoutMs] { onClientRequestTimeout(rid, timeoutMs); });
        req.timer->start(timeoutMs);
    }
    m_clientRequests.insert(rid, std::move(req));
    QJsonObject message{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, rid}, {u"method"_s, method}};
    if (!params.isEmpty() || method != "ping"_L1)
        message.insert(u"params"_s, params);
    writeMessage(message);
    return rid;
}

qint64 Session::ping(int timeoutMs, std::function<void(const ClientReply &)> callback)
{
    return sendClientRequest(u"ping"_s, QJsonObject(), timeoutMs, std::move(callback));
}

void Session::onClientRequestTimeout(qint64 rid, int timeoutMs)
{
    auto it = m_clientRequests.find(rid);
    if (it == m_clientRequests.end())
        return;
    ClientRequest req = std::move(*it);
    m_clientRequests.erase(it);
    if (req.timer)
        req.timer->deleteLater();
    if (req.owner)
        req.owner->d->clientRequests.removeAll(rid);
    const QString reason = u"Request timed out after %1 ms"_s.arg(timeoutMs);
    qCInfo(lcMcpSession) << "session" << id() << req.method << rid << "timed out";
    sendNotification(u"notifications/cancelled"_s,
                     QJsonObject{{u"requestId"_s, rid}, {u"reason"_s, reason}});
    ClientReply reply;
    reply.status = ClientReply::Status::Timeout;
    reply.message = reason;
    if (req.callback)
        req.callback(reply);
}

void Session::cancelClientRequest(qint64 rid, const QString &reason)
{
    auto it = m_clientRequests.find(rid);
    if (it == m_clientRequests.end())
        return;
    ClientRequest req = std::move(*it);
    m_clientRequests.erase(it);
    delete req.timer;
    if (req.owner)
        req.owner->d->clientRequests.removeAll(rid);
    QJsonObject params{{u"requestId"_s, rid}};
    if (!reason.isEmpty())
        params.insert(u"reason"_s, reason);
    sendNotification(u"notifications/cancelled"_s, params);
    ClientReply reply;
    reply.status = ClientReply::Status::Cancelled;
    reply.message = reason.isEmpty() ? u"Cancelled by the server"_s : reason;
    if (req.callback)
        req.callback(reply);
}

void Session::sendNotification(const QString &method, const QJsonObject &params)
{
    if (m_closed)
        return;
    QJsonObject message{{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, method}};
    if (!params.isEmpty())
        message.insert(u"params"_s, params);
    writeMessage(message);
}

bool Session::sendLog(const QString &level, const QString &logger, const QJsonValue &data)
{
    const int index = protocol::logLevelIndex(level);
    if (index < 0) {
        qCWarning(lcMcpSession) << "not a log level:" << level;
        return false;
    }
    if (m_closed || !m_initializeAnswered || index < m_logLevel)
        return false;
    QJsonObject params{{u"level"_s, level}, {u"data"_s, data}};
    if (!logger.isEmpty())
        params.insert(u"logger"_s, logger);
    sendNotification(u"notifications/message"_s, params);
    return true;
}

void Session::notifyToolsListChanged()
{
    if (m_client.initialized)
        sendNotification(u"notifications/tools/list_changed"_s, QJsonObject());
}

void Session::respond(const QJsonValue &id, const QJsonObject &result, const BatchPtr &batch)
{
    if (batch) {
        deliver(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}}, batch);
        return;
    }
    // The envelope is written directly: only the result goes through the JSON serializer, and
    // an empty result (ping) not even that.
    const QByteArray idJson = protocol::valueToJson(id);
    const QByteArray resultJson = result.isEmpty()
                                      ? QByteArrayLiteral("{}")
                                      : QJsonDocument(result).toJson(QJsonDocument::Compact);
    QByteArray frame;
    frame.reserve(resultJson.size() + idJson.size() + 40);
    // Keys in the order Qt's serializer uses (sorted), so every frame has one canonical shape.
    frame.append("{\"id\":");
    frame.append(idJson);
    frame.append(",\"jsonrpc\":\"2.0\",\"result\":");
    frame.append(resultJson);
    frame.append('}');
    writeFrame(std::move(frame));
}

void Session::respondError(const QJsonValue &id, int code, const QString &message,
                           const BatchPtr &batch, const QJsonValue &data)
{
    const QJsonValue replyId = id.isUndefined() ? QJsonValue(QJsonValue::Null) : id;
    deliver(QJsonObject{{u"jsonrpc"_s, u"2.0"_s},
                        {u"id"_s, replyId},
                        {u"error"_s, errorObject(code, message, data)}},
            batch);
}

void Session::deliver(QJsonObject message, const BatchPtr &batch)
{
    if (batch)
        batch->responses.append(std::move(message));
    else
        writeMessage(message);
}

void Session::finishBatchItem(const BatchPtr &batch)
{
    --batch->pending;
    if (batch->sealed && batch->pending == 0)
        flushBatch(batch);
}

void Session::flushBatch(const BatchPtr &batch)
{
    if (batch->responses.isEmpty())
        return; // a batch of notifications only gets no response
    const QJsonArray responses = std::exchange(batch->responses, {});
    writeFrame(QJsonDocument(responses).toJson(QJsonDocument::Compact));
}

void Session::writeMessage(const QJsonObject &message)
{
    writeFrame(QJsonDocument(message).toJson(QJsonDocument::Compact));
}

Session::CoalescedWrites::CoalescedWrites(Session *session)
    : m_session(session)
{
    ++m_session->m_coalesceDepth;
}

Session::CoalescedWrites::~CoalescedWrites()
{
    if (--m_session->m_coalesceDepth == 0 && !m_session->m_pendingOut.isEmpty())
        m_session->writeOut(std::exchange(m_session->m_pendingOut, QByteArray()));
}

void Session::writeFrame(QByteArray frame)
{
    if (m_closed || !m_output)
        return;
    frame.append('\n');
    if (m_coalesceDepth > 0) {
        m_pendingOut.append(frame);
        if (m_pendingOut.size() < CoalesceLimit)
            return;
        frame = std::exchange(m_pendingOut, QByteArray());
    }
    writeOut(frame);
}

void Session::writeOut(const QByteArray &frame)
{
    if (m_closed || !m_output)
        return;
    const qint64 written = m_output->write(frame);
    if (written != frame.size()) {
        qCWarning(lcMcpTransport) << "session" << id()
                                  << "write failed:" << m_output->errorString();
        close(u"write failed"_s);
        return;
    }
    if (m_maxPendingWrite > 0 && m_output->bytesToWrite() > m_maxPendingWrite) {
        qCWarning(lcMcpTransport) << "session" << id() << "has" << m_output->bytesToWrite()
                                  << "bytes waiting to be written (limit" << m_maxPendingWrite
                                  << "): the client is not reading, dropping the session";
        // Not aborted here: we may be inside the socket's own readyRead emission.
        m_dropping = true;
        if (m_socket)
            QMetaObject::invokeMethod(m_socket, &QLocalSocket::abort, Qt::QueuedConnection);
        close(u"client is not reading"_s);
    }
}

void Session::close(const QString &reason)
{
    if (m_closed)
        return;
    if (!m_pendingOut.isEmpty() && m_output && !m_dropping)
        m_output->write(std::exchange(m_pendingOut, QByteArray())); // answers already made
    m_closed = true;
    qCInfo(lcMcpSession) << "session" << id() << "closing:" << reason;
    if (m_input)
        disconnect(m_input, nullptr, this, nullptr);
    if (m_output && m_output != m_input)
        disconnect(m_output, nullptr, this, nullptr);

    // Outstanding server-to-client requests first: they end with SessionClosed.
    auto requests = std::exchange(m_clientRequests, {});
    for (auto it = requests.begin(); it != requests.end(); ++it) {
        delete it->timer;
        if (it->owner)
            it->owner->d->clientRequests.removeAll(it.key());
        ClientReply reply;
        reply.status = ClientReply::Status::SessionClosed;
        reply.message = u"The session ended: %1"_s.arg(reason);
        if (it->callback)
            it->callback(reply);
    }
    // Calls: those not started are dropped, the others are cancelled.
    m_startQueue.clear();
    QList<ToolCall *> running;
    for (auto it = m_inFlight.begin(); it != m_inFlight.end();) {
        if (!it->started) {
            delete it->call;
            it = m_inFlight.erase(it);
        } else {
            running.append(it->call);
            ++it;
        }
    }
    for (ToolCall *call : std::as_const(running)) {
        if (m_inFlight.contains(protocol::idKey(call->requestId())))
            markCancelled(call, u"The session ended: %1"_s.arg(reason));
    }
    if (m_socket && !m_dropping && m_socket->state() == QLocalSocket::ConnectedState)
        m_socket->disconnectFromServer(); // flushes what is pending, then closes
    emit closed();
}

} // namespace fb::mcp
