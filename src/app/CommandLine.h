#pragma once
// Command line of fabric-broker: options, their environment fallbacks, and mode selection.
#include "core/Settings.h"

#include <QCommandLineParser>
#include <QStringList>
#include <optional>

namespace fb {

class CommandLine {
public:
    CommandLine();
    struct Parsed {
        std::optional<int> exitCode; // set when the process should exit now (help, version, error)
    };
    Parsed parse(const QStringList &arguments);
    // The same rules without a word on stdout or stderr: false on any error, positional
    // argument, --help or --version (a relay's command line, parsed by the running app).
    bool parseQuietly(const QStringList &arguments);
    QCommandLineParser &parser() { return m_parser; }
    bool isSet(const QString &name) const { return m_parser.isSet(name); }
    QString value(const QString &name) const { return m_parser.value(name); }
    // The flags of the settings table (core/Settings.h).
    bool isSet(SettingId id) const;
    QString value(SettingId id) const;

private:
    QCommandLineParser m_parser;
};

} // namespace fb
