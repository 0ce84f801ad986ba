#include "core/AuditProposalEvents.h"

#include "core/AuditLog.h"
#include "core/ProposalStore.h"

namespace fb {

void auditProposalEvents(ProposalStore *store, AuditLog *log)
{
    QObject::connect(store, &ProposalStore::proposalEvicted, store,
                     [log](const Proposal &p) { log->recordEviction(p); });
    QObject::connect(store, &ProposalStore::proposalExpired, store,
                     [log](const Proposal &p) { log->recordExpiry(p); });
}

} // namespace fb
