#pragma once
// AuditEvent: the kinds of record the audit trail holds, as one enum with one name table.
//
// The name of each type is what the log stores in a record's "type" member (docs/audit.md);
// those names are part of the file format and never change. Code that writes or shows an audit
// event uses AuditEventType; only code that reads a log file (which may hold names a later
// version wrote) deals in names, through auditEventFromName().
#include <QLatin1StringView>
#include <QList>
#include <QString>
#include <QStringView>

#include <optional>

namespace fb {

// Each value's on-disk name is given first.
enum class AuditEventType {
    Proposed,          // "proposed": a proposal was dry-run and stored; its token was minted
    ProposeFailed,     // "propose_failed": a proposal was refused (invalid, Fabric, policy)
    Revalidation,      // "revalidation": the dry run was repeated before asking or sending
    Policy,            // "policy": the operator policy's verdict at confirm
    Redemption,        // "redemption": a confirm token was presented
    ApprovalRequested, // "approval_requested": a person is being asked
    Decision,          // "decision": the person's (or the channel's) answer
    Sending,           // "sending": the approved create is about to be sent (durable first)
    Executed,          // "executed": Fabric's answer to the create, or why it was not sent
    Evicted,           // "evicted": a pending proposal was evicted (capacity, or settings)
    Expired,           // "expired": a pending proposal expired
    LedgerReset,       // "ledger_reset": `policy reset-ledger` started the day's count over
    PolicyChanged,     // "policy_changed": the running process re-read its policy files
    ApprovalRejected,  // "approval_rejected": a team approval did not count (its signature)
    EndpointSwitched,  // "endpoint_switched": the desktop app left its sandbox for saved settings
    ExportInterrupted, // "export_interrupted": an audit sink (syslog) stopped receiving records
    ExportResumed,     // "export_resumed": the sink receives again, from a given seq on
    ExportGap,         // "export_gap": records that will never reach a sink (its queue was full)
    WebhookDelivered,  // "webhook_delivered": a notify.webhooks receiver took a notification
    WebhookFailed,     // "webhook_failed": a notification that will not reach its receiver
    LogContinued,      // "log_continued": AuditLog went on in a replaced log file
};
// How many types there are: LogContinued stays the last enumerator.
inline constexpr int AuditEventTypeCount = static_cast<int>(AuditEventType::LogContinued) + 1;

// Every type, in declaration order (for tests and for tables).
const QList<AuditEventType> &allAuditEventTypes();

// The on-disk name ("proposed", "propose_failed", ...).
QLatin1StringView auditEventName(AuditEventType type);
QString auditEventNameString(AuditEventType type);

// The type with this on-disk name; nullopt for a name this version does not write.
std::optional<AuditEventType> auditEventFromName(QStringView name);

} // namespace fb
