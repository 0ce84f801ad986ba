#pragma once
// ResolutionStatement: what an approver signs when resolving a create whose outcome is `unknown`
// (issue #26, requirement 5; docs/team-signing.md). One JSON object, stored and signed in its
// RFC 8785 canonical form (core/CanonicalJson), with exactly these members, all strings:
//   format          "fabric-broker resolution 1"
//   proposal_id     the proposal's uuid, lower-case text
//   change_type     connection_create | network_create | service_token_create
//   request_sha256  hex SHA-256 of the canonical request body (the proposal's request_sha256)
//   outcome         created | not_created
//   uuid            the Fabric uuid found (lower case) for created, "" for not_created
//   dialog_sha256   hex SHA-256 of the exact text the resolver's dialog showed (the catalog
//                   lookup's result included)
//   resolver        the resolver's database role
//   decided_at      UTC "YYYY-MM-DDTHH:MM:SS.mmmZ" (the approvals' form)
// GUI-free and pure.
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace fb::team {

struct ResolutionStatement {
    static constexpr const char *Format = "fabric-broker resolution 1";
    static constexpr int MaxBytes = 2048;

    QByteArray proposalId;
    QString changeType;
    QByteArray requestSha256; // 64 lower-case hex digits, as is dialogSha256
    QString outcome;          // created | not_created
    QString uuid;             // lower-case uuid for created, empty for not_created
    QByteArray dialogSha256;
    QString resolver;
    qint64 decidedMs = 0; // ms since the epoch, UTC

    QJsonObject toJson() const;
    // The RFC 8785 bytes: what is stored, hashed and signed.
    QByteArray canonical() const;
    // Strict, as ApprovalStatement::parse: at most MaxBytes, exactly the members above with their
    // types and forms (a uuid exactly when the outcome is created), and the text must be its own
    // canonical form. nullopt with the reason otherwise.
    static std::optional<ResolutionStatement> parse(const QByteArray &text, QString *error);
    bool operator==(const ResolutionStatement &) const = default;
};

// Whether text is a Fabric uuid as a resolution records it: 36 characters, lower-case hex.
bool isResolutionUuid(const QString &text);

} // namespace fb::team
