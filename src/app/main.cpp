// fabric-broker: command line and mode selection.
#include "app/AuditCommand.h"
#include "app/CommandLine.h"
#include "app/PolicyCommand.h"

#ifdef HAVE_FABRICBROKER_GUI
#include <QApplication>
#endif
#include <QCoreApplication>
#include <QLoggingCategory>
#include <cstring>
#include <memory>

namespace {

// The application object must exist before the command line is parsed, so this peeks at argv
// for the modes that never show a window.
bool mayShowWindows(int argc, char *argv[])
{
    if (argc > 1 && (std::strcmp(argv[1], "audit") == 0 || std::strcmp(argv[1], "policy") == 0))
        return false;
    for (int i = 1; i < argc; ++i) {
        for (const char *flag : {"--headless", "--sandbox-only", "--print-estate", "--help", "-h",
                                 "--help-all", "--version", "-v"}) {
            if (std::strcmp(argv[i], flag) == 0)
                return false;
        }
    }
    return fb::displayAvailable();
}

} // namespace

int main(int argc, char *argv[])
{
    // Our debug lines are for whoever turns them on (QT_LOGGING_RULES overrides this).
    QLoggingCategory::setFilterRules(QStringLiteral("fabricbroker.*.debug=false"));
    std::unique_ptr<QCoreApplication> app;
#ifdef HAVE_FABRICBROKER_GUI
    if (mayShowWindows(argc, argv)) {
        app = std::make_unique<QApplication>(argc, argv);
        // Lets Wayland compositors match our windows to the installed desktop entry.
        QGuiApplication::setDesktopFileName(QStringLiteral("io.github.fabric_broker.FabricBroker"));
    }
#else
    (void)mayShowWindows;
#endif
    if (!app)
        app = std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("fabric-broker"));
    QCoreApplication::setOrganizationName(QStringLiteral("fabric-broker"));
    QCoreApplication::setApplicationVersion(QStringLiteral(FB_VERSION));

    const QStringList args = QCoreApplication::arguments();
    if (args.size() > 1 && args.at(1) == QStringLiteral("audit"))
        return fb::runAuditCommand(args);
    if (args.size() > 1 && args.at(1) == QStringLiteral("policy"))
        return fb::runPolicyCommand(args);

    fb::CommandLine cli;
    const auto parsed = cli.parse(args);
    if (parsed.exitCode)
        return *parsed.exitCode;
    if (cli.isSet(QStringLiteral("sandbox-only")) || cli.isSet(QStringLiteral("print-estate")))
        return fb::runSandboxOnly(cli);
    if (cli.isSet(QStringLiteral("headless")))
        return fb::runHeadless(cli);
    return fb::runDesktop(cli);
}
