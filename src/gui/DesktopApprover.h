#pragma once
// DesktopApprover: the "desktop" Approver channel. Each request gets its own ApprovalSession
// (the decision) and a non-modal ApprovalDialog (the rendering), opened with open(): several
// pending approvals are several independent windows, none blocks anything, and each request's
// done runs exactly once.
#include "broker/ApprovalSession.h"
#include "broker/Approver.h"
#include "core/Clock.h"

#include <QList>
#include <QObject>
#include <QPointer>

namespace fb {

class ApprovalDialog;

class DesktopApprover : public QObject, public Approver {
    Q_OBJECT
public:
    explicit DesktopApprover(Clock *clock = Clock::system(), QObject *parent = nullptr);
    // Pending approvals end as denials: their calls are answered.
    ~DesktopApprover() override;

    QString channel() const override { return QStringLiteral("desktop"); }
    void requestApproval(mcp::ToolCall *call, const ApprovalContext &context,
                         std::function<void(const HumanDecision &)> done) override;
    // The same for any object with a cancelled(QString) signal (nullptr: never cancelled).
    template <typename Source>
    void requestApprovalFor(Source *cancelSource, bool alreadyCancelled,
                            const ApprovalContext &context,
                            std::function<void(const HumanDecision &)> done)
    {
        ApprovalSession *session = newSession(context, std::move(done));
        session->watchCancellation(cancelSource, alreadyCancelled);
        openSession(session, context);
    }
    void requestApprovalFor(std::nullptr_t, bool alreadyCancelled, const ApprovalContext &context,
                            std::function<void(const HumanDecision &)> done)
    {
        ApprovalSession *session = newSession(context, std::move(done));
        session->watchCancellation(nullptr, alreadyCancelled);
        openSession(session, context);
    }

    void setSandbox(bool sandbox);
    // Delay before the approve button unlocks (ApprovalDialog::DefaultApproveDelayMs).
    void setApproveDelayMs(int ms);

    int pendingCount() const;
    QList<ApprovalDialog *> openDialogs() const;
    // Raises the oldest open approval dialog (tray notification clicked); false if none.
    bool raiseOldest();
    // Raises the open approval dialog of that proposal (its notification opened); false if none.
    bool raiseFor(const QString &requestSha256);
    // Ends every open approval as Declined (quitting): calls are answered, dialogs close.
    void denyAllPending(const QString &detail = {});
    // Ends every open approval as Declined with reason (the Fabric binding changed): calls are
    // answered, the dialogs stay open and say why.
    void denyAllOpen(const QString &reason) override;

signals:
    // A new approval prompt is open (for the tray notification).
    void approvalRequested(const fb::Proposal &proposal);
    void pendingCountChanged(int count);

private:
    struct Entry {
        QPointer<ApprovalSession> session;
        QPointer<ApprovalDialog> dialog;
        QString requestSha256;
    };
    ApprovalSession *newSession(const ApprovalContext &context,
                                std::function<void(const HumanDecision &)> done);
    void openSession(ApprovalSession *session, const ApprovalContext &context);
    void removeSession(ApprovalSession *session);

    Clock *m_clock;
    bool m_sandbox = false;
    int m_approveDelayMs;
    QList<Entry> m_entries;
    // Dialogs left open to say that the agent gave up; closed by the person, or with us.
    QList<QPointer<ApprovalDialog>> m_gaveUp;
    // Set while denyAllOpen() ends the sessions: the reason their dialogs show.
    QString m_denyReason;
};

} // namespace fb
