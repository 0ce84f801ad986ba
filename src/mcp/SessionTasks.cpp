// Session, the tasks side (MCP 2025-11-25 "tasks"; TaskStore.h): a task-augmented tools/call is
// answered at once with its task, and runs on without the request (and without this session);
// tasks/get, tasks/result, tasks/list and tasks/cancel read and end it, from this session or any
// other of the instance (a client that reconnects names its task id).
#include "mcp/Logging.h"
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"
#include "mcp/Session.h"
#include "mcp/TaskStore.h"
#include "mcp/ToolRegistry.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace fb::mcp {

namespace {

constexpr qsizetype MaxTaskIdChars = 128;

// The params' taskId, or an empty string (with *error) when it is missing or not a bounded
// string.
QString taskIdOf(const QJsonObject &params, QString *error)
{
    const QJsonValue v = params.value("taskId"_L1);
    if (!v.isString() || v.toString().isEmpty() || v.toString().size() > MaxTaskIdChars) {
        *error = u"Invalid params: \"taskId\" must be a non-empty string of at most %1 "
                 "characters"_s.arg(MaxTaskIdChars);
        return {};
    }
    return v.toString();
}

// A task in the log: its first 8 hex digits, never the whole id (a capability: whoever names
// it may read the task's result or cancel it).
QString shownTaskId(const QString &taskId)
{
    return taskId.left(13) + u"…"_s;
}

} // namespace

bool Session::servesTasks() const
{
    return m_client.protocolVersion == "2025-11-25"_L1;
}

void Session::notifyTaskStatus(const TaskState &state)
{
    if (m_closed || !m_client.initialized || !servesTasks())
        return;
    QJsonObject params = state.toJson();
    params.remove(u"_meta"_s);
    sendNotification(u"notifications/tasks/status"_s, params);
}

void Session::startTaskCall(const QJsonValue &id, const QJsonObject &params,
                            const ToolDefinition *tool, ToolCallRequest request,
                            const BatchPtr &batch)
{
    const QJsonValue task = params.value("task"_L1);
    if (!task.isObject()) {
        respondError(id, protocol::InvalidParams, u"Invalid params: \"task\" must be an object"_s,
                     batch);
        return;
    }
    std::optional<qint64> ttl;
    if (const QJsonValue t = task.toObject().value("ttl"_L1); !t.isUndefined() && !t.isNull()) {
        const double v = t.toDouble(-1);
        if (!t.isDouble() || v < 0 || v != std::floor(v) || v > 9.0e15) {
            respondError(id, protocol::InvalidParams,
                         u"Invalid params: \"task.ttl\" must be a non-negative integer "
                         "(milliseconds)"_s,
                         batch);
            return;
        }
        ttl = static_cast<qint64>(v);
    }
    if (tool->taskSupport.isEmpty()) {
        // The tool declared no taskSupport (forbidden): the spec's answer is -32601.
        respondError(id, protocol::MethodNotFound,
                     u"Method not found: the tool %1 does not run as a task (its "
                     "execution.taskSupport is forbidden)"_s.arg(tool->name),
                     batch);
        return;
    }
    auto *call = new ToolCall(this, std::move(request));
    QString error;
    const std::optional<TaskState> state =
        m_server->tasks()->start(call, tool->handler, this->id(), ttl, &error);
    if (!state) {
        delete call;
        respondError(id, protocol::InvalidRequest, u"Invalid Request: %1"_s.arg(error), batch);
        return;
    }
    qCInfo(lcMcpSession) << "session" << this->id() << tool->name << "runs as task"
                         << shownTaskId(state->taskId);
    respond(id, QJsonObject{{u"task"_s, state->toJson()}}, batch);
}

void Session::handleTaskRequest(const QString &method, const QJsonValue &id,
                                const QJsonObject &params, const BatchPtr &batch)
{
    TaskStore *tasks = m_server->tasks();
    if (method == "tasks/list"_L1) {
        QJsonArray list;
        for (const TaskState &state : tasks->list(this->id()))
            list.append(state.toJson());
        respond(id, QJsonObject{{u"tasks"_s, list}}, batch);
        return;
    }
    QString error;
    const QString taskId = taskIdOf(params, &error);
    if (taskId.isEmpty()) {
        respondError(id, protocol::InvalidParams, error, batch);
        return;
    }
    const auto notFound = [&] {
        respondError(id, protocol::InvalidParams, u"Task not found: %1"_s.arg(taskId), batch);
    };
    if (method == "tasks/get"_L1) {
        const std::optional<TaskState> state = tasks->state(taskId);
        if (!state)
            return notFound();
        respond(id, state->toJson(), batch);
        return;
    }
    if (method == "tasks/cancel"_L1) {
        QString message;
        switch (tasks->cancel(taskId, &message)) {
        case TaskStore::Cancel::Unknown:
            return notFound();
        case TaskStore::Cancel::Terminal:
        case TaskStore::Cancel::BeingSent:
            respondError(id, protocol::InvalidParams, message, batch);
            return;
        case TaskStore::Cancel::Cancelled:
            break;
        }
        const std::optional<TaskState> state = tasks->state(taskId);
        if (!state)
            return notFound();
        respond(id, state->toJson(), batch);
        return;
    }
    // tasks/result: the call's own answer, now or when it has one. The answer is written only
    // if this session is still there then.
    QPointer<Session> self(this);
    const QJsonValue requestId = id;
    const bool known = tasks->awaitOutcome(taskId, [self, requestId, taskId](const TaskOutcome &o) {
        if (!self || self->m_closed)
            return;
        if (o.protocolError) {
            self->respondError(requestId, o.code, o.message, nullptr);
            return;
        }
        QJsonObject result = o.result;
        QJsonObject meta = result.value("_meta"_L1).toObject();
        meta.insert(QLatin1StringView(TaskStore::RelatedTaskMetaKey),
                    QJsonObject{{u"taskId"_s, taskId}});
        result.insert(u"_meta"_s, meta);
        self->respond(requestId, result, nullptr);
    });
    if (!known)
        notFound();
}

bool Session::escalateToTask(ToolCall *call)
{
    if (m_closed)
        return false;
    const auto it = m_inFlight.find(protocol::idKey(call->requestId()));
    if (it == m_inFlight.end() || it->call != call || it->batch)
        return false;
    QString error;
    const std::optional<TaskState> state = m_server->tasks()->adopt(call, this->id(), &error);
    if (!state) {
        qCWarning(lcMcpSession).noquote()
            << "session" << this->id() << "keeps" << call->toolName() << "as a call:" << error;
        return false;
    }
    const QJsonValue requestId = it->id;
    m_inFlight.erase(it);
    // From now on the task store, not this session, hears how the call ends.
    disconnect(call, nullptr, this, nullptr);
    if (!m_ops.empty())
        endOperation(requestId, QString());
    qCInfo(lcMcpSession) << "session" << this->id() << call->toolName() << "became task"
                         << shownTaskId(state->taskId);
    respond(requestId, state->toModernJson(u"task"_s), nullptr);
    return true;
}

// 2026-07-28 Tasks extension: tasks/get (the task, its result or error inlined once it has
// one), tasks/cancel (an empty acknowledgement, also for a finished task), tasks/update (no task
// of ours waits for input). Only for a request that declared the extension.
void Session::handleModernTaskRequest(const QString &method, const QJsonValue &id,
                                      const QJsonObject &params, const modern::Envelope &envelope)
{
    if (!modern::declaresTasks(envelope)) {
        respondError(
            id, protocol::MissingRequiredClientCapability,
            u"Missing required client capability: %1 needs the %2 extension"_s.arg(
                method, QLatin1StringView(modern::TasksExtension)),
            nullptr,
            QJsonObject{{u"requiredCapabilities"_s,
                         QJsonObject{{u"extensions"_s,
                                      QJsonObject{{QLatin1StringView(modern::TasksExtension),
                                                   QJsonObject()}}}}}});
        return;
    }
    QString error;
    const QString taskId = taskIdOf(params, &error);
    if (taskId.isEmpty()) {
        respondError(id, protocol::InvalidParams, error, nullptr);
        return;
    }
    TaskStore *tasks = m_server->tasks();
    const std::optional<TaskState> state = tasks->state(taskId);
    if (!state) {
        respondError(id, protocol::InvalidParams, u"Task not found: %1"_s.arg(taskId), nullptr);
        return;
    }
    if (method == "tasks/cancel"_L1) {
        // The acknowledgement says nothing of the effect: tasks/get shows it (a create already
        // being sent goes on, and its task completes).
        QString message;
        if (tasks->cancel(taskId, &message) == TaskStore::Cancel::BeingSent)
            qCInfo(lcMcpSession).noquote() << "session" << this->id() << message;
        respond(id, QJsonObject{{u"resultType"_s, u"complete"_s}}, nullptr);
        return;
    }
    if (method == "tasks/update"_L1) {
        respondError(id, protocol::InvalidParams,
                     u"Invalid params: task %1 does not wait for input"_s.arg(taskId), nullptr);
        return;
    }
    QJsonObject shown = state->toModernJson(u"complete"_s);
    if (const std::optional<TaskOutcome> o = tasks->outcome(taskId)) {
        if (o->protocolError) {
            shown.insert(u"error"_s, QJsonObject{{u"code"_s, o->code}, {u"message"_s, o->message}});
        } else {
            shown.insert(u"result"_s, o->result);
        }
    }
    respond(id, shown, nullptr);
}

} // namespace fb::mcp
