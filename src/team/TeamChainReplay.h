#pragma once
// TeamChainReplay: the team audit chain replayed against the rows beside it, both ways
// (docs/team.md, "The team audit chain"). The database's triggers write one event for every
// proposal made (proposal_created {change_type, request_sha256, expires_at}), every state it moves
// to (proposal_state {from, to}), every decision (approval_recorded {approver, decision,
// dialog_sha256, statement_sha256?, public_key?}) and every resolution (outcome_resolved
// {resolution_id, outcome, uuid, resolver, dialog_sha256, statement_sha256?, public_key?}). So
// every row has its events, every event naming a proposal has its rows, and a row's state is the
// last state the chain moved it to; anything else means a row was written, changed or dropped
// past the triggers (the schema owner can). Pure, GUI-free.
#include "team/TeamHistory.h"

#include <QHash>
#include <QJsonObject>
#include <QStringList>

namespace fb::team {

// What the chain says of one proposal, in seq order.
struct ChainProposal {
    qint64 createdSeq = 0; // its proposal_created event (0: none)
    QJsonObject created;   // that event's detail
    QString createdBy;     // that event's actor: the session's login role, so the row's proposer
    QString state = QStringLiteral("pending"); // where its proposal_state events took it
    qint64 stateSeq = 0;                       // the last of them (0: none)
    qint64 sendingSeq = 0;                     // the move to sending (0: never sent)
    struct Event {
        qint64 seq = 0;
        QJsonObject detail;
    };
    QList<Event> approvals;   // approval_recorded
    QList<Event> resolutions; // outcome_resolved
};

struct ChainReplay {
    QHash<QByteArray, ChainProposal> proposals; // by proposal id
    QHash<QByteArray, qint64> approvalSeq;      // approval row id -> its approval_recorded seq
    QStringList failures;                       // each naming its row or its event's seq
};

// Replays history.audit (whether or not its hashes hold: verifyHistory checks those) against
// history's proposals, approvals and resolutions. With history.sinceMs, the events of a proposal
// the chain created before it (and not in the history) are outside the history, not a dropped row.
ChainReplay replayChain(const TeamHistory &history);

} // namespace fb::team
