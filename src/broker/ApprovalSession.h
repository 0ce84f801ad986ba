#pragma once
// ApprovalSession: the GUI-free decision logic of one desktop approval. It owns the answer
// deadline and the cancellation watch, maps what happened to a HumanDecision and calls done
// exactly once. The dialog only renders and reports the person's choice to it.
#include "broker/Approver.h"
#include "core/Clock.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <cstddef>
#include <functional>

namespace fb {

class ApprovalSession : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(const HumanDecision &)>;

    ApprovalSession(ApprovalContext context, Clock *clock, Done done, QObject *parent = nullptr);
    ~ApprovalSession() override;

    // Watches a source of cancellations: an mcp::ToolCall, or any QObject class with a
    // cancelled(QString) signal (a test fake). Its destruction counts as a cancellation too.
    // alreadyCancelled ends the session at start().
    template <typename Source> void watchCancellation(Source *source, bool alreadyCancelled)
    {
        watchLifetime(source, alreadyCancelled);
        if (source)
            connect(source, &Source::cancelled, this, &ApprovalSession::onSourceCancelled);
    }
    // No source: never cancelled from outside.
    void watchCancellation(std::nullptr_t, bool alreadyCancelled)
    {
        watchLifetime(nullptr, alreadyCancelled);
    }
    // Starts the answer deadline (context.timeoutMs from now, by the injected clock).
    void start();

    const ApprovalContext &context() const { return m_context; }
    qint64 startedAtMs() const { return m_startedAtMs; }
    qint64 answerDeadlineMs() const { return m_startedAtMs + m_context.timeoutMs; }
    bool isFinished() const { return m_finished; }
    // The decision once finished (status Failed before that).
    const HumanDecision &decision() const { return m_decision; }

public slots:
    void approve();
    void deny();
    void dismiss(); // closed or Escape
    void timeOut();
    void callCancelled(const QString &reason);
    void fail(const QString &detail);
    // The app is quitting: ends as a denial so the call is answered.
    void denyForShutdown(const QString &detail);

signals:
    // Emitted once, right after done ran; the dialog closes itself on it.
    void finished(const fb::HumanDecision &decision);

private:
    void watchLifetime(QObject *source, bool alreadyCancelled);
    void onSourceCancelled(const QString &reason);
    void onSourceDestroyed();
    void finish(HumanStatus status, const QString &detail);

    ApprovalContext m_context;
    Clock *m_clock;
    Done m_done;
    QTimer m_timeout;
    QPointer<QObject> m_source;
    bool m_startCancelled = false;
    bool m_started = false;
    bool m_finished = false;
    qint64 m_startedAtMs = 0;
    HumanDecision m_decision;
};

} // namespace fb
