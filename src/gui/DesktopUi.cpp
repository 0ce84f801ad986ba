#include "gui/DesktopUi.h"

#include "core/UntrustedText.h"

#include "broker/MutationBroker.h"
#include "broker/PolicyApply.h"
#include "core/AuditLog.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "gui/AuditViewDialog.h"
#include "gui/ConnectClientDialog.h"
#include "gui/DesktopApprover.h"
#include "gui/DesktopNotifier.h"
#include "gui/DesktopPreferences.h"
#include "gui/GuiResources.h"
#include "gui/MainWindow.h"
#include "gui/ProposalTableModel.h"
#include "gui/SettingsDialog.h"
#include "gui/TeamDesk.h"
#include "gui/TrayIcon.h"
#include "keychain/CredentialStore.h"
#include "mcp/McpServer.h"
#include "team/TeamQueue.h"

#include <QApplication>
#include <QLoggingCategory>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

Q_LOGGING_CATEGORY(lcDesktopUi, "fabricbroker.gui.desktop")

namespace fb {

DesktopUi::DesktopUi(DesktopContext context, QObject *parent)
    : QObject(parent)
    , m_context(std::move(context))
    , m_clock(m_context.clock ? m_context.clock : Clock::system())
    , m_approver(std::make_unique<DesktopApprover>(m_clock))
    , m_model(new ProposalTableModel(m_clock, this))
    , m_credentials(new keychain::CredentialStore(
          QString::fromLatin1(keychain::CredentialStore::DefaultService), this))
{
    initGuiResources();
    if (qApp)
        QApplication::setWindowIcon(appIcon());
    m_model->attach(m_context.store, m_context.broker);
    m_live = m_context.live;
    if (!m_live) {
        // Without a host (tests, embedders): the same path, from this process's sources.
        SettingSources sources;
        sources.environment = QProcessEnvironment::systemEnvironment();
        const DesktopPreferences prefs = DesktopPreferences::load(QSettings());
        if (!prefs.toolsets.isEmpty())
            sources.saved.insert(SettingId::Toolsets, prefs.toolsets.join(u','));
        if (prefs.approvalMode)
            sources.saved.insert(SettingId::Approval,
                                 BrokerSettings::approvalModeName(*prefs.approvalMode));
        m_live = new LiveSettings(sources, PolicyPaths::fromEnvironment(), this);
        QString error;
        const QString endpoint =
            m_context.fabric ? MutationBroker::fabricBinding(m_context.fabric->config()).endpoint
                             : QString();
        if (!m_live->start(endpoint, &error))
            qCWarning(lcDesktopUi).noquote() << error;
        m_live->attach(m_context.server ? m_context.server->registry() : nullptr, m_context.broker);
        m_live->setDesktopApprover(m_approver.get());
    }

    // Team mode (docs/team.md): the administrator's policy's team.database alone (the resolved
    // value has no other source). Unset: nothing of it exists.
    const QString teamDatabase = m_live->settings().teamDatabase;
    if (!teamDatabase.trimmed().isEmpty())
        m_teamDesk =
            new TeamDesk(teamDatabase.trimmed(), m_context.teamPassword, m_context.fabric, this);

    m_window = std::make_unique<MainWindow>(m_model, m_clock);
    const bool sandbox =
        m_context.sandbox || (m_context.fabric && m_context.fabric->config().sandbox);
    m_approver->setSandbox(sandbox);
    if (m_context.fabric)
        m_window->setFabricEndpoint(m_context.fabric->config().endpoint, sandbox);
    else
        m_window->setFabricEndpoint({}, sandbox);
    m_window->setToolsets(m_context.server && m_context.server->registry()
                              ? m_context.server->registry()->servedToolsets()
                              : m_context.settings.toolsets);
    m_window->setSocketPath(m_context.socketPath);
    m_window->setHttpWarning(m_context.httpWarning);
    if (m_teamDesk) {
        m_window->setTeamMode(true);
        connect(m_window.get(), &MainWindow::teamApprovalsRequested, this,
                [this] { m_teamDesk->showApprovals(m_window.get()); });
        // The banner follows this workstation's connection to the team database (the
        // broker's own queue reconnects on the same schedule).
        connect(m_teamDesk->queue(), &team::TeamQueue::availabilityChanged, m_window.get(),
                [this](bool available, const QString &reason) {
                    m_window->setTeamWarning(
                        available ? QString() : (reason.isEmpty() ? tr("not connected") : reason));
                });
        // It may have failed already (a connect refused at once).
        if (const team::TeamQueue *q = m_teamDesk->queue(); !q->isAvailable())
            m_window->setTeamWarning(q->unavailableReason());
    }

    if (m_context.broker)
        connect(m_context.broker, &MutationBroker::auditEvent, m_window.get(),
                &MainWindow::appendActivity);
    if (m_context.server) {
        for (const mcp::ClientInfo &c : m_context.server->sessions())
            m_window->clientOpened(c);
        connect(m_context.server, &mcp::McpServer::sessionOpened, m_window.get(),
                &MainWindow::clientOpened);
        connect(m_context.server, &mcp::McpServer::sessionInitialized, m_window.get(),
                &MainWindow::clientInitialized);
        connect(m_context.server, &mcp::McpServer::sessionClosed, m_window.get(),
                &MainWindow::clientClosed);
        if (mcp::ToolRegistry *registry = m_context.server->registry())
            connect(registry, &mcp::ToolRegistry::toolsChanged, m_window.get(),
                    [this, registry] { m_window->setToolsets(registry->servedToolsets()); });
    }
    connect(m_live, &LiveSettings::changed, this, &DesktopUi::showPolicyState);
    showPolicyState();
    connect(m_window.get(), &MainWindow::settingsRequested, this, &DesktopUi::showSettings);
    connect(m_window.get(), &MainWindow::connectClientRequested, this,
            &DesktopUi::showConnectClient);
    connect(m_window.get(), &MainWindow::auditLogRequested, this, &DesktopUi::showAuditLog);
    connect(m_window.get(), &MainWindow::quitRequested, this, &DesktopUi::requestQuit);
    connect(m_window.get(), &MainWindow::enableProposalsRequested, this,
            &DesktopUi::enableProposals);

    if (TrayIcon::isAvailable()) {
        m_tray = new TrayIcon(appIcon(), this);
        m_tray->setSandbox(sandbox);
        m_tray->show();
        m_window->setHideOnClose(true);
        connect(m_tray, &TrayIcon::showWindowRequested, this, &DesktopUi::raiseMainWindow);
        connect(m_tray, &TrayIcon::approvalNotificationClicked, this, [this] {
            if (!m_approver->raiseOldest())
                raiseMainWindow();
        });
        connect(m_tray, &TrayIcon::connectClientRequested, this, &DesktopUi::showConnectClient);
        connect(m_tray, &TrayIcon::settingsRequested, this, &DesktopUi::showSettings);
        connect(m_tray, &TrayIcon::quitRequested, this, &DesktopUi::requestQuit);
        connect(m_window.get(), &MainWindow::hiddenToTray, this, [this] {
            if (m_trayHintShown)
                return;
            m_trayHintShown = true;
            m_tray->notify(tr("Fabric Broker keeps running"),
                           tr("Agents can still reach the broker; approvals will pop up. Quit "
                              "from the tray menu."));
        });
    } else {
        qCInfo(lcDesktopUi) << "no system tray: closing the main window quits";
        m_window->setHideOnClose(false);
    }
    setUpNotifications();
    connect(m_approver.get(), &DesktopApprover::pendingCountChanged, this,
            &DesktopUi::updateCounts);
    connect(m_model, &ProposalTableModel::activeCountChanged, this, &DesktopUi::updateCounts);
    connect(m_approver.get(), &DesktopApprover::approvalRequested, m_window.get(),
            [this](const Proposal &p) {
                m_window->showStatusMessage(tr("Approval requested: %1").arg(p.target));
            });
    updateCounts();
}

DesktopUi::~DesktopUi()
{
    // Answer every open approval before the windows go.
    m_approver->denyAllPending(tr("Fabric Broker is closing"));
    if (m_live && m_live->parent() == this)
        m_live->setDesktopApprover(nullptr); // the broker no longer points at the dialog
    for (const QPointer<QWidget> &dialog : std::as_const(m_parentlessDialogs))
        delete dialog.data();
}

QWidget *DesktopUi::dialogParent() const
{
    return m_window->isVisible() ? m_window.get() : nullptr;
}

void DesktopUi::dialogOpened(QWidget *dialog)
{
    if (dialog->parentWidget())
        return; // closes with the main window
    m_parentlessDialogs.removeAll(nullptr);
    m_parentlessDialogs.append(dialog);
}

Approver *DesktopUi::approver()
{
    return m_approver.get();
}
DesktopApprover *DesktopUi::desktopApprover() const
{
    return m_approver.get();
}
MainWindow *DesktopUi::mainWindow() const
{
    return m_window.get();
}
ProposalTableModel *DesktopUi::proposalModel() const
{
    return m_model;
}
TrayIcon *DesktopUi::trayIcon() const
{
    return m_tray;
}
DesktopNotifier *DesktopUi::notifier() const
{
    return m_notifier;
}
keychain::CredentialStore *DesktopUi::credentialStore() const
{
    return m_credentials;
}
LiveSettings *DesktopUi::liveSettings() const
{
    return m_live;
}

void DesktopUi::showPolicyState()
{
    const ResolvedSettings &r = m_live->current();
    m_window->setMutateLock(r.mutateLock ? r.mutateLock->text() : QString());
}

void DesktopUi::showMainWindow()
{
    m_window->show();
}

void DesktopUi::raiseMainWindow()
{
    m_window->show();
    if (m_window->isMinimized())
        m_window->showNormal();
    m_window->raise();
    m_window->activateWindow();
}

void DesktopUi::updateCounts()
{
    const int approvals = m_approver->pendingCount();
    const int pending = m_context.store ? m_context.store->pendingCount() : m_model->activeCount();
    if (m_tray)
        m_tray->setCounts(approvals, pending);
}

void DesktopUi::setQuitQuestion(std::function<bool(int, int)> question)
{
    m_quitQuestion = std::move(question);
}

QStringList DesktopUi::quitQuestionText(int approvals, int pending,
                                        const QStringList &createsInFlight, int graceSeconds)
{
    QStringList parts;
    if (!createsInFlight.isEmpty()) {
        QStringList shown;
        for (const QString &target : createsInFlight.mid(0, 3))
            shown << QStringLiteral("\u201c%1\u201d").arg(target.left(120));
        if (createsInFlight.size() > 3)
            shown << tr("%n more", nullptr, int(createsInFlight.size()) - 3);
        parts << tr("%n create(s) are in flight to Fabric, waiting for its answer: %1.", nullptr,
                    int(createsInFlight.size()))
                     .arg(shown.join(QStringLiteral(", ")));
    }
    if (approvals > 0 || pending > 0)
        parts << tr("%n approval(s) are waiting for you", nullptr, approvals) +
                     tr(" and %n proposal(s) are pending.", nullptr, pending);
    QString informative =
        tr("Quitting denies every open approval and drops pending proposals; no new create is "
           "sent.");
    if (!createsInFlight.isEmpty())
        informative += u' ' + tr("It then waits up to %n second(s) for Fabric's answer to the "
                                 "creates in flight; a create still unanswered then is recorded "
                                 "in the audit log as sent with an unknown outcome (or as not "
                                 "sent, if it never left).",
                                 nullptr, graceSeconds);
    return {parts.join(u' '), informative};
}

bool DesktopUi::confirmQuit()
{
    const int approvals = m_approver->pendingCount();
    const int pending = m_context.store ? m_context.store->pendingCount() : 0;
    const int creates = m_context.broker ? m_context.broker->createsInFlight() : 0;
    if ((approvals > 0 || pending > 0 || creates > 0) &&
        (!m_quitQuestion || !m_quitQuestion(approvals, pending)))
        return false;
    m_approver->denyAllPending(tr("Fabric Broker is quitting"));
    return true;
}

void DesktopUi::requestQuit()
{
    const int approvals = m_approver->pendingCount();
    const int pending = m_context.store ? m_context.store->pendingCount() : 0;
    const QStringList creates =
        m_context.broker ? m_context.broker->createsInFlightTargets() : QStringList();
    if ((approvals == 0 && pending == 0 && creates.isEmpty()) || m_quitQuestion) {
        if (confirmQuit())
            emit quitRequested();
        return;
    }
    // Asked without a nested event loop: sessions keep being served while the box is up.
    const QStringList text = quitQuestionText(approvals, pending, creates, kQuitGraceSeconds);
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Quit Fabric Broker?"), text.at(0),
                                QMessageBox::NoButton, dialogParent());
    dialogOpened(box);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(text.at(1));
    QPushButton *quit = box->addButton(tr("&Quit and deny"), QMessageBox::AcceptRole);
    QPushButton *stay = box->addButton(tr("Keep running"), QMessageBox::RejectRole);
    box->setDefaultButton(stay);
    connect(box, &QMessageBox::buttonClicked, this, [this, quit](QAbstractButton *clicked) {
        if (clicked != quit)
            return;
        m_approver->denyAllPending(tr("Fabric Broker is quitting"));
        emit quitRequested();
    });
    box->open();
}

void DesktopUi::showSettings()
{
    if (m_settingsDialog) { // one at a time: two could save over each other
        m_settingsDialog->raise();
        m_settingsDialog->activateWindow();
        return;
    }
    FabricConfig current = m_context.fabric ? m_context.fabric->config() : FabricConfig{};
    const ResolvedSettings &now = m_live->current();
    auto *dialog =
        new SettingsDialog(current, now.settings, m_context.sandbox, m_credentials, dialogParent());
    m_settingsDialog = dialog;
    dialogOpened(dialog);
    dialog->setProposalStore(m_context.store);
    dialog->showMutateLock(now.mutateLock ? now.mutateLock->text() : QString(), now.overridden);
    if (m_context.observability)
        dialog->showObservability(m_context.observability());
    connect(dialog, &SettingsDialog::saved, this,
            [this](const FabricConfig &config, const DesktopPreferences &prefs) {
                // Endpoint and credentials apply now (not in the sandbox).
                if (m_context.fabric && !m_context.sandbox) {
                    m_context.fabric->setConfig(config);
                    m_window->setFabricEndpoint(config.endpoint, false);
                    m_live->setEndpoint(MutationBroker::fabricBinding(config).endpoint);
                }
                applyToolsetsAndApproval(prefs);
                m_notifier->setEnabled(prefs.notifications);
                const QStringList overridden = m_live->current().overridden;
                m_window->showStatusMessage(
                    overridden.isEmpty() ? tr("Settings saved.")
                                         : tr("Settings saved, but the policy overrides them: %1")
                                               .arg(overridden.join(QStringLiteral("; "))));
                if (m_context.sandbox && !m_context.forcedSandbox && !m_context.ownStdio)
                    offerSwitchFromKeychain();
            });
    dialog->open();
}

void DesktopUi::applyToolsetsAndApproval(const DesktopPreferences &prefs)
{
    // Through the one path (LiveSettings): the table's precedence (a flag or the environment
    // still wins over a saved value), then the policy. Without a restart: new sessions get the
    // result at once, connected sessions are sent notifications/tools/list_changed by the
    // server when the served toolsets change.
    m_live->setSaved(
        {{SettingId::Toolsets, prefs.toolsets.join(u',')},
         {SettingId::Approval,
          prefs.approvalMode ? BrokerSettings::approvalModeName(*prefs.approvalMode) : QString()}});
}

void DesktopUi::enableProposals()
{
    if (const auto &lock = m_live->current().mutateLock) {
        // Not offered while locked; a click that still arrives changes nothing.
        m_window->setMutateLock(lock->text());
        m_window->showStatusMessage(tr("Proposals cannot be turned on: %1").arg(lock->text()));
        return;
    }
    QSettings settings;
    DesktopPreferences prefs = DesktopPreferences::load(settings);
    prefs.toolsets = {QStringLiteral("read"), QStringLiteral("mutate")};
    prefs.save(settings);
    applyToolsetsAndApproval(prefs);
    m_window->showStatusMessage(
        m_live->settings().toolsets.contains(QStringLiteral("mutate"))
            ? tr("Proposals are on: agents may propose creates; each one waits for your approval.")
            : tr("Proposals stay off: the toolsets come from the command line or the environment "
                 "(%1).")
                  .arg(m_live->settings().toolsets.join(u',')));
}

void DesktopUi::showConnectClient()
{
    auto *dialog =
        new ConnectClientDialog(m_context.executablePath, dialogParent(), m_context.httpUrl);
    dialogOpened(dialog);
    dialog->open();
}

void DesktopUi::showAuditLog()
{
    auto *dialog = new AuditViewDialog(AuditLog::defaultPath(), dialogParent());
    dialogOpened(dialog);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

} // namespace fb
