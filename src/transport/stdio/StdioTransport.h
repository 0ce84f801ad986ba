#pragma once
// StdioTransport: the process's own MCP session on fd 0 / fd 1 through StdioDevices
// (non-blocking stdin, buffered stdout written by a writer thread). It is a child of the server,
// so it outlives the server's sessions: stdout is flushed (at most one second) when the server
// is destroyed. finished() is emitted when input ends and the session has closed; connect it to
// QCoreApplication::quit.
#include "mcp/Session.h"

#include <QObject>

namespace fb::transport {

class StdioDevices;

class StdioTransport : public QObject {
    Q_OBJECT
public:
    // Serves the session. devices: ones already made for fd 0 / 1 (StdioDiscoverGate), taken
    // over; nullptr: made here.
    static StdioTransport *serve(mcp::McpServer *server, StdioDevices *devices = nullptr);

    mcp::Session *session() const { return m_session; }

signals:
    void finished(); // end of input: the app should exit

private:
    StdioTransport(mcp::McpServer *server, StdioDevices *devices);

    StdioDevices *m_devices; // child
    mcp::Session *m_session = nullptr;
};

} // namespace fb::transport
