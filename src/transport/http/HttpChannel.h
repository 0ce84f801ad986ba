#pragma once
// HttpChannel: one fb::mcp::Session behind the Streamable HTTP transport. HTTP carries one
// JSON-RPC message (or batch) per POST and expects the answer in that POST's response, while a
// Session speaks newline-delimited frames on a pair of devices; the channel is the adapter:
//  - each posted request gets a channel-unique id before it reaches the Session (so clients
//    that share one Session, the stateless 2026-07-28 era, never collide), and the Session's
//    response is matched back by that id, restored to the client's id and handed to the POST;
//  - a POST whose HTTP connection closes before the answer cancels its requests
//    (notifications/cancelled to the Session);
//  - a POST may be answered with an SseStream (HttpServer decides: tools/call from a client that
//    accepts text/event-stream): its progress (by progressToken), the log messages and the
//    server-to-client requests (elicitation) made while it runs, then its response, are events
//    of that stream; the stream outlives its connection (resumption with Last-Event-ID);
//  - the session's GET stream carries the rest (list_changed, and server requests when no POST
//    stream is open); with neither, notifications are dropped, as the transport allows, and a
//    server-to-client request is answered at once with an error;
//  - initialize passes on the client's elicitation/sampling/roots capabilities only when the
//    client accepts text/event-stream (setClientStreams), else the Session could never reach it.
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <functional>
#include <memory>
#include <optional>

namespace fb::mcp {
class McpServer;
class Session;
} // namespace fb::mcp

namespace fb::transport {

class SseStream;
struct SseLimits;

class HttpChannel : public QObject {
    Q_OBJECT
public:
    // status: the HTTP status; body: the JSON body (a response object or a batch array).
    using Reply = std::function<void(int status, const QByteArray &body)>;

    // stateless: the shared channel of the 2026-07-28 era (no Mcp-Session-Id). Check isOpen():
    // false when the server refused another session (maxSessions).
    HttpChannel(mcp::McpServer *server, bool stateless, QObject *parent = nullptr);
    ~HttpChannel() override;

    bool isOpen() const;
    bool isStateless() const { return m_stateless; }
    QString id() const { return m_id; } // the Mcp-Session-Id (random, 32 hex digits)
    mcp::Session *session() const;
    qint64 lastActivityMs() const { return m_lastActivityMs; }
    int pendingRequests() const { return static_cast<int>(m_pending.size()); }

    // Feeds one validated message (an object, or an array of objects). Returns a ticket (> 0)
    // when the message holds requests: reply runs exactly once, later, with their answer.
    // Returns 0 when it holds none (notifications and responses only): reply is not called
    // and the POST is answered 202 Accepted.
    quint64 post(const QJsonValue &message, Reply reply);
    // The same, answered on an event stream (a single request): the response becomes its last
    // event. Returns 0 (and nothing is posted) when the message holds no request.
    quint64 postStreamed(const QJsonValue &message, std::shared_ptr<SseStream> stream);
    // A new event stream of this channel (not yet attached), keyed uniquely within it.
    std::shared_ptr<SseStream> newStream(bool get);
    // GET: the session's stream for server-initiated messages; nullptr (and why) when one is
    // already connected.
    std::shared_ptr<SseStream> openGetStream(QString *why);
    // GET with Last-Event-ID: the stream it names, attached after that event; nullptr and why.
    std::shared_ptr<SseStream> resume(const QByteArray &lastEventId, quint64 *epoch, QString *why);
    // initialize from a client that accepts text/event-stream keeps its client capabilities.
    void setClientStreams(bool streams) { m_clientStreams = streams; }
    void setStreamLimits(const SseLimits &limits);
    // The POST's connection closed: its requests are cancelled and reply is never called.
    void abandon(quint64 ticket);
    // Ends the Session (DELETE, idle expiry, shutdown); pending POSTs are answered with an error.
    void close(const QString &reason);

signals:
    void closed();

private:
    struct Ticket {
        Reply reply;
        QStringList keys; // internal ids still unanswered
        bool batch = false;
        std::shared_ptr<SseStream> stream; // answered as text/event-stream
        QJsonValue progressToken;
        bool listen = false; // 2026-07-28 subscriptions/listen: only its own notifications
    };
    struct Pending {
        QJsonValue originalId;
        quint64 ticket = 0;
    };
    class InputDevice;
    class OutputDevice;

    void onOutput(const QByteArray &bytes);
    void onFrame(const QByteArray &frame);
    QJsonObject rewriteRequest(QJsonObject message, quint64 ticket);
    QJsonObject rewriteNotification(QJsonObject message) const;
    bool restore(QJsonObject &response, quint64 *ticket);
    void finishTicket(quint64 ticket, const QByteArray &body);
    void feed(const QByteArray &bytes);
    void onSessionClosed();
    quint64 postTicket(const QJsonValue &message, Ticket ticket);
    SseStream *routeFor(const QJsonObject &message);
    bool routeSubscription(QJsonObject message);
    void keepFinished(const std::shared_ptr<SseStream> &stream);

    mcp::McpServer *m_server;
    bool m_stateless;
    QString m_id;
    std::unique_ptr<InputDevice> m_input;
    std::unique_ptr<OutputDevice> m_output;
    QPointer<mcp::Session> m_session;
    QByteArray m_outBuffer;
    QHash<quint64, Ticket> m_tickets;
    QHash<QString, Pending> m_pending; // internal id -> the client's id and its POST
    std::shared_ptr<SseStream> m_getStream;
    QList<std::shared_ptr<SseStream>> m_finished; // the last few ended POST streams, for replay
    quint64 m_nextStream = 0;
    bool m_clientStreams = false;
    std::unique_ptr<SseLimits> m_limits; // null: SseLimits' defaults
    quint64 m_nextTicket = 0;
    quint64 m_nextId = 0;
    qint64 m_lastActivityMs = 0;
    bool m_closed = false;
};

} // namespace fb::transport
