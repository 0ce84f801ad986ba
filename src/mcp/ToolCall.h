#pragma once
// ToolCall: one tools/call in flight. Completes exactly once. Cancellation (client
// notifications/cancelled, session end), progress and server-to-client requests (elicitation)
// are first-class inputs and outputs of this object.
#include "mcp/ClientInfo.h"
#include "telemetry/Tracing.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QPointer>
#include <functional>

namespace fb::telemetry {
class Telemetry;
}

namespace fb::mcp {

class Session;

// Outcome of one server-to-client request (e.g. elicitation/create).
struct ClientReply {
    enum class Status {
        Result,        // the client answered with a result (see result)
        Error,         // the client answered with a JSON-RPC error (see error)
        Timeout,       // no answer in time; the server sent notifications/cancelled for it
        Cancelled,     // the server side cancelled it (cancelClientRequest or call cancelled)
        SessionClosed, // the session ended before an answer
        NotSent,       // could not be sent (capability missing, session not initialized...)
    };
    Status status = Status::NotSent;
    QJsonObject result;
    QJsonObject error; // {code, message, data}
    QString message;   // human description of what happened
};

// What the session knows of one tools/call when it creates the ToolCall.
struct ToolCallRequest {
    QJsonValue id;
    QString tool;
    QJsonObject arguments;
    QJsonValue progressToken; // undefined = none
    QJsonObject params;       // the whole tools/call params
    bool modern = false;      // 2026-07-28: the client below is this request's own
    ClientInfo modernClient;
    int modernLogLevel = -1; // modern: index of the request's logLevel, -1 = no log messages
    // 2026-07-28: the tool supports tasks and the request declared the Tasks extension, so the
    // call may become a task (ToolCall::becomeTask).
    bool mayBecomeTask = false;
};

class ToolCall : public QObject {
    Q_OBJECT
public:
    // Created by the session that received the request (its only producer).
    ToolCall(Session *session, ToolCallRequest request);
    ~ToolCall() override;

    QString toolName() const;
    QJsonObject arguments() const;
    QJsonValue requestId() const;
    // The client's identity and capabilities: the session's (initialize) in the 2025 era; in
    // the 2026-07-28 era the request's own _meta envelope (clientInfo bounded and escaped as
    // ClientInfo::setFromInitialize does, protocolVersion "2026-07-28").
    const ClientInfo &client() const;
    const ClientInfo &clientInfo() const { return client(); }
    // The request was served in the 2026-07-28 era (per-request _meta envelope, no initialize).
    // Such a call never sends a request to the client (sendClientRequest gives NotSent).
    bool isModernEra() const;
    // Form elicitation declared by the client: the request's clientCapabilities in the modern
    // era, the initialize capabilities otherwise.
    bool clientSupportsFormElicitation() const;
    // The whole tools/call params as received (name, arguments, _meta, and whatever else the
    // revision defines, e.g. inputResponses and requestState).
    QJsonObject requestParams() const;
    bool hasProgressToken() const;

    bool isCancelled() const; // client sent notifications/cancelled, or the session ended
    QString cancelReason() const;
    bool isFinished() const;

    // When the client cancels, the response is suppressed unless the tool set this, because
    // the client must still learn the outcome (e.g. a create was already sent).
    void setReportEvenIfCancelled(bool report);
    bool reportsEvenIfCancelled() const;

    // The cancellation input (the client's notifications/cancelled, or the session's end):
    // cancels this call's client requests and emits cancelled(). Ignored once finished.
    void markCancelled(const QString &reason);

    // Complete with a CallToolResult {content, structuredContent, isError}. Exactly once; later
    // calls are ignored with a warning. A result that has "resultType" is sent as it is; in the
    // modern era the session adds "resultType": "complete" to one that has none.
    void finish(const QJsonObject &callToolResult);
    // Convenience: result with structuredContent and a text rendering.
    void finishStructured(const QJsonObject &structured, const QString &text, bool isError = false);
    // The same result as finishStructured(structured, lead + structuredJson, isError), where
    // structuredJson is exactly QJsonDocument(structured).toJson(Compact) (a non-empty object)
    // that the caller made anyway: the session's frame is then assembled from these bytes
    // instead of serializing structured twice more (inside the text and as structuredContent).
    void finishStructuredJson(const QJsonObject &structured, const QString &lead,
                              const QByteArray &structuredJson, bool isError = false);
    // After finishStructuredJson(): the compact JSON of its result, byte for byte what
    // QJsonDocument(result).toJson(Compact) gives. Empty after any other way of finishing.
    QByteArray resultJson() const;
    // Convenience: isError result with a text message (and optional structured content).
    void finishError(const QString &message, const QJsonObject &structured = {});
    // Complete with a JSON-RPC error instead of a result (e.g. -32602 for params the tool
    // refuses, such as a forged requestState). Exactly once, like finish().
    void finishWithProtocolError(int code, const QString &message);

    // notifications/progress, only if the request carried _meta.progressToken. Monotonic:
    // a value not greater than the last one sent is dropped. Nothing is sent after finish.
    void progress(double progress, double total = -1, const QString &message = {});
    // Log to the session (notifications/message), respecting logging/setLevel.
    void log(const QString &level, const QString &logger, const QJsonValue &data);

    // Sends a server-to-client request on this call's session (only after initialized, at a
    // protocol >= 2025-06-18 for elicitation and when the client declared the capability; else
    // the callback runs with NotSent). Times out after timeoutMs (sends notifications/cancelled
    // for it). If this call is cancelled or finishes first, the request is cancelled too.
    // Returns an id usable with cancelClientRequest; the callback runs exactly once.
    qint64 sendClientRequest(const QString &method, const QJsonObject &params, int timeoutMs,
                             std::function<void(const ClientReply &)> callback);
    void cancelClientRequest(qint64 id, const QString &reason = {});

    // Telemetry (docs/observability.md): a child span of this call's server span, for one step
    // of the tool (a dry run, a wait for a person, the send); a no-op span when nothing is traced
    // or the call has ended. And an attribute on the server span: fabric_broker.* names with
    // values the broker made (a change type, a request's SHA-256, a verdict, an outcome), never
    // a value the agent wrote.
    telemetry::Span startSpan(const QString &name) const;
    void setSpanAttribute(const QString &key, const telemetry::AttributeValue &value);
    // The process's Telemetry (metrics), or null.
    telemetry::Telemetry *telemetry() const;

    // Task-augmented execution (TaskStore, MCP 2025-11-25): the call runs as a task, whose id
    // its requests to the client carry (_meta io.modelcontextprotocol/related-task). The task's
    // status message is the call's last progress message, even when the request carried no
    // progress token; its detail is what the tool shows of its wait (under _meta in tasks/get).
    void setTask(const QString &taskId);
    // 2026-07-28 Tasks extension (server-directed): a call about to wait long (for a person)
    // answers its request now with a task (resultType "task") and goes on as that task. Only
    // when the request allowed it (ToolCallRequest::mayBecomeTask) and the call is still
    // running on its session; false otherwise (the call goes on as before).
    bool becomeTask();
    QString taskId() const;
    bool isTask() const;
    QString statusMessage() const;
    void setTaskDetail(const QJsonObject &detail);
    QJsonObject taskDetail() const;

    // Build a CallToolResult.
    static QJsonObject makeResult(const QJsonObject &structured, const QString &text,
                                  bool isError = false);

signals:
    void cancelled(const QString &reason);
    // Emitted once by finish(), with the result the session answers.
    void finished(const QJsonObject &callToolResult);
    // Emitted once by finishWithProtocolError(), instead of finished().
    void failed(int code, const QString &message);
    // The status message or the task detail changed.
    void taskStatusChanged();

private:
    class Private;
    Private *d;
};

} // namespace fb::mcp
