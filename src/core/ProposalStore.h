#pragma once
// ProposalStore: the in-memory, single-process, TTL-bounded, single-use store of pending
// proposals, keyed by confirm token. It mints tokens, evicts the oldest beyond capacity, sweeps
// expired entries, and keeps bounded tombstones so unknown, evicted, expired and previously used
// tokens stay distinguishable for at least 2 x TTL.
#include "core/ChangeType.h"
#include "core/Clock.h"

#include <QHash>
#include <QJsonObject>
#include <QMutex>
#include <QObject>
#include <QTimer>
#include <optional>

namespace fb {

struct Proposal {
    QString token; // "chg-" + 32 lowercase hex digits
    ChangeType changeType = ChangeType::ConnectionCreate;
    QJsonObject spec;      // the exact spec the dry run validated; confirm recompiles this
    QString requestSha256; // binding of the compiled request
    QString target;        // one-line summary: request identifiers + Fabric's names (ProposalView)
    qint64 proposedAtMs = 0;
    qint64 expiresAtMs = 0;
    quint64 sequence = 0; // insertion order, for eviction
    // Broker-owned context shown to people and logs: price, validated entity, client identity.
    QJsonObject context;
    // Where the dry run went and as whom: part of the binding, checked again at confirm.
    QString fabricEndpoint;     // e.g. "https://api.equinix.com"
    QString credentialIdentity; // "client id <id>", "static token sha256:<16 hex>" or "none"
    // Set by the store when the proposal is evicted: why ("more than 20 proposals were
    // pending", or the reason given to evictAll()).
    QString evictedBecause;
};

// The five redemption predicates, in the seed's order. nullopt = not evaluated.
struct ConfirmChecks {
    std::optional<bool> proposalExists;
    std::optional<bool> notEvicted;
    std::optional<bool> notExpired;
    std::optional<bool> notPreviouslyUsed;
    std::optional<bool> requestMatchesBinding;

    // {"proposal_exists": true, ..., "request_matches_binding": null}
    QJsonObject toJson() const;
    // Name of the first predicate that failed, or empty when none did.
    QString firstFailure() const;
    bool allPassed() const;
};

enum class ConsumeOutcome { Consumed, Unknown, Evicted, Expired, PreviouslyUsed };
QString consumeOutcomeName(ConsumeOutcome outcome);

struct ConsumeResult {
    ConsumeOutcome outcome = ConsumeOutcome::Unknown;
    ConfirmChecks checks;             // first four predicates; the broker evaluates the fifth
    std::optional<Proposal> proposal; // set when the proposal was known (even if refused)
    bool ok() const { return outcome == ConsumeOutcome::Consumed; }
};

struct AddResult {
    Proposal proposal;
    QList<Proposal> evicted; // oldest first
};

class ProposalStore : public QObject {
    Q_OBJECT
public:
    static constexpr qint64 DefaultTtlMs = 10 * 60 * 1000;
    static constexpr int DefaultMaxPending = 20;
    static constexpr int MaxTombstones = 4096;

    explicit ProposalStore(Clock *clock = Clock::system(), QObject *parent = nullptr);

    void setTtlMs(qint64 ttlMs);
    qint64 ttlMs() const;
    void setMaxPending(int maxPending);
    int maxPending() const;

    // Mints a token for the proposal (token, timestamps and sequence are filled in here),
    // sweeping expired entries first so an expired proposal never pushes out a live one.
    AddResult add(Proposal proposal);
    // Atomic and single-use: the first attempt consumes the token whatever follows.
    ConsumeResult consume(const QString &token);
    // Read without consuming (for the GUI and fabric_list_proposals).
    std::optional<Proposal> peek(const QString &token) const;
    QList<Proposal> pending() const; // oldest first, expired ones swept
    int pendingCount() const;
    // Moves expired proposals to tombstones and emits proposalExpired for each.
    void sweep();
    // Evicts every pending proposal (tombstoned as evicted, so a later confirm reports
    // not_evicted = false), emits proposalEvicted for each, and returns them oldest first.
    // For when what they were bound to changes (another Fabric endpoint or credentials).
    QList<Proposal> evictAll(const QString &reason);

    static QString mintToken();
    static bool looksLikeToken(QStringView token);

signals:
    void proposalAdded(const fb::Proposal &proposal);
    void proposalConsumed(const fb::Proposal &proposal);
    void proposalEvicted(const fb::Proposal &proposal);
    void proposalExpired(const fb::Proposal &proposal);

private:
    enum class TombstoneReason { Evicted, Expired, Used };
    struct Tombstone {
        TombstoneReason reason;
        Proposal proposal;
        qint64 buriedAtMs;
    };
    QList<Proposal> sweepLocked(qint64 now);
    void buryLocked(const Proposal &p, TombstoneReason reason, qint64 now);
    void pruneTombstonesLocked(qint64 now);
    void scheduleSweep();

    Clock *m_clock;
    mutable QMutex m_mutex;
    qint64 m_ttlMs = DefaultTtlMs;
    int m_maxPending = DefaultMaxPending;
    quint64 m_nextSequence = 1;
    QHash<QString, Proposal> m_pending;
    QHash<QString, Tombstone> m_tombstones;
    QList<QString> m_tombstoneOrder;
    QTimer m_sweepTimer;
};

} // namespace fb

Q_DECLARE_METATYPE(fb::Proposal)
