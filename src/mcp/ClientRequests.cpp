#include "mcp/ClientRequests.h"

#include <QTimer>
#include <algorithm>

namespace fb::mcp {

ClientRequestTable::ClientRequestTable(QObject *parent)
    : QObject(parent)
{
}

ClientRequestTable::~ClientRequestTable()
{
    for (const Entry &entry : std::as_const(m_entries))
        delete entry.timer;
}

qint64 ClientRequestTable::add(const QString &method, int timeoutMs, Callback callback,
                               ToolCall *owner)
{
    const qint64 id = ++m_nextId;
    Entry entry;
    entry.method = method;
    entry.callback = std::move(callback);
    entry.owner = owner;
    if (timeoutMs > 0) {
        entry.timer = new QTimer(this);
        entry.timer->setSingleShot(true);
        connect(entry.timer, &QTimer::timeout, this,
                [this, id, timeoutMs] { emit timedOut(id, timeoutMs); });
        entry.timer->start(timeoutMs);
    }
    m_entries.insert(id, std::move(entry));
    return id;
}

QString ClientRequestTable::method(qint64 id) const
{
    return m_entries.value(id).method;
}

bool ClientRequestTable::isOwnedBy(qint64 id, const ToolCall *owner) const
{
    const auto it = m_entries.constFind(id);
    return owner && it != m_entries.constEnd() && it->owner == owner;
}

QList<qint64> ClientRequestTable::ids(const ToolCall *owner) const
{
    QList<qint64> out;
    for (auto it = m_entries.constBegin(); it != m_entries.constEnd(); ++it) {
        if (!owner || it->owner == owner)
            out.append(it.key());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool ClientRequestTable::finish(qint64 id, const ClientReply &reply)
{
    auto it = m_entries.find(id);
    if (it == m_entries.end())
        return false;
    Entry entry = std::move(*it);
    m_entries.erase(it);
    // Possibly called from the timer's own timeout signal: not deleted under its emission.
    if (entry.timer) {
        entry.timer->stop();
        entry.timer->deleteLater();
    }
    if (entry.callback)
        entry.callback(reply);
    return true;
}

} // namespace fb::mcp
