#pragma once
// DesktopUi: the desktop face of a running broker, for src/app. Creates the DesktopApprover
// (the "desktop" approval channel), the proposals model, the main window and the tray icon,
// and wires them to the store, the broker and the MCP server. It does not choose the approval
// channel: the app passes approver() to MutationBroker::setApprover when the mode asks for it.
#include "broker/BrokerSettings.h"
#include "core/Clock.h"

#include <QDBusConnection>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <functional>
#include <memory>
#include <optional>

class QMessageBox;
class QUrl;

namespace fb::mcp {
class McpServer;
}

namespace fb::keychain {
class CredentialStore;
} // namespace fb::keychain

namespace fb {

class Approver;
struct DesktopPreferences;
class DesktopApprover;
class DesktopNotifier;
class FabricClient;
struct FabricConfig;
class LiveSettings;
class MainWindow;
class MutationBroker;
class TeamDesk;
class ProposalStore;
class ProposalTableModel;
class TrayIcon;

struct DesktopContext {
    ProposalStore *store = nullptr;
    MutationBroker *broker = nullptr;
    mcp::McpServer *server = nullptr;
    FabricClient *fabric = nullptr;
    BrokerSettings settings;
    bool sandbox = false;
    QString socketPath;
    QString httpUrl;        // the loopback HTTP endpoint; empty when off
    QString httpWarning;    // why HTTP is off although asked for (ServerHost::httpWarning())
    QString executablePath; // QCoreApplication::applicationFilePath() of the installation
    Clock *clock = nullptr; // null: Clock::system()
    // The one path from a setting to the running broker (broker/PolicyApply). Null: DesktopUi
    // makes its own from the environment, the saved values and the policy files.
    LiveSettings *live = nullptr;
    QString teamPassword; // team mode's database password, from the keychain (docs/team.md)
    // Why the app is on the sandbox, for the offer to switch to the saved account (issue #40):
    // --sandbox asked for it, or the app serves its own stdio (a client started it); neither
    // is offered a switch.
    bool forcedSandbox = false;
    bool ownStdio = false;
    // Settings > Observability: what is exported where, now (label, plain text), from the
    // host (ServerHost::observabilityStatus; docs/observability.md). Null: not shown.
    std::function<QList<QPair<QString, QString>>()> observability;
    // Where desktop notifications go (DesktopNotifier). Unset: the session bus, but none on the
    // offscreen platform (tests and screenshots: nobody would see them).
    std::optional<QDBusConnection> notificationBus;
};

class DesktopUi : public QObject {
    Q_OBJECT
public:
    explicit DesktopUi(DesktopContext context, QObject *parent = nullptr);
    ~DesktopUi() override;

    Approver *approver();
    DesktopApprover *desktopApprover() const;
    MainWindow *mainWindow() const;
    ProposalTableModel *proposalModel() const;
    TrayIcon *trayIcon() const; // null when the system has no tray
    DesktopNotifier *notifier() const;
    keychain::CredentialStore *credentialStore() const;
    LiveSettings *liveSettings() const;

    void showMainWindow();
    void raiseMainWindow();
    // Synchronous check used when nothing is pending or a quit question is set (tests): true
    // means quit now, and open approvals have ended as denials (their calls are answered; the
    // caller lets the event loop flush those answers). With work pending and no question set it
    // returns false: the interactive path is requestQuit(), which asks without blocking.
    bool confirmQuit();
    // Tests replace the question (approvalsOpen, proposalsPending) -> quit?
    void setQuitQuestion(std::function<bool(int, int)> question);
    // The quit question's text and informative text for that many open approvals, pending
    // proposals and creates in flight (their targets), when quitting waits graceSeconds for
    // the outcome of those creates.
    static QStringList quitQuestionText(int approvals, int pending,
                                        const QStringList &createsInFlight, int graceSeconds);
    // How long quitting waits for creates in flight (ServerHost::kDesktopQuitGraceMs).
    static constexpr int kQuitGraceSeconds = 10;

    // Credentials saved in Settings while the app runs on the sandbox (issue #40): a non-modal
    // box offers to switch to the saved account now, saying what that does; its default is
    // "Later (at the next start)". Returns the box, or null when no offer is made: not on the
    // sandbox, the sandbox was asked for (--sandbox), the app serves its own stdio, or `saved`
    // lacks a client id, a secret or a usable endpoint other than the sandbox's own.
    // "Switch to Equinix now" emits switchFromSandboxRequested; nothing else does.
    QMessageBox *offerSandboxSwitch(const FabricConfig &saved);
    // The offer's text: what switching does, for these counts and the saved account.
    static QString sandboxSwitchText(int pending, int approvals, const QUrl &endpoint,
                                     const QString &clientId);

public slots:
    void showSettings();
    void showConnectClient();
    // The audit log (AuditLog::defaultPath(), so $EQUINIX_MCP_AUDIT_LOG when set) in a
    // non-modal AuditViewDialog.
    void showAuditLog();
    // "Turn on proposals" (the empty proposals table): saves and serves read,mutate now, unless
    // the policy forbids mutate (then nothing is saved and the status bar says who locked it).
    void enableProposals();

signals:
    // The person asked to quit and confirmed (window close without tray, menu, tray menu).
    void quitRequested();
    // The person chose "Switch to Equinix now" in the offer (src/app restarts the serving side).
    // shown: the endpoint and account the offer named; the switch happens only if what the
    // keychain and the settings hold at the press is exactly that.
    void switchFromSandboxRequested(const fb::FabricConfig &shown);

private:
    void requestQuit();
    void updateCounts();
    void applyToolsetsAndApproval(const DesktopPreferences &prefs);
    void showPolicyState();         // the main window's lock, from m_live
    void offerSwitchFromKeychain(); // reads what was saved, then offerSandboxSwitch
    // The parent of a dialog about to open: the main window when it is shown, else none (a
    // dialog opened from the tray). dialogOpened() keeps the parentless ones, so that they close
    // with this object instead of outliving it (and the stores they were given).
    QWidget *dialogParent() const;
    void dialogOpened(QWidget *dialog);
    // Desktop notifications (DesktopUiNotify.cpp): an approval dialog that opens, a team
    // proposal waiting for this approver, the team's decision on this workstation's proposal.
    void setUpNotifications();
    // Through the notifier, or the tray's message where there is no session bus.
    void notify(const QString &key, const QString &summary, const QStringList &lines);
    // A notification was opened: what it announced is shown (it never decides anything).
    void openNotification(const QString &key);

    DesktopContext m_context;
    Clock *m_clock;
    std::unique_ptr<DesktopApprover> m_approver;
    QPointer<LiveSettings> m_live;
    ProposalTableModel *m_model;
    std::unique_ptr<MainWindow> m_window;
    QPointer<TeamDesk> m_teamDesk; // team mode only
    TrayIcon *m_tray = nullptr;
    DesktopNotifier *m_notifier = nullptr;
    // This workstation's proposals waiting for the team (by request hash), and those the team
    // approved whose outcome is still to come.
    QSet<QString> m_teamWaiting;
    QSet<QString> m_teamApproved;
    keychain::CredentialStore *m_credentials;
    std::function<bool(int, int)> m_quitQuestion;
    bool m_trayHintShown = false;
    QPointer<QMessageBox> m_switchOffer;
    QPointer<QWidget> m_settingsDialog; // one Settings dialog at a time
    QList<QPointer<QWidget>> m_parentlessDialogs;
};

} // namespace fb
