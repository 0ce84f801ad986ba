#pragma once
// Whether one approval row counts, from its signed statement alone (issue #26,
// docs/team-signing.md): pure, GUI-free, no database. The trust anchor is the administrator's
// policy (team.approver_keys), never a key the database holds.
#include "core/TeamPolicy.h"
#include "team/ApprovalStatement.h"
#include "team/ResolutionStatement.h"
#include "team/TeamQueue.h"

#include <QList>
#include <functional>
#include <optional>

namespace fb::team {

// One approval row as stored, with its signature.
struct SignedApproval {
    QString approver;        // the row's role (current_user when it was inserted)
    QString decision;        // the row's decision
    QByteArray dialogSha256; // the row's 32 raw bytes
    QByteArray statement;    // the canonical statement text as stored
    QByteArray signature;    // 64 raw bytes
    QByteArray publicKey;    // the raw key the row says signed it (a hint; the policy decides)
};

struct ApprovalCheck {
    bool counts = false;
    QString reason;      // why it does not count (empty when it counts)
    QString fingerprint; // of the policy key whose signature verified (when one did)
    std::optional<ApprovalStatement> statement;
    // History only: the version 2 members the proposal given could not be checked against,
    // because it does not carry them (a team bundle of format 1 has no token hash, binding or
    // price). Always empty for StatementVersions::CurrentOnly, which checks every member.
    QStringList unchecked;
};

// What an approver's app stores with its decision: the statement of what it showed, signed.
struct SignedDecision {
    QByteArray statement; // canonical
    QByteArray signature; // 64 bytes
    QByteArray publicKey; // 32 bytes
};

// What signs a statement's canonical bytes (issue #37): a private key held in this process (the
// keychain's, keySigner) or an Ed25519 key an ssh-agent holds (SshAgent::signer). Either makes a
// plain Ed25519 signature over exactly the bytes given, so one statement format and one verifier
// serve both; what a signer returns is stored only once it verifies with the key it names.
struct StatementSignature {
    QByteArray signature; // 64 bytes
    QByteArray publicKey; // the raw 32-byte key that made it
    QString error;        // why there is no signature; empty when signed
};
using StatementSigner = std::function<StatementSignature(const QByteArray &statement)>;
// A signer with privateKey (its raw 32 bytes), which it refers to and does not copy: call it only
// while privateKey lives (the key's one copy stays the caller's to wipe).
StatementSigner keySigner(const QByteArray &privateKey);

// The statement (version 2) for role's decision on proposal, its dialog having shown the text
// whose SHA-256 is dialogSha256 (32 raw bytes), at nowMs, signed with privateKey: its
// request_sha256 computed here from the row's body and change type (never the row's column),
// its price, binding, token hash and proposer the row's. nullopt when privateKey is not an
// Ed25519 key or the row is one an approver is not shown (team/ApproverDecision's
// refusalOf: its stored hash is not its body's).
std::optional<SignedDecision> signDecision(const TeamProposal &proposal, const QString &decision,
                                           const QByteArray &dialogSha256, const QString &role,
                                           const QByteArray &privateKey, qint64 nowMs);
// The same statement, signed by signer; nullopt with the reason in *why (the signer's words, or
// that its signature does not verify, or that the row makes no statement) otherwise.
std::optional<SignedDecision> signDecisionWith(const TeamProposal &proposal,
                                               const QString &decision,
                                               const QByteArray &dialogSha256, const QString &role,
                                               const StatementSigner &signer, qint64 nowMs,
                                               QString *why = nullptr);

// Which statement versions verifyApproval accepts: the current one only (what counts toward a
// quorum), or version 1 too (team verify's old history; ApprovalCheck::statement->version says
// which).
enum class StatementVersions { CurrentOnly, WithHistory };

// Counts only when: the statement parses strictly (and is of a version accepted); its signature
// verifies with a key the policy lists for the row's approver role; it names this proposal (not
// another: no replay), the row's role and decision; its change type and expiry are the
// proposal's, its hashes the proposal's dry run and the row's dialog text, and it was made before
// that expiry. Version 2 also: its request_sha256 is the SHA-256 of the proposal's change type and
// body bytes (computed here), its price_sha256 the proposal's price's, its fabric_endpoint and
// credential_identity the proposal's binding, its token_sha256 and proposer the proposal's.
// Version 1: its request_sha256 is the row's column. proposal is the row as the caller knows it
// (the proposing broker: the row it consumed and checked against what it published).
ApprovalCheck verifyApproval(const TeamProposal &proposal, const SignedApproval &approval,
                             const QList<ApproverKey> &policyKeys, StatementVersions accept);
ApprovalCheck verifyApproval(const TeamProposal &proposal, const TeamApproval &approval,
                             const QList<ApproverKey> &policyKeys, StatementVersions accept);
// The same, version 1 accepted: for history (team verify) only, never for a quorum.
ApprovalCheck verifyApproval(const TeamProposal &proposal, const SignedApproval &approval,
                             const QList<ApproverKey> &policyKeys);
ApprovalCheck verifyApproval(const TeamProposal &proposal, const TeamApproval &approval,
                             const QList<ApproverKey> &policyKeys);

// The statement of role's resolution of proposal's unknown outcome (created with the Fabric uuid
// found, which is lower-cased, or not_created with an empty uuid), its dialog having shown the
// text whose SHA-256 is dialogSha256 (32 raw bytes, the catalog lookup's result included), at
// nowMs, signed with privateKey; nullopt when privateKey is not an Ed25519 key or the outcome and
// uuid make no valid statement. TeamQueue::resolve stores it.
std::optional<SignedDecision> signResolution(const TeamProposal &proposal, const QString &outcome,
                                             const QString &uuid, const QByteArray &dialogSha256,
                                             const QString &role, const QByteArray &privateKey,
                                             qint64 nowMs);
// The same statement, signed by signer (as signDecisionWith).
std::optional<SignedDecision> signResolutionWith(const TeamProposal &proposal,
                                                 const QString &outcome, const QString &uuid,
                                                 const QByteArray &dialogSha256,
                                                 const QString &role, const StatementSigner &signer,
                                                 qint64 nowMs, QString *why = nullptr);

// Whether a resolution row holds, as verifyApproval for an approval, checked in this order (the
// first that fails is the reason): it is signed; the statement parses strictly
// (ResolutionStatement); its signature verifies with a key the policy lists for the row's
// resolver role; it names this proposal (no replay), the row's resolver, outcome and uuid; the
// resolver is not the proposal's proposer; its change type and request_sha256 are the
// proposal's and its dialog_sha256 the row's. ApprovalCheck::statement stays empty.
ApprovalCheck verifyResolution(const TeamProposal &proposal, const TeamResolution &r,
                               const QList<ApproverKey> &policyKeys);

// The quorum (countQuorum) where signatures are required: with policyKeys set (team.approver_keys
// in the effective policy, even an empty list) an approval counts only when verifyApproval says
// so of its current-version statement (a version 1 statement never counts); its reason is listed
// under not_counted (rejected: true). nullopt: approvals need not be signed (team mode without
// signed approvals).
QuorumCount countVerifiedQuorum(const TeamProposal &proposal, const QList<TeamApproval> &approvals,
                                int required, const std::optional<QList<ApproverKey>> &policyKeys);

} // namespace fb::team
