#include "mcp/TaskStore.h"
#include "mcp/Logging.h"
#include "mcp/ToolCall.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fb::mcp {

namespace {

QString isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

QString newTaskId()
{
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    return u"task-"_s +
           QString::fromLatin1(
               QByteArray(reinterpret_cast<const char *>(words), sizeof words).toHex());
}

} // namespace

bool TaskState::isTerminal() const
{
    return status == "completed"_L1 || status == "failed"_L1 || status == "cancelled"_L1;
}

QJsonObject TaskState::toModernJson(const QString &resultType) const
{
    // The same task as toJson(), with the 2026-07-28 names of the two durations.
    QJsonObject o = toJson();
    o.insert(u"ttlMs"_s, o.take(u"ttl"_s));
    o.insert(u"pollIntervalMs"_s, o.take(u"pollInterval"_s));
    o.insert(u"resultType"_s, resultType);
    return o;
}

QJsonObject TaskState::toJson() const
{
    QJsonObject o{{u"taskId"_s, taskId},
                  {u"status"_s, status},
                  {u"createdAt"_s, isoTime(createdAtMs)},
                  {u"lastUpdatedAt"_s, isoTime(lastUpdatedAtMs)},
                  {u"ttl"_s, ttlMs},
                  {u"pollInterval"_s, pollIntervalMs}};
    if (!statusMessage.isEmpty())
        o.insert(u"statusMessage"_s, statusMessage);
    if (!detail.isEmpty())
        o.insert(u"_meta"_s, QJsonObject{{QLatin1StringView(TaskStore::DetailMetaKey), detail}});
    return o;
}

struct TaskStore::Record {
    TaskState state;
    QPointer<ToolCall> call; // while it runs
    std::optional<TaskOutcome> outcome;
    std::vector<std::function<void(const TaskOutcome &)>> waiting;
};

TaskStore::TaskStore(QObject *parent, Clock clock)
    : QObject(parent)
    , m_clock(std::move(clock))
{
    qRegisterMetaType<fb::mcp::TaskState>();
}

TaskStore::~TaskStore() = default;

qint64 TaskStore::now() const
{
    return m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch();
}

int TaskStore::size() const
{
    return static_cast<int>(m_records.size());
}

TaskStore::Record *TaskStore::find(const QString &taskId)
{
    purge();
    for (const auto &r : m_records) {
        if (r->state.taskId == taskId)
            return r.get();
    }
    return nullptr;
}

// Finished tasks past their ttl leave; a working task stays whatever its age (its call still
// runs and will answer).
void TaskStore::purge()
{
    const qint64 t = now();
    std::erase_if(m_records, [t](const std::unique_ptr<Record> &r) {
        return r->outcome && r->state.isTerminal() && t >= r->state.createdAtMs + r->state.ttlMs;
    });
}

void TaskStore::touch(Record *record)
{
    record->state.lastUpdatedAtMs = std::max(record->state.lastUpdatedAtMs, now());
    emit changed(record->state);
}

TaskStore::Record *TaskStore::create(ToolCall *call, quint64 sessionId,
                                     std::optional<qint64> requestedTtlMs, QString *error)
{
    purge();
    if (static_cast<int>(m_records.size()) >= MaxTasks) {
        const auto oldestDone = std::find_if(m_records.begin(), m_records.end(),
                                             [](const auto &r) { return r->outcome.has_value(); });
        if (oldestDone == m_records.end()) {
            if (error)
                *error = u"%1 tasks are still working; wait for one to finish"_s.arg(MaxTasks);
            return nullptr;
        }
        m_records.erase(oldestDone);
    }
    auto record = std::make_unique<Record>();
    Record *r = record.get();
    const qint64 t = now();
    r->state.taskId = newTaskId();
    r->state.status = u"working"_s;
    r->state.createdAtMs = t;
    r->state.lastUpdatedAtMs = t;
    r->state.ttlMs = std::clamp(requestedTtlMs.value_or(MaxTtlMs), MinTtlMs, MaxTtlMs);
    r->state.pollIntervalMs = PollIntervalMs;
    r->state.sessionId = sessionId;
    r->state.statusMessage = call->statusMessage();
    r->state.detail = call->taskDetail();
    r->call = call;
    m_records.push_back(std::move(record));
    const QString id = r->state.taskId;
    call->setTask(id);

    connect(call, &ToolCall::taskStatusChanged, this, [this, id] {
        Record *rec = find(id);
        if (!rec || !rec->call || rec->outcome)
            return;
        const QString message = rec->call->statusMessage();
        const QJsonObject detail = rec->call->taskDetail();
        if (message == rec->state.statusMessage && detail == rec->state.detail)
            return;
        if (rec->state.status != "cancelled"_L1)
            rec->state.statusMessage = message;
        rec->state.detail = detail;
        touch(rec);
    });
    connect(call, &ToolCall::finished, this, [this, id](const QJsonObject &result) {
        Record *rec = find(id);
        if (!rec)
            return;
        TaskOutcome o;
        o.result = result;
        settle(rec, o, u"completed"_s);
    });
    connect(call, &ToolCall::failed, this, [this, id](int code, const QString &message) {
        Record *rec = find(id);
        if (!rec)
            return;
        TaskOutcome o;
        o.protocolError = true;
        o.code = code;
        o.message = message;
        settle(rec, o, u"failed"_s);
    });
    // A call deleted without an answer (it never started: cancelled first, or the server is
    // going away) still ends its task.
    connect(call, &QObject::destroyed, this, [this, id] {
        Record *rec = find(id);
        if (!rec || rec->outcome)
            return;
        TaskOutcome o;
        o.protocolError = true;
        o.code = -32603;
        o.message = u"The task ended without a result"_s;
        settle(rec, o, rec->state.status == "cancelled"_L1 ? u"cancelled"_s : u"failed"_s);
    });
    return r;
}

std::optional<TaskState> TaskStore::start(ToolCall *call, std::function<void(ToolCall *)> handler,
                                          quint64 sessionId, std::optional<qint64> requestedTtlMs,
                                          QString *error)
{
    Record *r = create(call, sessionId, requestedTtlMs, error);
    if (!r)
        return std::nullopt;
    QPointer<ToolCall> guard(call);
    QTimer::singleShot(0, this, [guard, handler = std::move(handler)] {
        if (!guard)
            return;
        if (guard->isCancelled()) {
            delete guard.data(); // never started: nothing of it ran
            return;
        }
        if (handler)
            handler(guard.data()); // the handler finishes it (and it deletes itself)
        else
            guard->finishError(u"Tool %1 has no handler"_s.arg(guard->toolName()));
    });
    return r->state;
}

std::optional<TaskState> TaskStore::adopt(ToolCall *call, quint64 sessionId, QString *error)
{
    Record *r = create(call, sessionId, std::nullopt, error);
    if (!r)
        return std::nullopt;
    return r->state;
}

std::optional<TaskOutcome> TaskStore::outcome(const QString &taskId)
{
    if (Record *r = find(taskId))
        return r->outcome;
    return std::nullopt;
}

void TaskStore::settle(Record *record, const TaskOutcome &outcome, const QString &status)
{
    if (record->outcome)
        return;
    record->outcome = outcome;
    record->call.clear();
    if (record->state.status != "cancelled"_L1) {
        record->state.status = status;
        if (status == "failed"_L1)
            record->state.statusMessage = outcome.message.left(1000);
    }
    touch(record);
    const auto waiting = std::exchange(record->waiting, {});
    for (const auto &done : waiting)
        done(outcome);
}

std::optional<TaskState> TaskStore::state(const QString &taskId)
{
    if (Record *r = find(taskId))
        return r->state;
    return std::nullopt;
}

QList<TaskState> TaskStore::list(quint64 sessionId)
{
    purge();
    QList<TaskState> out;
    for (const auto &r : m_records) {
        if (r->state.sessionId == sessionId)
            out.append(r->state);
    }
    return out;
}

bool TaskStore::awaitOutcome(const QString &taskId, std::function<void(const TaskOutcome &)> done)
{
    Record *r = find(taskId);
    if (!r)
        return false;
    if (r->outcome) {
        done(*r->outcome);
        return true;
    }
    r->waiting.push_back(std::move(done));
    return true;
}

TaskStore::Cancel TaskStore::cancel(const QString &taskId, QString *message)
{
    Record *r = find(taskId);
    if (!r)
        return Cancel::Unknown;
    if (r->state.isTerminal()) {
        if (message)
            *message = u"Cannot cancel task: it is already %1"_s.arg(r->state.status);
        return Cancel::Terminal;
    }
    if (r->call && r->call->reportsEvenIfCancelled()) {
        if (message)
            *message = u"Cannot cancel task: its irreversible step has started (the create is "
                       "being sent); tasks/result reports the outcome"_s;
        return Cancel::BeingSent;
    }
    r->state.status = u"cancelled"_s;
    r->state.statusMessage = u"Cancelled by the client (tasks/cancel)"_s;
    touch(r);
    if (r->call)
        r->call->markCancelled(u"the client cancelled the task (tasks/cancel)"_s);
    return Cancel::Cancelled;
}

} // namespace fb::mcp
