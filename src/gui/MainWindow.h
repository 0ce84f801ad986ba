#pragma once
// MainWindow: the broker's dashboard. Live proposals (ProposalTableModel), connected MCP
// clients, served toolsets, the Fabric endpoint (and whether it is the sandbox) and a recent
// activity log built from audit events, showing only non-secret fields.
#include "core/AuditEvent.h"
#include "core/Clock.h"
#include "mcp/ClientInfo.h"

#include <QJsonObject>
#include <QMainWindow>
#include <QUrl>
#include <memory>

class QTableView;
class QTreeWidget;
class QPlainTextEdit;
class QAction;
class QLabel;
class QPushButton;

namespace Ui {
class MainWindow;
}

namespace fb {

class ProposalTableModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(ProposalTableModel *model, Clock *clock = Clock::system(),
               QWidget *parent = nullptr);
    ~MainWindow() override;

    void setFabricEndpoint(const QUrl &endpoint, bool sandbox);
    void setToolsets(const QStringList &toolsets);
    // Why the policy forbids the mutate toolset ("set by your administrator: toolsets.allowed in
    // /etc/fabric-broker/policy.json"), or empty when it allows it. While locked, "Turn on
    // proposals" is not offered and the hint and "Served toolsets" say who locked it.
    void setMutateLock(const QString &lock);
    void setSocketPath(const QString &path);
    // Why MCP over HTTP is off (ServerHost::httpWarning(): a taken port, a token file refused),
    // shown as a plain-text warning under the sandbox banner; empty hides it.
    void setHttpWarning(const QString &warning);
    // Team mode (docs/team.md): offers File > Team approvals.
    void setTeamMode(bool team);
    // Why the team database is unreachable (proposals and confirms are refused meanwhile), as a
    // plain-text warning; empty hides it.
    void setTeamWarning(const QString &reason);
    // When true, closing the window hides it (the tray keeps serving); otherwise closing asks
    // to quit (quitRequested).
    void setHideOnClose(bool hide);
    bool isSandbox() const { return m_sandbox; }

    // One line of the activity log for an audit event, or empty when the event is not shown.
    // Only whitelisted, non-secret fields: never a confirm token.
    static QString formatActivity(AuditEventType type, const QJsonObject &record, qint64 nowMs);

    QTableView *proposalsView() const;
    QTreeWidget *clientsTree() const;
    QPlainTextEdit *activityLog() const;
    QLabel *sandboxBanner() const;
    QLabel *httpWarningBanner() const;
    QLabel *teamWarningBanner() const { return m_teamWarning; }
    QAction *teamApprovalsAction() const;
    // Shown instead of the empty proposals table: how to connect a client, and (when mutate is
    // off) a button that turns proposals on.
    QWidget *emptyHint() const;
    QLabel *emptyHintLabel() const;
    QPushButton *emptyConnectButton() const;
    QPushButton *enableProposalsButton() const;

public slots:
    void appendActivity(fb::AuditEventType type, const QJsonObject &record);
    void appendActivityLine(const QString &line);
    void clientOpened(const fb::mcp::ClientInfo &client);
    void clientInitialized(const fb::mcp::ClientInfo &client);
    void clientClosed(const fb::mcp::ClientInfo &client);
    void showStatusMessage(const QString &message);

signals:
    void settingsRequested();
    void connectClientRequested();
    void auditLogRequested();
    void teamApprovalsRequested();
    void quitRequested();
    void hiddenToTray();
    // "Turn on proposals" in the empty-table hint: serve read,mutate from now on.
    void enableProposalsRequested();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void updateTitle();
    void updateEmptyHint();
    std::unique_ptr<Ui::MainWindow> ui;
    ProposalTableModel *m_model;
    Clock *m_clock;
    bool m_sandbox = false;
    bool m_hideOnClose = false;
    bool m_mutate = false;
    QStringList m_toolsets;
    QString m_mutateLock;
    QLabel *m_httpWarning = nullptr;
    QLabel *m_teamWarning = nullptr;
};

} // namespace fb
