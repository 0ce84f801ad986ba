#include "broker/TeamConfirmFlow.h"

#include "broker/ProposalView.h"
#include "broker/TeamMode.h"
#include "broker/TeamProposeStep.h"
#include "core/TokenDigest.h"
#include "mcp/ToolCall.h"

using namespace Qt::StringLiterals;

namespace fb {

TeamConfirmFlow::TeamConfirmFlow(BrokerContext *context, mcp::ToolCall *call, QObject *parent)
    : QObject(parent)
    , m_context(context)
    , m_call(call)
{
}

void TeamConfirmFlow::consume(const QString &tokenSha256, const Proposal &proposal,
                              const ConfirmChecks &checks, Consumed done)
{
    team::TeamQueue *queue = m_context->team();
    QPointer<TeamConfirmFlow> self(this);
    if (!queue->hasSettled()) { // the first connect after the start: a bounded moment
        return queue->whenSettled(
            this, TeamProposeStep::SettleWaitMs,
            [self, tokenSha256, proposal, checks, done = std::move(done)] {
                if (!self || !self->m_context || !self->m_context->team())
                    return;
                if (self->m_context->team()->hasSettled())
                    return self->consume(tokenSha256, proposal, checks, done);
                self->answer({std::nullopt, false, u"the team database did not answer in time"_s},
                             tokenSha256, proposal, checks, done);
            });
    }
    if (!queue->isAvailable())
        return answer({std::nullopt, false,
                       queue->unavailableReason().isEmpty() ? u"not connected"_s
                                                            : queue->unavailableReason()},
                      tokenSha256, proposal, checks, done);
    queue->consumeChecked(QByteArray::fromHex(tokenSha256.toLatin1()),
                          [self, tokenSha256, proposal, checks,
                           done = std::move(done)](const team::TeamConsumeReply &reply) {
                              if (self)
                                  self->answer(reply, tokenSha256, proposal, checks, done);
                          });
}

void TeamConfirmFlow::answer(const team::TeamConsumeReply &reply, const QString &tokenSha256,
                             const Proposal &proposal, ConfirmChecks checks, const Consumed &done)
{
    const std::optional<Stop> stop = checkReply(reply, tokenSha256, proposal, checks);
    done(checks, stop);
}

std::optional<TeamConfirmFlow::Stop>
TeamConfirmFlow::checkReply(const team::TeamConsumeReply &reply, const QString &tokenSha256,
                            const Proposal &proposal, ConfirmChecks &checks)
{
    if (!m_context)
        return Stop{true, {}, u"the broker shut down; nothing was sent"_s};
    if (!reply.error.isEmpty())
        return Stop{
            false, u"team_unavailable"_s,
            u"Team mode: the team's database cannot be asked (%1), so this confirm cannot be "
            "checked against the team's queue. Nothing was sent; the token is used up. Propose "
            "again when the database is back."_s.arg(reply.error.left(500))};
    if (!reply.row) {
        checks.proposalExists = false;
        return Stop{false, u"team_proposal_missing"_s,
                    u"Team mode: the team's queue has no proposal for this token "
                    "(it was never published there, or the database was "
                    "replaced). Nothing was sent; propose the change again."_s};
    }
    const team::TeamProposal &row = *reply.row;
    if (!reply.consumedNow) {
        const bool used = row.state != u"pending";
        if (used)
            checks.notPreviouslyUsed = false;
        else
            checks.notExpired = false;
        return Stop{false, used ? u"replayed_token"_s : u"expired_token"_s,
                    used ? u"Team mode: the team's queue says this proposal is already %1: tokens "
                           "are single-use. Nothing was sent; propose the change again if it is "
                           "still wanted."_s.arg(row.state.left(20))
                         : u"Team mode: the proposal expired in the team's queue. Nothing was "
                           "sent; propose the change again."_s};
    }
    m_row = row;
    m_team = {{u"proposal_id"_s, QString::fromLatin1(row.id)}};
    // The row consumed must be the one this broker published for this token, with the expiry it
    // asked for: the owner can move a token hash onto an older row that has approvals.
    const auto published = m_context->takePublished(tokenSha256);
    if (!published || published->id != row.id ||
        row.expiresMs > published->expiresAtMs + team::TeamConfirm::MaxClockSkewMs) {
        checks.requestMatchesBinding = false;
        return Stop{
            false, u"binding_mismatch"_s,
            u"Refused: the team's row consumed for this token (%1) is not the proposal this "
            "broker published for it (%2). Nothing was sent. Propose the change again."_s.arg(
                QString::fromLatin1(row.id.left(64)),
                published ? QString::fromLatin1(published->id.left(64))
                          : u"none published by this process"_s)};
    }
    if (!m_context->settings().policy.teamApproverKeys)
        return Stop{false, u"team_unavailable"_s,
                    TeamKeysMissing + u". Nothing was sent; the token is used up."_s};
    QString mismatch = teamRowMismatch(row, proposal);
    // Approvals sign the row's token hash and proposer role (docs/team-signing.md): they must be
    // this broker's own, so a statement counts only for what it published, and the quorum's
    // "never the proposer" means this broker's role.
    if (mismatch.isEmpty() &&
        TokenDigest::fromHex(row.tokenSha256) != TokenDigest::fromHex(tokenSha256.toLatin1()))
        mismatch = u"the team's row holds another token hash than this confirm's"_s;
    const QString me = m_context->team() ? m_context->team()->role() : QString();
    if (mismatch.isEmpty() && row.proposer != me)
        mismatch = u"the team's row names proposer %1, this broker is %2"_s.arg(
            row.proposer.left(64), me.left(64));
    if (!mismatch.isEmpty()) {
        checks.requestMatchesBinding = false;
        return Stop{false, u"binding_mismatch"_s,
                    u"Refused: %1. Nothing was sent. Propose the change again."_s.arg(mismatch)};
    }
    return std::nullopt;
}

QString TeamConfirmFlow::teamWaitingText(int required) const
{
    return u"waiting for %1 team approval(s) until the proposal expires at %2"_s.arg(
        QString::number(required), ProposalView::isoTime(m_row->expiresMs));
}

QString TeamConfirmFlow::waitingText() const
{
    return teamWaitingText(m_required);
}

void TeamConfirmFlow::ask(const Proposal &proposal, const CompiledRequest &request,
                          qint64 askedAtMs, std::function<void(const HumanDecision &)> decided)
{
    BrokerContext *ctx = m_context;
    m_proposal = proposal;
    m_request = request;
    m_askedAtMs = askedAtMs;
    m_decided = std::move(decided);
    m_required =
        teamRequired(ctx->settings().policy, proposal.context.value(u"price"_s).toObject());
    m_team.insert(u"required"_s, m_required);

    auto *confirm = new team::TeamConfirm(ctx->team(), *m_row, m_required, this);
    m_confirm = confirm;
    ctx->addTeamWait(this);
    const std::optional<QList<ApproverKey>> keys = ctx->settings().policy.teamApproverKeys;
    confirm->setApproverKeys(keys);
    m_team.insert(u"signed_approvals"_s, keys.has_value());
    // An approval whose signature does not verify: in this broker's audit log (the team's chain
    // gets the same report from TeamConfirm).
    connect(confirm, &team::TeamConfirm::approvalRejected, this,
            [this](const team::TeamApproval &a, const QString &why) {
                if (!m_context)
                    return;
                m_context->audit(AuditEventType::ApprovalRejected,
                                 {{u"request_sha256"_s, m_proposal.requestSha256},
                                  {u"proposal_id"_s, QString::fromLatin1(m_row->id)},
                                  {u"approval_id"_s, QString::fromLatin1(a.id.left(64))},
                                  {u"approver"_s, a.approver.left(64)},
                                  {u"decision"_s, a.decision.left(16)},
                                  {u"reason"_s, why.left(1000)}});
            });
    // A policy reload while waiting (a key revoked, the quorum raised) reaches this confirm now,
    // not only at the re-check right before sending.
    connect(ctx, &BrokerContext::settingsChanged, confirm, [this, confirm] {
        if (!m_context)
            return;
        const Policy &policy = m_context->settings().policy;
        m_required = teamRequired(policy, m_proposal.context.value(u"price"_s).toObject());
        m_team.insert(u"required"_s, m_required);
        emit waitingTextChanged(teamWaitingText(m_required));
        confirm->adoptPolicy(policy.teamApproverKeys, m_required);
    });
    connect(confirm, &team::TeamConfirm::decided, this, &TeamConfirmFlow::quorumDecided);
    // Progress values only ever grow (the keep-alive sends the milliseconds waited): the count
    // travels in the message. The total is the time to the expiry; past it (the row's expiry is
    // read until the database agrees) it grows with the wait, never below the progress.
    const auto waited = [this] {
        return static_cast<double>(m_context ? m_context->nowMs() - m_askedAtMs : 0);
    };
    const double total =
        static_cast<double>(std::max<qint64>(1, m_proposal.expiresAtMs - m_askedAtMs));
    connect(confirm, &team::TeamConfirm::progress, this,
            [this, waited, total](const team::QuorumCount &count) {
                if (m_call && (m_call->hasProgressToken() || m_call->isTask()))
                    m_call->progress(waited(), std::max(total, waited() + 1),
                                     teamProgressText(count));
            });
    connect(confirm, &team::TeamConfirm::connectionChanged, this,
            [this, waited, total](const QString &reason) {
                if (m_call && (m_call->hasProgressToken() || m_call->isTask()) && !reason.isEmpty())
                    m_call->progress(
                        waited(), std::max(total, waited() + 1),
                        u"the team database is unreachable (%1); the approvals are "
                        "awaited until it is back or the proposal expires"_s.arg(reason.left(200)));
            });
}

// The quorum so far, and when no approver's app is connected to the team database, that
// nobody may see it now (the wait goes on until the expiry all the same: never fewer approvals).
QString TeamConfirmFlow::teamProgressText(const team::QuorumCount &count)
{
    QString text = u"%1 of %2 team approvals"_s.arg(count.counted.size()).arg(count.required);
    if (count.approversConnected == 0)
        text += u"; no approver other than the proposer is connected to the team database now "
                "(an approver can still approve from a terminal with `fabric-broker team "
                "approve`, or when their app connects); waiting until the proposal expires"_s;
    return text;
}

void TeamConfirmFlow::startWaiting()
{
    m_confirm->start();
    askProposer();
}

// The proposer's acknowledgement: only through a client that can show a form, and only as
// shown, never counted. A decline withdraws the proposal.
void TeamConfirmFlow::askProposer()
{
    BrokerContext *ctx = m_context;
    if (!ctx || !m_call || m_call->isModernEra() || ctx->approver()->channel() != u"client" ||
        !m_call->client().supportsFormElicitation())
        return;
    const ApprovalContext actx{m_proposal, m_request, m_call->client(),
                               ctx->settings().elicitTimeoutMs};
    QPointer<TeamConfirmFlow> self(this);
    ctx->approver()->requestApproval(m_call, actx, [self](const HumanDecision &d) {
        if (!self || !self->m_confirm || self->m_confirm->isDecided())
            return;
        switch (d.status) {
        case HumanStatus::Accepted:
            self->m_confirm->proposerAcknowledged();
            self->m_team.insert(u"proposer_acknowledged"_s, true);
            return;
        case HumanStatus::Declined:
        case HumanStatus::Cancelled:
        case HumanStatus::CallCancelled:
            return self->m_confirm->withdraw(
                u"the proposer declined in the MCP client (%1)"_s.arg(humanStatusName(d.status)));
        case HumanStatus::TimedOut:
        case HumanStatus::Failed:
        case HumanStatus::UnsupportedByClient:
            return; // no acknowledgement; the team still decides
        }
    });
}

void TeamConfirmFlow::quorumDecided(team::TeamConfirm::Verdict verdict, const QString &reason)
{
    if (!m_confirm)
        return;
    const team::QuorumCount &count = m_confirm->count();
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
    if (m_decided)
        m_decided(HumanDecision{status, u"team"_s, detail.left(1000),
                                m_context ? m_context->nowMs() : 0});
}

void TeamConfirmFlow::beginSend(const Proposal &proposal,
                                std::function<void(const std::optional<Stop> &)> done)
{
    // The policy as it is now: a key revoked or a quorum raised since the wait began counts.
    const Policy &policy = m_context->settings().policy;
    m_confirm->setApproverKeys(policy.teamApproverKeys);
    m_confirm->setRequired(teamRequired(policy, proposal.context.value(u"price"_s).toObject()));
    const std::optional<Money> dayLimit = policy.maxPerDay;
    QPointer<TeamConfirmFlow> self(this);
    m_confirm->beginSend(dayLimit, [self, done = std::move(done)](bool may, const QString &reason) {
        if (!self)
            return;
        if (!may)
            return done(
                Stop{false, u"team_send_refused"_s,
                     u"Approved by the team, but the team's database did not let it be sent: %1. "
                     "Nothing was sent; the token is used up."_s.arg(reason.left(600))});
        self->m_sendCommitted = true;
        if (!self->m_context) {
            self->finish(u"failed"_s);
            return done(Stop{true, {}, u"the broker shut down; nothing was sent"_s});
        }
        done(std::nullopt); // the checks once more, then the create
    });
}

bool TeamConfirmFlow::finish(const QString &outcome, std::function<void()> then)
{
    if (!m_confirm || !m_sendCommitted || m_finished)
        return false;
    m_finished = true;
    QPointer<TeamConfirmFlow> self(this);
    m_confirm->finish(outcome, [self, id = m_row ? m_row->id : QByteArray(), outcome,
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

void TeamConfirmFlow::cancel(const QString &reason)
{
    if (m_confirm && !m_confirm->isDecided())
        m_confirm->withdraw(u"the client cancelled the tool call: "_s + reason);
}

void TeamConfirmFlow::end(ConfirmOutcome &outcome, bool createInFlight)
{
    if (!m_row)
        return;
    // Committed as sending but nothing went (a check after the commit stopped it).
    if (m_sendCommitted && !m_finished && !createInFlight)
        finish(outcome.executed ? u"unknown"_s : u"failed"_s);
    // Consumed and never sent: nobody should wait for it any longer.
    if (!m_sendCommitted && m_context && m_context->team()) {
        if (m_confirm && !m_confirm->isDecided())
            m_confirm->withdraw(u"the confirm ended: "_s + outcome.message.left(300));
        else
            m_context->team()->transition(m_row->id, u"consumed"_s, u"cancelled"_s,
                                          [](const auto &, const QString &) {});
    }
    outcome.team = m_team;
}

std::optional<TeamConfirmFlow::QuorumProgress> TeamConfirmFlow::quorumProgress() const
{
    if (!m_confirm || m_confirm->isDecided())
        return std::nullopt;
    const team::QuorumCount &count = m_confirm->count();
    return QuorumProgress{m_proposal.requestSha256, int(count.counted.size()), count.required};
}

} // namespace fb
