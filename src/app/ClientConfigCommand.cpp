#include "app/ClientConfigCommand.h"

#include "mcp/ClientSnippets.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>

namespace fb {

int runClientConfigCommand(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Prints how to connect each MCP client (Claude Code, Claude Desktop, VS Code, Cursor,\n"
        "Codex, Gemini CLI) to this broker: every snippet runs '<executable> --stdio'."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("json"), QStringLiteral("Print the snippets as one JSON object.")},
        {QStringLiteral("executable"),
         QStringLiteral("The fabric-broker path the snippets start (default: this one)."),
         QStringLiteral("path")},
    });
    QStringList rest = args;
    if (rest.size() > 1)
        rest.removeAt(1); // "client-config"
    if (!parser.parse(rest) || !parser.positionalArguments().isEmpty()) {
        QTextStream(stderr) << (parser.errorText().isEmpty() ? QStringLiteral("Unexpected argument")
                                                             : parser.errorText())
                            << "\nTry 'fabric-broker client-config --help'.\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt's first line names argv[0] as typed; say what to type instead.
        const QString help = parser.helpText();
        QTextStream(stdout) << "Usage: fabric-broker client-config [--json] [--executable PATH]"
                            << help.mid(help.indexOf(u'\n'));
        return 0;
    }
    const QString exe = parser.isSet(QStringLiteral("executable"))
                            ? parser.value(QStringLiteral("executable"))
                            : QCoreApplication::applicationFilePath();
    QTextStream out(stdout);
    if (parser.isSet(QStringLiteral("json"))) {
        out << QString::fromUtf8(
                   QJsonDocument(mcp::ClientSnippets::toJson(exe)).toJson(QJsonDocument::Indented))
            << Qt::flush;
        return 0;
    }
    out << "# " << mcp::ClientSnippets::proposalsNote() << "\n\n";
    for (const mcp::ClientSnippet &s : mcp::ClientSnippets::all(exe)) {
        QString how;
        switch (s.kind) {
        case mcp::ClientSnippet::Kind::Command:
            how = QStringLiteral("run in a terminal");
            break;
        case mcp::ClientSnippet::Kind::File:
            how = QStringLiteral("add to ") + s.where;
            break;
        case mcp::ClientSnippet::Kind::Link:
            how = QStringLiteral("open this link");
            break;
        }
        out << "# " << s.client << " (" << how << ")\n" << s.text << "\n\n";
    }
    return 0;
}

} // namespace fb
