#include "app/StdioRelay.h"

#include "mcp/StdioDevices.h"

#include <QLocalSocket>
#include <QLoggingCategory>
#include <QTimer>

Q_LOGGING_CATEGORY(lcRelay, "fabricbroker.app.relay")

namespace fb {

StdioRelay::StdioRelay(QObject *parent)
    : QObject(parent)
    , m_socket(new QLocalSocket(this))
{
}

bool StdioRelay::connectTo(const QString &socketPath, int timeoutMs)
{
    m_socket->connectToServer(socketPath);
    return m_socket->waitForConnected(timeoutMs);
}

void StdioRelay::start()
{
    m_stdio = new mcp::StdioDevices(0, 1, this);
    connect(m_stdio->input(), &QIODevice::readyRead, this, &StdioRelay::pumpIn);
    connect(m_stdio, &mcp::StdioDevices::inputFinished, this, [this] {
        pumpIn();
        // The client closed stdin: flush what we relayed, then leave; the app's session ends
        // and cancels whatever that client had in flight.
        m_socket->flush();
        m_socket->disconnectFromServer();
        QTimer::singleShot(200, this, [this] { finish(0); });
    });
    connect(m_socket, &QLocalSocket::readyRead, this, &StdioRelay::pumpOut);
    connect(m_socket, &QLocalSocket::disconnected, this, [this] {
        pumpOut();
        finish(0);
    });
    connect(m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError e) {
        if (e != QLocalSocket::PeerClosedError)
            qCWarning(lcRelay) << "socket error:" << m_socket->errorString();
    });
    qCInfo(lcRelay) << "relaying stdio to the running Fabric Broker at"
                    << m_socket->fullServerName();
    pumpIn();
    pumpOut();
}

void StdioRelay::pumpIn()
{
    const QByteArray data = m_stdio->input()->readAll();
    if (!data.isEmpty())
        m_socket->write(data);
}

void StdioRelay::pumpOut()
{
    const QByteArray data = m_socket->readAll();
    if (!data.isEmpty())
        m_stdio->output()->write(data);
}

void StdioRelay::finish(int code)
{
    if (m_done)
        return;
    m_done = true;
    m_stdio->output()->waitForBytesWritten(1000);
    emit finished(code);
}

} // namespace fb
