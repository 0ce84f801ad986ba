#include "app/SingleInstance.h"

#include "transport/socket/LocalSocketServer.h"
#include "transport/socket/SocketDirectory.h"

#include <QLocalServer>
#include <QLocalSocket>

#include <unistd.h>

namespace fb {

SingleInstance::SingleInstance(QObject *parent)
    : QObject(parent)
    , m_server(new QLocalServer(this))
{
}

QString SingleInstance::controlSocketPath()
{
    return transport::LocalSocketServer::runtimeDirectory() +
           QStringLiteral("/fabric-broker-ui.sock");
}

bool SingleInstance::askRunningInstanceToRaise(int timeoutMs)
{
    QLocalSocket socket;
    socket.connectToServer(controlSocketPath());
    if (!socket.waitForConnected(timeoutMs))
        return false;
    QString why;
    if (!transport::peerRunsAs(socket.socketDescriptor(), ::getuid(), &why)) {
        socket.abort(); // not our app: say nothing to it
        return false;
    }
    socket.write("raise\n");
    socket.waitForBytesWritten(timeoutMs);
    // Wait for the acknowledgement so we know a live instance handled it.
    return socket.waitForReadyRead(timeoutMs) && socket.readAll().startsWith("ok");
}

bool SingleInstance::listen(QString *error)
{
    const QString path = controlSocketPath();
    // The MCP socket's lock file already proved we are the only instance: a leftover control
    // socket is stale.
    QLocalServer::removeServer(path);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(path)) {
        *error = QStringLiteral("control socket %1: %2").arg(path, m_server->errorString());
        return false;
    }
    connect(m_server, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket *s = m_server->nextPendingConnection()) {
            connect(s, &QLocalSocket::disconnected, s, &QObject::deleteLater);
            connect(s, &QLocalSocket::readyRead, this, [this, s] {
                // Only the owner can connect (socket permissions); bound what we read anyway.
                const QByteArray line = s->read(64);
                if (line.startsWith("raise")) {
                    s->write("ok\n");
                    emit raiseRequested();
                }
                s->disconnectFromServer();
            });
        }
    });
    return true;
}

} // namespace fb
