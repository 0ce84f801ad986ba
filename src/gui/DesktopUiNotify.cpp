// DesktopUi's desktop notifications (DesktopNotifier; issue #37): each approval dialog that opens
// here, each team proposal that starts waiting for this approver, and the team's decision on this
// workstation's own proposal (then its outcome, in the same notification). Opening one shows what
// it announced: the approval dialog, the team's approvals, the main window. Nothing here decides.
//
// The approval dialog's notification is shown whether or not the app is in front: a dialog that
// opens is often kept behind the active window (focus-stealing prevention) and says nothing to a
// person away from the desk, and neither case can be told from here; the notification stays in
// the notification list until the dialog ends, when it is withdrawn.
#include "gui/DesktopUi.h"

#include "broker/MutationBroker.h"
#include "core/ChangeType.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "gui/DesktopApprover.h"
#include "gui/DesktopNotifier.h"
#include "gui/DesktopPreferences.h"
#include "gui/MainWindow.h"
#include "gui/TeamDesk.h"
#include "gui/TrayIcon.h"

#include <QGuiApplication>
#include <QSettings>

namespace fb {

using namespace Qt::StringLiterals;

namespace {
// Notification keys: what is announced, and of which proposal.
const QString kApproval = u"approval:"_s; // + request SHA-256: a desktop approval dialog
const QString kTeam = u"team:"_s;         // + team proposal id: waiting for this approver
const QString kTeamMany = u"team-many"_s; // several team proposals at once
const QString kDecision = u"decision:"_s; // + request SHA-256: the team's decision on ours
// More fresh team proposals than this at once are announced in one notification.
constexpr qsizetype kTeamOneByOne = 3;
// This workstation's proposals followed for a decision (their confirms are bounded by the store).
constexpr qsizetype kFollowedMax = 256;
} // namespace

void DesktopUi::setUpNotifications()
{
    QDBusConnection bus = m_context.notificationBus ? *m_context.notificationBus
                          : QGuiApplication::platformName() == u"offscreen"
                              ? QDBusConnection(u"fabricbroker-no-notifications"_s)
                              : QDBusConnection::sessionBus();
    m_notifier = new DesktopNotifier(bus, this);
    m_notifier->setEnabled(DesktopPreferences::load(QSettings()).notifications);
    connect(m_notifier, &DesktopNotifier::openRequested, this, &DesktopUi::openNotification);

    const bool sandbox =
        m_context.sandbox || (m_context.fabric && m_context.fabric->config().sandbox);
    connect(
        m_approver.get(), &DesktopApprover::approvalRequested, this,
        [this, sandbox](const Proposal &p) {
            if (!m_notifier->isEnabled())
                return;
            if (!m_notifier->hasBus()) {
                if (m_tray)
                    m_tray->notifyApproval(p);
                return;
            }
            m_notifier->show(
                kApproval + p.requestSha256,
                sandbox ? tr("Approval needed (sandbox)") : tr("Approval needed"),
                {tr("An agent asks to create a %1:").arg(changeTypeNoun(p.changeType)), p.target});
        });

    if (m_context.broker) {
        MutationBroker *broker = m_context.broker;
        connect(broker, &MutationBroker::approvalStarted, this,
                [this](const Proposal &p, const QString &channel) {
                    if (channel != u"team")
                        return;
                    if (m_teamWaiting.size() >= kFollowedMax)
                        m_teamWaiting.clear();
                    m_teamWaiting.insert(p.requestSha256);
                });
        connect(
            broker, &MutationBroker::approvalFinished, this,
            [this](const Proposal &p, const QString &status) {
                m_notifier->withdraw(kApproval + p.requestSha256); // the dialog ended
                if (!m_teamWaiting.remove(p.requestSha256))
                    return;
                QString summary;
                if (status == u"accepted")
                    summary = tr("Approved by the team");
                else if (status == u"declined")
                    summary = tr("Denied by the team");
                else if (status == u"timed_out")
                    summary = tr("Expired without the team's approval");
                else if (status == u"failed")
                    summary = tr("No decision: the team database could not be asked");
                else // the agent or its client withdrew it: nothing arrived from the team
                    return;
                if (status == u"accepted") {
                    if (m_teamApproved.size() >= kFollowedMax)
                        m_teamApproved.clear();
                    m_teamApproved.insert(p.requestSha256);
                }
                notify(
                    kDecision + p.requestSha256, summary,
                    {tr("Your agent's proposal to create a %1:").arg(changeTypeNoun(p.changeType)),
                     p.target});
            });
        connect(
            broker, &MutationBroker::executionFinished, this,
            [this](const Proposal &p, bool executed, const QString &outcome) {
                if (!m_teamApproved.remove(p.requestSha256))
                    return;
                QString summary;
                if (executed && outcome == u"created")
                    summary = tr("Approved by the team and created");
                else if (outcome == u"unknown")
                    summary = tr("Approved by the team; the outcome is unknown");
                else
                    summary = tr("Approved by the team, but not created");
                notify(
                    kDecision + p.requestSha256, summary,
                    {tr("Your agent's proposal to create a %1:").arg(changeTypeNoun(p.changeType)),
                     p.target});
            });
    }

    if (m_teamDesk) {
        connect(m_teamDesk, &TeamDesk::proposalsWaiting, this,
                [this](const QList<team::TeamProposal> &fresh) {
                    if (fresh.size() > kTeamOneByOne) {
                        notify(kTeamMany, tr("Team approvals needed"),
                               {tr("%n proposal(s) of other workstations wait for your decision.",
                                   nullptr, static_cast<int>(fresh.size()))});
                        return;
                    }
                    for (const team::TeamProposal &p : fresh)
                        notify(kTeam + QString::fromLatin1(p.id), TeamDesk::waitingSummary(p),
                               TeamDesk::waitingText(p));
                });
        connect(m_teamDesk, &TeamDesk::noLongerWaiting, this, [this](const QByteArray &id) {
            m_notifier->withdraw(kTeam + QString::fromLatin1(id));
        });
    }
}

void DesktopUi::notify(const QString &key, const QString &summary, const QStringList &lines)
{
    if (!m_notifier->isEnabled())
        return;
    if (m_notifier->hasBus())
        m_notifier->show(key, summary, lines);
    else if (m_tray) // no session bus (not Linux): the tray's own message
        m_tray->notify(summary, lines.join(u' '));
}

void DesktopUi::openNotification(const QString &key)
{
    if (key.startsWith(kApproval)) {
        if (!m_approver->raiseFor(key.mid(kApproval.size())))
            raiseMainWindow(); // answered meanwhile: the proposals table says how
    } else if (key.startsWith(kTeam) && m_teamDesk) {
        m_teamDesk->showApprovals(m_window.get(), key.mid(kTeam.size()).toLatin1());
    } else if (key == kTeamMany && m_teamDesk) {
        m_teamDesk->showApprovals(m_window.get());
    } else {
        raiseMainWindow();
    }
}

} // namespace fb
