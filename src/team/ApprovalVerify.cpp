#include "team/ApprovalVerify.h"

#include "team/ApprovalKeys.h"

using namespace Qt::StringLiterals;

namespace fb::team {

std::optional<SignedDecision> signDecision(const TeamProposal &proposal, const QString &decision,
                                           const QByteArray &dialogSha256, const QString &role,
                                           const QByteArray &privateKey, qint64 nowMs)
{
    ApprovalStatement s;
    s.proposalId = proposal.id;
    s.changeType = proposal.changeType;
    s.requestSha256 = proposal.requestSha256.toLower();
    s.dryRunSha256 = canonicalJsonSha256Hex(proposal.dryRun);
    s.dialogSha256 = dialogSha256.toHex();
    s.decision = decision;
    s.approver = role;
    s.decidedMs = nowMs;
    s.expiresMs = proposal.expiresMs;
    SignedDecision d;
    d.statement = s.canonical();
    const auto signature = ApprovalKeys::sign(privateKey, d.statement);
    const auto publicKey = ApprovalKeys::publicKeyOf(privateKey);
    if (!signature || !publicKey)
        return std::nullopt;
    d.signature = *signature;
    d.publicKey = *publicKey;
    return d;
}

ApprovalCheck verifyApproval(const TeamProposal &proposal, const SignedApproval &approval,
                             const QList<ApproverKey> &policyKeys)
{
    ApprovalCheck c;
    auto no = [&c](const QString &why) {
        c.counts = false;
        c.reason = why;
        return c;
    };
    if (approval.statement.isEmpty() || approval.signature.isEmpty())
        return no(u"the approval is not signed"_s);
    QString why;
    c.statement = ApprovalStatement::parse(approval.statement, &why);
    if (!c.statement)
        return no(u"the statement is invalid: %1"_s.arg(why));
    QList<ApproverKey> listed;
    for (const ApproverKey &k : policyKeys)
        if (k.role == approval.approver)
            listed.append(k);
    for (const ApproverKey &k : listed)
        if (ApprovalKeys::verify(k.publicKey, approval.statement, approval.signature)) {
            c.fingerprint = k.fingerprint;
            break;
        }
    if (c.fingerprint.isEmpty()) {
        const bool ownKeyVerifies =
            ApprovalKeys::verify(approval.publicKey, approval.statement, approval.signature);
        if (ownKeyVerifies)
            return no(u"signed with key %1, which the policy (team.approver_keys) does not list "
                      "for role %2"_s.arg(ApprovalKeys::fingerprint(approval.publicKey),
                                          approval.approver));
        if (listed.isEmpty())
            return no(u"the policy (team.approver_keys) lists no key for role %1"_s.arg(
                approval.approver));
        return no(u"the signature is invalid for every key the policy lists for role %1"_s.arg(
            approval.approver));
    }
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
    if (s.requestSha256 != proposal.requestSha256.toLower())
        return no(u"the statement's request_sha256 is not the proposal's request"_s);
    if (s.dryRunSha256 != canonicalJsonSha256Hex(proposal.dryRun))
        return no(u"the statement's dry_run_sha256 is not the proposal's dry-run response"_s);
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
                             const QList<ApproverKey> &policyKeys)
{
    return verifyApproval(proposal,
                          SignedApproval{approval.approver, approval.decision,
                                         approval.dialogSha256, approval.statement,
                                         approval.signature, approval.publicKey},
                          policyKeys);
}

QuorumCount countVerifiedQuorum(const TeamProposal &proposal, const QList<TeamApproval> &approvals,
                                int required, const std::optional<QList<ApproverKey>> &policyKeys)
{
    if (!policyKeys)
        return countQuorum(proposal, approvals, required);
    return countQuorum(proposal, approvals, required, [&](const TeamApproval &a) {
        const ApprovalCheck c = verifyApproval(proposal, a, *policyKeys);
        return c.counts ? QString() : c.reason;
    });
}

} // namespace fb::team
