#include "broker/ApprovalSession.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcApprovalSession, "fabricbroker.gui.approval")

namespace fb {

ApprovalSession::ApprovalSession(ApprovalContext context, Clock *clock, Done done, QObject *parent)
    : QObject(parent)
    , m_context(std::move(context))
    , m_clock(clock ? clock : Clock::system())
    , m_done(std::move(done))
{
    m_timeout.setSingleShot(true);
    m_timeout.setTimerType(Qt::PreciseTimer);
    connect(&m_timeout, &QTimer::timeout, this, &ApprovalSession::timeOut);
}

ApprovalSession::~ApprovalSession()
{
    // Nobody may be left waiting: a session destroyed undecided is a denial.
    if (!m_finished)
        finish(HumanStatus::Declined, tr("the approval prompt was torn down without an answer"));
}

void ApprovalSession::watchLifetime(QObject *source, bool alreadyCancelled)
{
    m_startCancelled = alreadyCancelled;
    if (!source)
        return;
    m_source = source;
    connect(source, &QObject::destroyed, this, &ApprovalSession::onSourceDestroyed);
}

void ApprovalSession::start()
{
    if (m_started || m_finished)
        return;
    m_started = true;
    m_startedAtMs = m_clock->nowMs();
    if (m_startCancelled) {
        callCancelled(tr("the tool call was cancelled before the prompt opened"));
        return;
    }
    m_timeout.start(std::max(0, m_context.timeoutMs));
}

void ApprovalSession::approve()
{
    finish(HumanStatus::Accepted, tr("approved in the desktop dialog"));
}

void ApprovalSession::deny()
{
    finish(HumanStatus::Declined, tr("denied in the desktop dialog"));
}

void ApprovalSession::dismiss()
{
    finish(HumanStatus::Cancelled, tr("the desktop dialog was closed without an answer"));
}

void ApprovalSession::timeOut()
{
    finish(HumanStatus::TimedOut,
           tr("no answer in the desktop dialog within %1 ms").arg(m_context.timeoutMs));
}

void ApprovalSession::callCancelled(const QString &reason)
{
    finish(HumanStatus::CallCancelled,
           reason.isEmpty() ? tr("the client cancelled the tool call") : reason);
}

void ApprovalSession::fail(const QString &detail)
{
    finish(HumanStatus::Failed, detail);
}

void ApprovalSession::denyForShutdown(const QString &detail)
{
    finish(HumanStatus::Declined, detail);
}

void ApprovalSession::onSourceCancelled(const QString &reason)
{
    callCancelled(reason.isEmpty() ? tr("the client cancelled the tool call")
                                   : tr("the tool call was cancelled: %1").arg(reason));
}

void ApprovalSession::onSourceDestroyed()
{
    callCancelled(tr("the tool call ended before an answer"));
}

void ApprovalSession::finish(HumanStatus status, const QString &detail)
{
    if (m_finished)
        return;
    m_finished = true;
    m_timeout.stop();
    if (m_source)
        disconnect(m_source, nullptr, this, nullptr);
    m_decision = HumanDecision{status, QStringLiteral("desktop"), detail, m_clock->nowMs()};
    qCInfo(lcApprovalSession).noquote() << "decision" << humanStatusName(status) << "for"
                                        << m_context.proposal.requestSha256 << "-" << detail;
    // Move the callback out first: done may destroy whoever owns this session.
    Done done = std::move(m_done);
    m_done = nullptr;
    const HumanDecision decision = m_decision;
    QPointer<ApprovalSession> self(this);
    if (done)
        done(decision);
    if (self)
        emit finished(decision);
}

} // namespace fb
