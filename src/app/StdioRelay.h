#pragma once
// StdioRelay: `fabric-broker --stdio` when the desktop app already runs. Copies bytes between
// this process's stdin/stdout and the app's MCP socket unchanged (the app frames, parses and
// answers), so approvals appear on the desktop. End of input on either side ends the relay.
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
    // Connects to the socket synchronously (a local connect is immediate). False: nobody there.
    bool connectTo(const QString &socketPath, int timeoutMs = 500);
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
