#pragma once
// ClientElicitationApprover: asks the person through the MCP client's form elicitation
// (elicitation/create with one boolean "confirm", default false). Only accept with
// confirm = true approves.
#include "broker/Approver.h"

namespace fb {

class ClientElicitationApprover final : public Approver {
public:
    QString channel() const override { return QStringLiteral("client"); }
    void requestApproval(mcp::ToolCall *call, const ApprovalContext &context,
                         std::function<void(const HumanDecision &)> done) override;

    // The elicitation/create params for a proposal (exposed for tests and the audit log).
    static QJsonObject elicitationParams(const ApprovalContext &context, qint64 nowMs);
    // Maps an elicitation result object to a decision status.
    static HumanStatus statusForResult(const QJsonObject &result, QString *detail);
};

} // namespace fb
