// FabricHttpTransport: see FabricHttpTransport.h. Why it is shaped this way:
//  * one write per request and QAbstractSocket's own read buffer: a response arrives in one or a
//    few read(2)s (QNetworkAccessManager in Qt 6.4 read a plain-http status line and header block
//    one byte per read(2), on a thread of its own);
//  * a socket is never deleted inside one of its own signals (deleteLater() then; at once
//    otherwise, so none is left over for an event loop that no longer runs);
//  * a request that must not be sent twice is written once on a socket that nobody used before,
//    and nothing here ever writes its bytes again;
//  * an idle connection is asked the kernel (poll, timeout 0) before it is reused: Qt's buffer
//    only holds what the event loop already read, and bytes that arrived since (a response
//    nobody asked for) would otherwise be taken as the next request's answer;
//  * a queued request is started from the event loop (pump()), never inside the finish of the
//    request that freed its slot, so no finished is ever emitted inside another one.
#include "fabric/FabricHttpTransport.h"

#include <QNetworkProxy>
#include <QNetworkProxyFactory>
#include <QSslConfiguration>
#include <QSslSocket>

#include <poll.h>

#include <cerrno>
#include <climits>

namespace fb {

namespace {

int defaultPort(const QUrl &url)
{
    return url.scheme().compare(QLatin1StringView("https"), Qt::CaseInsensitive) == 0 ? 443 : 80;
}

bool isHttps(const QUrl &url)
{
    return url.scheme().compare(QLatin1StringView("https"), Qt::CaseInsensitive) == 0;
}

// The proxy QNetworkAccessManager would have used for this URL (the application's settings,
// by default the system's); an HTTP proxy becomes a CONNECT tunnel. Null: none usable.
std::optional<QNetworkProxy> proxyFor(const QUrl &url)
{
    const QList<QNetworkProxy> proxies =
        QNetworkProxyFactory::proxyForQuery(QNetworkProxyQuery(url));
    if (proxies.isEmpty())
        return QNetworkProxy(QNetworkProxy::NoProxy);
    for (const QNetworkProxy &p : proxies) {
        switch (p.type()) {
        case QNetworkProxy::NoProxy:
        case QNetworkProxy::DefaultProxy:
            return QNetworkProxy(QNetworkProxy::NoProxy);
        case QNetworkProxy::HttpProxy:
        case QNetworkProxy::Socks5Proxy:
            return p;
        case QNetworkProxy::HttpCachingProxy:
        case QNetworkProxy::FtpCachingProxy:
            break; // cannot tunnel
        }
    }
    return std::nullopt;
}

// How deep this thread is inside a socket's signal: a socket is never deleted inside one of its
// own signals (deleteLater then), and otherwise deleted at once (nothing left for a late loop).
thread_local int t_socketSignalDepth = 0;

struct InSocketSignal {
    InSocketSignal() { ++t_socketSignalDepth; }
    ~InSocketSignal() { --t_socketSignalDepth; }
    InSocketSignal(const InSocketSignal &) = delete;
    InSocketSignal &operator=(const InSocketSignal &) = delete;
};

// An idle connection that may carry the next request: connected, nothing in Qt's buffers, and
// nothing readable nor a hang-up in the kernel (a byte waiting there is an answer to no request
// of ours; POLLRDHUP: the server half-closed it). For TLS the poll also sees a record that is
// not application data (a late session ticket): the connection is then dropped too, which only
// costs a fresh one.
bool idleIsQuiet(QAbstractSocket *socket)
{
    if (socket->state() != QAbstractSocket::ConnectedState || socket->bytesAvailable() > 0)
        return false;
    if (auto *ssl = qobject_cast<QSslSocket *>(socket); ssl && ssl->encryptedBytesAvailable() > 0)
        return false;
    const qintptr fd = socket->socketDescriptor();
    if (fd < 0 || fd > INT_MAX)
        return false;
    pollfd p{};
    p.fd = int(fd);
    p.events = POLLIN;
#ifdef POLLRDHUP
    p.events |= POLLRDHUP;
#endif
    int n = 0;
    do {
        n = ::poll(&p, 1, 0);
    } while (n < 0 && errno == EINTR);
    return n == 0;
}

// Closes a socket that receiver no longer listens to, and deletes it (later when inside a
// socket's signal; keeper, when alive, still owns it until then).
void disposeSocket(QAbstractSocket *socket, QObject *receiver, QObject *keeper)
{
    socket->disconnect(receiver);
    socket->abort();
    if (t_socketSignalDepth > 0) {
        socket->setParent(keeper);
        socket->deleteLater();
    } else {
        delete socket;
    }
}

} // namespace

QByteArray FabricHttpResponse::header(QByteArrayView lowerName) const
{
    for (const auto &[name, value] : headers) {
        if (name == lowerName)
            return value;
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// FabricHttpRequest

FabricHttpRequest::FabricHttpRequest(FabricHttpTransport *transport, FabricHttpRequestSpec spec,
                                     QObject *parent)
    : QObject(parent)
    , m_transport(transport)
    , m_spec(std::move(spec))
    , m_origin(FabricHttpTransport::originOf(m_spec.url))
    , m_parser(m_spec.maxResponseBytes)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &FabricHttpRequest::onTimeout);
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, &FabricHttpRequest::onDeadline);

    const QUrl &url = m_spec.url;
    QByteArray target = url.path(QUrl::FullyEncoded).toLatin1();
    if (target.isEmpty())
        target = "/";
    if (url.hasQuery())
        target += '?' + url.query(QUrl::FullyEncoded).toLatin1();
    QByteArray host = url.host(QUrl::FullyEncoded).toLatin1();
    if (host.contains(':'))
        host = '[' + host + ']';
    if (url.port(defaultPort(url)) != defaultPort(url))
        host += ':' + QByteArray::number(url.port());
    m_wire.reserve(256 + m_spec.body.size());
    m_wire += m_spec.method + ' ' + target + " HTTP/1.1\r\nHost: " + host + "\r\n";
    for (const auto &[name, value] : std::as_const(m_spec.headers))
        m_wire += name + ": " + value + "\r\n";
    if (m_spec.sendBody)
        m_wire += "Content-Length: " + QByteArray::number(m_spec.body.size()) + "\r\n";
    m_wire += "\r\n";
    if (m_spec.sendBody)
        m_wire += m_spec.body;
}

FabricHttpRequest::~FabricHttpRequest()
{
    dropSocket();
    releaseSlot();
}

void FabricHttpRequest::start()
{
    if (m_started || m_finished)
        return;
    m_started = true;
    // Defence in depth: the client never asks for anything else, and nothing else ever leaves.
    if (m_spec.method != "GET" && m_spec.method != "POST") {
        fail(FabricHttpResponse::Error::Other,
             QStringLiteral("only GET and POST are ever sent; a request with another method was "
                            "refused and not sent"));
        return;
    }
    const QByteArray target = m_wire.left(m_wire.indexOf("\r\n"));
    bool unsafe = httpHasControl(target) || target.count(' ') != 2;
    for (const auto &[name, value] : std::as_const(m_spec.headers))
        unsafe = unsafe || name.isEmpty() || httpHasControl(name) || name.contains(':') ||
                 name.contains(' ') || httpHasControl(value);
    if (unsafe || !m_spec.url.isValid() || m_spec.url.host().isEmpty()) {
        fail(FabricHttpResponse::Error::Other,
             QStringLiteral("the request has a control character or an invalid URL and was not "
                            "sent"));
        return;
    }
    m_timer.start(m_spec.timeoutMs);
    m_deadline.start(int(std::min<qint64>(deadlineMs(), INT_MAX)));
    if (m_transport && !m_transport->acquireSlot(this))
        return; // queued: the transport calls proceed() when a connection is free
    proceed();
}

void FabricHttpRequest::proceed()
{
    QAbstractSocket *idle =
        (!m_spec.freshConnection && m_transport) ? m_transport->takeIdle(m_origin) : nullptr;
    if (idle) {
        ++m_attempts;
        m_reused = m_firstReused = true;
        connectSocket(idle);
        writeRequest();
        return;
    }
    openFresh();
}

void FabricHttpRequest::abort()
{
    if (m_finished)
        return;
    m_finished = true;
    stopTimers();
    dropSocket();
    releaseSlot();
}

void FabricHttpRequest::stopTimers()
{
    m_timer.stop();
    m_deadline.stop();
}

void FabricHttpRequest::releaseSlot()
{
    if (m_queued) {
        m_queued = false;
        if (m_transport)
            m_transport->dequeue(this);
    }
    if (m_holdsSlot) {
        m_holdsSlot = false;
        if (m_transport)
            m_transport->releaseSlot(m_origin);
    }
}

void FabricHttpRequest::openFresh()
{
    ++m_attempts;
    m_reused = false;
    m_written = false;
    if (m_transport)
        m_transport->makeRoom(m_origin);
    const std::optional<QNetworkProxy> proxy = proxyFor(m_spec.url);
    if (!proxy) {
        fail(FabricHttpResponse::Error::Proxy,
             QStringLiteral("no usable proxy for this URL (a caching proxy cannot tunnel)"));
        return;
    }
    const QString host = m_spec.url.host();
    const auto port = quint16(m_spec.url.port(defaultPort(m_spec.url)));
    if (isHttps(m_spec.url)) {
        auto *ssl = new QSslSocket(this);
        QSslConfiguration conf = QSslConfiguration::defaultConfiguration();
        conf.setProtocol(QSsl::TlsV1_2OrLater);
        conf.setPeerVerifyMode(QSslSocket::VerifyPeer);
        conf.setAllowedNextProtocols({QByteArray(QSslConfiguration::NextProtocolHttp1_1)});
        ssl->setSslConfiguration(conf);
        ssl->setProxy(*proxy);
        connectSocket(ssl);
        ssl->connectToHostEncrypted(host, port); // SNI and the verified name: the host
    } else {
        auto *tcp = new QTcpSocket(this);
        tcp->setProxy(*proxy);
        connectSocket(tcp);
        tcp->connectToHost(host, port);
    }
}

void FabricHttpRequest::connectSocket(QAbstractSocket *socket)
{
    m_socket = socket;
    socket->setParent(this);
    if (auto *ssl = qobject_cast<QSslSocket *>(socket))
        connect(ssl, &QSslSocket::encrypted, this, &FabricHttpRequest::writeRequest);
    else
        connect(socket, &QAbstractSocket::connected, this, &FabricHttpRequest::writeRequest);
    connect(socket, &QIODevice::readyRead, this, &FabricHttpRequest::onReadyRead);
    connect(socket, &QAbstractSocket::disconnected, this, &FabricHttpRequest::onClosed);
    connect(socket, &QAbstractSocket::errorOccurred, this, &FabricHttpRequest::onSocketError);
    connect(socket, &QIODevice::bytesWritten, this, [this] {
        if (!m_finished)
            m_timer.start(m_spec.timeoutMs);
    });
}

void FabricHttpRequest::writeRequest()
{
    const InSocketSignal inSignal;
    if (m_finished || !m_socket || m_written)
        return;
    m_written = true;
    m_bytesLeft = true;
    m_timer.start(m_spec.timeoutMs);
    // Once, whole; flush() hands it to the kernel now rather than on the next loop turn. A
    // failure surfaces as errorOccurred (maybe from inside flush()): nothing after it here.
    QPointer<QAbstractSocket> socket(m_socket);
    socket->write(m_wire);
    if (socket)
        socket->flush();
}

void FabricHttpRequest::onReadyRead()
{
    const InSocketSignal inSignal;
    if (m_finished || !m_socket)
        return;
    const QByteArray bytes = m_socket->readAll();
    if (bytes.isEmpty())
        return;
    m_timer.start(m_spec.timeoutMs);
    switch (m_parser.feed(bytes)) {
    case HttpResponseParser::Result::NeedMore:
        return;
    case HttpResponseParser::Result::Done:
        complete();
        return;
    case HttpResponseParser::Result::Failed:
        fail(m_parser.tooLarge() ? FabricHttpResponse::Error::TooLarge
                                 : FabricHttpResponse::Error::Protocol,
             m_parser.error());
        return;
    }
}

void FabricHttpRequest::onClosed()
{
    const InSocketSignal inSignal;
    if (m_finished || !m_socket)
        return;
    if (m_socket->bytesAvailable() > 0) {
        QPointer<FabricHttpRequest> self(this);
        onReadyRead();
        if (!self || m_finished || !m_socket)
            return;
    }
    if (retryIfStale())
        return;
    if (m_parser.finishAtEof() == HttpResponseParser::Result::Done) {
        complete();
        return;
    }
    fail(FabricHttpResponse::Error::Closed, m_parser.error());
}

void FabricHttpRequest::onSocketError(QAbstractSocket::SocketError error)
{
    const InSocketSignal inSignal;
    if (m_finished || !m_socket)
        return;
    using E = FabricHttpResponse::Error;
    const QString text = m_socket->errorString();
    switch (error) {
    case QAbstractSocket::RemoteHostClosedError:
        onClosed();
        return;
    case QAbstractSocket::ConnectionRefusedError:
        fail(E::Refused, text);
        return;
    case QAbstractSocket::HostNotFoundError:
        fail(E::HostNotFound, text);
        return;
    case QAbstractSocket::SslHandshakeFailedError:
    case QAbstractSocket::SslInternalError:
    case QAbstractSocket::SslInvalidUserDataError:
        fail(E::Tls, text);
        return;
    case QAbstractSocket::ProxyAuthenticationRequiredError:
    case QAbstractSocket::ProxyConnectionRefusedError:
    case QAbstractSocket::ProxyConnectionClosedError:
    case QAbstractSocket::ProxyConnectionTimeoutError:
    case QAbstractSocket::ProxyNotFoundError:
    case QAbstractSocket::ProxyProtocolError:
        fail(E::Proxy, text);
        return;
    default:
        if (retryIfStale())
            return;
        fail(E::Other, text);
        return;
    }
}

void FabricHttpRequest::onTimeout()
{
    if (m_finished)
        return;
    if (m_queued) {
        fail(FabricHttpResponse::Error::Timeout,
             QStringLiteral("none of the %1 connections to this origin became free within %2 ms; "
                            "nothing was sent")
                 .arg(FabricHttpTransport::kMaxConnectionsPerOrigin)
                 .arg(m_spec.timeoutMs));
        return;
    }
    fail(FabricHttpResponse::Error::Timeout,
         QStringLiteral("nothing arrived within %1 ms").arg(m_spec.timeoutMs));
}

void FabricHttpRequest::onDeadline()
{
    if (m_finished)
        return;
    fail(FabricHttpResponse::Error::Timeout,
         QStringLiteral("the answer was not complete within %1 ms (the overall deadline, %2 "
                        "times the %3 ms timeout)")
             .arg(deadlineMs())
             .arg(kDeadlineFactor)
             .arg(m_spec.timeoutMs));
}

bool FabricHttpRequest::retryIfStale()
{
    // Only an idle connection that failed before any byte of the answer, only once, only for a
    // request that may be sent twice.
    if (!m_spec.retryOnStale || !m_reused || m_parser.anyByte() || m_attempts > 1)
        return false;
    dropSocket();
    m_parser = HttpResponseParser(m_spec.maxResponseBytes);
    m_timer.start(m_spec.timeoutMs);
    openFresh();
    return true;
}

void FabricHttpRequest::complete()
{
    stopTimers();
    m_finished = true;
    m_response.status = m_parser.status();
    m_response.headers = m_parser.headers();
    m_response.body = m_parser.takeBody();
    QAbstractSocket *socket = m_socket;
    if (socket && m_transport && m_parser.reusable() &&
        socket->state() == QAbstractSocket::ConnectedState && socket->bytesAvailable() == 0) {
        m_socket = nullptr;
        socket->disconnect(this);
        m_transport->putIdle(m_origin, socket);
    } else {
        dropSocket();
    }
    releaseSlot();
    emitFinished();
}

void FabricHttpRequest::fail(FabricHttpResponse::Error error, const QString &message)
{
    stopTimers();
    m_finished = true;
    m_response.error = error;
    m_response.errorString = message;
    if (m_parser.headDone()) {
        m_response.status = m_parser.status();
        m_response.headers = m_parser.headers();
    }
    m_response.body.clear();
    dropSocket();
    releaseSlot();
    emitFinished();
}

void FabricHttpRequest::dropSocket()
{
    QAbstractSocket *socket = m_socket;
    m_socket = nullptr;
    if (!socket)
        return;
    disposeSocket(socket, this, m_transport);
}

void FabricHttpRequest::emitFinished()
{
    emit finished();
}

// ---------------------------------------------------------------------------------------------
// FabricHttpTransport

FabricHttpTransport::FabricHttpTransport(QObject *parent)
    : QObject(parent)
{
    m_sweep.setSingleShot(true);
    connect(&m_sweep, &QTimer::timeout, this, &FabricHttpTransport::sweep);
}

FabricHttpTransport::~FabricHttpTransport()
{
    // Sockets it keeps (idle ones, closed ones waiting for deleteLater) die with it, unless this
    // runs inside a socket's signal.
    const auto sockets = findChildren<QAbstractSocket *>(Qt::FindDirectChildrenOnly);
    for (QAbstractSocket *s : sockets) {
        s->disconnect(this);
        if (t_socketSignalDepth > 0) {
            s->setParent(nullptr);
            s->deleteLater();
        }
    }
}

FabricHttpRequest *FabricHttpTransport::request(FabricHttpRequestSpec spec, QObject *parent)
{
    return new FabricHttpRequest(this, std::move(spec), parent);
}

QString FabricHttpTransport::originOf(const QUrl &url)
{
    return url.scheme().toLower() + QStringLiteral("://") + url.host().toLower() + u':' +
           QString::number(url.port(defaultPort(url)));
}

QAbstractSocket *FabricHttpTransport::takeIdle(const QString &origin)
{
    auto it = m_idle.find(origin);
    if (it == m_idle.end())
        return nullptr;
    QAbstractSocket *found = nullptr;
    while (!found && !it->isEmpty()) {
        const Idle e = it->takeLast();
        QAbstractSocket *s = e.socket;
        if (!s)
            continue;
        s->disconnect(this);
        if (!e.since.hasExpired(m_idleTimeoutMs) && idleIsQuiet(s)) {
            found = s;
        } else {
            disposeSocket(s, this, this);
        }
    }
    if (it->isEmpty())
        m_idle.erase(it);
    return found;
}

void FabricHttpTransport::putIdle(const QString &origin, QAbstractSocket *socket)
{
    socket->setParent(this);
    QPointer<QAbstractSocket> guard(socket);
    auto drop = [this, guard] {
        const InSocketSignal inSignal;
        if (guard)
            dropIdle(guard);
    };
    // A byte or a close while idle: the server ends it, or breaks the protocol; gone either way.
    connect(socket, &QIODevice::readyRead, this, drop);
    connect(socket, &QAbstractSocket::disconnected, this, drop);
    connect(socket, &QAbstractSocket::errorOccurred, this, drop);
    QList<Idle> &list = m_idle[origin];
    Idle e;
    e.socket = socket;
    e.since.start();
    list.append(e);
    while (list.size() > kMaxIdlePerOrigin) {
        const Idle oldest = list.takeFirst();
        if (oldest.socket)
            dropIdle(oldest.socket);
    }
    if (!m_sweep.isActive())
        m_sweep.start(m_idleTimeoutMs);
}

void FabricHttpTransport::dropIdle(QAbstractSocket *socket)
{
    for (auto it = m_idle.begin(); it != m_idle.end();) {
        it->removeIf([socket](const Idle &e) { return e.socket == socket || !e.socket; });
        it = it->isEmpty() ? m_idle.erase(it) : std::next(it);
    }
    disposeSocket(socket, this, this);
}

void FabricHttpTransport::sweep()
{
    QList<QAbstractSocket *> expired;
    qint64 next = -1;
    for (const QList<Idle> &list : std::as_const(m_idle)) {
        for (const Idle &e : list) {
            if (!e.socket)
                continue;
            const qint64 left = m_idleTimeoutMs - e.since.elapsed();
            if (left <= 0)
                expired.append(e.socket);
            else if (next < 0 || left < next)
                next = left;
        }
    }
    for (QAbstractSocket *s : std::as_const(expired))
        dropIdle(s);
    if (next >= 0)
        m_sweep.start(int(next) + 1);
}

void FabricHttpTransport::closeIdle()
{
    QList<QAbstractSocket *> all;
    for (const QList<Idle> &list : std::as_const(m_idle)) {
        for (const Idle &e : list) {
            if (e.socket)
                all.append(e.socket);
        }
    }
    for (QAbstractSocket *s : std::as_const(all))
        dropIdle(s);
    m_idle.clear();
}

bool FabricHttpTransport::acquireSlot(FabricHttpRequest *request)
{
    const QString &origin = request->m_origin;
    auto waiting = m_waiting.find(origin);
    if (waiting != m_waiting.end()) {
        waiting->removeIf([](const QPointer<FabricHttpRequest> &r) { return !r || !r->m_queued; });
        if (waiting->isEmpty()) {
            m_waiting.erase(waiting);
            waiting = m_waiting.end();
        }
    }
    // First come, first served: nobody overtakes a request already waiting.
    if (waiting == m_waiting.end() && m_busy.value(origin) < kMaxConnectionsPerOrigin) {
        ++m_busy[origin];
        request->m_holdsSlot = true;
        return true;
    }
    m_waiting[origin].append(request);
    request->m_queued = true;
    return false;
}

void FabricHttpTransport::releaseSlot(const QString &origin)
{
    auto it = m_busy.find(origin);
    if (it != m_busy.end() && --*it <= 0)
        m_busy.erase(it);
    if (m_waiting.contains(origin))
        schedulePump();
}

void FabricHttpTransport::dequeue(FabricHttpRequest *request)
{
    auto it = m_waiting.find(request->m_origin);
    if (it == m_waiting.end())
        return;
    it->removeIf([request](const QPointer<FabricHttpRequest> &r) { return !r || r == request; });
    if (it->isEmpty())
        m_waiting.erase(it);
}

void FabricHttpTransport::schedulePump()
{
    if (m_pumpScheduled)
        return;
    m_pumpScheduled = true;
    QMetaObject::invokeMethod(this, &FabricHttpTransport::pump, Qt::QueuedConnection);
}

void FabricHttpTransport::pump()
{
    m_pumpScheduled = false;
    const QPointer<FabricHttpTransport> self(this);
    const QStringList origins = m_waiting.keys();
    for (const QString &origin : origins) {
        for (;;) {
            auto it = m_waiting.find(origin);
            if (it == m_waiting.end())
                break;
            if (it->isEmpty()) {
                m_waiting.erase(it);
                break;
            }
            if (m_busy.value(origin) >= kMaxConnectionsPerOrigin)
                break;
            const QPointer<FabricHttpRequest> request = it->takeFirst();
            if (!request || request->m_finished || !request->m_queued)
                continue;
            request->m_queued = false;
            request->m_holdsSlot = true;
            ++m_busy[origin];
            request->proceed(); // may finish at once (a refused proxy), and its handler may
            if (!self)          // delete this transport
                return;
        }
    }
}

void FabricHttpTransport::makeRoom(const QString &origin)
{
    auto it = m_idle.find(origin);
    while (it != m_idle.end() && !it->isEmpty() &&
           m_busy.value(origin) + it->size() > kMaxConnectionsPerOrigin) {
        const Idle oldest = it->takeFirst();
        if (it->isEmpty())
            m_idle.erase(it);
        if (oldest.socket)
            dropIdle(oldest.socket);
        it = m_idle.find(origin);
    }
}

int FabricHttpTransport::queuedRequests() const
{
    int n = 0;
    for (const auto &list : m_waiting) {
        for (const auto &r : list)
            n += (r && r->m_queued) ? 1 : 0;
    }
    return n;
}

int FabricHttpTransport::busyConnections() const
{
    int n = 0;
    for (const int busy : m_busy)
        n += busy;
    return n;
}

int FabricHttpTransport::idleConnections() const
{
    int n = 0;
    for (const QList<Idle> &list : m_idle) {
        for (const Idle &e : list)
            n += e.socket ? 1 : 0;
    }
    return n;
}

} // namespace fb
