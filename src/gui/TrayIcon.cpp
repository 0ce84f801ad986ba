#include "gui/TrayIcon.h"

#include "core/UntrustedText.h"

#include <QAction>
#include <QFont>
#include <QLoggingCategory>
#include <QMenu>
#include <QPainter>
#include <QSystemTrayIcon>

Q_LOGGING_CATEGORY(lcTray, "fabricbroker.gui.tray")

namespace fb {

TrayIcon::TrayIcon(const QIcon &baseIcon, QObject *parent)
    : QObject(parent)
    , m_base(baseIcon)
    , m_tray(new QSystemTrayIcon(this))
    , m_menu(new QMenu)
{
    connect(m_menu->addAction(tr("Show Fabric Broker")), &QAction::triggered, this,
            &TrayIcon::showWindowRequested);
    connect(m_menu->addAction(tr("Connect a client...")), &QAction::triggered, this,
            &TrayIcon::connectClientRequested);
    connect(m_menu->addAction(tr("Settings...")), &QAction::triggered, this,
            &TrayIcon::settingsRequested);
    m_menu->addSeparator();
    connect(m_menu->addAction(tr("Quit")), &QAction::triggered, this, &TrayIcon::quitRequested);
    m_tray->setContextMenu(m_menu);
    connect(m_tray, &QSystemTrayIcon::activated, this,
            [this](QSystemTrayIcon::ActivationReason reason) {
                if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
                    emit showWindowRequested();
            });
    connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] {
        if (m_lastMessageWasApproval)
            emit approvalNotificationClicked();
        else
            emit showWindowRequested();
    });
    update();
}

TrayIcon::~TrayIcon()
{
    delete m_menu;
}

bool TrayIcon::isAvailable()
{
    return QSystemTrayIcon::isSystemTrayAvailable();
}

void TrayIcon::show()
{
    m_tray->show();
}

void TrayIcon::setSandbox(bool sandbox)
{
    m_sandbox = sandbox;
    update();
}

void TrayIcon::setCounts(int approvalsWaiting, int proposalsPending)
{
    if (approvalsWaiting == m_approvals && proposalsPending == m_pending)
        return;
    m_approvals = approvalsWaiting;
    m_pending = proposalsPending;
    update();
}

QString TrayIcon::toolTip() const
{
    QString text = m_sandbox ? tr("Fabric Broker (SANDBOX)") : tr("Fabric Broker");
    text += u'\n' + tr("%n approval(s) waiting", nullptr, m_approvals);
    text += u'\n' + tr("%n proposal(s) pending", nullptr, m_pending);
    return text;
}

QIcon TrayIcon::icon() const
{
    return m_tray->icon();
}

void TrayIcon::update()
{
    m_tray->setIcon(badgeIcon(m_base, m_approvals));
    m_tray->setToolTip(toolTip());
}

void TrayIcon::notifyApproval(const Proposal &proposal)
{
    notify(tr("Approval needed"), tr("An agent asks to create a %1: %2")
                                      .arg(changeTypeNoun(proposal.changeType), proposal.target));
    m_lastMessageWasApproval = true;
}

void TrayIcon::notify(const QString &title, const QString &message)
{
    m_lastMessageWasApproval = false;
    if (!m_tray->isVisible() || !QSystemTrayIcon::supportsMessages()) {
        qCDebug(lcTray).noquote() << "notification not shown:" << title;
        return;
    }
    // Notification servers may render body markup: client and agent text stays inert.
    m_tray->showMessage(UntrustedText::escapeForMessage(title),
                        UntrustedText::escapeForMessage(message), badgeIcon(m_base, m_approvals),
                        15000);
}

QPixmap TrayIcon::badgePixmap(const QIcon &base, int count, int size)
{
    QPixmap pm = base.pixmap(QSize(size, size));
    if (pm.isNull()) {
        pm = QPixmap(size, size);
        pm.fill(Qt::transparent);
    }
    if (count <= 0)
        return pm;
    QPainter painter(&pm);
    painter.setRenderHint(QPainter::Antialiasing);
    const QString text = count > 99 ? QStringLiteral("99+") : QString::number(count);
    const qreal d = size * (text.size() > 1 ? 0.62 : 0.55);
    const QRectF badge(size - d, 0, d, d);
    painter.setPen(QPen(Qt::white, std::max(1.0, size / 32.0)));
    painter.setBrush(QColor(0xd9, 0x30, 0x25));
    painter.drawEllipse(badge);
    QFont font = painter.font();
    font.setBold(true);
    font.setPixelSize(std::max(6, static_cast<int>(d * (text.size() > 2 ? 0.4 : 0.62))));
    painter.setFont(font);
    painter.setPen(Qt::white);
    painter.drawText(badge, Qt::AlignCenter, text);
    return pm;
}

QIcon TrayIcon::badgeIcon(const QIcon &base, int count)
{
    if (count <= 0)
        return base;
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48, 64})
        icon.addPixmap(badgePixmap(base, count, size));
    return icon;
}

} // namespace fb
