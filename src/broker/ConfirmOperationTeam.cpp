// ConfirmOperation in team mode (docs/team.md, "The flow"). The seed's flow is kept: the token is
// consumed on the first attempt, here and in the team's database (one atomic UPDATE ... WHERE
// state = 'pending' RETURNING); the five confirm_checks are evaluated against the row as well;
// the person is the team (the quorum of distinct approvers other than the proposer, through
// their native dialogs); `sending` is committed in the database (with the team's day) before a
// byte leaves; the outcome goes back to the row. The MCP client's elicitation, when the client
// has it, is only the proposer's acknowledgement: it is shown, never counted.
#include "broker/ConfirmOperation.h"

#include "broker/ClientElicitationApprover.h"
#include "broker/ProposalView.h"
#include "broker/ProposeOperation.h"
#include "broker/TeamMode.h"
#include "core/TokenDigest.h"
#include "fabric/FabricClient.h"
#include "mcp/ToolCall.h"

#include <QTimer>

using namespace Qt::StringLiterals;

namespace fb {

void ConfirmOperation::consumeInTeam()
{
    team::TeamQueue *queue = context()->team();
    if (!queue->hasSettled()) { // the first connect after the start: a bounded moment
        QPointer<ConfirmOperation> self(this);
        return queue->whenSettled(this, ProposeOperation::TeamSettleWaitMs, [self] {
            if (!self || !self->context() || !self->context()->team())
                return;
            if (self->context()->team()->hasSettled())
                return self->consumeInTeam();
            self->teamConsumed(team::TeamConsumeReply{
                std::nullopt, false, u"the team database did not answer in time"_s});
        });
    }
    if (!queue->isAvailable())
        return teamConsumed(team::TeamConsumeReply{std::nullopt, false,
                                                   queue->unavailableReason().isEmpty()
                                                       ? u"not connected"_s
                                                       : queue->unavailableReason()});
    QPointer<ConfirmOperation> self(this);
    queue->consumeChecked(QByteArray::fromHex(m_state.tokenSha256.toLatin1()),
                          [self](const team::TeamConsumeReply &reply) {
                              if (self)
                                  self->teamConsumed(reply);
                          });
}

void ConfirmOperation::teamConsumed(const team::TeamConsumeReply &reply)
{
    if (!context())
        return finishError(u"the broker shut down; nothing was sent"_s);
    const QJsonObject notAsked = humanConfirmationJson(u"not_requested"_s, {});
    if (!reply.error.isEmpty())
        return finishNotExecuted(
            m_state.checks, u"team_unavailable"_s,
            u"Team mode: the team's database cannot be asked (%1), so this confirm cannot be "
            "checked against the team's queue. Nothing was sent; the token is used up. Propose "
            "again when the database is back."_s.arg(reply.error.left(500)),
            notAsked);
    if (!reply.row) {
        m_state.checks.proposalExists = false;
        return finishNotExecuted(m_state.checks, u"team_proposal_missing"_s,
                                 u"Team mode: the team's queue has no proposal for this token "
                                 "(it was never published there, or the database was "
                                 "replaced). Nothing was sent; propose the change again."_s,
                                 notAsked);
    }
    const team::TeamProposal &row = *reply.row;
    if (!reply.consumedNow) {
        const bool used = row.state != u"pending";
        if (used)
            m_state.checks.notPreviouslyUsed = false;
        else
            m_state.checks.notExpired = false;
        return finishNotExecuted(
            m_state.checks, used ? u"replayed_token"_s : u"expired_token"_s,
            used ? u"Team mode: the team's queue says this proposal is already %1: tokens are "
                   "single-use. Nothing was sent; propose the change again if it is still "
                   "wanted."_s.arg(row.state.left(20))
                 : u"Team mode: the proposal expired in the team's queue. Nothing was sent; "
                   "propose the change again."_s,
            notAsked);
    }
    m_teamRow = row;
    m_team = {{u"proposal_id"_s, QString::fromLatin1(row.id)}};
    // The row consumed must be the one this broker published for this token, with the expiry it
    // asked for: the owner can move a token hash onto an older row that has approvals.
    const auto published = context()->takePublished(m_state.tokenSha256);
    if (!published || published->id != row.id ||
        row.expiresMs > published->expiresAtMs + team::TeamConfirm::MaxClockSkewMs) {
        m_state.checks.requestMatchesBinding = false;
        return finishNotExecuted(
            m_state.checks, u"binding_mismatch"_s,
            u"Refused: the team's row consumed for this token (%1) is not the proposal this "
            "broker published for it (%2). Nothing was sent. Propose the change again."_s.arg(
                QString::fromLatin1(row.id.left(64)),
                published ? QString::fromLatin1(published->id.left(64))
                          : u"none published by this process"_s),
            notAsked);
    }
    if (!context()->settings().policy.teamApproverKeys)
        return finishNotExecuted(m_state.checks, u"team_unavailable"_s,
                                 TeamKeysMissing + u". Nothing was sent; the token is used up."_s,
                                 notAsked);
    QString mismatch = teamRowMismatch(row, m_state.proposal);
    // Approvals sign the row's token hash and proposer role (docs/team-signing.md): they must be
    // this broker's own, so a statement counts only for what it published, and the quorum's
    // "never the proposer" means this broker's role.
    if (mismatch.isEmpty() && TokenDigest::fromHex(row.tokenSha256) !=
                                  TokenDigest::fromHex(m_state.tokenSha256.toLatin1()))
        mismatch = u"the team's row holds another token hash than this confirm's"_s;
    const QString me = context()->team() ? context()->team()->role() : QString();
    if (mismatch.isEmpty() && row.proposer != me)
        mismatch = u"the team's row names proposer %1, this broker is %2"_s.arg(
            row.proposer.left(64), me.left(64));
    if (!mismatch.isEmpty()) {
        m_state.checks.requestMatchesBinding = false;
        return finishNotExecuted(
            m_state.checks, u"binding_mismatch"_s,
            u"Refused: %1. Nothing was sent. Propose the change again."_s.arg(mismatch), notAsked);
    }
    checkConsumed();
}

QString ConfirmOperation::teamWaitingText(int required) const
{
    return u"waiting for %1 team approval(s) until the proposal expires at %2"_s.arg(
        QString::number(required), ProposalView::isoTime(m_teamRow->expiresMs));
}

void ConfirmOperation::askTeam()
{
    BrokerContext *ctx = context();
    const int required =
        teamRequired(ctx->settings().policy, m_state.proposal.context.value(u"price"_s).toObject());
    m_team.insert(u"required"_s, required);
    m_state.askedAtMs = ctx->nowMs();
    enter(ConfirmStage::Asked);
    ctx->audit(AuditEventType::ApprovalRequested,
               m_state.approvalRequestedRecord(u"team"_s, call()->client().toJson()));
    ctx->reportApprovalStarted(m_state.proposal, u"team"_s);

    auto *confirm = new team::TeamConfirm(ctx->team(), *m_teamRow, required, this);
    m_teamConfirm = confirm;
    const std::optional<QList<ApproverKey>> keys = ctx->settings().policy.teamApproverKeys;
    confirm->setApproverKeys(keys);
    m_team.insert(u"signed_approvals"_s, keys.has_value());
    // An approval whose signature does not verify: in this broker's audit log (the team's chain
    // gets the same report from TeamConfirm).
    connect(confirm, &team::TeamConfirm::approvalRejected, this,
            [this](const team::TeamApproval &a, const QString &why) {
                if (!context())
                    return;
                context()->audit(
                    AuditEventType::ApprovalRejected,
                    {{u"request_sha256"_s, m_state.proposal.requestSha256},
                     {u"proposal_id"_s, m_teamRow ? QString::fromLatin1(m_teamRow->id) : QString()},
                     {u"approval_id"_s, QString::fromLatin1(a.id.left(64))},
                     {u"approver"_s, a.approver.left(64)},
                     {u"decision"_s, a.decision.left(16)},
                     {u"reason"_s, why.left(1000)}});
            });
    // A policy reload while waiting (a key revoked, the quorum raised) reaches this confirm now,
    // not only at the re-check right before sending.
    connect(ctx, &BrokerContext::settingsChanged, confirm, [this, confirm] {
        if (!context())
            return;
        const Policy &policy = context()->settings().policy;
        const int now = teamRequired(policy, m_state.proposal.context.value(u"price"_s).toObject());
        m_team.insert(u"required"_s, now);
        if (!m_progressText.isEmpty())
            m_progressText = teamWaitingText(now);
        confirm->adoptPolicy(policy.teamApproverKeys, now);
    });
    connect(
        confirm, &team::TeamConfirm::decided, this,
        [this](team::TeamConfirm::Verdict v, const QString &reason) { teamDecided(v, reason); });
    // Progress values only ever grow (the keep-alive sends the milliseconds waited): the count
    // travels in the message. The total is the time to the expiry; past it (the row's expiry is
    // read until the database agrees) it grows with the wait, never below the progress.
    const auto waited = [this] {
        return static_cast<double>(context() ? context()->nowMs() - m_state.askedAtMs : 0);
    };
    const double total =
        static_cast<double>(std::max<qint64>(1, m_state.proposal.expiresAtMs - m_state.askedAtMs));
    connect(confirm, &team::TeamConfirm::progress, this,
            [this, waited, total](const team::QuorumCount &count) {
                if (call()->hasProgressToken())
                    call()->progress(
                        waited(), std::max(total, waited() + 1),
                        u"%1 of %2 team approvals"_s.arg(count.counted.size()).arg(count.required));
            });
    connect(confirm, &team::TeamConfirm::connectionChanged, this,
            [this, waited, total](const QString &reason) {
                if (call()->hasProgressToken() && !reason.isEmpty())
                    call()->progress(
                        waited(), std::max(total, waited() + 1),
                        u"the team database is unreachable (%1); the approvals are "
                        "awaited until it is back or the proposal expires"_s.arg(reason.left(200)));
            });
    startProgress(m_state.proposal.expiresAtMs - m_state.askedAtMs, teamWaitingText(required));
    confirm->start();

    // The proposer's acknowledgement: only through a client that can show a form, and only as
    // shown, never counted. A decline withdraws the proposal.
    if (call()->isModernEra() || ctx->approver()->channel() != u"client" ||
        !call()->client().supportsFormElicitation())
        return;
    const ApprovalContext actx{m_state.proposal, m_state.request, call()->client(),
                               ctx->settings().elicitTimeoutMs};
    QPointer<ConfirmOperation> self(this);
    ctx->approver()->requestApproval(call(), actx, [self](const HumanDecision &d) {
        if (!self || !self->m_teamConfirm || self->m_teamConfirm->isDecided())
            return;
        switch (d.status) {
        case HumanStatus::Accepted:
            self->m_teamConfirm->proposerAcknowledged();
            self->m_team.insert(u"proposer_acknowledged"_s, true);
            return;
        case HumanStatus::Declined:
        case HumanStatus::Cancelled:
        case HumanStatus::CallCancelled:
            return self->m_teamConfirm->withdraw(
                u"the proposer declined in the MCP client (%1)"_s.arg(humanStatusName(d.status)));
        case HumanStatus::TimedOut:
        case HumanStatus::Failed:
        case HumanStatus::UnsupportedByClient:
            return; // no acknowledgement; the team still decides
        }
    });
}

void ConfirmOperation::teamDecided(team::TeamConfirm::Verdict verdict, const QString &reason)
{
    if (!m_teamConfirm)
        return;
    const team::QuorumCount &count = m_teamConfirm->count();
    const QJsonObject quorum = count.toJson();
    for (auto it = quorum.begin(); it != quorum.end(); ++it)
        m_team.insert(it.key(), it.value());
    HumanStatus status = HumanStatus::Failed;
    QString detail = reason;
    switch (verdict) {
    case team::TeamConfirm::Verdict::Met:
        status = HumanStatus::Accepted;
        detail = u"approved by %1 (%2 of %3 required)"_s.arg(count.counted.join(u", "_s).left(500))
                     .arg(count.counted.size())
                     .arg(count.required);
        break;
    case team::TeamConfirm::Verdict::Denied:
        status = HumanStatus::Declined;
        break;
    case team::TeamConfirm::Verdict::Expired:
        status = HumanStatus::TimedOut;
        break;
    case team::TeamConfirm::Verdict::Unreachable:
        status = HumanStatus::Failed;
        break;
    }
    decided(
        HumanDecision{status, u"team"_s, detail.left(1000), context() ? context()->nowMs() : 0});
}

void ConfirmOperation::beginTeamSend()
{
    // The policy as it is now: a key revoked or a quorum raised since the wait began counts.
    const Policy &policy = context()->settings().policy;
    m_teamConfirm->setApproverKeys(policy.teamApproverKeys);
    m_teamConfirm->setRequired(
        teamRequired(policy, m_state.proposal.context.value(u"price"_s).toObject()));
    const std::optional<Money> dayLimit = policy.maxPerDay;
    QPointer<ConfirmOperation> self(this);
    m_teamConfirm->beginSend(dayLimit, [self](bool may, const QString &reason) {
        if (!self)
            return;
        if (!may)
            return self->finishNotExecuted(
                self->m_state.checks, u"team_send_refused"_s,
                u"Approved by the team, but the team's database did not let it be sent: %1. "
                "Nothing was sent; the token is used up."_s.arg(reason.left(600)),
                self->m_state.human);
        self->m_teamSendCommitted = true;
        if (!self->context()) {
            self->finishTeam(u"failed"_s);
            return self->finishError(u"the broker shut down; nothing was sent"_s);
        }
        self->execute(); // the checks once more, then the create
    });
}

bool ConfirmOperation::finishTeam(const QString &outcome, std::function<void()> then)
{
    if (!m_teamConfirm || !m_teamSendCommitted || m_teamFinished)
        return false;
    m_teamFinished = true;
    QPointer<ConfirmOperation> self(this);
    m_teamConfirm->finish(outcome, [self, id = m_teamRow ? m_teamRow->id : QByteArray(), outcome,
                                    then = std::move(then)](bool recorded) {
        if (!recorded)
            qCWarning(lcBroker).noquote()
                << "team proposal" << QString::fromLatin1(id) << "outcome" << outcome
                << "could not be written; the team will see it as unknown";
        if (self)
            self->m_team.insert(u"outcome_recorded"_s,
                                recorded ? QJsonValue(outcome) : QJsonValue(false));
        if (then)
            then();
    });
    return true;
}

void ConfirmOperation::endTeam(ConfirmOutcome &outcome)
{
    if (!m_teamRow)
        return;
    // Committed as sending but nothing went (a check after the commit stopped it).
    if (m_teamSendCommitted && !m_teamFinished && !m_create)
        finishTeam(outcome.executed ? u"unknown"_s : u"failed"_s);
    // Consumed and never sent: nobody should wait for it any longer.
    if (!m_teamSendCommitted && context() && context()->team()) {
        if (m_teamConfirm && !m_teamConfirm->isDecided())
            m_teamConfirm->withdraw(u"the confirm ended: "_s + outcome.message.left(300));
        else
            context()->team()->transition(m_teamRow->id, u"consumed"_s, u"cancelled"_s,
                                          [](const auto &, const QString &) {});
    }
    outcome.team = m_team;
}

} // namespace fb
