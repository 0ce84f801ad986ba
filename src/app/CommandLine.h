#pragma once
// Command line of fabric-broker: options, their environment fallbacks, and mode selection.
#include "core/Settings.h"

#include <QCommandLineParser>
#include <QStringList>
#include <functional>
#include <optional>

namespace fb {

class CommandLine {
public:
    CommandLine();
    struct Parsed {
        std::optional<int> exitCode; // set when the process should exit now (help, version, error)
    };
    Parsed parse(const QStringList &arguments);
    QCommandLineParser &parser() { return m_parser; }
    bool isSet(const QString &name) const { return m_parser.isSet(name); }
    QString value(const QString &name) const { return m_parser.value(name); }
    // The flags of the settings table (core/Settings.h).
    bool isSet(SettingId id) const;
    QString value(SettingId id) const;

private:
    QCommandLineParser m_parser;
};

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

} // namespace fb
