#pragma once
// TeamHistory: what `fabric-broker team verify` checks (docs/team-signing.md), read from the team
// database in one snapshot or from an exported bundle: the proposals, their approvals and
// resolutions, and the whole team audit chain. GUI-free; every text in it is untrusted.
//
// A bundle is JSON lines: {"format": "fabric-broker team bundle 2", "approver_keys": [...],
// "since_ms": <number or null>}, then one {"proposal": {...}}, {"approval": {...}},
// {"resolution": {...}} or {"audit": {...}} object per line. Format 1 (without the proposals'
// prices, OS users, hosts and sent_at) is refused: its creates cannot be counted against the
// quorum.
#include "core/TeamPolicy.h"
#include "team/ApprovalVerify.h"
#include "team/PgConnection.h"
#include "team/TeamQueue.h"

#include <QHash>
#include <QList>
#include <QStringList>
#include <optional>

namespace fb::team {

struct HistoryApproval {
    QByteArray id; // the row's uuid
    QByteArray proposalId;
    SignedApproval row;
    QString osUser, host; // the approver app's own report (they only ever exclude)
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

    QList<TeamProposal> proposals;    // oldest first
    QHash<QByteArray, qint64> sentMs; // proposal id -> sent_at (ms), for those that were sent
    QList<HistoryApproval> approvals;
    QList<HistoryResolution> resolutions; // of those proposals (schema version 5)
    QList<HistoryAuditRow> audit;         // the whole chain, by seq
    QList<ApproverKey> keys;              // in a bundle: the exporter's policy keys
    // --since: the proposals are those created from then on (by the row's created_at or its
    // proposal_created event); chain events of proposals created before are outside it.
    std::optional<qint64> sinceMs;

    // The history (from sinceMs, all when nullopt) in one REPEATABLE READ snapshot; resolutions
    // only on a schema of version 5 or newer.
    static std::optional<TeamHistory> read(PgConnection &db, std::optional<qint64> sinceMs,
                                           QString *error);
    QByteArray toBundle() const;
    // Strict: every line one object of the forms above, nothing else.
    static std::optional<TeamHistory> fromBundle(const QByteArray &bundle, QString *error);
};

// A value from the database or a bundle as printed: every invisible, control or bidi character
// escaped (UntrustedText::escapeInvisible: "\n", "\u202E"), at most 200 code points.
QString shown(const QString &text);
QString shown(const QByteArray &utf8);

} // namespace fb::team
