#pragma once
// `fabric-broker team verify` (issues #26 and #34, docs/team-signing.md): the team's history
// (TeamHistory: from the database in one snapshot, or from an exported bundle) checked offline.
// GUI-free.
//
// It holds when: the chain's every hash holds; the chain and the rows agree both ways
// (TeamChainReplay); every approval and resolution verifies against the keys given
// (verifyApproval, verifyResolution); and every create (a proposal sending, created, unknown or
// not_created, or failed once sent) has the verified approvals team.quorum requires for its price
// (teamRequired), counted as the broker counts them (countQuorum: never the proposer's role, never
// the proposing OS user on the proposing host, one per role, recorded before it was sent) and no
// deny. Every value printed from the history is escaped and bounded (shown()).
#include "core/Policy.h"
#include "team/TeamHistory.h"

#include <QStringList>

namespace fb::team {

struct TeamVerifyReport {
    QStringList creates;  // one line per create: who approved what, with what they saw
    QStringList failures; // each naming its row
    bool ok() const { return failures.isEmpty(); }
};

// Checks history against keys (the approvals' and resolutions' signatures) and policy's
// team.quorum (1 approval when it sets none). Also a failure: a resolution whose proposal is not in
// its outcome's state, and a not_created proposal without a resolution.
TeamVerifyReport verifyHistory(const TeamHistory &history, const QList<ApproverKey> &keys,
                               const Policy &policy = {});

} // namespace fb::team
