#include "app/Subcommand.h"

#include "app/ConsoleOutput.h"

#include <QCommandLineParser>
#include <QTextStream>

namespace fb {

QStringList subcommandWords(const QStringList &args, QStringView name)
{
    QStringList words = args;
    if (!words.isEmpty() && words.first() != name)
        words.removeFirst();
    if (!words.isEmpty())
        words.removeFirst(); // name
    return words;
}

std::optional<int> answerUsage(const QStringList &words, const QString &usage)
{
    if (words.isEmpty() || words.first() == u"--help" || words.first() == u"-h" ||
        words.first() == u"help") {
        console::out(usage);
        return words.isEmpty() ? 2 : 0;
    }
    return std::nullopt;
}

std::optional<int> parseOptions(QCommandLineParser &parser, const QStringList &args,
                                const QString &name, const QString &usageLine)
{
    QStringList rest = args;
    if (rest.size() > 1)
        rest.removeAt(1); // name
    if (!parser.parse(rest) || !parser.positionalArguments().isEmpty()) {
        QTextStream(stderr) << (parser.errorText().isEmpty() ? QStringLiteral("Unexpected argument")
                                                             : parser.errorText())
                            << "\nTry 'fabric-broker " << name << " --help'.\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt's first line names argv[0] as typed; say what to type instead.
        const QString help = parser.helpText();
        QTextStream(stdout) << usageLine << help.mid(help.indexOf(u'\n'));
        return 0;
    }
    return std::nullopt;
}

} // namespace fb
