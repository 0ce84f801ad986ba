#pragma once
// TerminalApproval: what `fabric-broker team pending`, `show`, `approve` and `deny` decide on,
// below the command line (issue #37, docs/team.md "From a terminal"): which key signs (the
// keychain's or one an ssh-agent holds, never a key file), whether the policy lists it for this
// role, which proposal an id names, what one line of `team pending` says, and whether what a
// person typed confirms a decision: the first characters of the Request SHA-256 the text shows,
// never a bare "y". The terminal itself (/dev/tty) is the command line's; the text shown is
// team/DecisionText's, the dialog's. Pure and GUI-free.
#include "core/TeamPolicy.h"
#include "team/SshAgent.h"
#include "team/TeamQueueRows.h"

#include <QList>
#include <QString>
#include <optional>

namespace fb::team::terminal {

// How many hex characters of the Request SHA-256 a person types to confirm.
inline constexpr int ConfirmHexChars = 8;
// The longest line read as an answer (a whole SHA-256 and some space fit).
inline constexpr int MaxAnswerChars = 256;

// Whether typed (one line from the terminal) confirms a decision on a proposal whose Request
// SHA-256 (hex, as the text shows it) is requestSha256: the first ConfirmHexChars characters of
// it or more, a prefix of it, case-insensitive, surrounding blanks ignored. Otherwise why not,
// said to the person: nothing typed, a yes-word ("y", "yes", "ok", ... : never a confirmation),
// too short, or not the hash shown.
struct TypedAnswer {
    bool confirmed = false;
    QString why; // empty when confirmed
};
TypedAnswer checkTyped(const QString &typed, const QString &requestSha256);

// --key: "keychain" (this operator's key in the OS keychain, as the desktop app signs) or
// "ssh-agent" / "ssh-agent:FINGERPRINT" (a key the agent on SSH_AUTH_SOCK holds; FINGERPRINT is
// either the policy's or OpenSSH's). Anything else is refused: a key file is never read.
struct KeySpec {
    enum class Kind { Keychain, SshAgent };
    Kind kind = Kind::Keychain;
    QString fingerprint; // ssh-agent:FINGERPRINT, empty without
};
std::optional<KeySpec> parseKeySpec(const QString &text, QString *why);

// The agent's key that signs for role: the one whose fingerprint (the policy's or OpenSSH's) is
// wanted; without wanted, the agent's only Ed25519 key, or among several the only one the policy
// lists for role. Otherwise nullopt with why (naming the agent's keys, both fingerprints).
std::optional<SshAgent::Identity> chooseAgentKey(const QList<SshAgent::Identity> &keys,
                                                 const QString &wanted, const QString &role,
                                                 const std::optional<QList<ApproverKey>> &policy,
                                                 QString *why);

// Why an approval by role signed with publicKey would not count under policy (this machine's
// team.approver_keys), empty when the policy lists the key for role. Said before the person
// confirms; the proposing broker decides with its own policy (ApprovalVerify).
QString unlistedReason(const QByteArray &publicKey, const QString &role,
                       const std::optional<QList<ApproverKey>> &policy);

// The proposal of list whose id is idOrPrefix: the whole uuid, or a prefix of at least
// ConfirmHexChars characters that names one proposal only (case-insensitive). nullopt with why.
std::optional<TeamProposal> findProposal(const QList<TeamProposal> &list, const QString &idOrPrefix,
                                         QString *why);

// One line of `team pending`: the id, the dialog's summary (change type, proposer, price,
// state), the expiry, and the approvals that count under this machine's policy (count) of those
// its quorum requires; the role's own proposal says that only a deny of it counts.
QString pendingLine(const TeamProposal &p, const QuorumCount &count, const QString &ownRole);

} // namespace fb::team::terminal
