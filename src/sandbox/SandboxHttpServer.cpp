#include "sandbox/SandboxHttpServer.h"

#include <QTcpSocket>

namespace fb {

SandboxHttpServer::SandboxHttpServer(Handler handler, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_handler(std::move(handler))
{
}

bool SandboxHttpServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    m_handler(request, socket);
    return true;
}

void SandboxHttpServer::missingHandler(const QHttpServerRequest &, QTcpSocket *socket)
{
    // Not reached: handleRequest always handles. Close rather than leave the client hanging.
    socket->disconnectFromHost();
}

} // namespace fb
