#include "transport/socket/LocalSocketServer.h"
#include "mcp/Logging.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"
#include "transport/socket/SocketDirectory.h"

#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLockFile>

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
    auto *local = new QLocalServer(this);
    local->setSocketOptions(QLocalServer::UserAccessOption);
    if (!local->listen(path)) {
        err = u"cannot listen on %1: %2"_s.arg(path, local->errorString());
        delete local;
        return false;
    }
    connect(local, &QLocalServer::newConnection, this, &LocalSocketServer::onNewConnection);
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

void LocalSocketServer::onNewConnection()
{
    while (m_local && m_local->hasPendingConnections()) {
        QLocalSocket *socket = m_local->nextPendingConnection();
        QString why;
        if (!peerIsSameUser(socket->socketDescriptor(), &why)) {
            ++m_rejected;
            qCWarning(lcMcpTransport) << "rejecting a connection:" << why;
            socket->abort();
            socket->deleteLater();
            emit connectionRejected(why);
            continue;
        }
        // A client that sends faster than we parse is throttled by the kernel, not by memory.
        socket->setReadBufferSize(1024 * 1024);
        mcp::Session *session = m_server->serve({u"socket"_s, socket, socket});
        if (!session) {
            socket->abort();
            socket->deleteLater();
            ++m_rejected;
            emit connectionRejected(u"too many sessions"_s);
            continue;
        }
        socket->setParent(session); // the session owns its socket
    }
}

} // namespace fb::transport
