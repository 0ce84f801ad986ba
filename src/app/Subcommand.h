#pragma once
// Subcommand: what the subcommands (policy, team, client-config, http-headers) do alike with
// their command line before each does its own work.
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

class QCommandLineParser;

namespace fb {

// The words after "fabric-broker <name>": args holds the program first, or starts at <name>.
QStringList subcommandWords(const QStringList &args, QStringView name);

// No words (exit 2), or a first word asking for help ("--help", "-h", "help"; exit 0): prints
// usage to stdout and returns the exit code. Otherwise nullopt: go on.
std::optional<int> answerUsage(const QStringList &words, const QString &usage);

// A subcommand that takes options only: parses args (the program, <name>, the options) with
// <name> taken out. An error or a positional argument goes to stderr (exit 2); --help prints
// usageLine and then the options Qt lists (exit 0). Otherwise nullopt: the options are parsed.
std::optional<int> parseOptions(QCommandLineParser &parser, const QStringList &args,
                                const QString &name, const QString &usageLine);

} // namespace fb
