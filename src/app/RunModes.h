#pragma once
// The ways the executable runs: headless, sandbox only, desktop (RunModes.cpp and
// RunModesDesktop.cpp); main() picks one from the command line.

#include "app/ServerHost.h"

#include <QString>

#include <functional>
#include <optional>

namespace fb {

class CommandLine;

int runHeadless(CommandLine &cli);
int runSandboxOnly(CommandLine &cli);
int runDesktop(CommandLine &cli);
// SIGINT/SIGTERM end the event loop cleanly, so in-flight calls get answered. With an onSignal
// hook, the hook runs instead and ends the loop itself (ServerHost::shutdown); a second signal
// exits at once.
void installQuitOnSignals(std::function<void()> onSignal = {});
// A display the GUI can use ($DISPLAY, $WAYLAND_DISPLAY or an explicit QT_QPA_PLATFORM), in a
// build that has the GUI.
bool displayAvailable();
// --stdio with no app running and no display: stderr, the server instructions and the read-only
// note say that approvals go through the MCP client, and how to start the app.
void noteSpawnedWithoutApp(ServerHost::Options *options, const QString &socketPath);

} // namespace fb
