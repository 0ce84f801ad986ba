#include "app/CommandLine.h"

#include <QCoreApplication>
#include <QTextStream>
#include <cstdio>

namespace fb {

CommandLine::CommandLine()
{
    m_parser.setApplicationDescription(QStringLiteral(
        "Fabric Broker: an MCP server for Equinix Fabric. Agents read the Fabric estate through\n"
        "read-only tools and may propose creates; nothing is created unless Equinix's dry run\n"
        "validated the exact request and a person approved it."));
    m_parser.addHelpOption();
    m_parser.addVersionOption();
    m_parser.addOptions({
        {QStringLiteral("headless"), QStringLiteral("Run the MCP server without any GUI.")},
    });
}

CommandLine::Parsed CommandLine::parse(const QStringList &arguments)
{
    if (!m_parser.parse(arguments)) {
        QTextStream(stderr) << m_parser.errorText() << "\n"
                            << "Try 'fabric-broker --help'.\n";
        return {2};
    }
    if (m_parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << m_parser.helpText();
        return {0};
    }
    if (m_parser.isSet(QStringLiteral("version"))) {
        QTextStream(stdout) << QCoreApplication::applicationName() << ' '
                            << QCoreApplication::applicationVersion() << '\n';
        return {0};
    }
    return {};
}

int runHeadless(CommandLine &)
{
    QTextStream(stderr) << "fabric-broker: the MCP server is not built into this version yet.\n";
    return 1;
}

} // namespace fb
