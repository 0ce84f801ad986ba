// The headless modes of fabric-broker: the MCP server (stdio and/or socket) and the sandbox.
#include "app/RunModes.h"
#include "app/CommandLine.h"
#include "app/ServerHost.h"
#include "sandbox/FabricSandbox.h"
#include "transport/socket/LocalSocketServer.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QProcessEnvironment>
#include <QSocketNotifier>
#include <QTextStream>
#include <QTimer>

#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcApp, "fabricbroker.app")

namespace fb {

// Self-pipe: the handler only writes a byte; the event loop does the quitting. Installed once;
// a later call only replaces the hook that runs instead of quitting at once.
void installQuitOnSignals(std::function<void()> onSignal)
{
    static std::function<void()> hook;
    static bool installed = false;
    static int fds[2] = {-1, -1};
    hook = std::move(onSignal);
    if (installed || ::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
        return;
    installed = true;
    struct sigaction sa = {};
    sa.sa_handler = [](int) {
        const char c = 1;
        [[maybe_unused]] auto n = ::write(fds[0], &c, 1);
    };
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    auto *notifier = new QSocketNotifier(fds[1], QSocketNotifier::Read, qApp);
    QObject::connect(notifier, &QSocketNotifier::activated, qApp, [] {
        char c;
        [[maybe_unused]] auto n = ::read(fds[1], &c, 1);
        static int received = 0;
        qCInfo(lcApp) << "signal received, quitting";
        if (hook && ++received == 1) {
            // E.g. creates in flight get their grace, open approvals end as denials; the hook
            // ends the event loop when that is done.
            hook();
        } else {
            // exit(), not quit(): a signal ends the process without asking windows first.
            QCoreApplication::exit(0);
        }
    });
}

int runSandboxOnly(CommandLine &cli)
{
    QTextStream out(stdout);
    if (cli.isSet(QStringLiteral("print-estate"))) {
        out << FabricSandbox::estateDescription();
        return 0;
    }
    bool ok = true;
    const QString portText = cli.value(QStringLiteral("port"));
    const uint port = portText.isEmpty() ? 0 : portText.toUInt(&ok);
    if (!ok || port > 65535) {
        QTextStream(stderr) << "--port must be a number between 0 and 65535\n";
        return 2;
    }
    installQuitOnSignals(); // before anything is published, so a signal always ends cleanly
    FabricSandbox sandbox;
    if (!sandbox.listen(static_cast<quint16>(port))) {
        QTextStream(stderr) << "could not listen on 127.0.0.1:" << port << "\n";
        return 1;
    }
    // First line of stdout is machine-readable: tests and scripts read the URL from it.
    out << "sandbox: " << sandbox.baseUrl().toString() << Qt::endl;
    out << "This is the Fabric Broker SANDBOX, not Equinix. Any non-empty client id and secret "
           "are accepted at /oauth2/v1/token. Seeded estate: fabric-broker --print-estate"
        << Qt::endl;
    return QCoreApplication::exec();
}

int runHeadless(CommandLine &cli)
{
    ServerHost::Options options;
    options.stdio = cli.isSet(QStringLiteral("stdio"));
    options.listen = cli.isSet(QStringLiteral("listen"));
    options.socket = cli.value(SettingId::Socket);
    options.forceSandbox = cli.isSet(SettingId::ForceSandbox);
    options.toolsets = cli.value(SettingId::Toolsets);
    options.http = cli.value(SettingId::HttpAddress);
    if (!options.stdio && !options.listen && options.http.isEmpty())
        options.listen = true; // the default headless server serves the per-user socket

    installQuitOnSignals(); // before the socket is published, so a signal always ends cleanly
    ServerHost host;
    const auto startHost = [&host, options](transport::StdioDevices *devices) {
        ServerHost::Options withDevices = options;
        withDevices.stdioDevices = devices;
        QString error;
        if (host.start(withDevices, &error) && host.applyApprovalMode(nullptr, &error)) {
            if (!host.httpUrl().isEmpty()) // one line tests and scripts parse; never the token
                QTextStream(stderr) << "fabric-broker: MCP over HTTP at " << host.httpUrl() << "\n";
            if (!host.httpWarning().isEmpty()) // a taken port is a warning, not a failed start
                QTextStream(stderr) << "fabric-broker: warning: " << host.httpWarning() << "\n";
            return true;
        }
        QTextStream(stderr) << "fabric-broker: " << error << "\n";
        return false;
    };
    if (!options.stdio) {
        if (!startHost(nullptr))
            return 1;
    } else {
        // A 2026-07-28 client's probe is answered before anything starts.
        ServerHost::answerDiscoverFirst(options, [startHost](transport::StdioDevices *devices) {
            if (!startHost(devices))
                QCoreApplication::exit(1);
        });
    }
    // A create in flight gets a short grace for its outcome before the process ends; the
    // answers made meanwhile get a moment to reach socket clients.
    const auto endGracefully = [&host] {
        host.shutdown(ServerHost::kShutdownGraceMs,
                      [] { QTimer::singleShot(200, qApp, [] { QCoreApplication::exit(0); }); });
    };
    installQuitOnSignals(endGracefully);
    QObject::connect(&host, &ServerHost::stdioFinished, qApp, [&] {
        // End of input: calls not yet sending were cancelled; exit once creates in flight have
        // their outcome, unless the socket or HTTP server keeps serving other sessions.
        if (!options.listen && options.http.isEmpty())
            host.shutdown(ServerHost::kShutdownGraceMs, [] { QCoreApplication::exit(0); });
    });
    const int rc = QCoreApplication::exec();
    installQuitOnSignals(); // the hook refers to this host
    return rc;
}

// Spawned by an MCP client while no app runs (and without a display to become one): still
// serve, but say where approvals go, to the person reading stderr and to the agent.
void noteSpawnedWithoutApp(ServerHost::Options *options, const QString &socketPath)
{
    QTextStream(stderr)
        << "fabric-broker: no Fabric Broker desktop app is running (nothing listens on "
        << socketPath
        << "); serving this session headless: approvals go through the MCP client, not a "
           "desktop dialog. Start the Fabric Broker app (Settings > Start at login keeps it "
           "running) to approve on the desktop.\n";
    options->instructionsNote = QStringLiteral(
        " NO DESKTOP APP: no Fabric Broker desktop app is running for this user, so approvals "
        "go through this MCP client (its elicitation prompt), not a desktop dialog; a client "
        "without elicitation cannot confirm changes. The user can start the Fabric Broker app "
        "to approve on the desktop.");
    options->readOnlyNote = QStringLiteral(
        " PROPOSALS ARE OFF: start Fabric Broker, or add --toolsets read,mutate. This spawned "
        "server serves only the read tools (no fabric_propose_change, no "
        "fabric_confirm_change). To propose creates, the user starts the Fabric Broker app, "
        "turns on proposals there (Turn on proposals, or Settings) and reconnects this client; "
        "or adds --toolsets read,mutate after --stdio in this client's server configuration "
        "(used while no app runs; a running app refuses it unless proposals are on there).");
}

} // namespace fb
