#include "broker/ToolOperation.h"

#include "mcp/ToolCall.h"

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

void ToolOperation::onCancelled(const QString &) {}

} // namespace fb
