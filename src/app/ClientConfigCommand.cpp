#include "app/ClientConfigCommand.h"

#include "app/Subcommand.h"
#include "core/Executable.h"
#include "mcp/ClientSnippets.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <QUrl>

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
        {QStringLiteral("http"),
         QStringLiteral("Also print the snippets for MCP over HTTP at this URL (e.g.\n"
                        "http://127.0.0.1:7431/mcp); none holds the token."),
         QStringLiteral("url")},
    });
    if (const std::optional<int> exit = parseOptions(
            parser, args, QStringLiteral("client-config"),
            QStringLiteral(
                "Usage: fabric-broker client-config [--json] [--executable PATH] [--http URL]")))
        return *exit;
    const QString exe = parser.isSet(QStringLiteral("executable"))
                            ? parser.value(QStringLiteral("executable"))
                            : launcherPath();
    const QString httpUrl = parser.value(QStringLiteral("http"));
    if (parser.isSet(QStringLiteral("http"))) {
        const QUrl url(httpUrl, QUrl::StrictMode);
        if (!url.isValid() || url.scheme() != QStringLiteral("http") || url.host().isEmpty()) {
            QTextStream(stderr) << "--http needs an http:// URL, e.g. http://127.0.0.1:7431/mcp\n"
                                << "Try 'fabric-broker client-config --help'.\n";
            return 2;
        }
    }
    QTextStream out(stdout);
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonObject doc = mcp::ClientSnippets::toJson(exe);
        if (!httpUrl.isEmpty())
            doc.insert(QStringLiteral("http"), mcp::ClientSnippets::httpJson(httpUrl, exe));
        out << QString::fromUtf8(QJsonDocument(doc).toJson(QJsonDocument::Indented)) << Qt::flush;
        return 0;
    }
    out << "# " << mcp::ClientSnippets::proposalsNote() << "\n# "
        << mcp::ClientSnippets::toolsetsNote() << "\n\n";
    QList<mcp::ClientSnippet> snippets = mcp::ClientSnippets::all(exe);
    if (!httpUrl.isEmpty())
        snippets += mcp::ClientSnippets::http(httpUrl, exe);
    for (const mcp::ClientSnippet &s : std::as_const(snippets)) {
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
        out << "# " << s.client << " (" << how << ")\n";
        if (!s.note.isEmpty())
            out << "# " << s.note << "\n";
        out << s.text << "\n\n";
    }
    if (!httpUrl.isEmpty())
        out << "# " << mcp::ClientSnippets::httpNote() << "\n";
    return 0;
}

} // namespace fb
