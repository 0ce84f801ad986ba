#include "transport/stdio/StdioTransport.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"
#include "transport/stdio/StdioDevices.h"

using namespace Qt::StringLiterals;

namespace fb::transport {

StdioTransport::StdioTransport(mcp::McpServer *server, StdioDevices *devices)
    : QObject(server)
    , m_devices(devices ? devices : new StdioDevices(0, 1))
{
    m_devices->setParent(this);
}

StdioTransport *StdioTransport::serve(mcp::McpServer *server, StdioDevices *devices)
{
    auto *transport = new StdioTransport(server, devices);
    // The process's own pair: never refused for maxSessions.
    transport->m_session = server->serve(
        {u"stdio"_s, transport->m_devices->input(), transport->m_devices->output(), false});
    connect(transport->m_session, &mcp::Session::closed, transport, &StdioTransport::finished,
            Qt::QueuedConnection);
    return transport;
}

} // namespace fb::transport
