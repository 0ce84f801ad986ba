#pragma once
// ToolOperation: one tool call that finishes exactly once (after KeePassXC's fdosecrets
// PromptBase: one object per pending request, one completion, a dismiss hook). It lives as a
// child of its mcp::ToolCall, so it ends with the call; it reaches the call and the broker only
// through guarded pointers, because either can go away first.
#include "broker/BrokerContext.h"
#include "telemetry/Tracing.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

namespace fb::mcp {
class ToolCall;
}

namespace fb {

class ToolOperation : public QObject {
    Q_OBJECT
public:
    ~ToolOperation() override;

    // Runs the operation; it completes the call later or right away.
    virtual void start() = 0;
    bool isFinished() const { return m_finished; }

protected:
    ToolOperation(BrokerContext *context, mcp::ToolCall *call);

    // Null once the call is gone (the operation is then being destroyed with it).
    mcp::ToolCall *call() const;
    // Null once the broker is gone.
    BrokerContext *context() const { return m_context.data(); }

    // Completes the call with this CallToolResult, once: a later attempt (or one after the call
    // went away) changes nothing and returns false.
    bool finishOnce(const QJsonObject &callToolResult);
    void finishStructured(const QJsonObject &structured, const QString &text, bool isError = false);
    void finishError(const QString &message);
    // Completes the call with a JSON-RPC error instead of a result (e.g. -32602 for params
    // that cannot be honoured), once.
    void finishProtocolError(int code, const QString &message);

    // Telemetry (docs/observability.md): a child span of the call's server span for one step,
    // and a fabric_broker.* attribute on the server span (no-ops when nothing is traced).
    telemetry::Span startSpan(const QString &name) const;
    void spanAttribute(const QString &key, const telemetry::AttributeValue &value);
    // A decision (outcome x channel, and how long the person took) and a sent create's
    // outcome, when the process records metrics.
    void recordDecision(const QString &outcome, const QString &channel, double seconds);
    void recordCreate(const QString &changeType, const QString &outcome);

    // The cancellation hook: the client cancelled the call (notifications/cancelled or the
    // session ended) while the operation runs. Does nothing by default.
    virtual void onCancelled(const QString &reason);

private:
    QPointer<mcp::ToolCall> m_call;
    QPointer<BrokerContext> m_context;
    bool m_finished = false;
};

} // namespace fb
