#pragma once
// What an approver's app decides on, below the GUI (issues #34, #40; docs/team-signing.md): from
// one proposal row as read, the request SHA-256 it shows (computed here from the body it shows:
// change type, "\n", body, the same value the agent sees as request_sha256), whether the row may
// be shown at all (its stored body hash must be its body's), where the create goes (the binding:
// Fabric endpoint, credentials, sandbox or production), the SHA-256 of the text shown, and the
// signed statement of a decision or a resolution on it, and how it was signed (or why not). The
// Team approvals dialog only renders and reports; DecisionRecorder records what is decided here.
// Pure and GUI-free.
#include "team/ApprovalVerify.h"
#include "team/TeamQueue.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace fb::team {

// Hex SHA-256 of the row's change type, "\n" and request body (core's requestSha256: what the
// proposing broker's result calls request_sha256); empty for a change type this app does not
// know.
QByteArray requestSha256Shown(const TeamProposal &p);

// Hex SHA-256 of the request body alone: what the row's request_sha256 column holds. Shown, if
// ever, as "Body SHA-256", never under the request's name.
QByteArray bodySha256(const TeamProposal &p);

// Why the row is not shown to decide on, empty when it may be: its change type is unknown, or
// its stored request_sha256 (the body's) is not the SHA-256 of the body it carries (someone
// changed one without the other).
QString refusalOf(const TeamProposal &p);

// Where the create goes: the row's binding.
struct FabricTarget {
    QString endpoint; // the Fabric endpoint (empty: the row names none)
    QString identity; // whose credentials ("client id ...", "static token sha256:...")
    // A loopback endpoint (the embedded sandbox, on the proposing workstation): nothing billed.
    // Anything else, an empty endpoint included, is production: billable.
    bool sandbox = false;
};
FabricTarget fabricTargetOf(const TeamProposal &p);

// The SHA-256 (32 raw bytes) of the exact text shown, as UTF-8: the row's dialog_sha256.
QByteArray shownTextSha256(const QString &shown);

// The signed statement of role's decision on p, its dialog having shown exactly shown: nullopt
// when the row is refused (refusalOf), or privateKey is not an Ed25519 key.
std::optional<SignedDecision> signShownDecision(const TeamProposal &p, const QString &decision,
                                                const QString &shown, const QString &role,
                                                const QByteArray &privateKey, qint64 nowMs);

// Whether p is an unknown outcome still waiting for a person other than the proposer to mark it.
bool awaitsResolution(const TeamProposal &p);
// Whether p may be approved or denied: it is shown (refusalOf is empty) and still pending or
// consumed.
bool openToDecision(const TeamProposal &p);

// How a decision or resolution is signed: the statement, its signature and key, or why not.
struct DecisionSigning {
    enum class Status {
        Signed,
        NoKey,        // no private key: keyError says why (the key loader's words)
        NotEd25519,   // the key did not sign (not an Ed25519 key, or no valid statement)
        SignerFailed, // a signer (an ssh-agent's key) made no signature: keyError says why
    };
    Status status = Status::NoKey;
    QString keyError;
    std::optional<TeamQueue::Signature> signature; // when Signed

    // The signing key's fingerprint (ApprovalKeys::fingerprint) when Signed, else empty.
    QString fingerprint() const;
};

// role's decision on p, its dialog having shown exactly shown (signShownDecision), signed with
// privateKey when there is one (else NoKey with keyError).
DecisionSigning decisionSigning(const TeamProposal &p, const QString &decision,
                                const QString &shown, const QString &role,
                                const QByteArray &privateKey, const QString &keyError,
                                qint64 nowMs);
// The same decision signed by signer (ApprovalVerify's StatementSigner: the keychain's key or an
// ssh-agent's): Signed, or SignerFailed with the reason in keyError (the signer's words, a
// signature that does not verify, a row that is not shown).
DecisionSigning decisionSigningWith(const TeamProposal &p, const QString &decision,
                                    const QString &shown, const QString &role,
                                    const StatementSigner &signer, qint64 nowMs);
// role's resolution of p's unknown outcome (outcome created with uuid, or not_created), its dialog
// having shown exactly shown, the catalog lookup included (ApprovalVerify's signResolution).
DecisionSigning resolutionSigning(const TeamProposal &p, const QString &outcome,
                                  const QString &uuid, const QString &shown, const QString &role,
                                  const QByteArray &privateKey, const QString &keyError,
                                  qint64 nowMs);
// The same resolution signed by signer (as decisionSigningWith).
DecisionSigning resolutionSigningWith(const TeamProposal &p, const QString &outcome,
                                      const QString &uuid, const QString &shown,
                                      const QString &role, const StatementSigner &signer,
                                      qint64 nowMs);

} // namespace fb::team
