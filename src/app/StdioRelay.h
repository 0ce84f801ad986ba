#pragma once
// StdioRelay: `fabric-broker --stdio` when the desktop app already runs. Copies bytes between
// this process's stdin/stdout and the app's MCP socket unchanged (the app frames, parses and
// answers), so approvals appear on the desktop. End of input on either side ends the relay.
// Before a byte is sent the listening side is verified (SocketDirectory): the socket file must
// be a socket owned by the user and the listening process must run as the user (SO_PEERCRED).
// The first line it sends is the hello (what this process's command line and environment ask
// for, see broker/RelayHello.h); the instance's first line back is the welcome, which the relay
// consumes: a refusal is printed on stderr (its first line the fix), the client then gets the
// instance's JSON-RPC error at initialize, and the relay exits with kRefusedExitCode.
#include "transport/socket/SocketDirectory.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

class QLocalSocket;

namespace fb {
namespace transport {
class StdioDevices;
}

class StdioRelay : public QObject {
    Q_OBJECT
public:
    // EX_CONFIG (sysexits.h): the session asked for a configuration the running app does not
    // serve.
    static constexpr int kRefusedExitCode = 78;

    explicit StdioRelay(QObject *parent = nullptr);
    // Connects to the socket synchronously (a local connect is immediate) and verifies the
    // listener. Absent: nobody there (become the instance). Refused: *why says what is wrong;
    // the connection is closed without a byte written.
    transport::ListenerCheck connectTo(const QString &socketPath, QString *why,
                                       int timeoutMs = 500);
    // Sent as the first line once started (before any byte from stdin).
    void setHello(const QJsonObject &hello) { m_hello = hello; }
    void start();

signals:
    void finished(int exitCode);

private:
    void pumpIn();
    void pumpOut();
    void finish(int code);
    void logRelaying();
    void reportWelcome(const QJsonObject &welcome);

    QLocalSocket *m_socket;
    transport::StdioDevices *m_stdio = nullptr;
    bool m_done = false;
    QJsonObject m_hello;
    bool m_awaitingWelcome = false;
    bool m_refused = false;
    QByteArray m_welcome;
};

} // namespace fb
