#pragma once
// SseStream: one Server-Sent Events stream of the Streamable HTTP transport (a POST answered with
// text/event-stream, or the session's GET stream), independent of the connection that carries it.
//  - Framing: every event has an id "<key>.<seq>" (seq from 1; 0 is the priming event, empty data,
//    with `retry`), so a Last-Event-ID names both the stream and the place in it.
//  - Resumption: the events are kept (bounded by maxRetainedBytes, the oldest already handed out
//    dropped first) so a client that reconnects with Last-Event-ID gets every event after it once,
//    on the new connection, which takes the stream over (a previous connection is ended).
//  - Backpressure: the bytes not yet handed to a connection are capped (maxBacklogBytes). A reader
//    (or an absent client) that falls further behind fails the stream: it ends with an error and
//    cannot be resumed; failure() says why. Memory never grows past the caps.
// Pure code (no sockets, no Qt event loop): HttpDaemon pulls bytes with read(), and is woken by the
// callback set with setWake() when there is more.
#include <QByteArray>
#include <QString>
#include <deque>
#include <functional>
#include <optional>

namespace fb::transport {

struct SseLimits {
    qint64 maxBacklogBytes = 8 * 1024 * 1024;  // not yet handed out: over it, the stream fails
    qint64 maxRetainedBytes = 8 * 1024 * 1024; // kept for Last-Event-ID replay
    int retryMs = 1000;                        // the `retry` field of the priming event
};

class SseStream {
public:
    enum class Read { Data, Wait, End, Error };

    SseStream(QByteArray key, SseLimits limits = {});

    // "id: <id>\n[retry: N\n]data: <line>\n...\n\n"; data split at line breaks.
    static QByteArray frame(const QByteArray &id, const QByteArray &data, int retryMs = -1);
    // Splits "<key>.<seq>"; nullopt when malformed.
    static std::optional<std::pair<QByteArray, quint64>> parseId(const QByteArray &id);

    const QByteArray &key() const { return m_key; }
    // The priming event (seq 0, empty data, retry); at most once, before any other event.
    void prime();
    // One JSON-RPC message as the next event. False when the stream has ended or failed (the
    // event is dropped), or when it makes the backlog exceed its cap (the stream fails).
    bool push(const QByteArray &json);
    // No more events: once the backlog is read, the stream ends.
    void finish();
    // Ends the stream with an error now (e.g. the session ended).
    void fail(const QString &why);

    bool isFinished() const { return m_finished; }
    bool hasFailed() const { return !m_failure.isEmpty(); }
    const QString &failure() const { return m_failure; }
    quint64 lastSeq() const { return m_nextSeq - 1; }
    qint64 backlogBytes() const { return m_backlog; }
    qint64 retainedBytes() const { return m_retained; }

    // A connection takes the stream: from the start, or after the event with sequence number
    // afterSeq (Last-Event-ID). Returns the connection's epoch, or 0 (with why) when the events
    // after afterSeq are no longer all kept, or the stream failed. A previous connection's reads
    // then answer End.
    quint64 attach(std::optional<quint64> afterSeq, QString *why);
    // The connection went away; the events stay for a resumption. onDetach (if set) runs when
    // the attached connection leaves before the stream ended (a listen stream is then over).
    void detach(quint64 epoch);
    void setOnDetach(std::function<void()> onDetach) { m_onDetach = std::move(onDetach); }
    bool isAttached() const { return m_attached != 0; }

    // Copies up to max bytes for the connection with this epoch.
    Read read(quint64 epoch, char *out, qsizetype max, qsizetype *n);
    // Called (once per wait) when a read that answered Wait can get more.
    void setWake(std::function<void()> wake) { m_wake = std::move(wake); }

private:
    struct Event {
        quint64 seq;
        QByteArray bytes;
    };
    void append(quint64 seq, QByteArray bytes);
    void trim();
    void wake();

    QByteArray m_key;
    SseLimits m_limits;
    std::deque<Event> m_events; // retained, in order
    size_t m_cursor = 0;        // index into m_events of the next event to hand out
    qsizetype m_offset = 0;     // bytes of m_events[m_cursor] already handed out
    qint64 m_backlog = 0;       // bytes not yet handed out
    qint64 m_retained = 0;
    quint64 m_nextSeq = 1;
    quint64 m_attached = 0; // epoch of the connection, 0 = none
    quint64 m_epochs = 0;
    bool m_primed = false;
    bool m_finished = false;
    QString m_failure;
    std::function<void()> m_wake;
    std::function<void()> m_onDetach;
};

} // namespace fb::transport
