#pragma once
// Approver: the seam through which fabric_confirm_change obtains a human decision. The client
// elicitation channel lives in the broker; the desktop dialog channel lives in the GUI. The
// decision logic never trusts agent-written text: it renders what the broker compiled.
#include "core/CompiledRequest.h"
#include "core/ProposalStore.h"
#include "mcp/ClientInfo.h"

#include <QString>
#include <functional>

namespace fb::mcp {
class ToolCall;
}

namespace fb {

enum class HumanStatus {
    Accepted,
    Declined,
    Cancelled,
    TimedOut,
    Failed,
    CallCancelled,
    UnsupportedByClient,
};
// "accepted", "declined", "cancelled", "timed_out", "failed", "call_cancelled",
// "unsupported_by_client".
QString humanStatusName(HumanStatus status);
QStringList humanStatusNames();

struct HumanDecision {
    HumanStatus status = HumanStatus::Failed;
    QString channel; // "client" or "desktop"
    QString detail;  // what happened, for the result message and the audit log
    qint64 decidedAtMs = 0;
};

// Everything a person needs to decide, all compiled by the broker.
struct ApprovalContext {
    Proposal proposal;
    CompiledRequest request;
    mcp::ClientInfo client;
    int timeoutMs = 300000;
};

class Approver {
public:
    virtual ~Approver() = default;
    virtual QString channel() const = 0;
    // Asks a person. Calls done exactly once, asynchronously or not. When the tool call is
    // cancelled while waiting, the approver ends the prompt and answers CallCancelled.
    virtual void requestApproval(mcp::ToolCall *call, const ApprovalContext &context,
                                 std::function<void(const HumanDecision &)> done) = 0;
    // Every prompt still open can no longer be approved (the Fabric binding changed): answer
    // each Declined with reason as its detail, showing the reason where the person sees it.
    // The default does nothing: the confirm re-checks the binding before it sends anyway.
    virtual void denyAllOpen(const QString &reason) { Q_UNUSED(reason); }
};

} // namespace fb
