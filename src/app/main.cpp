// fabric-broker: command line and mode selection.
#include "app/AuditCommand.h"
#include "app/ClientConfigCommand.h"
#include "app/CommandLine.h"
#include "app/HttpHeadersCommand.h"
#include "app/PolicyCommand.h"
#include "app/RunModes.h"
#include "app/TeamCommand.h"
#include "core/WindowModes.h"

#ifdef HAVE_FABRICBROKER_GUI
#include <QApplication>
#endif
#include <QCoreApplication>
#include <QLoggingCategory>
#include <cstdio>
#include <cstring>
#include <memory>

#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#endif
#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__)
#define FB_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FB_UNDER_ASAN 1
#endif
#endif

namespace {

// This process may hold Fabric credentials and access tokens: no core file (RLIMIT_CORE 0,
// hard limit too) and not dumpable (PR_SET_DUMPABLE 0: no core, no ptrace attach by other
// processes of the same user, /proc/<pid>/mem, environ and maps readable by root only).
void keepSecretsOutOfDumps()
{
    const struct rlimit none = {0, 0};
    if (::setrlimit(RLIMIT_CORE, &none) != 0)
        std::perror("fabric-broker: setrlimit(RLIMIT_CORE, 0)");
#ifdef Q_OS_LINUX
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        std::perror("fabric-broker: prctl(PR_SET_DUMPABLE, 0)");
#endif
}

// LeakSanitizer checks at exit through a ptrace-attached helper, which a non-dumpable process
// refuses; sanitizer builds make the process dumpable again only once main() is done.
int leaving(int rc)
{
#if defined(FB_UNDER_ASAN) && defined(Q_OS_LINUX)
    ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
#endif
    return rc;
}

// The headless server and the sandbox use Qt's own event dispatcher instead of GLib's: GLib's
// wakes the loop with an eventfd write for every event posted (each deleteLater, each queued
// call), Qt's once per loop iteration; that was several write(2) + read(2) pairs per tool call.
// Neither needs a GLib main loop. The other modes keep GLib's: the keychain (the `team key`
// command, the desktop app) may go through libsecret, whose callbacks run on a GLib main loop.
// QT_NO_GLIB is Qt's switch, read when the application object is created; a value already set
// is kept.
bool headlessServer(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--headless") == 0 || std::strcmp(argv[i], "--sandbox-only") == 0)
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    keepSecretsOutOfDumps(); // before any credential is read
    // Our debug lines are for whoever turns them on (QT_LOGGING_RULES overrides this).
    QLoggingCategory::setFilterRules(QStringLiteral("fabricbroker.*.debug=false"));
    std::unique_ptr<QCoreApplication> app;
#ifdef HAVE_FABRICBROKER_GUI
    // The application object must exist before the command line is parsed: the modes that never
    // show a window are read from argv (the launcher runs fabric-broker-server for those).
    if (fb::windowmodes::mayShowWindows(argc, argv)) {
        app = std::make_unique<QApplication>(argc, argv);
        // Lets Wayland compositors match our windows to the installed desktop entry.
        QGuiApplication::setDesktopFileName(QStringLiteral("io.github.fabric_broker.FabricBroker"));
    }
#endif
    if (!app) {
        if (headlessServer(argc, argv) && qEnvironmentVariableIsEmpty("QT_NO_GLIB"))
            qputenv("QT_NO_GLIB", "1");
        app = std::make_unique<QCoreApplication>(argc, argv);
    }
    QCoreApplication::setApplicationName(QStringLiteral("fabric-broker"));
    QCoreApplication::setOrganizationName(QStringLiteral("fabric-broker"));
    QCoreApplication::setApplicationVersion(QStringLiteral(FB_VERSION));

    const QStringList args = QCoreApplication::arguments();
    if (args.size() > 1 && args.at(1) == QStringLiteral("audit"))
        return leaving(fb::runAuditCommand(args));
    if (args.size() > 1 && args.at(1) == QStringLiteral("client-config"))
        return leaving(fb::runClientConfigCommand(args));
    if (args.size() > 1 && args.at(1) == QStringLiteral("http-headers"))
        return leaving(fb::runHttpHeadersCommand(args));
    if (args.size() > 1 && args.at(1) == QStringLiteral("policy"))
        return leaving(fb::runPolicyCommand(args));
    if (args.size() > 1 && args.at(1) == QStringLiteral("team"))
        return leaving(fb::runTeamCommand(args));

    fb::CommandLine cli;
    const auto parsed = cli.parse(args);
    if (parsed.exitCode)
        return leaving(*parsed.exitCode);
    if (cli.isSet(QStringLiteral("sandbox-only")) || cli.isSet(QStringLiteral("print-estate")))
        return leaving(fb::runSandboxOnly(cli));
    if (cli.isSet(QStringLiteral("headless")))
        return leaving(fb::runHeadless(cli));
    return leaving(fb::runDesktop(cli));
}
