#include "broker/ToolOperation.h"

#include "mcp/ToolCall.h"
#include "telemetry/Telemetry.h"

namespace fb {

ToolOperation::ToolOperation(BrokerContext *context, mcp::ToolCall *call)
    : QObject(call)
    , m_call(call)
    , m_context(context)
{
    connect(call, &mcp::ToolCall::cancelled, this,
            [this](const QString &reason) { onCancelled(reason); });
}

ToolOperation::~ToolOperation() = default;

mcp::ToolCall *ToolOperation::call() const
{
    return m_call.data();
}

bool ToolOperation::finishOnce(const QJsonObject &callToolResult)
{
    if (m_finished || !m_call)
        return false;
    m_finished = true;
    m_call->finish(callToolResult);
    return true;
}

void ToolOperation::finishStructured(const QJsonObject &structured, const QString &text,
                                     bool isError)
{
    finishOnce(mcp::ToolCall::makeResult(structured, text, isError));
}

void ToolOperation::finishError(const QString &message)
{
    finishOnce(mcp::ToolCall::makeResult({}, message, true));
}

void ToolOperation::finishProtocolError(int code, const QString &message)
{
    if (m_finished || !m_call)
        return;
    m_finished = true;
    m_call->finishWithProtocolError(code, message);
}

void ToolOperation::onCancelled(const QString &) {}

telemetry::Span ToolOperation::startSpan(const QString &name) const
{
    return m_call ? m_call->startSpan(name) : telemetry::Span();
}

void ToolOperation::spanAttribute(const QString &key, const telemetry::AttributeValue &value)
{
    if (m_call)
        m_call->setSpanAttribute(key, value);
}

void ToolOperation::recordDecision(const QString &outcome, const QString &channel, double seconds)
{
    if (telemetry::Telemetry *t = m_context ? m_context->telemetry() : nullptr)
        t->recordDecision(outcome, channel, seconds);
}

void ToolOperation::recordCreate(const QString &changeType, const QString &outcome)
{
    if (telemetry::Telemetry *t = m_context ? m_context->telemetry() : nullptr)
        t->recordCreate(changeType, outcome);
}

} // namespace fb
