#pragma once
// ClientRequestTable: the server-to-client requests of one session that wait for a reply: their
// ids (integers from 1, per session), methods, timers, callbacks and owning tool calls. Every
// request leaves the table through finish() (a reply, a timeout, a cancel or the session's end),
// which stops its timer and runs its callback exactly once.
#include "mcp/ToolCall.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <functional>

class QTimer;

namespace fb::mcp {

class ClientRequestTable : public QObject {
    Q_OBJECT
public:
    using Callback = std::function<void(const ClientReply &)>;

    explicit ClientRequestTable(QObject *parent = nullptr);
    ~ClientRequestTable() override;

    // Registers a request and returns its id. timeoutMs > 0: timedOut() when it passes.
    qint64 add(const QString &method, int timeoutMs, Callback callback, ToolCall *owner);
    int size() const { return static_cast<int>(m_entries.size()); }
    bool contains(qint64 id) const { return m_entries.contains(id); }
    QString method(qint64 id) const;
    bool isOwnedBy(qint64 id, const ToolCall *owner) const; // false for a null owner
    // Ids of the requests of this call (or of all requests for nullptr), oldest first.
    QList<qint64> ids(const ToolCall *owner = nullptr) const;

    // The one way out: removes the request, stops its timer and runs its callback with reply.
    // False when the id is unknown (already finished).
    bool finish(qint64 id, const ClientReply &reply);

signals:
    void timedOut(qint64 id, int timeoutMs);

private:
    struct Entry {
        QString method;
        Callback callback;
        QTimer *timer = nullptr;
        QPointer<ToolCall> owner; // null once the call is gone: then nobody's
    };
    QHash<qint64, Entry> m_entries;
    qint64 m_nextId = 0;
};

} // namespace fb::mcp
