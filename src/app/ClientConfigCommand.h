#pragma once
// "fabric-broker client-config": prints what each MCP client needs to start this broker
// (mcp::ClientSnippets, the same text as the desktop app's "Connect a client" dialog).
//
//   fabric-broker client-config [--json] [--executable PATH] [--http URL]
//
// PATH defaults to this executable. Exit codes: 0 = printed, 2 = usage error.
#include <QStringList>

namespace fb {

// args: the full command line ({program, "client-config", ...}).
int runClientConfigCommand(const QStringList &args);

} // namespace fb
