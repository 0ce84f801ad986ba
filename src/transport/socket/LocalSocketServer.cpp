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
#include <sys/socket.h>
#include <sys/stat.h>
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
    const auto usable = [](int f) {
        struct stat st {};
        return f >= 0 && ::fstat(f, &st) == 0 &&
               (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) ||
                S_ISREG(st.st_mode));
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
    const bool known = RelayLaunch::read(cred.pid, &launch, &why);
    auto *relay = new FastRelayConnection(sock, fds[0], fds[1], std::move(launch), this);
    if (!known) {
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
