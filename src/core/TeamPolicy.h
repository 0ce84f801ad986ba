#pragma once
// The team mode's policy keys (docs/team.md, docs/policy.md): `team.database`, the libpq URI of
// the shared database, and `team.quorum`, how many distinct approvers a change needs by its
// monthly price, and `team.approver_keys`, whose signed approvals count. Pure functions;
// core/Policy parses each key once through these and holds the typed values.
#include "core/Money.h"

#include <QJsonArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace fb {

struct Policy;

// One rule of team.quorum: {"above_monthly": {"amount": 500, "currency": "USD"}, "approvals": 2}.
struct QuorumRule {
    Money aboveMonthly;
    int approvals = 1;
    bool operator==(const QuorumRule &) const = default;
};

// team.quorum: a JSON array of rules. A priced change needs the largest `approvals` of every rule
// it is above (a price in another currency than a rule's cannot be compared, so it counts as
// above it), and at least one. An unpriced change counts as above every threshold, unless the
// array holds {"unpriced": true, "approvals": n}, which then decides for unpriced changes alone.
struct TeamQuorum {
    static constexpr int MaxApprovals = 16;
    static constexpr int MaxRules = 32;

    QList<QuorumRule> rules;
    std::optional<int> unpriced; // {"unpriced": true, "approvals": n}

    // The approvals a change of this monthly price (nullopt: unpriced) needs; at least 1.
    int required(const std::optional<Money> &monthly) const;
    QJsonArray toJson() const;
    // Parses the key's value; nullopt with an error naming key when it is not a valid array.
    static std::optional<TeamQuorum> parse(const QJsonValue &value, const QString &key,
                                           QStringList *errors);
    // The stricter of both for every price: the rules of both, and for unpriced changes the
    // larger of what each alone would require.
    static TeamQuorum merged(const TeamQuorum &a, const TeamQuorum &b);
    bool operator==(const TeamQuorum &) const = default;
};

// team.quorum's count for a change with this price context (the rate-card object a proposal
// carries, {"priced": ..., "monthly_recurring": ..., "currency": ...}; empty when unpriced): 1
// without the key. The broker's confirm and `team verify` both count with it.
int teamRequired(const Policy &policy, const QJsonObject &priceContext);

// One entry of team.approver_keys: {"role": "alice", "fingerprint": "SHA256:...", "public_key":
// "<base64 of the raw 32-byte Ed25519 key>"} (docs/team-signing.md). The public key
// itself is in the policy so that anyone can verify offline; the fingerprint is what a person
// compares with `fabric-broker team key` on the approver's workstation, and must be the key's.
struct ApproverKey {
    static constexpr int MaxKeys = 256;

    QString role;
    QString fingerprint;  // "SHA256:" + unpadded base64 of the SHA-256 of the raw key
    QByteArray publicKey; // the raw 32 bytes
    QJsonObject toJson() const;
    // The key's value; nullopt with errors naming key when it is not a valid array.
    static std::optional<QList<ApproverKey>> parse(const QJsonValue &value, const QString &key,
                                                   QStringList *errors);
    static QJsonArray toJson(const QList<ApproverKey> &keys);
    // OpenSSH's fingerprint of a raw public key: "SHA256:" + the unpadded base64 of its SHA-256.
    static QString fingerprintOf(const QByteArray &publicKey);
    // A user's file may only remove trust: the administrator's entries that the user's list too.
    static QList<ApproverKey> merged(const QList<ApproverKey> &admin,
                                     const QList<ApproverKey> &user);
    bool operator==(const ApproverKey &) const = default;
};

// Why uri cannot be team.database (empty when it can): a postgresql:// or postgres:// URI of at
// most 2048 bytes, without a password in it (keep that in ~/.pgpass or use peer or certificate
// authentication: a saved setting and a policy file are no place for a secret).
QString teamDatabaseUriError(const QString &uri);

} // namespace fb
