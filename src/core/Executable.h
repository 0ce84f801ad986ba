#pragma once
// The executable users and MCP clients run. On Linux that is the launcher (src/launcher,
// `fabric-broker`), which runs this Qt binary (fabric-broker-app, or fabric-broker-server for
// what never shows a window; both in libexec) in its own process; snippets, the autostart entry
// and the unit must name the launcher, never the app binary, or every MCP client would pay the
// app's start-up and never relay.
#include <QString>

namespace fb {

// The launcher next to this binary (the build tree, the MCPB bundle), else the installation's
// bindir one (relative to libexec/fabric-broker), else this binary itself (no launcher: other
// systems, or a binary run from elsewhere).
QString launcherPath();

} // namespace fb
