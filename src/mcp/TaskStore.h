#pragma once
// TaskStore: the tasks of task-augmented tools/call requests (MCP 2025-11-25, "tasks"). The
// server keeps them, not the session that created them: a task outlives its client's request
// timeout, the client and its connection, and a client that comes back (a respawned `--stdio`
// relay, another session of the same instance) reads its status and result by task id.
//
// A task runs one ToolCall. It is "working" until the call finishes: "completed" with the
// tool's result (a tool error too, with isError, as SEP-2663 and the SDKs do), "failed" with a
// JSON-RPC error, or "cancelled" by tasks/cancel. While it works, its status message is the
// call's last progress message (ToolCall::statusMessage) and its detail what the tool shows of
// its wait (ToolCall::taskDetail).
//
// Bounded: at most MaxTasks records (a full store drops its oldest finished task first and
// refuses a new task only when every record is still working); a finished task is kept until
// its ttl (from its creation, clamped to [MinTtlMs, MaxTtlMs]) has passed; a working task is
// never dropped. Task ids are 128 random bits from the system's generator (unguessable: any
// session of the instance may name one, as a client that reconnects must).
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

namespace fb::mcp {

class ToolCall;

// A task as tasks/get, tasks/list and CreateTaskResult show it.
struct TaskState {
    QString taskId;
    QString status; // working, input_required, completed, failed, cancelled
    QString statusMessage;
    qint64 createdAtMs = 0;
    qint64 lastUpdatedAtMs = 0;
    qint64 ttlMs = 0;
    int pollIntervalMs = 0;
    QJsonObject detail; // the tool's (ToolCall::taskDetail), under _meta
    quint64 sessionId = 0;

    bool isTerminal() const;
    // {taskId, status, statusMessage?, createdAt, lastUpdatedAt, ttl, pollInterval} and, when
    // the tool gave a detail, _meta {DetailMetaKey: detail}.
    QJsonObject toJson() const;
    // The 2026-07-28 Tasks extension's shape: resultType, ttlMs and pollIntervalMs instead of
    // ttl and pollInterval (CreateTaskResult: resultType "task"; tasks/get: "complete").
    QJsonObject toModernJson(const QString &resultType) const;
};

// What tasks/result answers: the call's result, or its JSON-RPC error.
struct TaskOutcome {
    bool protocolError = false;
    QJsonObject result; // CallToolResult (protocolError false)
    int code = 0;       // protocolError true
    QString message;
};

class TaskStore : public QObject {
    Q_OBJECT
public:
    static constexpr int MaxTasks = 64;
    static constexpr qint64 MinTtlMs = 15 * 60 * 1000;
    static constexpr qint64 MaxTtlMs = 60 * 60 * 1000;
    static constexpr int PollIntervalMs = 2000;
    // The _meta key of the tool's detail in a task (a name of ours, not the protocol's).
    static constexpr char DetailMetaKey[] = "fabric-broker/task-detail";
    static constexpr char RelatedTaskMetaKey[] = "io.modelcontextprotocol/related-task";

    using Clock = std::function<qint64()>; // milliseconds since the epoch
    explicit TaskStore(QObject *parent = nullptr, Clock clock = {});
    ~TaskStore() override;

    // A new working task for call (created by sessionId), its ToolCall::setTask done; the
    // handler runs from the event loop unless the task was cancelled first. nullopt with *error
    // when MaxTasks tasks are all still working.
    std::optional<TaskState> start(ToolCall *call, std::function<void(ToolCall *)> handler,
                                   quint64 sessionId, std::optional<qint64> requestedTtlMs,
                                   QString *error);
    // The same for a call already running (ToolCall::becomeTask): no handler is started.
    std::optional<TaskState> adopt(ToolCall *call, quint64 sessionId, QString *error);
    // The outcome of a finished task (nullopt while it works, or for an unknown task).
    std::optional<TaskOutcome> outcome(const QString &taskId);

    std::optional<TaskState> state(const QString &taskId);
    // The tasks sessionId created, oldest first.
    QList<TaskState> list(quint64 sessionId);

    // done runs once: now when the task has its outcome, else when it gets it. False (done not
    // kept) for an unknown task.
    bool awaitOutcome(const QString &taskId, std::function<void(const TaskOutcome &)> done);

    enum class Cancel {
        Cancelled, // it was working: the call is cancelled, the task is "cancelled"
        Unknown,   // no such task
        Terminal,  // already completed, failed or cancelled (message says which)
        BeingSent, // the tool had started its irreversible step (ToolCall::reportsEvenIf...)
    };
    Cancel cancel(const QString &taskId, QString *message);

    int size() const;

signals:
    // A task's status or status message changed (for notifications/tasks/status).
    void changed(const fb::mcp::TaskState &state);

private:
    struct Record;
    Record *find(const QString &taskId);
    Record *create(ToolCall *call, quint64 sessionId, std::optional<qint64> requestedTtlMs,
                   QString *error);
    void purge();
    void settle(Record *record, const TaskOutcome &outcome, const QString &status);
    void touch(Record *record);
    qint64 now() const;

    Clock m_clock;
    std::vector<std::unique_ptr<Record>> m_records; // oldest first
};

} // namespace fb::mcp

Q_DECLARE_METATYPE(fb::mcp::TaskState)
