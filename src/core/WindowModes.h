#pragma once
// WindowModes: which command lines may show a window, without Qt. One home for the rule, used
// by fabric-broker-app's main() (QApplication or QCoreApplication) and by the launcher
// (src/launcher), which runs the GUI-free server binary, fabric-broker-server, for every command
// line that never shows a window: the headless server, the sandbox, the subcommands, help and
// version, and a --stdio with no display. Those then load no Qt Gui/Widgets, X11, fonts or GL.

namespace fb::windowmodes {

// A subcommand (audit, client-config, http-headers, policy, team) in argv[1], or a flag of a
// mode that never opens a window (--headless, --sandbox-only, --print-estate, --help, -h,
// --help-all, --version, -v) anywhere on the command line.
bool windowlessCommandLine(int argc, const char *const argv[]);

// A display the GUI could use, from the environment alone: DISPLAY or WAYLAND_DISPLAY set, or
// QT_QPA_PLATFORM non-empty; offscreen and minimal render nowhere (nobody could answer a dialog).
bool displayInEnvironment();

// What the app's main() creates a QApplication for (in a build with the GUI).
inline bool mayShowWindows(int argc, const char *const argv[])
{
    return !windowlessCommandLine(argc, argv) && displayInEnvironment();
}

} // namespace fb::windowmodes
