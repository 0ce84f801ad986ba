#include "gui/DesktopApprover.h"

#include "gui/ApprovalDialog.h"
#include "mcp/ToolCall.h"

#include <QApplication>
#include <QGuiApplication>
#include <QLoggingCategory>
#include <QScreen>

Q_LOGGING_CATEGORY(lcDesktopApprover, "fabricbroker.gui.approver")

namespace fb {

namespace {
void bringToFront(QWidget *window)
{
    // The offscreen platform (tests, screenshots) cannot raise windows and says so loudly.
    if (QGuiApplication::platformName() == u"offscreen")
        return;
    window->raise();
    window->activateWindow();
}
} // namespace

DesktopApprover::DesktopApprover(Clock *clock, QObject *parent)
    : QObject(parent)
    , m_clock(clock ? clock : Clock::system())
    , m_approveDelayMs(ApprovalDialog::DefaultApproveDelayMs)
{
}

DesktopApprover::~DesktopApprover()
{
    denyAllPending(tr("Fabric Broker closed the approval prompt"));
    for (const QPointer<ApprovalDialog> &dialog : std::as_const(m_gaveUp))
        delete dialog.data();
}

void DesktopApprover::setSandbox(bool sandbox)
{
    m_sandbox = sandbox;
}

void DesktopApprover::setApproveDelayMs(int ms)
{
    m_approveDelayMs = std::max(0, ms);
}

void DesktopApprover::requestApproval(mcp::ToolCall *call, const ApprovalContext &context,
                                      std::function<void(const HumanDecision &)> done)
{
    requestApprovalFor(call, call && call->isCancelled(), context, std::move(done));
}

ApprovalSession *DesktopApprover::newSession(const ApprovalContext &context,
                                             std::function<void(const HumanDecision &)> done)
{
    return new ApprovalSession(context, m_clock, std::move(done), this);
}

void DesktopApprover::openSession(ApprovalSession *session, const ApprovalContext &context)
{
    session->start();
    if (session->isFinished()) {
        session->deleteLater();
        return;
    }

    // Without a widget application or a screen nobody can be asked.
    if (!qobject_cast<QApplication *>(QCoreApplication::instance())) {
        session->fail(tr("the desktop approval dialog cannot be shown: no GUI application"));
        session->deleteLater();
        return;
    }
    if (!QGuiApplication::primaryScreen()) {
        session->fail(tr("the desktop approval dialog cannot be shown: no screen"));
        session->deleteLater();
        return;
    }

    auto *dialog = new ApprovalDialog(context, m_clock);
    dialog->setSandbox(m_sandbox);
    dialog->setApproveDelayMs(m_approveDelayMs);
    dialog->setAnswerDeadlineMs(session->answerDeadlineMs());
    connect(dialog, &ApprovalDialog::approveChosen, session, &ApprovalSession::approve);
    connect(dialog, &ApprovalDialog::denyChosen, session, &ApprovalSession::deny);
    connect(dialog, &ApprovalDialog::dismissed, session, &ApprovalSession::dismiss);
    // Closed by something other than a choice (e.g. destroyed with the app): a denial.
    connect(dialog, &QObject::destroyed, session, [session] {
        session->denyForShutdown(tr("the approval dialog went away without an answer"));
    });
    connect(session, &ApprovalSession::finished, this,
            [this, session, dialog = QPointer(dialog)](const HumanDecision &decision) {
                const bool denied = !m_denyReason.isEmpty() && dialog && dialog->isVisible();
                if (denied) {
                    dialog->showNoLongerApprovable(m_denyReason); // the person closes it
                    m_gaveUp.removeIf([](const QPointer<ApprovalDialog> &d) { return d.isNull(); });
                    m_gaveUp.append(dialog);
                } else if (dialog && decision.status == HumanStatus::CallCancelled &&
                           dialog->isVisible()) {
                    dialog->showAgentGaveUp(decision.detail); // say so; the person closes it
                    m_gaveUp.removeIf([](const QPointer<ApprovalDialog> &d) { return d.isNull(); });
                    m_gaveUp.append(dialog);
                } else if (dialog)
                    dialog->closeWithoutAnswer();
                removeSession(session);
            });

    m_entries.append(Entry{session, dialog, context.proposal.requestSha256});
    dialog->open(); // ApprovalDialog::open(): non-modal, returns at once
    bringToFront(dialog);
    if (!dialog->isVisible()) {
        session->fail(tr("the desktop approval dialog could not be shown"));
        return;
    }
    qCInfo(lcDesktopApprover).noquote()
        << "approval dialog open for" << context.proposal.requestSha256;
    emit approvalRequested(context.proposal);
    emit pendingCountChanged(pendingCount());
}

void DesktopApprover::removeSession(ApprovalSession *session)
{
    const auto before = m_entries.size();
    m_entries.removeIf([session](const Entry &e) { return e.session == session || !e.session; });
    session->deleteLater();
    if (m_entries.size() != before)
        emit pendingCountChanged(pendingCount());
}

int DesktopApprover::pendingCount() const
{
    int n = 0;
    for (const Entry &e : m_entries)
        if (e.session && !e.session->isFinished())
            ++n;
    return n;
}

QList<ApprovalDialog *> DesktopApprover::openDialogs() const
{
    QList<ApprovalDialog *> out;
    for (const Entry &e : m_entries)
        if (e.dialog && e.dialog->isVisible())
            out.append(e.dialog);
    return out;
}

bool DesktopApprover::raiseOldest()
{
    const QList<ApprovalDialog *> dialogs = openDialogs();
    if (dialogs.isEmpty())
        return false;
    dialogs.first()->showNormal();
    bringToFront(dialogs.first());
    return true;
}

bool DesktopApprover::raiseFor(const QString &requestSha256)
{
    for (const Entry &e : std::as_const(m_entries)) {
        if (e.requestSha256 != requestSha256 || !e.dialog || !e.dialog->isVisible())
            continue;
        e.dialog->showNormal();
        bringToFront(e.dialog);
        return true;
    }
    return false;
}

void DesktopApprover::denyAllPending(const QString &detail)
{
    const QString why = detail.isEmpty() ? tr("Fabric Broker is quitting") : detail;
    // Copy: finishing a session removes it from m_entries.
    const QList<Entry> entries = m_entries;
    for (const Entry &e : entries)
        if (e.session)
            e.session->denyForShutdown(why);
    m_entries.clear();
}

void DesktopApprover::denyAllOpen(const QString &reason)
{
    m_denyReason = reason.isEmpty() ? tr("the request can no longer be approved") : reason;
    const QList<Entry> entries = m_entries; // finishing a session removes it from m_entries
    for (const Entry &e : entries)
        if (e.session && !e.session->isFinished())
            e.session->denyForShutdown(m_denyReason);
    m_denyReason.clear();
}

} // namespace fb
