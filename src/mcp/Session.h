#pragma once
// Session: one MCP conversation over one pair of devices (stdio, or a local socket used for
// both directions). Parses newline-delimited JSON-RPC, runs the lifecycle, dispatches tools,
// routes replies of server-to-client requests, and is the ONLY writer of its output device:
// every response and notification is serialized as one complete frame in one write call.
#include "mcp/ClientInfo.h"
#include "mcp/FrameReader.h"
#include "mcp/FrameWriter.h"
#include "mcp/ModernEra.h"
#include "mcp/TaskStore.h"
#include "mcp/ToolCall.h"
#include "telemetry/Tracing.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <functional>
#include <memory>
#include <unordered_map>

class QIODevice;
class QLocalSocket;

namespace fb::telemetry {
class Telemetry;
}

namespace fb::mcp {

class ClientRequestTable;
class McpServer;
struct ToolDefinition;
namespace protocol {
struct FlatRequest;
}
struct SessionPolicy;

class Session : public QObject {
    Q_OBJECT
public:
    // input and output may be the same device (sockets). The session does not take ownership
    // of the devices (the socket transport reparents its socket to the session).
    Session(McpServer *server, quint64 id, const QString &transport, QIODevice *input,
            QIODevice *output, QObject *parent = nullptr);
    ~Session() override;

    quint64 id() const { return m_client.sessionId; }
    const ClientInfo &clientInfo() const { return m_client; }
    bool isClosed() const { return m_closed; }
    // True once the initialize request has been answered.
    bool isInitializeAnswered() const { return m_initializeAnswered; }
    QString logLevel() const;
    int inFlightCalls() const { return static_cast<int>(m_inFlight.size()); }
    int pendingClientRequests() const;
    // From a relay's hello line: empty = the instance's toolsets.
    QStringList toolsetLimit() const { return m_toolsetLimit; }
    QString refusal() const { return m_refusal; }
    // What a relayed session gets (McpServer::relayHelloHandler's decision): its toolsets, or a
    // refusal that answers every request but ping with SessionSettingsConflict.
    void applyRelayPolicy(const SessionPolicy &policy);
    // The process's own stdio session: whether its environment asked for unconfirmed
    // execution (ClientInfo::asksUnconfirmedMutations).
    void setAsksUnconfirmedMutations(bool asks) { m_client.asksUnconfirmedMutations = asks; }

    // Server-to-client request with its own id space (integers from 1). "ping" may be sent at
    // any time; other methods only after notifications/initialized; "elicitation/create" only
    // when the client declared form elicitation and the protocol is >= 2025-06-18. Otherwise
    // the callback runs asynchronously with NotSent and 0 is returned. timeoutMs <= 0: no
    // timeout. The callback runs exactly once.
    qint64 sendClientRequest(const QString &method, const QJsonObject &params, int timeoutMs,
                             std::function<void(const ClientReply &)> callback,
                             ToolCall *owner = nullptr);
    // Sends notifications/cancelled for it and runs its callback with Cancelled.
    void cancelClientRequest(qint64 id, const QString &reason = {});
    // The same, only if the request belongs to this call / for every request of this call.
    void cancelClientRequestOf(const ToolCall *owner, qint64 id, const QString &reason);
    void cancelClientRequestsOf(const ToolCall *owner, const QString &reason);
    // Convenience for a server-initiated ping.
    qint64 ping(int timeoutMs, std::function<void(const ClientReply &)> callback);

    void sendNotification(const QString &method, const QJsonObject &params);
    // notifications/message if the session's level admits it (after initialize).
    bool sendLog(const QString &level, const QString &logger, const QJsonValue &data);
    void notifyToolsListChanged();
    // notifications/tasks/status for a task this session created (SessionTasks.cpp).
    void notifyTaskStatus(const TaskState &state);
    // ToolCall::becomeTask: the call's request is answered with a new task (2026-07-28
    // CreateTaskResult) and the call goes on as that task, beyond this session. False when the
    // call is not one of this session's calls in flight, or the store is full.
    bool escalateToTask(ToolCall *call);

    // Ends the session: client requests get SessionClosed, calls in flight are cancelled (those
    // not started yet are dropped), the transport is closed, closed() is emitted. Idempotent.
    void close(const QString &reason);

    // Starts reading (the server calls it once signals are connected).
    void start();

    // Telemetry of one request in flight (SessionTelemetry.cpp; docs/observability.md): a
    // child span of its server span, and a fabric_broker.* attribute on it. No-ops when the
    // server has no Telemetry, tracing is off or the request has ended.
    telemetry::Span startChildSpan(const QJsonValue &requestId, const QString &name) const;
    void setOperationAttribute(const QJsonValue &requestId, const QString &key,
                               const telemetry::AttributeValue &value);
    telemetry::Telemetry *telemetry() const;

signals:
    void initialized(); // notifications/initialized received
    void closed();
    // A refused session answered a request with its refusal (the relay may end now).
    void refusalAnswered();

private slots:
    void onReadyRead();
    void onInputFinished();

private:
    struct Batch {
        QJsonArray responses;
        int pending = 0;
        bool sealed = false;
    };
    using BatchPtr = std::shared_ptr<Batch>;
    struct InFlight {
        QJsonValue id;
        ToolCall *call = nullptr; // owned by the session until started
        std::function<void(ToolCall *)> handler;
        BatchPtr batch;
        bool started = false;
    };

    void handleFrame(const QByteArray &frame);
    bool handleRelayHello(const QByteArray &frame);
    void handleBatch(const QJsonArray &array);
    void handleMessage(const QJsonObject &message, const BatchPtr &batch);
    void handleNotification(const QString &method, const QJsonObject &params);
    void handleRequest(const QString &method, const QJsonValue &id, const QJsonObject &params,
                       const BatchPtr &batch);
    void dispatchRequest(const QString &method, const QJsonValue &id, const QJsonObject &params,
                         const BatchPtr &batch);
    void handleClientResponse(const QJsonObject &message);
    void handleInitialize(const QJsonValue &id, const QJsonObject &params, const BatchPtr &batch);
    void handleModernRequest(const QString &method, const QJsonValue &id, const QJsonObject &params,
                             const modern::Envelope &envelope, const BatchPtr &batch);
    void handleToolsList(const QJsonValue &id, const BatchPtr &batch, bool modernEra = false);
    void handleToolsCall(const QJsonValue &id, const QJsonObject &params, const BatchPtr &batch,
                         const modern::Envelope *envelope = nullptr);
    void handleSetLevel(const QJsonValue &id, const QJsonObject &params, const BatchPtr &batch);
    // MCP 2025-11-25 tasks (SessionTasks.cpp): a task-augmented tools/call, tasks/get,
    // tasks/result, tasks/list, tasks/cancel.
    bool servesTasks() const;
    void startTaskCall(const QJsonValue &id, const QJsonObject &params, const ToolDefinition *tool,
                       ToolCallRequest request, const BatchPtr &batch);
    void handleTaskRequest(const QString &method, const QJsonValue &id, const QJsonObject &params,
                           const BatchPtr &batch);
    void handleModernTaskRequest(const QString &method, const QJsonValue &id,
                                 const QJsonObject &params, const modern::Envelope &envelope);
    void handleCancelled(const QJsonObject &params);
    // 2026-07-28 subscriptions/listen (SessionSubscriptions.cpp).
    void handleListen(const QJsonValue &id, const QJsonObject &params, const BatchPtr &batch);
    bool endListen(const QJsonValue &requestId);
    void notifyListeners(const QString &method);
    void startQueuedCalls();
    void onClientRequestTimeout(qint64 id, int timeoutMs);

    // One server span and one mcp.server.operation.duration point per request, only while the
    // server has a Telemetry (SessionTelemetry.cpp). begin at handleRequest, end at the answer
    // (errorType: the JSON-RPC code, "tool_error", or empty); settle ends a request that was
    // answered synchronously without an error.
    struct Operation {
        qint64 startNs = 0; // steady clock
        QString method;     // a known method name or "_OTHER"
        QString tool;       // a served tool's name, "_OTHER", or empty
        QString version;    // a 2026-07-28 request's own protocol version
        telemetry::Span span;
    };
    // False when nothing is observed, or the id is that of a request still running. key is
    // protocol::idKey(id), made once per request by handleRequest.
    bool beginOperation(const QString &method, const QString &key, const QJsonValue &id,
                        const QJsonObject &params);
    void endOperation(const QJsonValue &id, const QString &errorType);
    void endOperationByKey(const QString &key, const QString &errorType);
    void settleOperation(const QString &method, const QString &key, const QString &errorType);
    void endSessionTelemetry();

    void toolCallFinished(ToolCall *call, const QJsonObject &result);
    void toolCallFailed(ToolCall *call, int code, const QString &message);

    void respond(const QJsonValue &id, const QJsonObject &result, const BatchPtr &batch);
    // The response frame around a result already serialized (compact, as Qt writes it).
    void respondJson(const QJsonValue &id, const QByteArray &resultJson);
    // respondJson for a flat request (protocol::scanFlatRequest), with the id's own text.
    void respondFlat(const protocol::FlatRequest &request, QByteArrayView resultJson);
    void respondError(const QJsonValue &id, int code, const QString &message, const BatchPtr &batch,
                      const QJsonValue &data = {});
    void deliver(QJsonObject message, const BatchPtr &batch);
    void finishBatchItem(const BatchPtr &batch);
    void flushBatch(const BatchPtr &batch);
    void writeMessage(const QJsonObject &message);
    void writeFrame(QByteArray frame);
    void onWriteFailure(FrameWriter::Failure failure, const QString &detail);

    McpServer *m_server;
    QPointer<QIODevice> m_input;
    QPointer<QIODevice> m_output;
    QPointer<QLocalSocket> m_socket;
    ClientInfo m_client;
    FrameReader m_reader;
    FrameWriter m_writer;                 // frames made while one read is handled leave together
    ClientRequestTable *m_clientRequests; // child
    bool m_closed = false;
    bool m_dropping = false;
    bool m_initializeAnswered = false;
    bool m_firstFrame = true;
    bool m_modernSeen = false; // a 2026-07-28 request was served: no requests to the client
    QHash<QString, QJsonValue> m_listens; // open subscriptions/listen (tools list changes), by id
    QStringList m_toolsetLimit;
    QString m_refusal;
    QJsonObject m_refusalData;
    int m_logLevel = 1; // info
    QHash<QString, InFlight> m_inFlight;
    std::unordered_map<QString, Operation> m_ops; // by protocol::idKey, only with telemetry
    QString m_spanSessionId;                      // mcp.session.id of every span, made once
    QString m_dispatchKey;   // the tracked request being dispatched (its idKey)
    QString m_dispatchError; // its synchronous error answer's code, if any
    QList<QString> m_startQueue;
    bool m_startScheduled = false;
};

} // namespace fb::mcp
