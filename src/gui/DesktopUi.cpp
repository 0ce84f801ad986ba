#include "gui/DesktopUi.h"

#include "broker/MutationBroker.h"
#include "core/AuditLog.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "gui/AuditViewDialog.h"
#include "gui/ConnectClientDialog.h"
#include "gui/CredentialStore.h"
#include "gui/DesktopApprover.h"
#include "gui/GuiResources.h"
#include "gui/MainWindow.h"
#include "gui/ProposalTableModel.h"
#include "gui/SettingsDialog.h"
#include "gui/TrayIcon.h"
#include "mcp/McpServer.h"

#include <QApplication>
#include <QLoggingCategory>
#include <QMessageBox>
#include <QPushButton>

Q_LOGGING_CATEGORY(lcDesktopUi, "fabricbroker.gui.desktop")

namespace fb {

DesktopUi::DesktopUi(DesktopContext context, QObject *parent)
    : QObject(parent)
    , m_context(std::move(context))
    , m_clock(m_context.clock ? m_context.clock : Clock::system())
    , m_approver(std::make_unique<DesktopApprover>(m_clock))
    , m_model(new ProposalTableModel(m_clock, this))
    , m_credentials(new CredentialStore(QString::fromLatin1(CredentialStore::DefaultService), this))
{
    initGuiResources();
    if (qApp)
        QApplication::setWindowIcon(appIcon());
    m_model->attach(m_context.store, m_context.broker);

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
    connect(m_window.get(), &MainWindow::settingsRequested, this, &DesktopUi::showSettings);
    connect(m_window.get(), &MainWindow::connectClientRequested, this,
            &DesktopUi::showConnectClient);
    connect(m_window.get(), &MainWindow::auditLogRequested, this, &DesktopUi::showAuditLog);
    connect(m_window.get(), &MainWindow::quitRequested, this, &DesktopUi::requestQuit);

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
        connect(m_approver.get(), &DesktopApprover::approvalRequested, m_tray,
                &TrayIcon::notifyApproval);
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
CredentialStore *DesktopUi::credentialStore() const
{
    return m_credentials;
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

bool DesktopUi::confirmQuit()
{
    const int approvals = m_approver->pendingCount();
    const int pending = m_context.store ? m_context.store->pendingCount() : 0;
    if ((approvals > 0 || pending > 0) && (!m_quitQuestion || !m_quitQuestion(approvals, pending)))
        return false;
    m_approver->denyAllPending(tr("Fabric Broker is quitting"));
    return true;
}

void DesktopUi::requestQuit()
{
    const int approvals = m_approver->pendingCount();
    const int pending = m_context.store ? m_context.store->pendingCount() : 0;
    if ((approvals == 0 && pending == 0) || m_quitQuestion) {
        if (confirmQuit())
            emit quitRequested();
        return;
    }
    // Asked without a nested event loop: sessions keep being served while the box is up.
    auto *box =
        new QMessageBox(QMessageBox::Warning, tr("Quit Fabric Broker?"),
                        tr("%n approval(s) are waiting for you", nullptr, approvals) +
                            tr(" and %n proposal(s) are pending.", nullptr, pending),
                        QMessageBox::NoButton, m_window->isVisible() ? m_window.get() : nullptr);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(tr("Quitting denies every open approval and drops pending "
                               "proposals; nothing is created."));
    QPushButton *quit = box->addButton(tr("Quit and deny"), QMessageBox::AcceptRole);
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
    FabricConfig current = m_context.fabric ? m_context.fabric->config() : FabricConfig{};
    auto *dialog = new SettingsDialog(current, m_context.settings, m_context.sandbox, m_credentials,
                                      m_window->isVisible() ? m_window.get() : nullptr);
    dialog->setProposalStore(m_context.store);
    connect(dialog, &SettingsDialog::saved, this,
            [this](const FabricConfig &config, const DesktopPreferences &) {
                // Endpoint and credentials apply now (not in the sandbox); the rest next start.
                if (m_context.fabric && !m_context.sandbox) {
                    m_context.fabric->setConfig(config);
                    m_window->setFabricEndpoint(config.endpoint, false);
                }
                m_window->showStatusMessage(tr("Settings saved."));
            });
    dialog->open();
}

void DesktopUi::showConnectClient()
{
    auto *dialog = new ConnectClientDialog(m_context.executablePath,
                                           m_window->isVisible() ? m_window.get() : nullptr);
    dialog->open();
}

void DesktopUi::showAuditLog()
{
    auto *dialog = new AuditViewDialog(AuditLog::defaultPath(),
                                       m_window->isVisible() ? m_window.get() : nullptr);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

} // namespace fb
