#pragma once
// `fabric-broker team verify` (issue #26, docs/team-signing.md): the team's history (proposals,
// their approvals and resolutions, the audit chain) read in one snapshot or from an exported
// bundle, and checked offline: the chain's every hash, and every approval's and resolution's
// signed statement against its proposal and the policy's keys (team.approver_keys). GUI-free.
//
// A bundle is JSON lines: {"format": "fabric-broker team bundle 1", "approver_keys": [...]}, then
// one {"proposal": {...}}, {"approval": {...}}, {"resolution": {...}} or {"audit": {...}} object
// per line.
#include "core/TeamPolicy.h"
#include "team/ApprovalVerify.h"
#include "team/PgConnection.h"
#include "team/TeamQueue.h"

#include <QList>
#include <QStringList>
#include <optional>

namespace fb::team {

struct HistoryApproval {
    QByteArray id; // the row's uuid
    QByteArray proposalId;
    SignedApproval row;
};

struct HistoryResolution {
    QByteArray proposalId;
    TeamResolution row; // row.id: the row's uuid
};

struct HistoryAuditRow {
    qint64 seq = 0;
    qint64 atMicros = 0;
    QByteArray actor, event, proposalId, detail;
    QByteArray prevHash, hash; // 32 raw bytes each
};

struct TeamHistory {
    static constexpr qint64 MaxBundleBytes = 512LL * 1024 * 1024;

    QList<TeamProposal> proposals; // oldest first
    QList<HistoryApproval> approvals;
    QList<HistoryResolution> resolutions; // of those proposals (schema version 5)
    QList<HistoryAuditRow> audit;         // the whole chain, by seq
    QList<ApproverKey> keys;              // in a bundle: the exporter's policy keys

    // Proposals created at or after sinceMs (all when nullopt), their approvals and resolutions
    // (none on a schema older than version 5) and the whole audit chain, in one REPEATABLE READ
    // snapshot.
    static std::optional<TeamHistory> read(PgConnection &db, std::optional<qint64> sinceMs,
                                           QString *error);
    QByteArray toBundle() const;
    // Strict: every line one object of the forms above, nothing else.
    static std::optional<TeamHistory> fromBundle(const QByteArray &bundle, QString *error);
};

struct TeamVerifyReport {
    QStringList creates;  // one line per create: who approved what, with what they saw
    QStringList failures; // each naming its row
    bool ok() const { return failures.isEmpty(); }
};

// Checks the audit rows' chain (from seq 1, each prev_hash and hash), every approval with
// verifyApproval and every resolution with verifyResolution against keys; an approval or a
// resolution that does not verify is a failure, as is a resolution whose proposal is not in its
// outcome's state and a not_created proposal without a resolution.
TeamVerifyReport verifyHistory(const TeamHistory &history, const QList<ApproverKey> &keys);

} // namespace fb::team
