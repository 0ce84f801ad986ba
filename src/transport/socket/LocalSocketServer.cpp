#include "transport/socket/LocalSocketServer.h"
#include "mcp/Logging.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"
#include "transport/socket/FastRelayConnection.h"
#include "transport/socket/FastRelayWire.h"
#include "transport/socket/SocketDirectory.h"

#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLockFile>
#include <QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::transport {

using mcp::lcMcpTransport;
using mcp::McpServer;

namespace {

bool peerIsSameUser(qintptr fd, QString *why)
{
    return peerRunsAs(fd, ::getuid(), why);
}

// After /proc/<pid> was read: was that pid still the process that connected? With a pidfd of the
// peer (SO_PEERPIDFD, Linux 6.5) the answer is exact: the process it names is alive. Without one
// (Debian 12's 6.1), the connection must still be open from the other side: a relay that ended
// (and so could have had its pid reused) has closed it.
bool stillTheConnectingProcess(int sock, pid_t pid, QString *why)
{
#ifndef SO_PEERPIDFD
    constexpr int SO_PEERPIDFD = 77; // include/uapi/asm-generic/socket.h
#endif
    int pidfd = -1;
    socklen_t len = sizeof pidfd;
    if (::getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0 && pidfd >= 0) {
        const bool alive = ::syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) == 0;
        ::close(pidfd);
        if (!alive)
            *why = u"the relay (pid %1) ended before its settings were read"_s.arg(pid);
        return alive;
    }
    pollfd p{sock, POLLRDHUP, 0};
    if (::poll(&p, 1, 0) < 0 || (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
        *why = u"the relay (pid %1) ended before its settings were read"_s.arg(pid);
        return false;
    }
    return true;
}

// A QLocalServer that hands the accepted descriptor over before any QLocalSocket reads from it.
class PeekingLocalServer final : public QLocalServer {
public:
    std::function<void(qintptr)> incoming;
    using QLocalServer::QLocalServer;

protected:
    void incomingConnection(quintptr socketDescriptor) override
    {
        incoming(static_cast<qintptr>(socketDescriptor));
    }
};

} // namespace

LocalSocketServer::LocalSocketServer(McpServer *server, QObject *parent)
    : QObject(parent)
    , m_server(server)
{
}

LocalSocketServer::~LocalSocketServer()
{
    close();
}

QString LocalSocketServer::defaultSocketName()
{
    return u"fabric-broker.sock"_s;
}

QString LocalSocketServer::runtimeDirectory()
{
    return SocketDirectory::resolve().path();
}

QString LocalSocketServer::resolveSocketPath(const QString &nameOrPath)
{
    const QString value = nameOrPath.trimmed();
    if (value.isEmpty())
        return runtimeDirectory() + u'/' + defaultSocketName();
    if (value.contains(u'/'))
        return QFileInfo(value).absoluteFilePath();
    return runtimeDirectory() + u'/' + value;
}

QString LocalSocketServer::lockFilePathFor(const QString &socketPath)
{
    return socketPath + u".lock"_s;
}

bool LocalSocketServer::listen(const QString &nameOrPath, QString *error)
{
    QString dummy;
    QString &err = error ? *error : dummy;
    close();
    const QString path = resolveSocketPath(nameOrPath);
    const QString dir = QFileInfo(path).absolutePath();
    // The /tmp fallback is shared ground: whenever it is used (no XDG_RUNTIME_DIR, no usable
    // /run/user/<uid>), it must be ours and private, created 0700 if missing.
    const SocketDirectory runtime = SocketDirectory::resolve();
    if (dir == runtime.path() && runtime.source() == SocketDirectory::Source::Fallback) {
        if (!SocketDirectory::checkPrivateDirectory(dir, ::getuid(), true, &err))
            return false;
    } else if (!QFileInfo(dir).isDir()) {
        err = u"socket directory %1 does not exist"_s.arg(dir);
        return false;
    }

    auto lock = std::make_unique<QLockFile>(lockFilePathFor(path));
    lock->setStaleLockTime(0); // stale only when its process is gone, never by age
    if (!lock->tryLock(0)) {
        if (lock->error() == QLockFile::LockFailedError) {
            qint64 pid = 0;
            QString host, app;
            lock->getLockInfo(&pid, &host, &app);
            err = u"another fabric-broker instance (pid %1) is already serving %2"_s.arg(pid).arg(
                path);
        } else {
            err = u"cannot create the lock file %1"_s.arg(lockFilePathFor(path));
        }
        return false;
    }
    // The lock is ours: whatever socket file is there was left by a dead instance.
    if (QFileInfo::exists(path)) {
        qCInfo(lcMcpTransport) << "removing stale socket" << path;
        QLocalServer::removeServer(path);
    }
    auto *local = new PeekingLocalServer(this);
    local->incoming = [this](qintptr fd) { onIncoming(fd); };
    local->setSocketOptions(QLocalServer::UserAccessOption);
    if (!local->listen(path)) {
        err = u"cannot listen on %1: %2"_s.arg(path, local->errorString());
        delete local;
        return false;
    }
    m_local = local;
    m_lock = std::move(lock);
    m_path = path;
    qCInfo(lcMcpTransport) << "listening on" << path;
    return true;
}

void LocalSocketServer::close()
{
    if (m_local) {
        m_local->close(); // removes the socket file
        delete m_local;
        m_local = nullptr;
    }
    for (auto it = m_undecided.cbegin(); it != m_undecided.cend(); ++it) {
        delete it.value();
        ::close(static_cast<int>(it.key()));
    }
    m_undecided.clear();
    m_lock.reset(); // unlocks and removes the lock file
    m_path.clear();
}

bool LocalSocketServer::isListening() const
{
    return m_local && m_local->isListening();
}

QString LocalSocketServer::socketPath() const
{
    return m_path;
}

void LocalSocketServer::setRelayHandler(std::function<void(FastRelayConnection *)> handler)
{
    m_relayHandler = std::move(handler);
}

void LocalSocketServer::reject(const QString &why)
{
    ++m_rejected;
    qCWarning(lcMcpTransport).noquote() << "rejecting a connection:" << why;
    emit connectionRejected(why);
}

void LocalSocketServer::onIncoming(qintptr fd)
{
    QString why;
    if (!peerIsSameUser(fd, &why)) {
        ::close(static_cast<int>(fd));
        reject(why);
        return;
    }
    // Full: refused at once, as before any byte (a relay or a client would be refused anyway).
    const int maxSessions = m_server->options().maxSessions;
    if (m_server->sessionCount() + m_undecided.size() >= maxSessions) {
        ::close(static_cast<int>(fd));
        qCWarning(lcMcpTransport).noquote()
            << u"refusing a connection (socket): already %1 sessions (maximum %2)"_s
                   .arg(m_server->sessionCount() + m_undecided.size())
                   .arg(maxSessions);
        ++m_rejected;
        emit connectionRejected(u"too many sessions"_s);
        return;
    }
    auto *notifier = new QSocketNotifier(fd, QSocketNotifier::Read, this);
    m_undecided.insert(fd, notifier);
    connect(notifier, &QSocketNotifier::activated, this, [this, fd] { onFirstByte(fd); });
}

void LocalSocketServer::onFirstByte(qintptr fd)
{
    char first = 0;
    const ssize_t n = ::recv(static_cast<int>(fd), &first, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    QSocketNotifier *notifier = m_undecided.take(fd);
    if (notifier) {
        notifier->setEnabled(false);
        notifier->deleteLater();
    }
    if (n <= 0) { // gone before saying anything
        ::close(static_cast<int>(fd));
        return;
    }
    if (first == '\0')
        acceptRelay(fd);
    else
        serveSocket(fd);
}

void LocalSocketServer::serveSocket(qintptr fd)
{
    auto *socket = new QLocalSocket;
    if (!socket->setSocketDescriptor(fd)) {
        ::close(static_cast<int>(fd));
        delete socket;
        return;
    }
    // A client that sends faster than we parse is throttled by the kernel, not by memory.
    socket->setReadBufferSize(1024 * 1024);
    mcp::Session *session = m_server->serve({u"socket"_s, socket, socket});
    if (!session) {
        socket->abort();
        socket->deleteLater();
        reject(u"too many sessions"_s);
        return;
    }
    socket->setParent(session); // the session owns its socket
}

// The launcher's hello: exactly FastRelayWire's bytes with exactly two descriptors attached,
// each a pipe, socket, character device or regular file. Anything else is closed unanswered.
void LocalSocketServer::acceptRelay(qintptr fd)
{
    const int sock = static_cast<int>(fd);
    char data[fastrelay::kHelloSize + 1] = {};
    int fds[fastrelay::kDescriptors + 2] = {-1, -1, -1, -1};
    char control[CMSG_SPACE(sizeof fds)] = {};
    iovec iov{data, sizeof data};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    int received = 0;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        const int count = int((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < count; ++i) {
            int one = -1;
            memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof one);
            if (received < int(std::size(fds)))
                fds[received] = one;
            else
                ::close(one);
            ++received;
        }
    }
    const auto closeAll = [&] {
        for (int &f : fds) {
            if (f >= 0)
                ::close(f);
            f = -1;
        }
        ::close(sock);
    };
    // A socket whose other end is this process (the relay's own connection, or another
    // client's) would be held only by us: its session could never see its relay go and would
    // occupy a session slot for good.
    const auto usable = [](int f) {
        struct stat st {};
        if (f < 0 || ::fstat(f, &st) != 0 ||
            !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) ||
              S_ISREG(st.st_mode)))
            return false;
        if (S_ISSOCK(st.st_mode)) {
            struct ucred peer {};
            socklen_t peerLen = sizeof peer;
            if (::getsockopt(f, SOL_SOCKET, SO_PEERCRED, &peer, &peerLen) == 0 &&
                peer.pid == ::getpid())
                return false;
        }
        return true;
    };
    if (n != ssize_t(fastrelay::kHelloSize) || memcmp(data, fastrelay::kHello, size_t(n)) != 0 ||
        (msg.msg_flags & MSG_CTRUNC) || received != fastrelay::kDescriptors || !usable(fds[0]) ||
        !usable(fds[1])) {
        qCWarning(lcMcpTransport) << "dropping a connection: not a well-formed relay hello";
        closeAll();
        return;
    }
    struct ucred cred {};
    socklen_t len = sizeof cred;
    ::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len);
    RelayLaunch launch;
    QString why;
    bool known = RelayLaunch::read(cred.pid, &launch, &why);
    // What was read must be the connecting process's, not a later one's with a reused pid.
    if (known && !stillTheConnectingProcess(sock, cred.pid, &why))
        known = false;
    auto *relay = new FastRelayConnection(sock, fds[0], fds[1], std::move(launch), this);
    if (!known) {
        qCWarning(lcMcpTransport).noquote()
            << u"cannot serve this relay (pid %1): %2"_s.arg(cred.pid).arg(why);
        relay->say(
            u"fabric-broker: the running Fabric Broker cannot serve this relay: %1"_s.arg(why));
        relay->finish(1);
        relay->deleteLater();
        return;
    }
    if (!m_relayHandler) {
        relay->notTaken();
        relay->deleteLater();
        return;
    }
    m_relayHandler(relay);
}

} // namespace fb::transport
