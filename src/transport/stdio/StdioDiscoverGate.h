#pragma once
// StdioDiscoverGate: the first moments of a `--stdio` process. A 2026-07-28 client (the official
// SDK's versionNegotiation 'auto' or pin) probes server/discover on a short-lived sibling process
// and kills it once answered. The gate answers the server/discover requests that arrive first on
// stdin before the host starts anything (no audit log opened, no sandbox, no socket claimed, no
// OAuth), so such a probe leaves nothing behind. It opens at the first other line, after idleMs
// without a line, or at end of input after something else than discover requests; what it has
// not answered stays in the stdin device for the session. At end of input after discover requests
// only, nothing is started and finishedEarly() is emitted.
#include "mcp/McpServer.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <functional>

class QTimer;

namespace fb::transport {

class StdioDevices;

class StdioDiscoverGate : public QObject {
    Q_OBJECT
public:
    StdioDiscoverGate(StdioDevices *devices, const mcp::ServerOptions &options,
                      QObject *parent = nullptr);

    // open runs once, when the process should start serving (devices then belong to it).
    void start(int idleMs, std::function<void()> open);
    int answered() const { return m_answered; }

signals:
    void finishedEarly(); // end of input after discover requests only: nothing to serve

private:
    void onReadyRead();
    void onInputFinished();
    bool answerLine(const QByteArray &line); // false: not a discover request, the gate opens
    void openGate();

    StdioDevices *m_devices;
    QJsonObject m_discover;
    QByteArray m_buffer;
    QTimer *m_idle = nullptr;
    std::function<void()> m_open;
    int m_answered = 0;
    bool m_done = false;
};

} // namespace fb::transport
