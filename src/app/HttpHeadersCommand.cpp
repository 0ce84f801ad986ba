#include "app/HttpHeadersCommand.h"

#include "app/Subcommand.h"
#include "transport/http/HttpToken.h"

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace fb {

int runHttpHeadersCommand(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Prints the Authorization header of the loopback MCP over HTTP endpoint as JSON, for\n"
        "Claude Code's headersHelper (or, with --token, the bearer token alone). The token is\n"
        "read from the file the running broker writes; it changes at every start."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("token"), QStringLiteral("Print only the token.")},
        {QStringLiteral("token-file"),
         QStringLiteral("The token file (default: %1).").arg(transport::HttpToken::defaultPath()),
         QStringLiteral("path")},
    });
    if (const std::optional<int> exit =
            parseOptions(parser, args, QStringLiteral("http-headers"),
                         QStringLiteral("Usage: fabric-broker http-headers [--token] "
                                        "[--token-file PATH]")))
        return *exit;
    const QString path = parser.isSet(QStringLiteral("token-file"))
                             ? parser.value(QStringLiteral("token-file"))
                             : transport::HttpToken::defaultPath();
    QString error;
    const QByteArray token = transport::HttpToken::read(path, &error);
    if (token.isEmpty()) {
        QTextStream(stderr) << "fabric-broker http-headers: " << error << "\n";
        return 1;
    }
    QTextStream out(stdout);
    if (parser.isSet(QStringLiteral("token"))) {
        out << QString::fromLatin1(token) << "\n" << Qt::flush;
        return 0;
    }
    const QJsonObject headers{{QStringLiteral("Authorization"),
                               QString(QStringLiteral("Bearer ") + QString::fromLatin1(token))}};
    out << QString::fromUtf8(QJsonDocument(headers).toJson(QJsonDocument::Compact)) << "\n"
        << Qt::flush;
    return 0;
}

} // namespace fb
