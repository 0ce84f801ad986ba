#include "transport/http/HttpDaemon.h"
#include "mcp/Logging.h"
#include "mcp/Protocol.h"
#include "transport/http/HttpMessages.h"

#include <QDateTime>
#include <QSocketNotifier>
#include <QTimer>

#include "lazy/LazyLibrary.h"

#include <microhttpd.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::transport {

using mcp::lcMcpTransport;
namespace protocol = mcp::protocol;

namespace {

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

MHD_Result access(void *cls, MHD_Connection *connection, const char *url, const char *method,
                  const char *, const char *upload, size_t *uploadSize, void **context)
{
    return static_cast<HttpDaemon *>(cls)->onAccess(connection, url, method, upload, uploadSize,
                                                    context) != 0
               ? MHD_YES
               : MHD_NO;
}

void completed(void *cls, MHD_Connection *connection, void **context,
               MHD_RequestTerminationCode reason)
{
    static_cast<HttpDaemon *>(cls)->onCompleted(connection, context, static_cast<int>(reason));
}

void notifyConnection(void *cls, MHD_Connection *connection, void **socketContext,
                      MHD_ConnectionNotificationCode code)
{
    static_cast<HttpDaemon *>(cls)->onConnection(connection, socketContext, static_cast<int>(code));
}

MHD_Result collectHeader(void *cls, MHD_ValueKind, const char *key, const char *value)
{
    auto *request = static_cast<HttpRequest *>(cls);
    const QByteArray name = QByteArray(key).toLower();
    const QByteArray v(value ? value : "");
    request->headerBytes += name.size() + v.size() + 4;
    if (request->headers.contains(name))
        request->repeated.append(name);
    else
        request->headers.insert(name, v);
    return MHD_YES;
}

void logFromMhd(void *, const char *format, va_list args)
{
    char line[512];
    std::vsnprintf(line, sizeof line, format, args);
    qCDebug(lcMcpTransport) << "HTTP (libmicrohttpd):" << QByteArray(line).trimmed();
}

QByteArray rawResponse(const HttpResponse &r)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(r.status) + ' ' +
                     http::reasonPhrase(r.status) + "\r\nContent-Type: " + r.contentType +
                     "\r\nContent-Length: " + QByteArray::number(r.body.size()) +
                     "\r\nCache-Control: no-store\r\n";
    for (const auto &[key, value] : r.headers)
        out += key + ": " + value + "\r\n";
    return out + "Connection: close\r\n\r\n" + r.body;
}

} // namespace

// One TCP connection, from accept to close.
struct HttpDaemon::Conn {
    enum class Phase { Headers, Body, Handling, Waiting, Responding };
    MHD_Connection *mhd = nullptr;
    int fd = -1;
    qint64 phaseStart = 0;
    Phase phase = Phase::Headers;
    bool firstRequest = true;
    bool refused = false; // a raw refusal was written and the socket shut down
    QSocketNotifier *hangup = nullptr;
};

HttpDaemon::HttpDaemon(HttpLimits limits, Screen screen, Handler handler, QObject *parent)
    : QObject(parent)
    , m_limits(limits)
    , m_screen(std::move(screen))
    , m_handler(std::move(handler))
{
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &HttpDaemon::run);
    m_sweeper = new QTimer(this);
    m_sweeper->setInterval(500);
    connect(m_sweeper, &QTimer::timeout, this, &HttpDaemon::sweep);
}

HttpDaemon::~HttpDaemon()
{
    m_stopping = true;
    for (Conn *conn : std::as_const(m_connections))
        delete conn->hangup;
    endStreams(); // MHD must not be stopped with suspended connections
    if (m_daemon)
        MHD_stop_daemon(std::exchange(m_daemon, nullptr));
    qDeleteAll(m_connections);
    m_connections.clear();
    endStreams(); // MHD freed its responses when it stopped: nothing should be left
}

HttpResponse HttpDaemon::refusal(int status, const QString &message, bool close)
{
    HttpResponse r;
    r.status = status;
    r.body = http::rpcError(QJsonValue::Null, protocol::InvalidRequest, message);
    r.close = close;
    return r;
}

bool HttpDaemon::listen(const QHostAddress &address, quint16 port, QString *error)
{
    const bool v6 = address.protocol() == QAbstractSocket::IPv6Protocol;
    const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    const auto fail = [&](const QString &what) {
        if (error)
            *error =
                u"cannot listen on %1 port %2: %3"_s.arg(address.toString()).arg(port).arg(what);
        if (fd >= 0)
            ::close(fd);
        return false;
    };
    if (fd < 0)
        return fail(QString::fromLocal8Bit(std::strerror(errno)));
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_storage storage = {};
    socklen_t length = 0;
    if (v6) {
        auto *sa = reinterpret_cast<sockaddr_in6 *>(&storage);
        sa->sin6_family = AF_INET6;
        sa->sin6_port = htons(port);
        const Q_IPV6ADDR a = address.toIPv6Address();
        std::memcpy(&sa->sin6_addr, &a, sizeof a);
        ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        length = sizeof(sockaddr_in6);
    } else {
        auto *sa = reinterpret_cast<sockaddr_in *>(&storage);
        sa->sin_family = AF_INET;
        sa->sin_port = htons(port);
        sa->sin_addr.s_addr = htonl(address.toIPv4Address());
        length = sizeof(sockaddr_in);
    }
    if (::bind(fd, reinterpret_cast<sockaddr *>(&storage), length) != 0 || ::listen(fd, 256) != 0)
        return fail(errno == EADDRINUSE ? u"the address is already in use"_s
                                        : QString::fromLocal8Bit(std::strerror(errno)));
    length = sizeof storage;
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&storage), &length);
    m_port = ntohs(v6 ? reinterpret_cast<sockaddr_in6 *>(&storage)->sin6_port
                      : reinterpret_cast<sockaddr_in *>(&storage)->sin_port);

    std::string missing;
    if (!lazy::libmicrohttpd().available(&missing)) // opened on first use (lazy/LazyLibrary.h)
        return fail(QString::fromStdString(missing));
    unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (v6)
        flags |= MHD_USE_IPv6;
    // MHD's own cap is a backstop above ours (ours evicts, and answers before it closes).
    const unsigned int mhdCap = static_cast<unsigned int>(m_limits.maxConnections * 4 + 64);
    m_daemon = MHD_start_daemon(
        flags, 0, nullptr, nullptr, &access, this, MHD_OPTION_LISTEN_SOCKET, fd,
        MHD_OPTION_CONNECTION_LIMIT, mhdCap, MHD_OPTION_CONNECTION_TIMEOUT,
        static_cast<unsigned int>(m_limits.idleTimeoutSec), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        static_cast<size_t>(m_limits.maxHeaderBytes * 2 + 8192), MHD_OPTION_NOTIFY_COMPLETED,
        &completed, this, MHD_OPTION_NOTIFY_CONNECTION, &notifyConnection, this,
        MHD_OPTION_EXTERNAL_LOGGER, &logFromMhd, this, MHD_OPTION_END);
    if (!m_daemon)
        return fail(u"libmicrohttpd did not start"_s);
    const MHD_DaemonInfo *info = MHD_get_daemon_info(m_daemon, MHD_DAEMON_INFO_EPOLL_FD);
    m_notifier = new QSocketNotifier(info->epoll_fd, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &HttpDaemon::run);
    m_sweeper->start();
    schedule();
    return true;
}

void HttpDaemon::run()
{
    if (!m_daemon || m_inRun)
        return;
    m_inRun = true;
    MHD_run(m_daemon);
    m_inRun = false;
    schedule();
}

// A connection was resumed (or shut down): MHD must run again soon. Inside MHD_run, schedule()
// would otherwise replace the immediate run by MHD's own timeout, which knows nothing of it.
void HttpDaemon::runSoon()
{
    if (m_inRun)
        m_runAgain = true;
    else
        m_timer->start(0);
}

void HttpDaemon::schedule()
{
    if (!m_daemon)
        return;
    if (std::exchange(m_runAgain, false)) {
        m_timer->start(0);
        return;
    }
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    if (MHD_get_timeout(m_daemon, &timeout) == MHD_YES)
        m_timer->start(static_cast<int>(qMin<MHD_UNSIGNED_LONG_LONG>(timeout, 60 * 1000)));
    else
        m_timer->stop();
}

void HttpDaemon::onConnection(MHD_Connection *connection, void **socketContext, int code)
{
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        Conn *conn = m_connections.take(connection);
        if (conn)
            delete conn->hangup;
        delete conn;
        *socketContext = nullptr;
        return;
    }
    auto *conn = new Conn;
    conn->mhd = connection;
    conn->phaseStart = nowMs();
    const MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    conn->fd = info ? info->connect_fd : -1;
    m_connections.insert(connection, conn);
    *socketContext = conn;
    QString why;
    qint64 unlogged = 0;
    if (m_peerCheck && !m_peerCheck(conn->fd, &why)) {
        if (m_refusedWarnings.allow(nowMs(), &unlogged))
            qCWarning(lcMcpTransport).noquote()
                << "HTTP: refused a connection:" << why
                << (unlogged ? u"(and %1 more since the last line)"_s.arg(unlogged) : QString());
        refuseRaw(conn, refusal(403, u"Forbidden: "_s + why, true));
        return;
    }
    if (m_connections.size() > m_limits.maxConnections && !evictOne(conn)) {
        if (m_limitWarnings.allow(nowMs(), &unlogged))
            qCWarning(lcMcpTransport).noquote()
                << "HTTP: connection limit reached, refused a connection"
                << (unlogged ? u"(and %1 more since the last line)"_s.arg(unlogged) : QString());
        refuseRaw(conn, refusal(503, u"Service Unavailable: too many connections"_s, true));
    }
}

// Makes room: the oldest connection still without complete headers (a keep-alive connection
// that is idle between requests counts too) is answered 503 and closed.
bool HttpDaemon::evictOne(const Conn *except)
{
    Conn *oldest = nullptr;
    for (Conn *c : std::as_const(m_connections)) {
        if (c == except || c->refused || c->phase != Conn::Phase::Headers)
            continue;
        if (!oldest || c->phaseStart < oldest->phaseStart)
            oldest = c;
    }
    if (!oldest)
        return false;
    qCInfo(lcMcpTransport) << "HTTP: connection limit reached, closed the oldest idle connection";
    refuseRaw(oldest, refusal(503, u"Service Unavailable: too many connections"_s, true));
    return true;
}

// Before MHD has written anything for the current request: the answer goes straight to the
// socket, which is then shut down (MHD sees the end and closes it).
void HttpDaemon::refuseRaw(Conn *conn, const HttpResponse &response)
{
    if (conn->refused || conn->fd < 0)
        return;
    conn->refused = true;
    const QByteArray bytes = rawResponse(response);
    const ssize_t sent = ::send(conn->fd, bytes.constData(), static_cast<size_t>(bytes.size()),
                                MSG_NOSIGNAL | MSG_DONTWAIT);
    Q_UNUSED(sent); // best effort: the peer may be gone
    ::shutdown(conn->fd, SHUT_RDWR);
    runSoon();
}

void HttpDaemon::sweep()
{
    const qint64 now = nowMs();
    for (Conn *c : std::as_const(m_connections)) {
        if (c->refused)
            continue;
        if (c->phase == Conn::Phase::Headers) {
            // A keep-alive connection may idle (MHD closes it at idleTimeoutSec) and then must
            // send its headers in time.
            const qint64 allowed =
                m_limits.headerTimeoutMs + (c->firstRequest ? 0 : m_limits.idleTimeoutSec * 1000LL);
            if (now - c->phaseStart > allowed)
                refuseRaw(c, refusal(408,
                                     u"Request Timeout: the request headers did not "
                                     "arrive in time"_s,
                                     true));
        } else if (c->phase == Conn::Phase::Body && now - c->phaseStart > m_limits.bodyTimeoutMs) {
            qCWarning(lcMcpTransport) << "HTTP: aborted a request body that arrived too slowly";
            refuseRaw(c, refusal(408,
                                 u"Request Timeout: the request body did not arrive in "
                                 "time"_s,
                                 true));
        }
    }
}

int HttpDaemon::onAccess(MHD_Connection *connection, const char *url, const char *method,
                         const char *upload, size_t *uploadSize, void **context)
{
    Conn *conn = m_connections.value(connection);
    if (!conn || conn->refused)
        return 0;
    auto *exchange = static_cast<HttpExchange *>(*context);
    if (!exchange) {
        // The headers are complete: nothing of the body has been read.
        exchange = new HttpExchange(this);
        *context = exchange;
        conn->phase = Conn::Phase::Body;
        conn->phaseStart = nowMs();
        HttpRequest &request = exchange->mutableRequest();
        request.method = method;
        request.path = url;
        MHD_get_connection_values(connection, MHD_HEADER_KIND, &collectHeader, &request);
        bool lengthOk = false;
        const QByteArray lengthHeader = request.value("content-length");
        const qint64 length = lengthHeader.isEmpty() ? 0 : lengthHeader.toLongLong(&lengthOk);
        if (request.headerBytes > m_limits.maxHeaderBytes) {
            exchange->respond(refusal(431, u"Request Header Fields Too Large"_s, true));
        } else if (request.repeated.contains("host") || request.repeated.contains("origin") ||
                   request.repeated.contains("authorization") ||
                   request.repeated.contains("content-length")) {
            exchange->respond(refusal(400,
                                      u"Bad Request: a header that must be single is "
                                      "repeated"_s,
                                      true));
        } else if (std::optional<HttpResponse> refused = m_screen(request)) {
            refused->close = refused->close || length > 0 || !lengthOk;
            exchange->respond(*refused);
        } else if (!lengthHeader.isEmpty() && (!lengthOk || length > m_limits.maxBodyBytes)) {
            exchange->respond(refusal(413,
                                      u"Content Too Large: the request body exceeds the "
                                      "limit of %1 bytes"_s.arg(m_limits.maxBodyBytes),
                                      true));
        }
        return exchange->answered() ? queue(connection, conn, exchange) : 1;
    }
    if (*uploadSize > 0) {
        const size_t n = *uploadSize;
        *uploadSize = 0;
        QByteArray &body = exchange->mutableRequest().body;
        if (body.size() + static_cast<qint64>(n) > m_limits.maxBodyBytes) {
            qCWarning(lcMcpTransport) << "HTTP: request body over the limit, refused";
            refuseRaw(conn, refusal(413,
                                    u"Content Too Large: the request body exceeds the "
                                    "limit of %1 bytes"_s.arg(m_limits.maxBodyBytes),
                                    true));
            return 0;
        }
        body.append(upload, static_cast<qsizetype>(n));
        return 1;
    }
    if (conn->phase == Conn::Phase::Body) {
        conn->phase = Conn::Phase::Handling;
        m_handler(exchange);
    }
    if (exchange->answered())
        return queue(connection, conn, exchange);
    suspend(connection, conn, exchange);
    return 1;
}

int HttpDaemon::queue(MHD_Connection *connection, Conn *conn, HttpExchange *exchange)
{
    const HttpResponse &r = exchange->response();
    MHD_Response *response =
        r.stream ? streamResponse(connection, r)
                 : MHD_create_response_from_buffer(static_cast<size_t>(r.body.size()),
                                                   const_cast<char *>(r.body.constData()),
                                                   MHD_RESPMEM_MUST_COPY);
    if (!response)
        return 0;
    if (r.stream)
        MHD_add_response_header(response, "Content-Type", "text/event-stream");
    else if (!r.body.isEmpty())
        MHD_add_response_header(response, "Content-Type", r.contentType.constData());
    MHD_add_response_header(response, "Cache-Control", "no-store");
    for (const auto &[key, value] : r.headers)
        MHD_add_response_header(response, key.constData(), value.constData());
    if (r.close)
        MHD_add_response_header(response, "Connection", "close");
    conn->phase = Conn::Phase::Responding;
    const MHD_Result queued =
        MHD_queue_response(connection, static_cast<unsigned int>(r.status), response);
    MHD_destroy_response(response);
    return queued == MHD_YES ? 1 : 0;
}

void HttpDaemon::suspend(MHD_Connection *connection, Conn *conn, HttpExchange *exchange)
{
    conn->phase = Conn::Phase::Waiting;
    MHD_suspend_connection(connection);
    watchForHangup(conn, exchange);
    exchange->setOnAnswered([this, connection, conn] {
        delete std::exchange(conn->hangup, nullptr);
        MHD_resume_connection(connection);
        runSoon();
    });
}

// A suspended connection is not polled by MHD: its socket is watched here, so a client that
// closes while its answer is pending is noticed (its requests are cancelled).
void HttpDaemon::watchForHangup(Conn *conn, HttpExchange *exchange)
{
    if (conn->fd < 0)
        return;
    conn->hangup = new QSocketNotifier(conn->fd, QSocketNotifier::Read);
    QSocketNotifier *notifier = conn->hangup;
    connect(notifier, &QSocketNotifier::activated, this, [this, conn, exchange, notifier] {
        char byte = 0;
        const ssize_t n = ::recv(conn->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR))) {
            notifier->setEnabled(false); // a pipelined request: MHD reads it after the answer
            return;
        }
        qCDebug(lcMcpTransport) << "HTTP: the client closed a connection awaiting its answer";
        notifier->setEnabled(false);
        exchange->setOnAnswered({});
        exchange->finish(true);
        // Let MHD finish the connection: the write fails and MHD closes it.
        HttpResponse gone;
        gone.status = 500;
        gone.close = true;
        exchange->respond(gone);
        if (conn->hangup == notifier)
            conn->hangup = nullptr;
        notifier->deleteLater();
        MHD_resume_connection(conn->mhd);
        runSoon();
    });
}

void HttpDaemon::onCompleted(MHD_Connection *connection, void **context, int reason)
{
    auto *exchange = static_cast<HttpExchange *>(*context);
    *context = nullptr;
    if (Conn *conn = m_connections.value(connection)) {
        delete std::exchange(conn->hangup, nullptr);
        conn->phase = Conn::Phase::Headers;
        conn->phaseStart = nowMs();
        conn->firstRequest = false;
    }
    if (!exchange)
        return;
    if (!m_stopping)
        exchange->finish(reason != MHD_REQUEST_TERMINATED_COMPLETED_OK);
    exchange->deleteLater();
}

} // namespace fb::transport
