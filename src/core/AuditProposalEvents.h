#pragma once
// AuditProposalEvents: the audit records of what happens to a pending proposal outside any tool
// call. Each eviction (capacity, or voided by the settings) is one "evicted" record and each
// expiry one "expired" record, written when the store reports it; nothing else records them
// (the broker's "proposed" record does not list the proposals its add evicted).
namespace fb {

class AuditLog;
class ProposalStore;

// Connects store's proposalEvicted / proposalExpired to log (AuditLog::recordEviction /
// recordExpiry). The connections end with store; log must outlive store.
void auditProposalEvents(ProposalStore *store, AuditLog *log);

} // namespace fb
