#pragma once
// serveFastRelay: what the app does with a launcher's fd-passing relay (FastRelayWire.h) on its
// per-user socket. The relay's own command line (read from /proc, parsed as the app parses its
// own) must be a plain --stdio for this socket, else the relay is told to run the app binary
// itself; its --toolsets, --sandbox and environment make the RelayRequest that decide() turns
// into the session's policy, exactly as for any relayed session (RelayHello.h). The session
// reads the client's stdin and writes its stdout directly; the relay's stderr gets one line
// (served with which toolsets and channel, or the refusal with its fix first) and its exit
// status when the session ends (fastrelay::kRefusedExitCode once a refused session answered).
#include "broker/RelayHello.h"

#include <functional>

namespace fb {
namespace mcp {
class McpServer;
} // namespace mcp
namespace transport {
class FastRelayConnection;
} // namespace transport

using RelayDecider = std::function<mcp::SessionPolicy(const RelayRequest &)>;

void serveFastRelay(transport::FastRelayConnection *relay, mcp::McpServer *server,
                    const QString &socketPath, const RelayDecider &decide);

} // namespace fb
