#include "core/SpendLedger.h"

namespace fb {

namespace {
void addTo(QList<Money> *list, const Money &m)
{
    for (Money &x : *list)
        if (x.currency == m.currency) {
            x.amount += m.amount;
            return;
        }
    list->append(m);
}
bool inWindow(qint64 atMs, qint64 nowMs)
{
    // The future counts: a clock stepped back never frees the day.
    return atMs >= nowMs - SpendLedger::WindowMs;
}
} // namespace

QList<Money> SpendLedger::Totals::all() const
{
    QList<Money> out = executed;
    for (const Money &m : reserved)
        addTo(&out, m);
    return out;
}

void SpendLedger::markUnestablished(const QString &why)
{
    m_unestablished = why.isEmpty() ? QStringLiteral("the last 24 hours are not known") : why;
}

void SpendLedger::addExecuted(const QString &key, const Money &amount, qint64 atMs)
{
    m_executed.append(Entry{key, amount, atMs});
}

bool SpendLedger::reserve(const QString &key, const Money &amount, qint64 nowMs)
{
    if (m_reserved.contains(key))
        return false;
    m_reserved.insert(key, Entry{key, amount, nowMs});
    m_reservedOrder.append(key);
    return true;
}

void SpendLedger::release(const QString &key)
{
    if (m_reserved.remove(key))
        m_reservedOrder.removeOne(key);
}

void SpendLedger::commit(const QString &key, qint64 nowMs)
{
    const auto it = m_reserved.constFind(key);
    if (it == m_reserved.constEnd())
        return;
    Entry e = *it;
    release(key);
    e.atMs = nowMs;
    m_executed.append(e);
}

SpendLedger::Totals SpendLedger::totals(qint64 nowMs, const QString &excludeKey) const
{
    Totals t;
    for (const Entry &e : m_executed)
        if (inWindow(e.atMs, nowMs))
            addTo(&t.executed, e.amount);
    // A reservation counts until its confirm ends, however long the person takes.
    for (const QString &key : m_reservedOrder)
        if (key != excludeKey)
            addTo(&t.reserved, m_reserved.value(key).amount);
    return t;
}

void SpendLedger::prune(qint64 nowMs)
{
    m_executed.removeIf([nowMs](const Entry &e) { return !inWindow(e.atMs, nowMs); });
}

QString spendLine(const SpendLedger::Totals &totals, const Money &limit)
{
    Money used{0, limit.currency};
    Money waiting{0, limit.currency};
    for (const Money &m : totals.executed)
        if (m.currency == limit.currency)
            used.amount += m.amount;
    for (const Money &m : totals.reserved)
        if (m.currency == limit.currency)
            waiting.amount += m.amount;
    QString line = QStringLiteral("%1 of %2 used").arg(used.display(), limit.display());
    if (waiting.amount > 0)
        line += QStringLiteral(", %1 waiting for approval").arg(waiting.display());
    return line;
}

} // namespace fb
