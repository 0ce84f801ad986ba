#pragma once
// TrayIcon: the system tray presence. Its tooltip counts approvals waiting for a person and
// pending proposals; its icon carries a badge with the approval count; it announces each new
// approval request with a notification.
#include "core/ProposalStore.h"

#include <QIcon>
#include <QObject>

class QSystemTrayIcon;
class QMenu;

namespace fb {

class TrayIcon : public QObject {
    Q_OBJECT
public:
    explicit TrayIcon(const QIcon &baseIcon, QObject *parent = nullptr);
    ~TrayIcon() override;

    static bool isAvailable();
    void show();
    void setSandbox(bool sandbox);
    void setCounts(int approvalsWaiting, int proposalsPending);
    int approvalsWaiting() const { return m_approvals; }
    QString toolTip() const;
    QIcon icon() const;
    // Announces a new approval request (when the tray can show messages).
    void notifyApproval(const fb::Proposal &proposal);
    void notify(const QString &title, const QString &message);

    // The base icon with a red count badge in the top-right corner (count <= 0: unchanged).
    static QIcon badgeIcon(const QIcon &base, int count);
    static QPixmap badgePixmap(const QIcon &base, int count, int size);

signals:
    void showWindowRequested();
    void approvalNotificationClicked();
    void connectClientRequested();
    void settingsRequested();
    void quitRequested();

private:
    void update();
    QIcon m_base;
    QSystemTrayIcon *m_tray;
    QMenu *m_menu;
    bool m_sandbox = false;
    bool m_lastMessageWasApproval = false;
    int m_approvals = 0;
    int m_pending = 0;
};

} // namespace fb
