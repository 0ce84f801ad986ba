#include "mcp/Session.h"
#include "mcp/ClientRequests.h"
#include "mcp/Logging.h"
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QLocalSocket>

using namespace Qt::StringLiterals;

namespace fb::mcp {

namespace {

// The method of a flat request as a QString: the common names are shared, not allocated.
QString flatMethodName(QByteArrayView method)
{
    static const QString known[] = {u"ping"_s,       u"tools/list"_s,      u"tools/call"_s,
                                    u"initialize"_s, u"server/discover"_s, u"logging/setLevel"_s};
    for (const QString &name : known) {
        if (QLatin1StringView(method) == name)
            return name;
    }
    return QString::fromLatin1(method);
}

} // namespace

Session::Session(McpServer *server, quint64 id, const QString &transport, QIODevice *input,
                 QIODevice *output, QObject *parent)
    : QObject(parent)
    , m_server(server)
    , m_input(input)
    , m_output(output)
    , m_reader(server->options().maxFrameBytes)
    , m_writer(output, server->options().maxPendingWriteBytes,
               [this](FrameWriter::Failure failure, const QString &detail) {
                   onWriteFailure(failure, detail);
               })
    , m_clientRequests(new ClientRequestTable(this))
{
    connect(m_clientRequests, &ClientRequestTable::timedOut, this,
            &Session::onClientRequestTimeout);
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
    FrameWriter::Coalesce coalesce(m_writer);
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
    applyRelayPolicy(policy);
    writeFrame(QJsonDocument(QJsonObject{{QLatin1StringView(RelayWelcomeKey), policy.welcome}})
                   .toJson(QJsonDocument::Compact));
    return true;
}

void Session::applyRelayPolicy(const SessionPolicy &policy)
{
    // Decided once: a hello line later in the stream is an ordinary (invalid) message, never a
    // second decision (a refused session cannot talk itself into being served).
    m_firstFrame = false;
    m_toolsetLimit = policy.toolsets;
    m_refusal = policy.refusal;
    m_refusalData = policy.refusalData;
    m_client.asksUnconfirmedMutations =
        policy.refusal.isEmpty() && policy.allowUnconfirmedMutations;
    if (!m_refusal.isEmpty())
        qCWarning(lcMcpSession).noquote() << "session" << id() << "refused:" << m_refusal;
    else if (!m_toolsetLimit.isEmpty())
        qCInfo(lcMcpSession).noquote()
            << "session" << id() << "narrowed to the toolsets" << m_toolsetLimit.join(u',');
}

void Session::handleFrame(const QByteArray &frame)
{
    if (std::exchange(m_firstFrame, false) && handleRelayHello(frame))
        return;
    // What handleMessage would do with such a frame, without the document: see scanFlatRequest.
    if (protocol::FlatRequest flat; protocol::scanFlatRequest(frame, &flat)) {
        if (flat.method == "ping" && !telemetry()) {
            // handleRequest answers a ping {} in every state of the session (refused, not yet
            // initialized, either era): the id's own bytes are the JSON respondJson would write.
            respondFlat(flat, "{}");
            return;
        }
        const QJsonValue id = flat.idIsString ? QJsonValue(QString::fromLatin1(flat.id))
                                              : QJsonValue(flat.id.toLongLong());
        handleRequest(flatMethodName(flat.method), id, QJsonObject(), nullptr);
        return;
    }
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
    if (!telemetry()) {
        dispatchRequest(method, id, params, batch);
        return;
    }
    // Only a request's own answer ends its operation: a later request that reuses the id of
    // one still running (refused, or a ping) is dispatched untracked.
    const QString key = protocol::idKey(id);
    const bool tracked = beginOperation(method, key, id, params);
    const QString outerKey = std::exchange(m_dispatchKey, tracked ? key : QString());
    const QString outerError = std::exchange(m_dispatchError, QString());
    dispatchRequest(method, id, params, batch);
    if (tracked)
        settleOperation(method, key, m_dispatchError);
    m_dispatchKey = outerKey;
    m_dispatchError = outerError;
}

void Session::dispatchRequest(const QString &method, const QJsonValue &id,
                              const QJsonObject &params, const BatchPtr &batch)
{
    if (!m_refusal.isEmpty() && method != "ping"_L1) {
        respondError(id, protocol::SessionSettingsConflict, m_refusal, batch, m_refusalData);
        emit refusalAnswered();
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
    const bool taskMethod = method == "tasks/get"_L1 || method == "tasks/result"_L1 ||
                            method == "tasks/list"_L1 || method == "tasks/cancel"_L1;
    const bool known = method == "tools/list"_L1 || method == "tools/call"_L1 ||
                       method == "logging/setLevel"_L1 || (taskMethod && servesTasks());
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
    else if (taskMethod)
        handleTaskRequest(method, id, params, batch);
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
    if (method == "subscriptions/listen"_L1) {
        handleListen(id, params, batch);
        return;
    }
    if (method == "tasks/get"_L1 || method == "tasks/cancel"_L1 || method == "tasks/update"_L1) {
        handleModernTaskRequest(method, id, params, envelope);
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
    const QJsonObject serverInfo = modern::serverInfo(options);
    QJsonObject capabilities{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}},
                             {u"logging"_s, QJsonObject()}};
    if (servesTasks()) {
        // Task-augmented tools/call (the tools that declare execution.taskSupport), and the
        // tasks/* methods (SessionTasks.cpp).
        capabilities.insert(
            u"tasks"_s,
            QJsonObject{{u"list"_s, QJsonObject()},
                        {u"cancel"_s, QJsonObject()},
                        {u"requests"_s,
                         QJsonObject{{u"tools"_s, QJsonObject{{u"call"_s, QJsonObject()}}}}}});
    }
    QJsonObject result{
        {u"protocolVersion"_s, m_client.protocolVersion},
        {u"capabilities"_s, capabilities},
        {u"serverInfo"_s, serverInfo},
    };
    if (!options.instructions.isEmpty())
        result.insert(u"instructions"_s, options.instructions);
    m_initializeAnswered = true;
    qCInfo(lcMcpSession) << "session" << m_client.sessionId << "initialize from" << m_client.name
                         << m_client.version << "requested" << version << "negotiated"
                         << m_client.protocolVersion;
    respond(id, result, batch);
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

void Session::onWriteFailure(FrameWriter::Failure failure, const QString &detail)
{
    if (failure == FrameWriter::Failure::WriteFailed) {
        qCWarning(lcMcpTransport) << "session" << id() << "write failed:" << detail;
        close(u"write failed"_s);
        return;
    }
    qCWarning(lcMcpTransport).noquote()
        << "session" << id() << "has" << detail << "bytes waiting to be written (limit"
        << m_server->options().maxPendingWriteBytes
        << "): the client is not reading, dropping the session";
    // Not aborted here: we may be inside the socket's own readyRead emission.
    m_dropping = true;
    if (m_socket)
        QMetaObject::invokeMethod(m_socket, &QLocalSocket::abort, Qt::QueuedConnection);
    close(u"client is not reading"_s);
}

void Session::close(const QString &reason)
{
    if (m_closed)
        return;
    if (!m_dropping)
        m_writer.flushPending(); // answers already made
    m_writer.stop();
    m_closed = true;
    endSessionTelemetry();
    qCInfo(lcMcpSession) << "session" << id() << "closing:" << reason;
    if (m_input)
        disconnect(m_input, nullptr, this, nullptr);
    if (m_output && m_output != m_input)
        disconnect(m_output, nullptr, this, nullptr);

    // Outstanding server-to-client requests first: they end with SessionClosed.
    ClientReply ended;
    ended.status = ClientReply::Status::SessionClosed;
    ended.message = u"The session ended: %1"_s.arg(reason);
    for (qint64 rid : m_clientRequests->ids())
        m_clientRequests->finish(rid, ended);
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
            call->markCancelled(u"The session ended: %1"_s.arg(reason));
    }
    if (m_socket && !m_dropping && m_socket->state() == QLocalSocket::ConnectedState)
        m_socket->disconnectFromServer(); // flushes what is pending, then closes
    emit closed();
}

} // namespace fb::mcp
