#pragma once
// StdioRelay: `fabric-broker --stdio` when the desktop app already runs. Copies bytes between
// this process's stdin/stdout and the app's MCP socket unchanged (the app frames, parses and
// answers), so approvals appear on the desktop. End of input on either side ends the relay.
// Before a byte is sent the listening side is verified (SocketDirectory): the socket file must
// be a socket owned by the user and the listening process must run as the user (SO_PEERCRED).
#include "mcp/SocketDirectory.h"

#include <QObject>
#include <QString>

class QLocalSocket;

namespace fb {
namespace mcp {
class StdioDevices;
}

class StdioRelay : public QObject {
    Q_OBJECT
public:
    explicit StdioRelay(QObject *parent = nullptr);
    // Connects to the socket synchronously (a local connect is immediate) and verifies the
    // listener. Absent: nobody there (become the instance). Refused: *why says what is wrong;
    // the connection is closed without a byte written.
    mcp::ListenerCheck connectTo(const QString &socketPath, QString *why, int timeoutMs = 500);
    void start();

signals:
    void finished(int exitCode);

private:
    void pumpIn();
    void pumpOut();
    void finish(int code);

    QLocalSocket *m_socket;
    mcp::StdioDevices *m_stdio = nullptr;
    bool m_done = false;
};

} // namespace fb
