// fabric-broker: command line and mode selection.
#include "app/AuditCommand.h"
#include "app/CommandLine.h"

#include <QCoreApplication>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("fabric-broker"));
    QCoreApplication::setOrganizationName(QStringLiteral("fabric-broker"));
    QCoreApplication::setApplicationVersion(QStringLiteral(FB_VERSION));

    const QStringList args = QCoreApplication::arguments();
    if (args.size() > 1 && args.at(1) == QStringLiteral("audit"))
        return fb::runAuditCommand(args);

    fb::CommandLine cli;
    const auto parsed = cli.parse(QCoreApplication::arguments());
    if (parsed.exitCode)
        return *parsed.exitCode;
    if (cli.isSet(QStringLiteral("sandbox-only")) || cli.isSet(QStringLiteral("print-estate")))
        return fb::runSandboxOnly(cli);
    return fb::runHeadless(cli);
}
