// The desktop modes of fabric-broker: the desktop app (no mode flag) and `--stdio` without
// `--headless` (relay to the running app, or become the instance).
#include "app/CommandLine.h"
#include "app/ServerHost.h"
#include "app/SingleInstance.h"
#include "app/StdioRelay.h"
#include "broker/MutationBroker.h"
#include "mcp/LocalSocketServer.h"

#ifdef HAVE_FABRICBROKER_GUI
#include "gui/DesktopApprover.h"
#include "gui/DesktopUi.h"
#include "gui/GuiResources.h"
#include <QApplication>
#endif

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QTextStream>
#include <QTimer>
#include <memory>

Q_LOGGING_CATEGORY(lcDesktop, "fabricbroker.app.desktop")

namespace fb {

bool displayAvailable()
{
#ifdef HAVE_FABRICBROKER_GUI
    // offscreen/minimal render nowhere: nobody could answer an approval dialog there.
    const QString platform = qEnvironmentVariable("QT_QPA_PLATFORM");
    if (platform.startsWith(u"offscreen") || platform.startsWith(u"minimal"))
        return false;
    return qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY") ||
           !platform.isEmpty();
#else
    return false;
#endif
}

int runDesktop(CommandLine &cli)
{
    const bool stdio = cli.isSet(QStringLiteral("stdio"));
    const QString socketPath =
        mcp::LocalSocketServer::resolveSocketPath(cli.value(QStringLiteral("socket")));

    if (stdio) {
        // An MCP client spawned us. If the app already runs, relay to it byte for byte.
        auto *relay = new StdioRelay(qApp);
        if (relay->connectTo(socketPath)) {
            QObject::connect(relay, &StdioRelay::finished, qApp, &QCoreApplication::exit);
            relay->start();
            return QCoreApplication::exec();
        }
        delete relay;
    } else if (SingleInstance::askRunningInstanceToRaise()) {
        QTextStream(stdout) << "Fabric Broker is already running; its window was raised.\n";
        return 0;
    }

#ifdef HAVE_FABRICBROKER_GUI
    const bool gui = displayAvailable() && qobject_cast<QApplication *>(qApp);
#else
    const bool gui = false;
#endif
    if (!gui && !stdio) {
        QTextStream(stderr) << "fabric-broker: no display available; serving headless on the "
                               "per-user socket (use --headless to say so explicitly).\n";
    }

    installQuitOnSignals(); // before the socket is published, so a signal always ends cleanly
    ServerHost host;
    ServerHost::Options options;
    options.stdio = stdio;
    options.listen = true;
    options.socket = cli.value(QStringLiteral("socket"));
    options.forceSandbox = cli.isSet(QStringLiteral("sandbox"));
    options.toolsets = cli.value(QStringLiteral("toolsets"));
    QString error;
    if (!host.start(options, &error)) {
        QTextStream(stderr) << "fabric-broker: " << error << "\n";
        return 1;
    }
#ifdef HAVE_FABRICBROKER_GUI
    std::unique_ptr<DesktopUi> ui;
    SingleInstance instance;
    if (gui) {
        initGuiResources();
        DesktopContext context;
        context.store = host.store();
        context.broker = host.broker();
        context.server = host.server();
        context.fabric = host.fabric();
        context.settings = host.settings();
        context.sandbox = host.isSandbox();
        context.socketPath = host.socketPath();
        context.executablePath = QCoreApplication::applicationFilePath();
        ui = std::make_unique<DesktopUi>(context);
        if (!instance.listen(&error))
            qCWarning(lcDesktop).noquote() << error;
        QObject::connect(&instance, &SingleInstance::raiseRequested, ui.get(),
                         &DesktopUi::raiseMainWindow);
        QObject::connect(ui.get(), &DesktopUi::quitRequested, qApp, [] {
            // Let the denials of open approvals reach their clients first.
            QTimer::singleShot(200, qApp, [] { QCoreApplication::exit(0); });
        });
        ui->showMainWindow();
    }
    installQuitOnSignals([&ui] {
        if (ui)
            ui->desktopApprover()->denyAllPending(QStringLiteral("the app was told to quit"));
    });
    Approver *desktopApprover = ui ? ui->approver() : nullptr;
#else
    Approver *desktopApprover = nullptr;
#endif
    if (!host.applyApprovalMode(desktopApprover, &error)) {
        QTextStream(stderr) << "fabric-broker: " << error << "\n";
        return 1;
    }
    if (stdio) {
        QObject::connect(&host, &ServerHost::stdioFinished, qApp, [] { QCoreApplication::exit(0); });
    }
    const int rc = QCoreApplication::exec();
#ifdef HAVE_FABRICBROKER_GUI
    if (ui)
        ui->desktopApprover()->denyAllPending();
#endif
    return rc;
}

} // namespace fb
