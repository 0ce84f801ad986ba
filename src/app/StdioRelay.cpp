#include "app/StdioRelay.h"

#include "mcp/McpServer.h"
#include "transport/stdio/StdioDevices.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QTextStream>
#include <QTimer>

#include <unistd.h>

Q_LOGGING_CATEGORY(lcRelay, "fabricbroker.app.relay")

namespace fb {

StdioRelay::StdioRelay(QObject *parent)
    : QObject(parent)
    , m_socket(new QLocalSocket(this))
{
}

transport::ListenerCheck StdioRelay::connectTo(const QString &socketPath, QString *why,
                                               int timeoutMs)
{
    const uid_t uid = ::getuid();
    // In the shared /tmp fallback the directory itself must be private before anything in it
    // is trusted; a missing one means no instance has started yet.
    const transport::SocketDirectory dir = transport::SocketDirectory::resolve();
    if (dir.source() == transport::SocketDirectory::Source::Fallback &&
        QFileInfo(socketPath).absolutePath() == dir.path()) {
        const QFileInfo info(dir.path());
        if (!info.exists() && !info.isSymLink())
            return transport::ListenerCheck::Absent;
        if (!transport::SocketDirectory::checkPrivateDirectory(dir.path(), uid, false, why))
            return transport::ListenerCheck::Refused;
    }
    const transport::ListenerCheck file = transport::checkSocketFile(socketPath, uid, why);
    if (file != transport::ListenerCheck::Trusted)
        return file;
    m_socket->connectToServer(socketPath);
    if (!m_socket->waitForConnected(timeoutMs))
        return transport::ListenerCheck::Absent; // a stale socket file: nobody listens
    // The file may have been replaced between the check and the connect: what counts is who
    // is listening on the connection we got.
    if (!transport::peerRunsAs(m_socket->socketDescriptor(), uid, why)) {
        m_socket->abort();
        return transport::ListenerCheck::Refused;
    }
    return transport::ListenerCheck::Trusted;
}

void StdioRelay::start()
{
    m_stdio = new transport::StdioDevices(0, 1, this);
    connect(m_stdio->input(), &QIODevice::readyRead, this, &StdioRelay::pumpIn);
    connect(m_stdio, &transport::StdioDevices::inputFinished, this, [this] {
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
    // Logged once the welcome says the session is served: a refusal's fix is stderr's first line.
    if (m_hello.isEmpty())
        logRelaying();
    if (!m_hello.isEmpty()) {
        m_socket->write(QJsonDocument(QJsonObject{{QLatin1StringView(mcp::RelayHelloKey), m_hello}})
                            .toJson(QJsonDocument::Compact) +
                        '\n');
        m_awaitingWelcome = true;
    }
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
    QByteArray data = m_socket->readAll();
    if (m_awaitingWelcome) {
        // The instance's first line is its welcome; it never reaches the client.
        m_welcome += data;
        const qsizetype nl = m_welcome.indexOf('\n');
        if (nl < 0 && m_welcome.size() <= 64 * 1024)
            return;
        m_awaitingWelcome = false;
        const QByteArray line = nl < 0 ? QByteArray() : m_welcome.left(nl);
        const QJsonValue welcome =
            QJsonDocument::fromJson(line).object().value(QLatin1StringView(mcp::RelayWelcomeKey));
        if (welcome.isObject()) {
            reportWelcome(welcome.toObject());
            data = m_welcome.mid(nl + 1);
        } else {
            logRelaying();
            data = m_welcome; // not a welcome: pass everything through unchanged
        }
        m_welcome.clear();
    }
    if (data.isEmpty())
        return;
    m_stdio->output()->write(data);
    // A refused session: once the client has the instance's answer (the JSON-RPC error of its
    // first request), the relay ends, non-zero, so that the client reports a failed server.
    if (m_refused && data.contains('\n'))
        QTimer::singleShot(0, this, [this] { finish(kRefusedExitCode); });
}

void StdioRelay::reportWelcome(const QJsonObject &welcome)
{
    const QString refused = welcome.value(QStringLiteral("refused")).toString().left(8192);
    if (!refused.isEmpty()) {
        // For the person reading the client's server log (often only its first line): the fix
        // first, then the whole refusal; the client itself gets the refusal as the JSON-RPC error
        // of its initialize.
        m_refused = true;
        QStringList fixes;
        for (const QJsonValue &c : welcome.value(QStringLiteral("conflicts")).toArray()) {
            const QString fix = c.toObject().value(QStringLiteral("fix")).toString().left(1024);
            if (!fix.isEmpty() && fixes.size() < 8)
                fixes << QStringLiteral("Fix: ") + fix + u'.';
        }
        QTextStream err(stderr);
        if (!fixes.isEmpty())
            err << "fabric-broker: " << fixes.join(u' ') << "\n";
        err << "fabric-broker: " << refused << "\n";
        return;
    }
    logRelaying();
    QStringList toolsets;
    for (const QJsonValue &t : welcome.value(QStringLiteral("toolsets")).toArray())
        toolsets << t.toString().left(32);
    qCInfo(lcRelay).noquote()
        << "session served with the toolsets" << toolsets.join(u',') << "- approvals through the"
        << welcome.value(QStringLiteral("approvalChannel")).toString().left(16) << "channel";
}

void StdioRelay::logRelaying()
{
    qCInfo(lcRelay) << "relaying stdio to the running Fabric Broker at"
                    << m_socket->fullServerName();
}

void StdioRelay::finish(int code)
{
    if (m_done)
        return;
    if (m_refused)
        code = kRefusedExitCode;
    m_done = true;
    m_stdio->output()->waitForBytesWritten(1000);
    emit finished(code);
}

} // namespace fb
