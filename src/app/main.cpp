// fabric-broker: command line and mode selection.
#include "app/CommandLine.h"

#include <QCoreApplication>
#include <QLoggingCategory>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("fabric-broker"));
    QCoreApplication::setOrganizationName(QStringLiteral("fabric-broker"));
    QCoreApplication::setApplicationVersion(QStringLiteral(FB_VERSION));

    fb::CommandLine cli;
    const auto parsed = cli.parse(QCoreApplication::arguments());
    if (parsed.exitCode)
        return *parsed.exitCode;
    return fb::runHeadless(cli);
}
