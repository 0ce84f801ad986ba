#include "sandbox/SandboxHttpServer.h"

#include "sandbox/SandboxLog.h"

#include <QSocketNotifier>
#include <QTimer>
#include <QUrl>

#include "lazy/LazyLibrary.h"

#include <microhttpd.h>

#include <arpa/inet.h>
#include <cstdio>
#include <netinet/in.h>
#include <sys/socket.h>

namespace fb {

namespace {

void *uriStarted(void *cls, const char *uri, MHD_Connection *)
{
    return static_cast<SandboxHttpServer *>(cls)->onRequestStarted(uri);
}

MHD_Result access(void *cls, MHD_Connection *connection, const char *url, const char *method,
                  const char *, const char *upload, size_t *uploadSize, void **context)
{
    return static_cast<SandboxHttpServer *>(cls)->onAccess(connection, url, method, upload,
                                                           uploadSize, context) != 0
               ? MHD_YES
               : MHD_NO;
}

void completed(void *cls, MHD_Connection *, void **context, MHD_RequestTerminationCode)
{
    static_cast<SandboxHttpServer *>(cls)->onCompleted(context);
}

MHD_Result collectHeader(void *cls, MHD_ValueKind, const char *key, const char *value)
{
    auto *headers = static_cast<QHash<QByteArray, QByteArray> *>(cls);
    const QByteArray name = QByteArray(key).toLower();
    if (!headers->contains(name))
        headers->insert(name, QByteArray(value ? value : ""));
    return MHD_YES;
}

void logFromMhd(void *, const char *format, va_list args)
{
    char line[512];
    std::vsnprintf(line, sizeof line, format, args);
    qCDebug(lcSandbox) << "HTTP (libmicrohttpd):" << QByteArray(line).trimmed();
}

} // namespace

// One request, from its first line to its completion.
struct SandboxHttpServer::Pending {
    enum class State { Reading, Dispatched, Suspended, Answered, Dropped };
    State state = State::Reading;
    bool headersSeen = false;
    QByteArray uri; // as sent: path and query, still encoded
    SandboxHttpRequest request;
    SandboxHttpResponse response;
    Ticket ticket = 0;
    MHD_Connection *connection = nullptr;
};

SandboxHttpServer::SandboxHttpServer(Handler handler, QObject *parent)
    : QObject(parent)
    , m_handler(std::move(handler))
{
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &SandboxHttpServer::run);
}

SandboxHttpServer::~SandboxHttpServer()
{
    if (!m_daemon)
        return;
    // MHD must not be stopped with suspended connections: they end without an answer.
    for (Pending *p : std::as_const(m_pending)) {
        if (p->state == Pending::State::Suspended) {
            p->state = Pending::State::Dropped;
            MHD_resume_connection(p->connection);
        }
    }
    MHD_stop_daemon(std::exchange(m_daemon, nullptr)); // completes (and frees) every request
    m_pending.clear();
}

quint16 SandboxHttpServer::listen(quint16 port)
{
    if (m_daemon)
        return 0;
    std::string missing;
    if (!lazy::libmicrohttpd().available(&missing)) { // opened on first use (lazy/LazyLibrary.h)
        qCWarning(lcSandbox).noquote() << QString::fromStdString(missing);
        return 0;
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    m_daemon = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, port,
                                nullptr, nullptr, &access, this, MHD_OPTION_SOCK_ADDR, &address,
                                MHD_OPTION_URI_LOG_CALLBACK, &uriStarted, this,
                                MHD_OPTION_NOTIFY_COMPLETED, &completed, this,
                                MHD_OPTION_EXTERNAL_LOGGER, &logFromMhd, this, MHD_OPTION_END);
    if (!m_daemon)
        return 0;
    const MHD_DaemonInfo *bound = MHD_get_daemon_info(m_daemon, MHD_DAEMON_INFO_BIND_PORT);
    const MHD_DaemonInfo *epoll = MHD_get_daemon_info(m_daemon, MHD_DAEMON_INFO_EPOLL_FD);
    if (!bound || !epoll || bound->port == 0) {
        MHD_stop_daemon(std::exchange(m_daemon, nullptr));
        return 0;
    }
    m_notifier = new QSocketNotifier(epoll->epoll_fd, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &SandboxHttpServer::run);
    schedule();
    return bound->port;
}

void SandboxHttpServer::run()
{
    if (!m_daemon || m_inRun)
        return;
    m_inRun = true;
    MHD_run(m_daemon);
    m_inRun = false;
    schedule();
}

// A connection was resumed: MHD must run again soon (inside MHD_run, schedule() would replace
// the immediate run by MHD's own timeout, which knows nothing of it).
void SandboxHttpServer::runSoon()
{
    if (m_inRun)
        m_runAgain = true;
    else
        m_timer->start(0);
}

void SandboxHttpServer::schedule()
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

void *SandboxHttpServer::onRequestStarted(const char *uri)
{
    auto *p = new Pending;
    p->uri = QByteArray(uri ? uri : "");
    return p;
}

int SandboxHttpServer::onAccess(MHD_Connection *connection, const char *, const char *method,
                                const char *upload, size_t *uploadSize, void **context)
{
    auto *p = static_cast<Pending *>(*context);
    if (!p) // MHD calls the URI callback first; be safe anyway
        *context = p = static_cast<Pending *>(onRequestStarted("/"));
    if (!p->headersSeen) { // the headers are in, nothing of the body has been read
        p->headersSeen = true;
        p->connection = connection;
        const QUrl url = QUrl::fromEncoded(p->uri);
        p->request.method = QString::fromLatin1(method);
        p->request.path = url.path();
        p->request.query = QUrlQuery(url);
        MHD_get_connection_values(connection, MHD_HEADER_KIND, &collectHeader, &p->request.headers);
        bool ok = true;
        const QByteArray length = p->request.value("content-length");
        if (!length.isEmpty() && (length.toLongLong(&ok) > MaxBodyBytes || !ok)) {
            p->response = {413, "text/plain", "request body too large\n", {}, true};
            p->state = Pending::State::Answered;
            return answer(connection, p);
        }
        return 1;
    }
    if (*uploadSize > 0) {
        const qsizetype n = static_cast<qsizetype>(*uploadSize);
        *uploadSize = 0;
        if (p->state != Pending::State::Reading)
            return 1; // an answered request's body is discarded
        if (p->request.body.size() + n > MaxBodyBytes) {
            p->response = {413, "text/plain", "request body too large\n", {}, true};
            p->state = Pending::State::Answered;
            return 1;
        }
        p->request.body.append(upload, n);
        return 1;
    }
    switch (p->state) {
    case Pending::State::Reading:
        p->state = Pending::State::Dispatched;
        p->ticket = ++m_nextTicket;
        m_pending.insert(p->ticket, p);
        m_handler(p->request, p->ticket);
        if (p->state == Pending::State::Dispatched) {
            p->state = Pending::State::Suspended;
            MHD_suspend_connection(connection);
            return 1;
        }
        return answer(connection, p);
    case Pending::State::Answered:
    case Pending::State::Dropped:
        return answer(connection, p);
    case Pending::State::Dispatched:
    case Pending::State::Suspended:
        return 1;
    }
    return 0;
}

int SandboxHttpServer::answer(MHD_Connection *connection, Pending *p)
{
    if (p->state == Pending::State::Dropped) {
        // No byte of response: a zero linger makes the close a reset, as a crashed server's.
        const MHD_ConnectionInfo *info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (info) {
            const linger reset{1, 0};
            ::setsockopt(info->connect_fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        }
        return 0; // MHD closes the connection
    }
    const SandboxHttpResponse &r = p->response;
    MHD_Response *response = MHD_create_response_from_buffer(static_cast<size_t>(r.body.size()),
                                                             const_cast<char *>(r.body.constData()),
                                                             MHD_RESPMEM_MUST_COPY);
    if (!response)
        return 0;
    if (!r.contentType.isEmpty())
        MHD_add_response_header(response, "Content-Type", r.contentType.constData());
    for (const auto &[key, value] : r.headers)
        MHD_add_response_header(response, key.constData(), value.constData());
    if (r.close)
        MHD_add_response_header(response, "Connection", "close");
    const MHD_Result queued =
        MHD_queue_response(connection, static_cast<unsigned int>(r.status), response);
    MHD_destroy_response(response);
    return queued == MHD_YES ? 1 : 0;
}

void SandboxHttpServer::respond(Ticket ticket, SandboxHttpResponse response)
{
    Pending *p = m_pending.value(ticket);
    if (!p || (p->state != Pending::State::Dispatched && p->state != Pending::State::Suspended))
        return; // answered already, or the connection is gone
    const bool suspended = p->state == Pending::State::Suspended;
    p->response = std::move(response);
    p->state = Pending::State::Answered;
    if (suspended) {
        MHD_resume_connection(p->connection);
        runSoon();
    }
}

void SandboxHttpServer::drop(Ticket ticket)
{
    Pending *p = m_pending.value(ticket);
    if (!p || (p->state != Pending::State::Dispatched && p->state != Pending::State::Suspended))
        return;
    const bool suspended = p->state == Pending::State::Suspended;
    p->state = Pending::State::Dropped;
    if (suspended) {
        MHD_resume_connection(p->connection);
        runSoon();
    }
}

void SandboxHttpServer::onCompleted(void **context)
{
    auto *p = static_cast<Pending *>(*context);
    *context = nullptr;
    if (!p)
        return;
    if (p->ticket)
        m_pending.remove(p->ticket);
    delete p;
}

} // namespace fb
