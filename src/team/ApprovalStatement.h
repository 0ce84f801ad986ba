#pragma once
// ApprovalStatement: what an operator signs when deciding on a team proposal (issues #26, #34;
// docs/team-signing.md). One JSON object, stored and signed in its RFC 8785 canonical
// form (core/CanonicalJson), with exactly these members, all strings:
//   format               "fabric-broker approval 2" (version 1: the old history, below)
//   proposal_id          the proposal's uuid, lower-case text
//   change_type          connection_create | network_create | service_token_create
//   request_sha256       hex SHA-256 of change type, "\n" and the request body, computed by the
//                        signer's app from the body it showed (the agent's request_sha256)
//   dry_run_sha256       hex SHA-256 of the canonical form of Fabric's dry-run response
//   price_sha256         hex SHA-256 of the RFC 8785 form of the price (`null`: unpriced)
//   fabric_endpoint      the binding: the Fabric endpoint the create goes to
//   credential_identity  the binding: whose Fabric credentials send it
//   token_sha256         hex SHA-256 of the proposal's token (the row's token_sha256)
//   proposer             the proposer's database role
//   dialog_sha256        hex SHA-256 of the exact text the approver's dialog showed
//   decision             approve | deny
//   approver             the approver's database role
//   decided_at           UTC "YYYY-MM-DDTHH:MM:SS.mmmZ"
//   expires_at           the proposal's expiry, same form (the database's value rounded to the
//                        nearest millisecond, as TeamQueue reads it: statementExpiryMs)
// Version 1 ("fabric-broker approval 1") has only format, proposal_id, change_type,
// request_sha256 (then the body's alone, the row's column), dry_run_sha256, dialog_sha256,
// decision, approver, decided_at and expires_at; it is parsed for old history only and never
// counts toward a quorum (ApprovalVerify). GUI-free and pure.
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

namespace fb::team {

struct ApprovalStatement {
    static constexpr const char *Format = "fabric-broker approval 2";
    static constexpr const char *FormatV1 = "fabric-broker approval 1";
    static constexpr int MaxBytes = 2048;

    int version = 2; // 1: an old statement, parsed for history only
    QByteArray proposalId;
    QString changeType;
    QByteArray requestSha256; // 64 lower-case hex digits, as are the other *Sha256
    QByteArray dryRunSha256;
    QByteArray dialogSha256;
    // Version 2 only (empty in version 1):
    QByteArray priceSha256;
    QString fabricEndpoint;
    QString credentialIdentity;
    QByteArray tokenSha256;
    QString proposer;
    QString decision;
    QString approver;
    qint64 decidedMs = 0; // ms since the epoch, UTC
    qint64 expiresMs = 0;

    QJsonObject toJson() const;
    // The RFC 8785 bytes: what is stored, hashed and signed.
    QByteArray canonical() const;
    // Strict: at most MaxBytes, exactly the members of its version with their types and forms,
    // and the text must be its own canonical form (so one statement has one encoding). nullopt
    // with the reason otherwise.
    static std::optional<ApprovalStatement> parse(const QByteArray &text, QString *error);
    bool operator==(const ApprovalStatement &) const = default;
};

// The strict checks both signed statements share (this and ResolutionStatement): one parser.
namespace statementcheck {
// At most maxBytes, strict JSON, in its own RFC 8785 form, an object with exactly the members
// membersOf names for it (sorted, as QJsonObject's keys are), each a string of at most 256
// bytes. nullopt with the reason otherwise.
std::optional<QJsonObject>
parseObject(const QByteArray &text, int maxBytes,
            const std::function<const QStringList &(const QJsonObject &)> &membersOf,
            QString *error);
// Sets *error (when given) to why; for `return refuse(error, why);`.
std::nullopt_t refuse(QString *error, const QString &why);
bool isRoleName(const QString &s);  // 1 to 63 bytes, no control characters
bool isHex64(const QString &s);     // 64 lower-case hex digits, nothing after them
bool isLowerUuid(const QString &s); // a lower-case uuid, nothing after it
} // namespace statementcheck

// The one time form of statements: UTC "YYYY-MM-DDTHH:MM:SS.mmmZ" (also ResolutionStatement's).
QString statementTime(qint64 ms);
// Its inverse, strict: nullopt for any other text (no 24:00, no leap second, no other zone).
std::optional<qint64> statementTimeFromText(const QString &text);

// The expiry a statement holds for a timestamptz given in microseconds since the epoch: rounded
// to the nearest millisecond, exactly 500 µs rounded up (away from zero), as PostgreSQL's
// `(extract(epoch FROM expires_at) * 1000)::bigint`, which TeamQueue reads, does.
qint64 statementExpiryMs(qint64 microseconds);

// The hex SHA-256 of the RFC 8785 form of a price (the row's `price`); nullopt (unpriced) is the
// hash of `null`.
QByteArray priceSha256Hex(const std::optional<QJsonObject> &price);

// The hex SHA-256 of the canonical form of a JSON text (what dry_run_sha256 holds for Fabric's
// dry-run response); empty when the text is not strict JSON.
QByteArray canonicalJsonSha256Hex(const QByteArray &json);

} // namespace fb::team
