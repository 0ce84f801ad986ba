#pragma once
// HttpDaemon: libmicrohttpd (MHD) driven from the Qt event loop, with the limits applied before
// bytes are buffered. MHD runs without a thread of its own (MHD_USE_EPOLL): its epoll descriptor
// sits in one QSocketNotifier and MHD_get_timeout() sets a single-shot timer, so every callback
// runs on the Qt thread that owns the daemon. A request the handler cannot answer at once is
// suspended (MHD_suspend_connection) and resumed when HttpExchange::respond() is called.
//
// Limits (HttpLimits), every refusal a status with a JSON-RPC error body:
//  - connections: at most maxConnections; a new one over the cap evicts the oldest connection
//    that has not finished its headers (idle or slow), else it is answered 503;
//  - peer: peerCheck (the peer's uid) runs on every accepted connection before a byte is read;
//  - headers: at most maxHeaderBytes (431) and headerTimeoutMs from the connection's start
//    (408); the screen sees them before the body is read (Host, Origin, Authorization);
//  - body: a Content-Length over maxBodyBytes is refused at once (413); a body that grows over it
//    (chunked) is cut off (413); a body not complete after bodyTimeoutMs is aborted (408);
//  - idle keep-alive connections are closed after idleTimeoutSec (MHD's connection timeout).
// A response with an SseStream is sent from a content-reader callback (chunked): when the stream
// has nothing to send the connection is suspended, and resumed by the stream's wake callback; a
// client that closes meanwhile detaches the stream (kept for a resumption with Last-Event-ID).
#include "transport/http/HttpExchange.h"
#include "transport/http/WarnThrottle.h"

#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <functional>
#include <optional>

QT_BEGIN_NAMESPACE
class QSocketNotifier;
class QTimer;
QT_END_NAMESPACE

struct MHD_Daemon;
struct MHD_Connection;
struct MHD_Response;

namespace fb::transport {

struct HttpLimits {
    int maxConnections = 64;
    int idleTimeoutSec = 30;
    int headerTimeoutMs = 10 * 1000;
    int bodyTimeoutMs = 30 * 1000;
    qint64 maxHeaderBytes = 16 * 1024;
    qint64 maxBodyBytes = 4 * 1024 * 1024;
};

class HttpDaemon : public QObject {
    Q_OBJECT
public:
    // The headers alone: a response refuses the request before its body is read.
    using Screen = std::function<std::optional<HttpResponse>(const HttpRequest &)>;
    // The whole request: answer with exchange->respond(), now or later.
    using Handler = std::function<void(HttpExchange *exchange)>;
    // A connected socket, before any byte is read: false (and why) refuses it with 403.
    using PeerCheck = std::function<bool(qintptr fd, QString *why)>;

    HttpDaemon(HttpLimits limits, Screen screen, Handler handler, QObject *parent = nullptr);
    ~HttpDaemon() override;

    void setPeerCheck(PeerCheck check) { m_peerCheck = std::move(check); }
    bool listen(const QHostAddress &address, quint16 port, QString *error);
    quint16 port() const { return m_port; }
    int connectionCount() const { return static_cast<int>(m_connections.size()); }

    // A JSON-RPC error response (id null) with this status and message.
    static HttpResponse refusal(int status, const QString &message, bool close = false);

    // libmicrohttpd's C callbacks land here (public only for the trampolines).
    int onAccess(MHD_Connection *connection, const char *url, const char *method,
                 const char *upload, size_t *uploadSize, void **context);
    void onCompleted(MHD_Connection *connection, void **context, int reason);
    void onConnection(MHD_Connection *connection, void **socketContext, int code);
    long long onStreamRead(quint64 streamId, char *buf, size_t max);
    void onStreamFreed(quint64 streamId);

private:
    struct Conn;
    struct Stream;
    void run();
    void schedule();
    void runSoon();
    void sweep();
    bool evictOne(const Conn *except);
    void refuseRaw(Conn *conn, const HttpResponse &response);
    int queue(MHD_Connection *connection, Conn *conn, HttpExchange *exchange);
    void suspend(MHD_Connection *connection, Conn *conn, HttpExchange *exchange);
    void watchForHangup(Conn *conn, HttpExchange *exchange);
    MHD_Response *streamResponse(MHD_Connection *connection, const HttpResponse &r);
    void wakeStream(quint64 streamId);
    void endStreams();

    HttpLimits m_limits;
    Screen m_screen;
    Handler m_handler;
    PeerCheck m_peerCheck;
    MHD_Daemon *m_daemon = nullptr;
    QSocketNotifier *m_notifier = nullptr;
    QTimer *m_timer = nullptr;
    QTimer *m_sweeper = nullptr;
    QHash<MHD_Connection *, Conn *> m_connections;
    transport::WarnThrottle m_refusedWarnings; // refused peers: one line a second, with the count
    transport::WarnThrottle m_limitWarnings;
    QHash<quint64, Stream *> m_streams; // text/event-stream responses being sent
    quint64 m_nextStream = 0;
    quint16 m_port = 0;
    bool m_inRun = false;
    bool m_runAgain = false;
    bool m_stopping = false;
};

} // namespace fb::transport
