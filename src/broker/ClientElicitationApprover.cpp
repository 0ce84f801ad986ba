#include "broker/ClientElicitationApprover.h"

#include "broker/ProposalView.h"
#include "core/Clock.h"
#include "core/NameTable.h"
#include "mcp/ToolCall.h"

#include <QJsonArray>
#include <QPointer>

namespace fb {

QJsonObject ClientElicitationApprover::elicitationParams(const ApprovalContext &context,
                                                         qint64 nowMs)
{
    const QString noun = changeTypeNoun(context.proposal.changeType);
    const QJsonObject confirm{
        {QStringLiteral("type"), QStringLiteral("boolean")},
        {QStringLiteral("title"), QStringLiteral("Create this %1").arg(noun)},
        {QStringLiteral("description"),
         QStringLiteral("Tick to create the billable %1 exactly as shown. Leave unticked to "
                        "refuse.")
             .arg(noun)},
        {QStringLiteral("default"), false}};
    QJsonObject params{
        {QStringLiteral("message"),
         ProposalView::approvalText(context.proposal, context.request, nowMs)},
        {QStringLiteral("requestedSchema"),
         QJsonObject{
             {QStringLiteral("type"), QStringLiteral("object")},
             {QStringLiteral("properties"), QJsonObject{{QStringLiteral("confirm"), confirm}}},
             {QStringLiteral("required"), QJsonArray{QStringLiteral("confirm")}}}}};
    if (context.client.protocolVersion >= u"2025-11-25")
        params.insert(QStringLiteral("mode"), QStringLiteral("form"));
    return params;
}

HumanStatus ClientElicitationApprover::statusForResult(const QJsonObject &result, QString *detail)
{
    const QString action = result.value(QStringLiteral("action")).toString();
    if (action == u"accept") {
        const QJsonValue content = result.value(QStringLiteral("content"));
        if (!content.isObject()) {
            *detail = QStringLiteral("accepted without content: treated as a decline");
            return HumanStatus::Declined;
        }
        const QJsonValue confirm = content.toObject().value(QStringLiteral("confirm"));
        if (confirm.isBool() && confirm.toBool()) {
            *detail = QStringLiteral("the person ticked confirm and accepted");
            return HumanStatus::Accepted;
        }
        if (!confirm.isBool() && !confirm.isUndefined()) {
            *detail = QStringLiteral("accepted with a confirm value that is not a boolean: "
                                     "treated as a decline");
            return HumanStatus::Declined;
        }
        *detail = QStringLiteral("accepted without confirm = true: treated as a decline");
        return HumanStatus::Declined;
    }
    if (action == u"decline") {
        *detail = QStringLiteral("the person declined");
        return HumanStatus::Declined;
    }
    if (action == u"cancel") {
        *detail = QStringLiteral("the person dismissed the prompt");
        return HumanStatus::Cancelled;
    }
    *detail = QStringLiteral("the client answered the elicitation without a valid action");
    return HumanStatus::Failed;
}

void ClientElicitationApprover::requestApproval(mcp::ToolCall *call, const ApprovalContext &context,
                                                std::function<void(const HumanDecision &)> done)
{
    auto decide = [done](HumanStatus status, const QString &detail) {
        done(HumanDecision{status, QStringLiteral("client"), detail, Clock::system()->nowMs()});
    };
    if (!context.client.supportsFormElicitation()) {
        decide(HumanStatus::UnsupportedByClient,
               QStringLiteral("the MCP client did not declare form elicitation"));
        return;
    }
    QPointer<mcp::ToolCall> guard(call);
    const QJsonObject params = elicitationParams(context, Clock::system()->nowMs());
    call->sendClientRequest(
        QStringLiteral("elicitation/create"), params, context.timeoutMs,
        [guard, decide](const mcp::ClientReply &reply) {
            using S = mcp::ClientReply::Status;
            switch (reply.status) {
            case S::Result: {
                QString detail;
                const HumanStatus status = statusForResult(reply.result, &detail);
                decide(status, detail);
                return;
            }
            case S::Error:
                decide(HumanStatus::Failed,
                       QStringLiteral("the elicitation round trip failed: ") +
                           reply.error.value(QStringLiteral("message")).toString());
                return;
            case S::Timeout:
                decide(HumanStatus::TimedOut, QStringLiteral("no answer in time"));
                return;
            case S::Cancelled:
            case S::SessionClosed:
                if (!guard || guard->isCancelled() || reply.status == S::SessionClosed)
                    decide(HumanStatus::CallCancelled,
                           QStringLiteral("the client cancelled the tool call"));
                else
                    decide(HumanStatus::Failed, reply.message);
                return;
            case S::NotSent:
                decide(HumanStatus::Failed,
                       QStringLiteral("the elicitation could not be sent: ") + reply.message);
                return;
            }
        });
}

namespace {
constexpr EnumName<HumanStatus> kHumanStatusNames[] = {
    {HumanStatus::Accepted, u"accepted"},
    {HumanStatus::Declined, u"declined"},
    {HumanStatus::Cancelled, u"cancelled"},
    {HumanStatus::TimedOut, u"timed_out"},
    {HumanStatus::Failed, u"failed"},
    {HumanStatus::CallCancelled, u"call_cancelled"},
    {HumanStatus::UnsupportedByClient, u"unsupported_by_client"},
};
} // namespace

QString humanStatusName(HumanStatus status)
{
    return nameOf(kHumanStatusNames, status);
}

QStringList humanStatusNames()
{
    return namesOf(kHumanStatusNames);
}

} // namespace fb
