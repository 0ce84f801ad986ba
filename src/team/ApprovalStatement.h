#pragma once
// ApprovalStatement: what an operator signs when deciding on a team proposal (issue #26,
// docs/team-signing.md). One JSON object, stored and signed in its RFC 8785 canonical
// form (core/CanonicalJson), with exactly these members:
//   format          "fabric-broker approval 1"
//   proposal_id     the proposal's uuid, lower-case text
//   change_type     connection_create | network_create | service_token_create
//   request_sha256  hex SHA-256 of the canonical request body (the proposal's request_sha256)
//   dry_run_sha256  hex SHA-256 of the canonical form of Fabric's dry-run response
//   dialog_sha256   hex SHA-256 of the exact text the approver's dialog showed
//   decision        approve | deny
//   approver        the approver's database role
//   decided_at      UTC "YYYY-MM-DDTHH:MM:SS.mmmZ"
//   expires_at      the proposal's expiry, same form
// GUI-free and pure.
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace fb::team {

struct ApprovalStatement {
    static constexpr const char *Format = "fabric-broker approval 1";
    static constexpr int MaxBytes = 2048;

    QByteArray proposalId;
    QString changeType;
    QByteArray requestSha256; // 64 lower-case hex digits, as are the two below
    QByteArray dryRunSha256;
    QByteArray dialogSha256;
    QString decision;
    QString approver;
    qint64 decidedMs = 0; // ms since the epoch, UTC
    qint64 expiresMs = 0;

    QJsonObject toJson() const;
    // The RFC 8785 bytes: what is stored, hashed and signed.
    QByteArray canonical() const;
    // Strict: at most MaxBytes, exactly the members above with their types and forms, and the
    // text must be its own canonical form (so one statement has one encoding). nullopt with the
    // reason otherwise.
    static std::optional<ApprovalStatement> parse(const QByteArray &text, QString *error);
    bool operator==(const ApprovalStatement &) const = default;
};

// The one time form of statements: UTC "YYYY-MM-DDTHH:MM:SS.mmmZ" (also ResolutionStatement's).
QString statementTime(qint64 ms);
// Its inverse, strict: nullopt for any other text (no 24:00, no leap second, no other zone).
std::optional<qint64> statementTimeFromText(const QString &text);

// The hex SHA-256 of the canonical form of a JSON text (what dry_run_sha256 holds for Fabric's
// dry-run response); empty when the text is not strict JSON.
QByteArray canonicalJsonSha256Hex(const QByteArray &json);

} // namespace fb::team
