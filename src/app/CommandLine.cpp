#include "app/CommandLine.h"

#include "core/Settings.h"

#include <QCoreApplication>
#include <QTextStream>
#include <cstdio>

namespace fb {

CommandLine::CommandLine()
{
    m_parser.setApplicationDescription(
        QStringLiteral(
            "Fabric Broker: an MCP server for Equinix Fabric. Agents read the Fabric estate "
            "through\n"
            "read-only tools and may propose creates; nothing is created unless Equinix's dry run\n"
            "validated the exact request and a person approved it.\n"
            "\n"
            "Modes:\n"
            "  fabric-broker                        the desktop app: approval dialogs, proposals,\n"
            "                                       tray; serves the per-user MCP socket\n"
            "  fabric-broker --stdio                what MCP clients spawn: relays to the running\n"
            "                                       app (its own flags and env may only narrow\n"
            "                                       what the app does), or becomes the instance\n"
            "  fabric-broker --headless --stdio     one MCP session on stdin/stdout, never any UI\n"
            "  fabric-broker --headless --listen    MCP sessions on the per-user local socket\n"
            "  fabric-broker --headless --http ADDR MCP over Streamable HTTP on loopback\n"
            "  fabric-broker --sandbox-only         serve only the embedded Fabric sandbox\n"
            "  fabric-broker audit verify|head|export\n"
            "                                       check, print the head of, or export the audit\n"
            "                                       trail\n"
            "  fabric-broker client-config          how to connect each MCP client (--json;\n"
            "                                       --http URL: the HTTP snippets too)\n"
            "  fabric-broker http-headers           the Authorization header of the HTTP\n"
            "                                       endpoint as JSON, for Claude Code's\n"
            "                                       headersHelper (--token: the token alone)\n"
            "  fabric-broker policy show|check FILE  the effective operator policy, or validate a\n"
            "                                       policy file (docs/policy.md)\n"
            "  fabric-broker policy reset-ledger --reason TEXT\n"
            "                                       start the daily spend count over (audited)\n"
            "  fabric-broker team init|status URI   create or migrate the team database's schema\n"
            "                                       (docs/team.md: team.database sends every\n"
            "                                       proposal through it)\n"
            "  fabric-broker team key|verify        this operator's approval key; check the\n"
            "                                       team's signed history\n"
            "\n"
            "Without credentials the embedded sandbox is used.\n"
            "\n"
            "Settings (a flag overrides its variable, which overrides the desktop app's saved\n"
            "setting; an operator policy can only tighten them: docs/policy.md):\n") +
        Settings::environmentHelp());
    m_parser.addHelpOption();
    m_parser.addVersionOption();
    m_parser.addOptions({
        {QStringLiteral("headless"),
         QStringLiteral("Run the MCP server without any GUI; never relays to a running app.")},
        {QStringLiteral("stdio"),
         QStringLiteral("Serve one MCP session on stdin/stdout (stdout carries MCP frames only; "
                        "logs go to stderr). Exits at end of input.")},
        {QStringLiteral("listen"),
         QStringLiteral("Serve MCP sessions on the per-user local socket.")},
    });
    // The settings that have a flag: name, value and description come from the table.
    for (const SettingSpec &spec : Settings::table()) {
        if (spec.flag.isEmpty())
            continue;
        QCommandLineOption option(QString(spec.flag), QString(spec.flagHelp));
        if (!spec.flagValue.isEmpty())
            option.setValueName(QString(spec.flagValue));
        m_parser.addOption(option);
    }
    m_parser.addOptions({
        {QStringLiteral("sandbox-only"),
         QStringLiteral("Serve only the embedded Fabric sandbox on 127.0.0.1 (for trying other "
                        "tools against it); accepts any non-empty client id and secret.")},
        {QStringLiteral("port"),
         QStringLiteral("Port for --sandbox-only (default: a random free port, printed)."),
         QStringLiteral("port")},
        {QStringLiteral("print-estate"),
         QStringLiteral("With --sandbox-only: print the seeded sandbox estate and exit.")},
    });
}

bool CommandLine::isSet(SettingId id) const
{
    return m_parser.isSet(QString(Settings::spec(id).flag));
}

QString CommandLine::value(SettingId id) const
{
    return m_parser.value(QString(Settings::spec(id).flag));
}

namespace {

// --http takes an optional value: alone (last, or before another option) it means the default.
QStringList withHttpDefault(QStringList args)
{
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args.at(i) == QStringLiteral("--http") &&
            (i + 1 == args.size() || args.at(i + 1).startsWith(u'-')))
            args[i] = QStringLiteral("--http=127.0.0.1:7431");
    }
    return args;
}

} // namespace

bool CommandLine::parseQuietly(const QStringList &arguments)
{
    return m_parser.parse(withHttpDefault(arguments)) && m_parser.positionalArguments().isEmpty() &&
           !m_parser.isSet(QStringLiteral("help")) && !m_parser.isSet(QStringLiteral("help-all")) &&
           !m_parser.isSet(QStringLiteral("version"));
}

CommandLine::Parsed CommandLine::parse(const QStringList &arguments)
{
    const QStringList args = withHttpDefault(arguments);
    if (!m_parser.parse(args)) {
        QTextStream(stderr) << m_parser.errorText() << "\n"
                            << "Try 'fabric-broker --help'.\n";
        return {2};
    }
    if (!m_parser.positionalArguments().isEmpty()) {
        QTextStream(stderr) << "Unexpected argument: " << m_parser.positionalArguments().first()
                            << "\nTry 'fabric-broker --help'.\n";
        return {2};
    }
    // addHelpOption() also adds --help-all, which isSet("help") does not see: without it,
    // `fabric-broker --help-all` started the app.
    if (m_parser.isSet(QStringLiteral("help")) || m_parser.isSet(QStringLiteral("help-all"))) {
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

} // namespace fb
