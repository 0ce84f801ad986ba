// The desktop modes of fabric-broker: the desktop app (no mode flag) and `--stdio` without
// `--headless` (relay to the running app, or become the instance).
#include "app/CommandLine.h"
#include "app/RunModes.h"
#include "app/ServerHost.h"
#include "app/SingleInstance.h"
#include "broker/MutationBroker.h"
#include "broker/PolicyApply.h"
#include "broker/RelayHello.h"
#include "core/Executable.h"
#include "core/ProposalStore.h"
#include "core/UntrustedText.h"
#include "core/WindowModes.h"
#include "transport/socket/LocalSocketServer.h"

#ifdef HAVE_FABRICBROKER_GUI
#include "gui/DesktopApprover.h"
#include "gui/DesktopPreferences.h"
#include "gui/DesktopUi.h"
#include "gui/GuiResources.h"
#include "gui/MainWindow.h"
#include "keychain/CredentialStore.h"
#include <QApplication>
#include <QSettings>
#endif

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QTextStream>
#include <QTimer>
#include <functional>
#include <memory>

Q_LOGGING_CATEGORY(lcDesktop, "fabricbroker.app.desktop")

#ifdef HAVE_FABRICBROKER_GUI
// The quit question states the grace that quitting gives creates in flight.
static_assert(fb::ServerHost::kDesktopQuitGraceMs == fb::DesktopUi::kQuitGraceSeconds * 1000);
#endif

namespace fb {

bool displayAvailable()
{
#ifdef HAVE_FABRICBROKER_GUI
    return windowmodes::displayInEnvironment();
#else
    return false;
#endif
}

namespace {

// qApp is static_cast<QApplication *> in this file: without a display the instance is a
// QCoreApplication, so paths that run headless use QCoreApplication::instance() (UBSan: vptr).

// Everything one desktop instance owns, started from the event loop so that reading saved
// credentials from the keychain (asynchronous) never needs a nested event loop.
class DesktopInstance : public QObject {
public:
    DesktopInstance(ServerHost::Options options, bool gui)
        : QObject(QCoreApplication::instance())
        , m_initial(options)
        , m_options(std::move(options))
        , m_gui(gui)
    {
    }

    ~DesktopInstance() override
    {
        installQuitOnSignals(); // the hook refers to this instance
        // The desktop approver goes with the UI, before the broker that points at it.
        if (m_host && m_host->liveSettings())
            m_host->liveSettings()->setDesktopApprover(nullptr);
    }

    // Reads the desktop's saved settings and, when they say so, the credentials saved in the
    // keychain (asynchronous), then calls then(): before anything answers a client, so that a
    // first server/discover already says the endpoint the app will use (issue #40: it said
    // SANDBOX from the environment alone while the app then used the keychain's Equinix account).
    void readSavedSettings(std::function<void()> then)
    {
        readSavedSettingsInto(&m_options, std::move(then));
    }

    const ServerHost::Options &options() const { return m_options; }

    // Starts serving, once readSavedSettings is done.
    void start(transport::StdioDevices *stdioDevices = nullptr)
    {
        m_options.stdioDevices = stdioDevices;
        readTeamPassword();
    }

private:
    void readSavedSettingsInto(ServerHost::Options *options, std::function<void()> then)
    {
#ifdef HAVE_FABRICBROKER_GUI
        if (m_gui) {
            const DesktopPreferences prefs = DesktopPreferences::load(QSettings());
            options->savedToolsets = prefs.toolsets;
            options->savedApprovalMode = prefs.approvalMode;
            options->savedOtlpEndpoint = prefs.otlpEndpoint;
            options->savedAuditSyslog = prefs.auditSyslog;
            options->savedTeamDatabase = QSettings().contains(QStringLiteral("team/database"));
            if (options->http.isEmpty())
                options->http = prefs.httpAddress; // --http wins over the saved setting
            const bool envCredentials = FabricConfig::fromEnvironment().hasCredentials();
            if (!options->forceSandbox && !envCredentials && prefs.credentialsInKeychain) {
                auto *store = new keychain::CredentialStore(
                    QString::fromLatin1(keychain::CredentialStore::DefaultService), this);
                store->read([options, prefs, store, then = std::move(then)](
                                bool ok, const keychain::FabricCredentials &c, const QString &e) {
                    store->deleteLater();
                    if (!ok) {
                        qCWarning(lcDesktop).noquote()
                            << "keychain unavailable, using the sandbox:" << e;
                    } else if (!c.clientId.isEmpty() && !c.clientSecret.isEmpty()) {
                        FabricConfig config;
                        if (!prefs.endpoint.isEmpty())
                            config.endpoint = prefs.endpoint;
                        config.clientId = c.clientId;
                        config.clientSecret = c.clientSecret;
                        options->savedFabricConfig = config;
                    }
                    then();
                });
                return;
            }
        }
#endif
        then();
    }

    void fail(const QString &error)
    {
        QTextStream(stderr) << "fabric-broker: " << error << "\n";
        QCoreApplication::exit(1);
    }

    // Team mode (docs/team.md): the team role's password, when the keychain holds one. Without a
    // keychain, libpq's own ways remain (~/.pgpass, peer, certificates).
    void readTeamPassword()
    {
#ifdef HAVE_FABRICBROKER_GUI
        // Team mode is the administrator's policy's alone (docs/team.md).
        const bool team = loadPolicy(PolicyPaths::fromEnvironment())
                              .lockedByAdministrator(QStringLiteral("team.database"));
        if (m_gui && team) {
            auto *store = new keychain::CredentialStore(
                QString::fromLatin1(keychain::CredentialStore::DefaultService), this);
            store->readTeamPassword(
                [this, store](bool ok, const QString &password, const QString &error) {
                    store->deleteLater();
                    if (!ok)
                        qCWarning(lcDesktop).noquote()
                            << "team database password: keychain unavailable:" << error;
                    m_options.teamPassword = password;
                    startHost();
                });
            return;
        }
#endif
        startHost();
    }

    void startHost()
    {
        QString error;
        if (!tryStartHost(&error))
            fail(error);
    }

    // Starts the serving side (and the UI) with m_options; false (and error) when it cannot,
    // with nothing of it left running.
    bool tryStartHost(QString *error)
    {
        m_host = std::make_unique<ServerHost>();
        if (!m_host->start(m_options, error)) {
            m_host.reset();
            return false;
        }
        Approver *desktopApprover = nullptr;
#ifdef HAVE_FABRICBROKER_GUI
        if (m_gui) {
            DesktopContext context;
            context.store = m_host->store();
            context.broker = m_host->broker();
            context.server = m_host->server();
            context.fabric = m_host->fabric();
            context.settings = m_host->settings();
            context.live = m_host->liveSettings();
            context.sandbox = m_host->isSandbox();
            context.forcedSandbox = m_options.forceSandbox;
            context.ownStdio = m_options.stdio;
            context.socketPath = m_host->socketPath();
            context.httpUrl = m_host->httpUrl();
            context.httpWarning = m_host->httpWarning();
            context.executablePath = launcherPath();
            context.teamPassword = m_options.teamPassword;
            context.observability = [host = QPointer<ServerHost>(m_host.get())] {
                return host ? host->observabilityStatus() : QList<QPair<QString, QString>>();
            };
            m_ui = std::make_unique<DesktopUi>(context);
            QString listenError;
            if (!m_listening && !m_instance.listen(&listenError)) // once: it outlives a switch
                qCWarning(lcDesktop).noquote() << listenError;
            m_listening = true;
            connect(&m_instance, &SingleInstance::raiseRequested, m_ui.get(),
                    &DesktopUi::raiseMainWindow);
            connect(m_ui.get(), &DesktopUi::quitRequested, this, [this] {
                if (quitDuringSwitch())
                    return;
                // Creates in flight get the longer desktop grace (the quit question says so);
                // then the denials of open approvals get a moment to reach their clients.
                m_host->shutdown(ServerHost::kDesktopQuitGraceMs, exitSoon);
            });
            connect(m_ui.get(), &DesktopUi::switchFromSandboxRequested, this,
                    &DesktopInstance::switchFromSandbox);
            installQuitOnSignals([this] {
                if (quitDuringSwitch())
                    return;
                m_ui->desktopApprover()->denyAllPending(QStringLiteral("the app was told to quit"));
                m_host->shutdown(ServerHost::kShutdownGraceMs, exitSoon);
            });
            m_ui->showMainWindow();
            desktopApprover = m_ui->approver();
        }
#endif
        if (!m_gui)
            installQuitOnSignals(
                [this] { m_host->shutdown(ServerHost::kShutdownGraceMs, exitSoon); });
        if (!m_host->applyApprovalMode(desktopApprover, error)) {
#ifdef HAVE_FABRICBROKER_GUI
            m_ui.reset();
#endif
            m_host.reset();
            return false;
        }
        if (m_options.stdio)
            connect(m_host.get(), &ServerHost::stdioFinished, this, [this] {
                m_host->shutdown(ServerHost::kShutdownGraceMs, [] { QCoreApplication::exit(0); });
            });
        return true;
    }

#ifdef HAVE_FABRICBROKER_GUI
    // Issue #40: the person chose "Switch to Equinix now" after saving credentials on the
    // sandbox. The serving side starts again in this process with what the keychain holds now;
    // nothing of the sandbox's (proposals, approvals, sessions) continues against the account.
    void switchFromSandbox(const FabricConfig &shown)
    {
        // Only the offer's button leads here, and the offer is made only when neither --sandbox
        // nor an own stdio session put the app on the sandbox; checked again all the same.
        if (m_switching || !m_host || !m_host->isSandbox() || m_options.forceSandbox ||
            m_options.stdio || m_host->isShuttingDown())
            return;
        m_switching = true;
        // What a fresh start would read: the command line's options, the saved settings, and
        // the keychain read again now (never the values the dialog passed along). A keychain
        // that does not answer (a hung daemon, a prompt nobody sees) stops the switch after
        // kSwitchReadTimeoutMs instead of holding the app in it; a quit meanwhile quits.
        auto reading = std::make_shared<bool>(true);
        m_switchRead = reading;
        QTimer::singleShot(kSwitchReadTimeoutMs, this, [this, reading] {
            if (!*reading)
                return;
            *reading = false;
            m_switching = false;
            qCWarning(lcDesktop).noquote()
                << "not switching from the sandbox: the keychain did not answer within"
                << kSwitchReadTimeoutMs / 1000 << "s";
            m_ui->mainWindow()->showStatusMessage(QCoreApplication::translate(
                "fb::DesktopInstance", "Not switched: the keychain did not answer; the sandbox "
                                       "stays in use."));
        });
        auto next = std::make_shared<ServerHost::Options>(m_initial);
        readSavedSettingsInto(next.get(), [this, next, shown, reading] {
            if (!*reading)
                return; // too late: the switch was given up (timeout, or a quit)
            *reading = false;
            // What the person agreed to is what the offer named: a file or keychain entry
            // changed while the box was up (anyone with the person's files can write both)
            // stops the switch rather than sending the account's secret somewhere else. The
            // endpoint compared is the one the new host would use (the environment's
            // EQUINIX_API_ENDPOINT comes before the saved one), not only the saved one.
            const FabricConfig effective = FabricConfig::withSaved(
                QProcessEnvironment::systemEnvironment(), next->savedFabricConfig);
            const bool asShown = next->savedFabricConfig &&
                                 normalizedEndpoint(effective.endpoint.toString()) ==
                                     normalizedEndpoint(shown.endpoint.toString()) &&
                                 normalizedEndpoint(next->savedFabricConfig->endpoint.toString()) ==
                                     normalizedEndpoint(shown.endpoint.toString()) &&
                                 next->savedFabricConfig->clientId == shown.clientId &&
                                 next->savedFabricConfig->clientSecret == shown.clientSecret;
            if (!ServerHost::usesSandbox(*next) && !asShown) {
                m_switching = false;
                if (m_quitAfterSwitch)
                    return QCoreApplication::exit(0);
                qCWarning(lcDesktop) << "not switching from the sandbox: the saved endpoint or "
                                        "credentials changed after the offer was shown";
                m_ui->mainWindow()->showStatusMessage(QCoreApplication::translate(
                    "fb::DesktopInstance",
                    "Not switched: the saved endpoint or credentials changed after the offer was "
                    "shown. Open Settings to review them; the sandbox stays in use."));
                return;
            }
            if (ServerHost::usesSandbox(*next)) {
                m_switching = false;
                if (m_quitAfterSwitch)
                    return QCoreApplication::exit(0);
                m_ui->mainWindow()->showStatusMessage(QCoreApplication::translate(
                    "fb::DesktopInstance", "Not switched: the keychain holds no complete "
                                           "credentials now; the sandbox stays in use."));
                return;
            }
            leaveSandbox(*next);
        });
    }

    void leaveSandbox(const ServerHost::Options &next)
    {
        const FabricConfig to = *next.savedFabricConfig;
        const QString reason =
            QStringLiteral("the desktop app switched from its embedded sandbox to %1 (settings "
                           "saved by the person); the sandbox's proposals do not apply there")
                .arg(normalizedEndpoint(to.endpoint.toString()));
        // 1) Open approval dialogs end as denials naming the switch (their calls are answered).
        m_ui->desktopApprover()->denyAllPending(reason);
        // 2) Pending proposals are evicted through the store: each is one audited eviction.
        const int evicted = int(m_host->store()->evictAll(reason).size());
        // 3) The evictions above are the switch's audit records (each names it); the log says
        // where to, never with a secret.
        const FabricBinding binding = MutationBroker::fabricBinding(to);
        qCInfo(lcDesktop).noquote() << "switching from the sandbox to" << binding.endpoint << "("
                                    << evicted << "pending proposal(s) dropped)";
        const QString sandboxEndpoint =
            m_host->fabric() ? MutationBroker::fabricBinding(m_host->fabric()->config()).endpoint
                             : QString();
        // The switch is audited even when nothing was pending (then no eviction names it).
        m_host->broker()->audit(AuditEventType::EndpointSwitched,
                                {{QStringLiteral("from"), sandboxEndpoint},
                                 {QStringLiteral("to"), binding.endpoint},
                                 {QStringLiteral("dropped"), evicted},
                                 { QStringLiteral("outcome"),
                                   QStringLiteral("switching") }});
        // 4) No create starts from now on; creates in flight get the grace. Then whatever was
        // proposed during the grace goes the same way, the answers get a moment to leave, and the
        // UI and the host (sessions, transports, sandbox) end before the new ones start.
        m_host->shutdown(ServerHost::kDesktopQuitGraceMs, [this, next, reason] {
            m_ui->desktopApprover()->denyAllPending(reason);
            m_host->store()->evictAll(reason);
            QTimer::singleShot(200, this, [this, next] {
                m_ui.reset();
                if (m_host->liveSettings())
                    m_host->liveSettings()->setDesktopApprover(nullptr);
                m_host.reset();
                m_switching = false;
                if (m_quitAfterSwitch)
                    return QCoreApplication::exit(0);
                // At once, in this callback: no event loop turn without a listener on the socket
                // (a --stdio started meanwhile would become an instance of its own). The team
                // role's password is the one read at the start (the keychain entry is the same).
                const ServerHost::Options sandboxOptions = m_options;
                m_options = next;
                m_options.teamPassword = sandboxOptions.teamPassword;
                QString error;
                if (tryStartHost(&error))
                    return;
                // What was saved cannot serve (an invalid saved address, the socket taken in
                // the meantime...): the sandbox serves again, empty, and the person is told;
                // the app does not end.
                qCWarning(lcDesktop).noquote()
                    << "could not start with the saved account, back on the sandbox:" << error;
                m_options = sandboxOptions;
                QString again;
                if (!tryStartHost(&again))
                    return fail(again);
                m_host->broker()->audit(
                    AuditEventType::EndpointSwitched,
                    {{QStringLiteral("from"),
                      MutationBroker::fabricBinding(*next.savedFabricConfig).endpoint},
                     {QStringLiteral("to"),
                      MutationBroker::fabricBinding(m_host->fabric()->config()).endpoint},
                     {QStringLiteral("dropped"), 0},
                     {QStringLiteral("outcome"), QStringLiteral("back_on_sandbox")},
                     { QStringLiteral("reason"),
                       UntrustedText::bounded(error, 300) }});
                m_ui->mainWindow()->showStatusMessage(
                    QCoreApplication::translate("fb::DesktopInstance",
                                                "Not switched: %1. The sandbox is in use again "
                                                "(its earlier proposals were dropped).")
                        .arg(UntrustedText::escapeInvisible(UntrustedText::bounded(error, 300))));
            });
        });
    }

#endif

    static void exitSoon()
    {
        QTimer::singleShot(200, QCoreApplication::instance(), [] { QCoreApplication::exit(0); });
    }

    const ServerHost::Options m_initial; // the command line's, before anything saved
    ServerHost::Options m_options;
    bool m_gui;
    std::unique_ptr<ServerHost> m_host;
    SingleInstance m_instance;
    bool m_listening = false;
    bool m_switching = false;
    bool m_quitAfterSwitch = false;
    std::shared_ptr<bool> m_switchRead; // true while the switch waits for the keychain
    static constexpr int kSwitchReadTimeoutMs = 10000;

    // A quit (the menu, a signal) while switching: while the keychain is still being read the
    // switch is given up and the quit goes on; once the sandbox's host is shutting down for the
    // switch, the switch ends the process instead of starting again. True when the quit waits.
    bool quitDuringSwitch()
    {
        if (!m_switching)
            return false;
        if (m_switchRead && *m_switchRead) {
            *m_switchRead = false;
            m_switching = false;
            return false;
        }
        m_quitAfterSwitch = true;
        return true;
    }
#ifdef HAVE_FABRICBROKER_GUI
    std::unique_ptr<DesktopUi> m_ui;
#endif
};

} // namespace

int runDesktop(CommandLine &cli)
{
    const bool stdio = cli.isSet(QStringLiteral("stdio"));
    const QString socketPath =
        transport::LocalSocketServer::resolveSocketPath(cli.value(SettingId::Socket));

    // With --stdio the launcher found no app to relay to (src/launcher): this process serves.
    if (!stdio && SingleInstance::askRunningInstanceToRaise()) {
        QTextStream(stdout) << "Fabric Broker is already running; its window was raised.\n";
        return 0;
    }

#ifdef HAVE_FABRICBROKER_GUI
    const bool gui =
        displayAvailable() && qobject_cast<QApplication *>(QCoreApplication::instance());
#else
    const bool gui = false;
#endif
    if (!gui && !stdio)
        QTextStream(stderr) << "fabric-broker: no display available; serving headless on the "
                               "per-user socket (use --headless to say so explicitly).\n";

    ServerHost::Options options;
    options.stdio = stdio;
    options.listen = true;
    options.socket = cli.value(SettingId::Socket);
    options.forceSandbox = cli.isSet(SettingId::ForceSandbox);
    options.toolsets = cli.value(SettingId::Toolsets);
    options.http = cli.value(SettingId::HttpAddress);
    if (stdio && !gui) // spawned by an MCP client while no app runs, and no display to be one
        noteSpawnedWithoutApp(&options, socketPath);

    installQuitOnSignals(); // before the socket is published, so a signal always ends cleanly
#ifdef HAVE_FABRICBROKER_GUI
    if (gui)
        initGuiResources();
#endif
    auto *instance = new DesktopInstance(options, gui);
    QTimer::singleShot(0, instance, [instance, stdio] {
        instance->readSavedSettings([instance, stdio] {
            if (stdio) // a 2026-07-28 client's probe is answered before anything starts
                ServerHost::answerDiscoverFirst(
                    instance->options(),
                    [instance](transport::StdioDevices *devices) { instance->start(devices); });
            else
                instance->start();
        });
    });
    const int rc = QCoreApplication::exec();
    delete instance; // sessions, UI and services end in order while Qt is still up
    return rc;
}

} // namespace fb
