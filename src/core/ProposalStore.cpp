#include "core/ProposalStore.h"

#include "core/NameTable.h"

#include <QJsonValue>
#include <QRandomGenerator>
#include <QThread>

#include <algorithm>

namespace fb {

using namespace Qt::StringLiterals;

QJsonObject ConfirmChecks::toJson() const
{
    auto v = [](const std::optional<bool> &b) { return b ? QJsonValue(*b) : QJsonValue(); };
    return {{u"proposal_exists"_s, v(proposalExists)},
            {u"not_evicted"_s, v(notEvicted)},
            {u"not_expired"_s, v(notExpired)},
            {u"not_previously_used"_s, v(notPreviouslyUsed)},
            {u"request_matches_binding"_s, v(requestMatchesBinding)}};
}

QString ConfirmChecks::firstFailure() const
{
    const std::pair<const char *, const std::optional<bool> *> order[] = {
        {"proposal_exists", &proposalExists},
        {"not_evicted", &notEvicted},
        {"not_expired", &notExpired},
        {"not_previously_used", &notPreviouslyUsed},
        {"request_matches_binding", &requestMatchesBinding}};
    for (const auto &[name, value] : order) {
        if (value->has_value() && !**value)
            return QString::fromLatin1(name);
    }
    return {};
}

bool ConfirmChecks::allPassed() const
{
    return proposalExists.value_or(false) && notEvicted.value_or(false) &&
           notExpired.value_or(false) && notPreviouslyUsed.value_or(false) &&
           requestMatchesBinding.value_or(false);
}

QString consumeOutcomeName(ConsumeOutcome outcome)
{
    static constexpr EnumName<ConsumeOutcome> names[] = {
        {ConsumeOutcome::Consumed, u"consumed"},
        {ConsumeOutcome::Unknown, u"unknown"},
        {ConsumeOutcome::Evicted, u"evicted"},
        {ConsumeOutcome::Expired, u"expired"},
        {ConsumeOutcome::PreviouslyUsed, u"previously_used"},
    };
    return nameOf(names, outcome);
}

ProposalStore::ProposalStore(Clock *clock, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
{
    qRegisterMetaType<fb::Proposal>();
    m_sweepTimer.setSingleShot(true);
    m_sweepTimer.setTimerType(Qt::CoarseTimer);
    connect(&m_sweepTimer, &QTimer::timeout, this, &ProposalStore::sweep);
}

void ProposalStore::setTtlMs(qint64 ttlMs)
{
    QMutexLocker lock(&m_mutex);
    m_ttlMs = std::max<qint64>(1, ttlMs);
}

qint64 ProposalStore::ttlMs() const
{
    QMutexLocker lock(&m_mutex);
    return m_ttlMs;
}

void ProposalStore::setMaxPending(int maxPending)
{
    QMutexLocker lock(&m_mutex);
    m_maxPending = std::max(1, maxPending);
}

int ProposalStore::maxPending() const
{
    QMutexLocker lock(&m_mutex);
    return m_maxPending;
}

QString ProposalStore::mintToken()
{
    // 128 bits from the operating system's CSPRNG.
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    QByteArray raw(reinterpret_cast<const char *>(words), sizeof words);
    return u"chg-"_s + QString::fromLatin1(raw.toHex());
}

bool ProposalStore::looksLikeToken(QStringView token)
{
    if (token.size() != 36 || !token.startsWith(u"chg-"))
        return false;
    return std::all_of(token.begin() + 4, token.end(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
    });
}

void ProposalStore::buryLocked(const Proposal &p, TombstoneReason reason, qint64 now)
{
    if (!m_tombstones.contains(p.token))
        m_tombstoneOrder.append(p.token);
    m_tombstones.insert(p.token, Tombstone{reason, p, now});
    pruneTombstonesLocked(now);
}

void ProposalStore::pruneTombstonesLocked(qint64 now)
{
    // A tombstone lives at least 2 x TTL after its proposal's expiry; beyond the count cap the
    // oldest go first. The cap is far above what 2 x TTL of traffic at MaxPending produces
    // unless a client floods proposals, and then only the oldest lose their specific reason.
    while (!m_tombstoneOrder.isEmpty()) {
        const QString &oldest = m_tombstoneOrder.first();
        const auto it = m_tombstones.constFind(oldest);
        const bool tooMany = m_tombstones.size() > MaxTombstones;
        const bool stale =
            it == m_tombstones.cend() || now - it->proposal.expiresAtMs > 2 * m_ttlMs;
        if (!tooMany && !stale)
            break;
        m_tombstones.remove(oldest);
        m_tombstoneOrder.removeFirst();
    }
}

QList<Proposal> ProposalStore::sweepLocked(qint64 now)
{
    QList<Proposal> expired;
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (now >= it->expiresAtMs) {
            expired.append(*it);
            it = m_pending.erase(it);
        } else {
            ++it;
        }
    }
    std::sort(expired.begin(), expired.end(),
              [](const Proposal &a, const Proposal &b) { return a.sequence < b.sequence; });
    for (const Proposal &p : std::as_const(expired))
        buryLocked(p, TombstoneReason::Expired, now);
    return expired;
}

void ProposalStore::sweep()
{
    QList<Proposal> expired;
    {
        QMutexLocker lock(&m_mutex);
        expired = sweepLocked(m_clock->nowMs());
    }
    for (const Proposal &p : std::as_const(expired))
        emit proposalExpired(p);
    scheduleSweep();
}

QList<Proposal> ProposalStore::evictAll(const QString &reason)
{
    QList<Proposal> evicted;
    {
        QMutexLocker lock(&m_mutex);
        const qint64 now = m_clock->nowMs();
        evicted = m_pending.values();
        std::sort(evicted.begin(), evicted.end(),
                  [](const Proposal &a, const Proposal &b) { return a.sequence < b.sequence; });
        for (Proposal &p : evicted) {
            p.evictedBecause = reason;
            buryLocked(p, TombstoneReason::Evicted, now);
        }
        m_pending.clear();
    }
    for (const Proposal &p : std::as_const(evicted))
        emit proposalEvicted(p);
    return evicted;
}

AddResult ProposalStore::add(Proposal proposal)
{
    AddResult result;
    QList<Proposal> expired;
    {
        QMutexLocker lock(&m_mutex);
        const qint64 now = m_clock->nowMs();
        expired = sweepLocked(now);
        pruneTombstonesLocked(now);
        do {
            proposal.token = mintToken();
        } while (m_pending.contains(proposal.token) || m_tombstones.contains(proposal.token));
        proposal.proposedAtMs = now;
        proposal.expiresAtMs = now + m_ttlMs;
        proposal.sequence = m_nextSequence++;
        while (m_pending.size() >= m_maxPending) {
            auto oldest = std::min_element(
                m_pending.cbegin(), m_pending.cend(),
                [](const Proposal &a, const Proposal &b) { return a.sequence < b.sequence; });
            Proposal evicted = *oldest;
            evicted.evictedBecause = u"more than %1 proposals were pending"_s.arg(m_maxPending);
            result.evicted.append(evicted);
            buryLocked(evicted, TombstoneReason::Evicted, now);
            m_pending.erase(oldest);
        }
        m_pending.insert(proposal.token, proposal);
        result.proposal = proposal;
    }
    for (const Proposal &p : std::as_const(expired))
        emit proposalExpired(p);
    for (const Proposal &p : std::as_const(result.evicted))
        emit proposalEvicted(p);
    emit proposalAdded(result.proposal);
    scheduleSweep();
    return result;
}

ConsumeResult ProposalStore::consume(const QString &token)
{
    ConsumeResult r;
    QList<Proposal> expired;
    {
        QMutexLocker lock(&m_mutex);
        const qint64 now = m_clock->nowMs();
        // Consuming is the first attempt: the token leaves the pending set whatever follows.
        if (auto it = m_pending.find(token); it != m_pending.end()) {
            Proposal p = *it;
            m_pending.erase(it);
            r.proposal = p;
            r.checks.proposalExists = true;
            r.checks.notEvicted = true;
            r.checks.notExpired = now < p.expiresAtMs;
            if (!*r.checks.notExpired) {
                r.outcome = ConsumeOutcome::Expired;
                buryLocked(p, TombstoneReason::Expired, now);
                expired.append(p);
            } else {
                r.checks.notPreviouslyUsed = true;
                r.outcome = ConsumeOutcome::Consumed;
                buryLocked(p, TombstoneReason::Used, now);
            }
        } else if (auto t = m_tombstones.find(token); t != m_tombstones.end()) {
            r.proposal = t->proposal;
            r.checks.proposalExists = true;
            r.checks.notEvicted = t->reason != TombstoneReason::Evicted;
            if (t->reason == TombstoneReason::Evicted) {
                r.outcome = ConsumeOutcome::Evicted;
            } else {
                r.checks.notExpired = now < t->proposal.expiresAtMs;
                if (!*r.checks.notExpired) {
                    r.outcome = ConsumeOutcome::Expired;
                } else {
                    r.checks.notPreviouslyUsed = false;
                    r.outcome = ConsumeOutcome::PreviouslyUsed;
                }
            }
            // An attempt on a tombstone is itself a use: a later attempt reports the same.
        } else {
            r.checks.proposalExists = false;
            r.outcome = ConsumeOutcome::Unknown;
        }
    }
    for (const Proposal &p : std::as_const(expired))
        emit proposalExpired(p);
    if (r.outcome == ConsumeOutcome::Consumed)
        emit proposalConsumed(*r.proposal);
    scheduleSweep();
    return r;
}

std::optional<Proposal> ProposalStore::peek(const QString &token) const
{
    QMutexLocker lock(&m_mutex);
    auto it = m_pending.constFind(token);
    if (it == m_pending.cend() || m_clock->nowMs() >= it->expiresAtMs)
        return std::nullopt;
    return *it;
}

QList<Proposal> ProposalStore::pending() const
{
    QMutexLocker lock(&m_mutex);
    const qint64 now = m_clock->nowMs();
    QList<Proposal> out;
    for (const Proposal &p : m_pending) {
        if (now < p.expiresAtMs)
            out.append(p);
    }
    std::sort(out.begin(), out.end(),
              [](const Proposal &a, const Proposal &b) { return a.sequence < b.sequence; });
    return out;
}

int ProposalStore::pendingCount() const
{
    return static_cast<int>(pending().size());
}

void ProposalStore::scheduleSweep()
{
    // Only meaningful with the real clock; with a ManualClock tests call sweep() themselves.
    if (m_clock != Clock::system() || thread() != QThread::currentThread())
        return;
    qint64 next = -1;
    {
        QMutexLocker lock(&m_mutex);
        for (const Proposal &p : std::as_const(m_pending))
            next = next < 0 ? p.expiresAtMs : std::min(next, p.expiresAtMs);
        if (next >= 0)
            next = std::max<qint64>(0, next - m_clock->nowMs());
    }
    if (next < 0)
        m_sweepTimer.stop();
    else
        m_sweepTimer.start(static_cast<int>(std::min<qint64>(next + 5, 24LL * 3600 * 1000)));
}

} // namespace fb
