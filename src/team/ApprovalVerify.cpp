#include "team/ApprovalVerify.h"

#include "core/CompiledRequest.h"
#include "team/ApprovalKeys.h"
#include "team/ApproverDecision.h"

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

// statement (canonical) signed by signer, with the public key; nullopt with the reason in *why
// when the signer gave no signature or one that does not verify with the key it names.
std::optional<SignedDecision> signCanonical(const QByteArray &statement,
                                            const StatementSigner &signer, QString *why)
{
    const StatementSignature s =
        signer ? signer(statement) : StatementSignature{{}, {}, u"there is no signer"_s};
    if (!s.error.isEmpty()) {
        if (why)
            *why = s.error;
        return std::nullopt;
    }
    if (!ApprovalKeys::verify(s.publicKey, statement, s.signature)) {
        if (why)
            *why = u"the signature does not verify with the key that made it"_s;
        return std::nullopt;
    }
    return SignedDecision{statement, s.signature, s.publicKey};
}

// The policy key listed for role that verifies signature over statement: its fingerprint, or
// empty with the reason in *why.
QString listedKeyThatVerifies(const QList<ApproverKey> &policyKeys, const QString &role,
                              const QByteArray &statement, const QByteArray &signature,
                              const QByteArray &publicKeyHint, QString *why)
{
    QList<ApproverKey> listed;
    for (const ApproverKey &k : policyKeys)
        if (k.role == role)
            listed.append(k);
    for (const ApproverKey &k : listed)
        if (ApprovalKeys::verify(k.publicKey, statement, signature))
            return k.fingerprint;
    if (ApprovalKeys::verify(publicKeyHint, statement, signature))
        *why = u"signed with key %1, which the policy (team.approver_keys) does not list for role "
               "%2"_s.arg(ApprovalKeys::fingerprint(publicKeyHint), role);
    else if (listed.isEmpty())
        *why = u"the policy (team.approver_keys) lists no key for role %1"_s.arg(role);
    else
        *why = u"the signature is invalid for every key the policy lists for role %1"_s.arg(role);
    return {};
}

// The verifiers' way out: no(why) marks c as not counting, for why, and returns it.
auto refusing(ApprovalCheck &c)
{
    return [&c](const QString &why) {
        c.counts = false;
        c.reason = why;
        return c;
    };
}

} // namespace

StatementSigner keySigner(const QByteArray &privateKey)
{
    return [&privateKey](const QByteArray &statement) {
        const auto signature = ApprovalKeys::sign(privateKey, statement);
        const auto publicKey = ApprovalKeys::publicKeyOf(privateKey);
        if (!signature || !publicKey)
            return StatementSignature{{}, {}, u"the approval key is not an Ed25519 key"_s};
        return StatementSignature{*signature, *publicKey, {}};
    };
}

std::optional<SignedDecision> signDecision(const TeamProposal &proposal, const QString &decision,
                                           const QByteArray &dialogSha256, const QString &role,
                                           const QByteArray &privateKey, qint64 nowMs)
{
    return signDecisionWith(proposal, decision, dialogSha256, role, keySigner(privateKey), nowMs);
}

std::optional<SignedDecision> signDecisionWith(const TeamProposal &proposal,
                                               const QString &decision,
                                               const QByteArray &dialogSha256, const QString &role,
                                               const StatementSigner &signer, qint64 nowMs,
                                               QString *why)
{
    if (const QString refused = refusalOf(proposal); !refused.isEmpty()) {
        if (why)
            *why = u"the proposal is not shown: "_s + refused;
        return std::nullopt;
    }
    ApprovalStatement s;
    s.proposalId = proposal.id;
    s.changeType = proposal.changeType;
    s.requestSha256 = requestSha256Shown(proposal); // from the body shown, never the column
    s.dryRunSha256 = canonicalJsonSha256Hex(proposal.dryRun);
    s.priceSha256 = priceSha256Hex(proposal.price);
    const FabricTarget target = fabricTargetOf(proposal);
    s.fabricEndpoint = target.endpoint;
    s.credentialIdentity = target.identity;
    s.tokenSha256 = proposal.tokenSha256.toLower();
    s.proposer = proposal.proposer;
    s.dialogSha256 = dialogSha256.toHex();
    s.decision = decision;
    s.approver = role;
    s.decidedMs = nowMs;
    s.expiresMs = proposal.expiresMs;
    const QByteArray statement = s.canonical();
    QString invalid;
    if (!ApprovalStatement::parse(statement, &invalid)) {
        if (why) // e.g. a binding too long to sign
            *why = u"the proposal makes no valid statement: "_s + invalid;
        return std::nullopt;
    }
    return signCanonical(statement, signer, why);
}

ApprovalCheck verifyApproval(const TeamProposal &proposal, const SignedApproval &approval,
                             const QList<ApproverKey> &policyKeys, StatementVersions accept)
{
    ApprovalCheck c;
    const auto no = refusing(c);
    if (approval.statement.isEmpty() || approval.signature.isEmpty())
        return no(u"the approval is not signed"_s);
    QString why;
    c.statement = ApprovalStatement::parse(approval.statement, &why);
    if (!c.statement)
        return no(u"the statement is invalid: %1"_s.arg(why));
    if (c.statement->version != 2 && accept == StatementVersions::CurrentOnly)
        return no(u"the statement is of version %1 (\"%2\"), which binds neither the body shown "
                  "nor the price or binding: only \"%3\" counts"_s.arg(c.statement->version)
                      .arg(QLatin1StringView(ApprovalStatement::FormatV1),
                           QLatin1StringView(ApprovalStatement::Format)));
    c.fingerprint = listedKeyThatVerifies(policyKeys, approval.approver, approval.statement,
                                          approval.signature, approval.publicKey, &why);
    if (c.fingerprint.isEmpty())
        return no(why);
    const ApprovalStatement &s = *c.statement;
    if (s.proposalId != proposal.id)
        return no(u"the statement is for another proposal (%1): a replayed signature"_s.arg(
            QString::fromLatin1(s.proposalId)));
    if (s.approver != approval.approver)
        return no(u"the statement is signed as role %1 but the row is %2's"_s.arg(
            s.approver, approval.approver));
    if (s.decision != approval.decision)
        return no(
            u"the statement says %1 but the row says %2"_s.arg(s.decision, approval.decision));
    if (s.changeType != proposal.changeType)
        return no(u"the statement's change type %1 is not the proposal's %2"_s.arg(
            s.changeType, proposal.changeType));
    if (s.version == 1 && s.requestSha256 != proposal.requestSha256.toLower())
        return no(u"the statement's request_sha256 is not the proposal's request"_s);
    if (s.version == 2 && s.requestSha256 != requestSha256Shown(proposal))
        return no(u"the statement's request_sha256 is not the SHA-256 of the proposal's change "
                  "type and request body"_s);
    if (s.dryRunSha256 != canonicalJsonSha256Hex(proposal.dryRun))
        return no(u"the statement's dry_run_sha256 is not the proposal's dry-run response"_s);
    // A proposal without its token hash (never so in the database: a bundle of format 1, which
    // carries no token hash, binding or price) leaves those three unchecked, in history only.
    const bool partial = accept == StatementVersions::WithHistory && proposal.tokenSha256.isEmpty();
    if (s.version == 2 && partial)
        c.unchecked = {u"price_sha256"_s, u"fabric_endpoint"_s, u"credential_identity"_s,
                       u"token_sha256"_s};
    if (s.version == 2 && !partial) {
        if (s.priceSha256 != priceSha256Hex(proposal.price))
            return no(u"the statement's price_sha256 is not the proposal's price"_s);
        const FabricTarget target = fabricTargetOf(proposal);
        if (s.fabricEndpoint != target.endpoint || s.credentialIdentity != target.identity)
            return no(u"the statement's fabric_endpoint or credential_identity is not the "
                      "proposal's binding"_s);
        if (s.tokenSha256 != proposal.tokenSha256.toLower())
            return no(u"the statement's token_sha256 is not the proposal's token"_s);
    }
    if (s.version == 2 && s.proposer != proposal.proposer)
        return no(u"the statement's proposer %1 is not the proposal's %2"_s.arg(s.proposer,
                                                                                proposal.proposer));
    if (s.dialogSha256 != approval.dialogSha256.toHex())
        return no(u"the statement's dialog_sha256 is not the row's dialog text"_s);
    if (s.expiresMs != proposal.expiresMs)
        return no(u"the statement's expires_at is not the proposal's"_s);
    if (s.decidedMs >= s.expiresMs)
        return no(u"the statement was made after the proposal expired"_s);
    c.counts = true;
    return c;
}

ApprovalCheck verifyApproval(const TeamProposal &proposal, const TeamApproval &approval,
                             const QList<ApproverKey> &policyKeys, StatementVersions accept)
{
    return verifyApproval(proposal,
                          SignedApproval{approval.approver, approval.decision,
                                         approval.dialogSha256, approval.statement,
                                         approval.signature, approval.publicKey},
                          policyKeys, accept);
}

ApprovalCheck verifyApproval(const TeamProposal &proposal, const SignedApproval &approval,
                             const QList<ApproverKey> &policyKeys)
{
    return verifyApproval(proposal, approval, policyKeys, StatementVersions::WithHistory);
}

ApprovalCheck verifyApproval(const TeamProposal &proposal, const TeamApproval &approval,
                             const QList<ApproverKey> &policyKeys)
{
    return verifyApproval(proposal, approval, policyKeys, StatementVersions::WithHistory);
}

std::optional<SignedDecision> signResolution(const TeamProposal &proposal, const QString &outcome,
                                             const QString &uuid, const QByteArray &dialogSha256,
                                             const QString &role, const QByteArray &privateKey,
                                             qint64 nowMs)
{
    return signResolutionWith(proposal, outcome, uuid, dialogSha256, role, keySigner(privateKey),
                              nowMs);
}

std::optional<SignedDecision> signResolutionWith(const TeamProposal &proposal,
                                                 const QString &outcome, const QString &uuid,
                                                 const QByteArray &dialogSha256,
                                                 const QString &role, const StatementSigner &signer,
                                                 qint64 nowMs, QString *why)
{
    ResolutionStatement s;
    s.proposalId = proposal.id;
    s.changeType = proposal.changeType;
    s.requestSha256 = proposal.requestSha256.toLower();
    s.outcome = outcome;
    s.uuid = uuid.toLower();
    s.dialogSha256 = dialogSha256.toHex();
    s.resolver = role;
    s.decidedMs = nowMs;
    const QByteArray statement = s.canonical();
    QString invalid;
    if (!ResolutionStatement::parse(statement, &invalid)) {
        if (why)
            *why = u"the outcome makes no valid statement: "_s + invalid;
        return std::nullopt;
    }
    return signCanonical(statement, signer, why);
}

ApprovalCheck verifyResolution(const TeamProposal &proposal, const TeamResolution &r,
                               const QList<ApproverKey> &policyKeys)
{
    ApprovalCheck c;
    const auto no = refusing(c);
    if (r.statement.isEmpty() || r.signature.isEmpty())
        return no(u"the resolution is not signed"_s);
    QString why;
    const auto s = ResolutionStatement::parse(r.statement, &why);
    if (!s)
        return no(u"the statement is invalid: %1"_s.arg(why));
    c.fingerprint =
        listedKeyThatVerifies(policyKeys, r.resolver, r.statement, r.signature, r.publicKey, &why);
    if (c.fingerprint.isEmpty())
        return no(why);
    if (s->proposalId != proposal.id)
        return no(u"the statement is for another proposal (%1): a replayed signature"_s.arg(
            QString::fromLatin1(s->proposalId)));
    if (s->resolver != r.resolver)
        return no(u"the statement is signed as role %1 but the row is %2's"_s.arg(s->resolver,
                                                                                  r.resolver));
    if (s->outcome != r.outcome)
        return no(u"the statement says %1 but the row says %2"_s.arg(s->outcome, r.outcome));
    if (s->uuid != r.uuid)
        return no(u"the statement's uuid is not the row's"_s);
    if (r.resolver == proposal.proposer)
        return no(u"the resolver %1 is the proposal's proposer: an unknown outcome is resolved by "
                  "a second person"_s.arg(r.resolver));
    if (s->changeType != proposal.changeType)
        return no(u"the statement's change type %1 is not the proposal's %2"_s.arg(
            s->changeType, proposal.changeType));
    if (s->requestSha256 != proposal.requestSha256.toLower())
        return no(u"the statement's request_sha256 is not the proposal's request"_s);
    if (s->dialogSha256 != r.dialogSha256.toHex())
        return no(u"the statement's dialog_sha256 is not the row's dialog text"_s);
    c.counts = true;
    return c;
}

QuorumCount countVerifiedQuorum(const TeamProposal &proposal, const QList<TeamApproval> &approvals,
                                int required, const std::optional<QList<ApproverKey>> &policyKeys)
{
    if (!policyKeys)
        return countQuorum(proposal, approvals, required);
    return countQuorum(proposal, approvals, required, [&](const TeamApproval &a) {
        const ApprovalCheck c =
            verifyApproval(proposal, a, *policyKeys, StatementVersions::CurrentOnly);
        return c.counts ? QString() : c.reason;
    });
}

} // namespace fb::team
