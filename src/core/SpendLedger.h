#pragma once
// SpendLedger: the monthly recurring amounts of the creates of the last 24 hours, per currency,
// that spend.max_monthly_recurring_per_day is checked against. Pure (no I/O, no clock of its
// own): it holds executed amounts (a create "created", "unknown", or "sending" with no outcome)
// and reserved ones (a confirm whose person is being asked), and answers their totals at a
// given time. It is seeded once at start from the audit log (seedSpendLedger) and then kept in
// memory as confirms reserve, execute and release; a confirm never reads the log.
//
// Time: an entry counts from its time for 24 hours. An entry "in the future" (the clock was
// stepped back) counts too, so stepping the clock back never frees the day.
//
// When the last 24 hours could not be established (the previous file of a continued log is
// gone, a record is unreadable, the chain has a gap), the ledger says why; with a daily limit
// set, every confirm is then refused until `fabric-broker policy reset-ledger` (audited).
#include "core/Policy.h"

#include <QHash>
#include <QList>
#include <QString>

namespace fb {

class SpendLedger {
public:
    static constexpr qint64 WindowMs = 24LL * 3600 * 1000;

    struct Totals {
        QList<Money> executed; // one per currency, in the order first seen
        QList<Money> reserved;
        // executed + reserved, per currency: what the daily limit is checked against.
        QList<Money> all() const;
    };

    bool isEstablished() const { return m_unestablished.isEmpty(); }
    // Why the last 24 hours are not known (empty when they are).
    QString unestablishedReason() const { return m_unestablished; }
    void markUnestablished(const QString &why);
    // The administrator's reset: the day starts over from what the ledger now holds.
    void markEstablished() { m_unestablished.clear(); }

    // A create executed (or sent without an outcome) at atMs.
    void addExecuted(const QString &key, const Money &amount, qint64 atMs);
    // Reserves the amount for a confirm (key: its token's SHA-256). False when the key already
    // holds a reservation (nothing changes).
    bool reserve(const QString &key, const Money &amount, qint64 nowMs);
    bool isReserved(const QString &key) const { return m_reserved.contains(key); }
    // Drops the reservation (any outcome but created/unknown). Unknown keys are ignored.
    void release(const QString &key);
    // The reserved create was sent: its amount is executed from nowMs. Unknown keys are ignored.
    void commit(const QString &key, qint64 nowMs);

    // Totals of the window at nowMs, leaving out the reservation of excludeKey (a confirm that
    // checks itself).
    Totals totals(qint64 nowMs, const QString &excludeKey = {}) const;
    // Forgets executed entries older than the window (bounded memory).
    void prune(qint64 nowMs);
    int executedCount() const { return int(m_executed.size()); }
    int reservedCount() const { return int(m_reserved.size()); }

private:
    struct Entry {
        QString key;
        Money amount;
        qint64 atMs = 0;
    };
    QList<Entry> m_executed; // in insertion order
    QHash<QString, Entry> m_reserved;
    QList<QString> m_reservedOrder;
    QString m_unestablished;
};

// One line for people: "USD 150.00 of USD 1,000.00 used, USD 400.00 waiting for approval".
QString spendLine(const SpendLedger::Totals &totals, const Money &limit);

struct LedgerSeed {
    bool established = false;
    QString why; // when not established: what is missing and how to restore it
    qint64 recordsRead = 0;
    qint64 bytesRead = 0;
    bool reachedStart = false; // the scan reached the first record (or a ledger reset)
};
// Seeds the ledger from the audit log at path: reads backwards from the end only as far as the
// window needs (24 hours plus the proposal TTL margin for prices), checks the chain of what it
// reads, follows "log_continued" records to the previous file when that file is readable and
// is the one the record names, and stops at a "ledger_reset" record. Compares the log's end
// with <log>.head. A log that does not exist yet (and has no head file) is an empty day.
LedgerSeed seedSpendLedger(const QString &path, qint64 nowMs, SpendLedger *ledger,
                           qint64 priceMarginMs = 3600LL * 1000);

} // namespace fb
