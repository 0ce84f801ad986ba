#include "team/TeamConfirm.h"

#include "team/ApprovalVerify.h"

#include <QDateTime>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcTeamConfirm, "fabricbroker.team.confirm")

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {
QString expiryText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}
} // namespace

TeamConfirm::TeamConfirm(TeamQueue *queue, const TeamProposal &consumed, int required,
                         QObject *parent)
    : QObject(parent)
    , m_queue(queue)
    , m_proposal(consumed)
{
    m_count.required = std::max(1, required);
    m_expiry.setSingleShot(true);
    // A coarse timer may fire up to 5% early: on a 20 s TTL the one read "at the expiry" came a
    // second before it, found the row live, and nothing read it again (issue #34, item 10).
    m_expiry.setTimerType(Qt::PreciseTimer);
    connect(&m_expiry, &QTimer::timeout, this, [this] { reread(); });
    m_presence.setInterval(PresenceRecheckMs);
    connect(&m_presence, &QTimer::timeout, this, [this] { reread(); });
    if (m_queue)
        m_queue->hold(m_proposal.id);
}

TeamConfirm::~TeamConfirm()
{
    // A send that began and has no outcome stays held until this process ends: the recovery of
    // a later connection must not call it unknown while it may still finish.
    if (m_queue && m_proposal.state != u"sending")
        m_queue->release(m_proposal.id);
}

void TeamConfirm::start()
{
    if (!m_queue)
        return decide(Verdict::Unreachable, u"the team queue is gone"_s);
    connect(m_queue, &TeamQueue::proposalChanged, this, [this](const QByteArray &id) {
        if (id == m_proposal.id)
            reread();
    });
    connect(m_queue, &TeamQueue::availabilityChanged, this,
            [this](bool available, const QString &reason) {
                if (m_decided)
                    return;
                if (!available) {
                    qCWarning(lcTeamConfirm).noquote()
                        << "proposal" << QString::fromLatin1(m_proposal.id)
                        << "waits on; the team database is unreachable:" << reason;
                    emit connectionChanged(reason.isEmpty() ? u"unreachable"_s : reason);
                    return;
                }
                emit connectionChanged({});
                reread(); // decisions made while it was away
            });
    armExpiry();
    m_presence.start();
    reread();
}

void TeamConfirm::armExpiry()
{
    // Until the row says it expired: at the expiry, then every ExpiryRecheckMs after it (the
    // database's clock decides `live`; this process's clock may be a little ahead or behind).
    const qint64 left = m_proposal.expiresMs - QDateTime::currentMSecsSinceEpoch();
    m_expiry.start(static_cast<int>(left > 0 ? std::min<qint64>(left + 50, 24LL * 3600 * 1000)
                                             : ExpiryRecheckMs));
}

void TeamConfirm::proposerAcknowledged()
{
    m_acknowledged = true;
    m_count.proposerAcknowledged = true;
}

void TeamConfirm::reread()
{
    if (m_decided || !m_queue)
        return;
    if (!m_queue->isAvailable()) {
        // Nothing can be read; the TTL still holds.
        if (QDateTime::currentMSecsSinceEpoch() >= m_proposal.expiresMs)
            decide(Verdict::Expired,
                   u"the proposal expired at %1 while the team database was "
                   "unreachable, with %2 of %3 approvals"_s.arg(expiryText(m_proposal.expiresMs))
                       .arg(m_count.counted.size())
                       .arg(m_count.required));
        else if (!m_expiry.isActive())
            armExpiry();
        return;
    }
    if (m_reading) {
        m_readAgain = true; // a wake-up during a read: one more read after it
        return;
    }
    m_reading = true;
    QPointer<TeamConfirm> self(this);
    m_queue->read(
        m_proposal.id, [self](const std::optional<TeamQueue::Snapshot> &s, const QString &error) {
            if (!self)
                return;
            self->m_reading = false;
            if (self->m_decided)
                return;
            if (!s && self->m_queue && !self->m_queue->isAvailable())
                return; // the connection went away: read again when it is back
            if (!s)
                return self->decide(
                    Verdict::Unreachable,
                    u"the approvals could not be read: %1; nothing was sent"_s.arg(error));
            self->m_count = self->count(*s);
            self->m_count.proposerAcknowledged = self->m_acknowledged;
            self->m_count.approversConnected = s->approversConnected;
            emit self->progress(self->m_count);
            if (s->state != u"consumed")
                return self->decide(Verdict::Denied,
                                    u"the team proposal is %1, no longer waiting"_s.arg(s->state));
            if (!self->m_count.deniedBy.isEmpty()) {
                self->m_queue->transition(self->m_proposal.id, u"consumed"_s, u"denied"_s,
                                          [](const auto &, const QString &) {});
                return self->decide(Verdict::Denied,
                                    u"denied by %1"_s.arg(self->m_count.deniedBy.left(64)));
            }
            if (self->m_count.met())
                return self->decide(Verdict::Met, {});
            const qint64 late = QDateTime::currentMSecsSinceEpoch() - self->m_proposal.expiresMs;
            // The row still says live past its expiry only when the two clocks differ; never
            // longer than MaxClockSkewMs: a confirm ends at its proposal's expiry, every time.
            if (!s->live || late >= MaxClockSkewMs) {
                self->m_queue->transition(self->m_proposal.id, u"consumed"_s, u"expired"_s,
                                          [](const auto &, const QString &) {});
                return self->decide(Verdict::Expired,
                                    u"the proposal expired at %1 with %2 of %3 "
                                    "approvals"_s.arg(expiryText(self->m_proposal.expiresMs))
                                        .arg(self->m_count.counted.size())
                                        .arg(self->m_count.required));
            }
            if (late >= 0 && !self->m_expiry.isActive())
                self->armExpiry();
            if (self->m_readAgain) {
                self->m_readAgain = false;
                self->reread();
            }
        });
}

QuorumCount TeamConfirm::count(const TeamQueue::Snapshot &s)
{
    // No keys: an empty list, under which no approval counts (never the unsigned rule).
    QuorumCount q = countVerifiedQuorum(m_proposal, s.approvals, m_count.required,
                                        m_keys.value_or(QList<ApproverKey>{}));
    q.proposerAcknowledged = m_acknowledged;
    for (const QJsonValue &v : std::as_const(q.notCounted)) {
        const QJsonObject o = v.toObject();
        const QByteArray id = o.value(u"approval_id"_s).toString().toLatin1();
        if (!o.value(u"rejected"_s).toBool() || m_reported.contains(id))
            continue;
        m_reported.insert(id);
        const auto it = std::find_if(s.approvals.cbegin(), s.approvals.cend(),
                                     [&id](const TeamApproval &a) { return a.id == id; });
        if (it == s.approvals.cend())
            continue;
        const QString why = o.value(u"why"_s).toString();
        qCWarning(lcTeamConfirm).noquote()
            << "proposal" << QString::fromLatin1(m_proposal.id) << "approval"
            << QString::fromLatin1(id) << "by" << it->approver.left(64) << "does not count:" << why;
        if (m_queue)
            m_queue->reportRejected(m_proposal.id, *it, why);
        emit approvalRejected(*it, why);
    }
    return q;
}

void TeamConfirm::decide(Verdict verdict, const QString &reason)
{
    if (m_decided)
        return;
    m_decided = true;
    m_expiry.stop();
    m_presence.stop();
    qCInfo(lcTeamConfirm).noquote() << "proposal" << QString::fromLatin1(m_proposal.id)
                                    << "decided:" << static_cast<int>(verdict) << reason;
    emit decided(verdict, reason);
}

void TeamConfirm::withdraw(const QString &reason)
{
    if (m_decided)
        return;
    if (m_queue)
        m_queue->transition(m_proposal.id, u"consumed"_s, u"cancelled"_s,
                            [](const auto &, const QString &) {});
    decide(Verdict::Denied, reason);
}

void TeamConfirm::beginSend(std::function<void(bool, const QString &)> done)
{
    beginSend(std::nullopt, std::move(done));
}

void TeamConfirm::setRequired(int required)
{
    m_count.required = std::max(1, required);
}

void TeamConfirm::adoptPolicy(const std::optional<QList<ApproverKey>> &keys, int required)
{
    const int wanted = std::max(1, required);
    if (m_decided || (keys == m_keys && wanted == m_count.required))
        return;
    m_keys = keys;
    m_count.required = wanted;
    reread();
}

void TeamConfirm::beginSend(const std::optional<Money> &dayLimit,
                            std::function<void(bool, const QString &)> done)
{
    if (!m_queue || !m_count.met())
        return done(false, u"the quorum is not met"_s);
    if (!m_keys)
        return done(false, u"team.approver_keys is not set: an unsigned approval never "
                           "counts"_s);
    // Right before sending: every counted approval is read and verified once more.
    QPointer<TeamConfirm> self(this);
    m_queue->read(m_proposal.id, [self, dayLimit, done = std::move(done)](
                                     const std::optional<TeamQueue::Snapshot> &s,
                                     const QString &error) {
        if (!self)
            return;
        if (!s)
            return done(false, u"the approvals could not be read again before sending: %1"_s.arg(
                                   error.left(300)));
        const QuorumCount again = self->count(*s);
        if (!again.met()) {
            self->m_count = again;
            return done(false,
                        again.deniedBy.isEmpty()
                            ? u"the approvals no longer verify right before sending (%1 of %2 "
                              "count)"_s.arg(again.counted.size())
                                  .arg(again.required)
                            : u"denied by %1 right before sending"_s.arg(again.deniedBy.left(64)));
        }
        self->m_count = again;
        self->commitSend(dayLimit, done);
    });
}

void TeamConfirm::commitSend(const std::optional<Money> &dayLimit,
                             std::function<void(bool, const QString &)> done)
{
    if (!m_queue)
        return done(false, u"the team queue is gone"_s);
    QPointer<TeamConfirm> self(this);
    // Committed before the caller sends a byte: a crash from here on leaves `sending`, which a
    // recovery turns into `unknown`, never into a retry.
    m_queue->beginSend(m_proposal.id, dayLimit,
                       [self, done = std::move(done)](const TeamSendReply &r) {
                           if (!self)
                               return;
                           if (!r.moved)
                               return done(false, u"`sending` could not be committed: %1; "
                                                  "nothing was sent"_s.arg(r.reason));
                           self->m_proposal.state = u"sending"_s;
                           done(true, {});
                       });
}

void TeamConfirm::finish(bool created, std::function<void(bool)> done)
{
    finish(created ? u"created"_s : u"failed"_s, std::move(done));
}

void TeamConfirm::finish(const QString &outcome, std::function<void(bool)> done)
{
    if (!m_queue) {
        if (done)
            done(false);
        return;
    }
    QPointer<TeamConfirm> self(this);
    QPointer<TeamQueue> queue = m_queue;
    const QByteArray id = m_proposal.id;
    m_queue->finishSend(id, outcome,
                        [self, queue, id, done = std::move(done)](const std::optional<bool> &moved,
                                                                  const QString &) {
                            const bool recorded = moved && *moved;
                            // Not recorded (the database went away): released all the same, so a
                            // recovery says `unknown` to the team rather than leaving it
                            // `sending`.
                            if (queue)
                                queue->release(id);
                            if (self && recorded)
                                self->m_proposal.state = u"done"_s;
                            if (done)
                                done(recorded);
                        });
}

} // namespace fb::team
