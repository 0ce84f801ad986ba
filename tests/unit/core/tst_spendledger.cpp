// SpendLedger (src/core/SpendLedger): the day's executed and reserved amounts, and its seeding
// from real audit logs written by AuditLog with a test clock: only the last 24 hours are read,
// a continued log whose previous file is gone, a gap, an unreadable record or a log that ends
// before its head file leave the day unestablished, and a ledger reset starts it over.
#include "TestEnvironment.h"
#include "core/AuditLog.h"
#include "core/Clock.h"
#include "core/SpendLedger.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using fb::Money;
using fb::SpendLedger;

namespace {

constexpr qint64 Hour = 3600LL * 1000;

QJsonObject price(double amount, const QString &currency = QStringLiteral("USD"))
{
    return {{"priced", true}, {"currency", currency}, {"monthly_recurring", amount}};
}

double sum(const QList<Money> &list, const QString &currency = QStringLiteral("USD"))
{
    double total = 0;
    for (const Money &m : list)
        if (m.currency == currency)
            total += m.amount;
    return total;
}

} // namespace

class TestSpendLedger : public QObject {
    Q_OBJECT

    QTemporaryDir *m_tmp = nullptr;
    fb::ManualClock m_clock{1767225600000};

    QString logPath() const { return m_tmp->filePath("audit.jsonl"); }

    // One create through the records a confirm writes: proposed, sending, executed.
    static void create(fb::AuditLog &log, const QString &sha, const QJsonObject &p,
                       const QString &outcome = QStringLiteral("created"),
                       bool withPriceInSending = true, const QJsonObject &request = {})
    {
        QVERIFY(log.record(fb::AuditEventType::Proposed, {{"request_sha256", sha},
                                                          {"price", p},
                                                          {"request", request},
                                                          {"change_type", "connection_create"}}));
        QJsonObject sending{{"request_sha256", sha}, {"request", request}};
        if (withPriceInSending)
            sending.insert("price", p);
        QVERIFY(log.record(fb::AuditEventType::Sending, sending));
        if (!outcome.isEmpty())
            QVERIFY(log.record(fb::AuditEventType::Executed,
                               {{"request_sha256", sha}, {"outcome", outcome}}));
    }

    fb::LedgerSeed seed(SpendLedger *ledger) const
    {
        return fb::seedSpendLedger(logPath(), m_clock.nowMs(), ledger);
    }

private slots:
    void init()
    {
        fbtest::failOnWarnings();
        m_tmp = new QTemporaryDir;
        QVERIFY(m_tmp->isValid());
        m_clock.setNowMs(1767225600000);
    }
    void cleanup()
    {
        delete m_tmp;
        m_tmp = nullptr;
    }

    void reservationsCountUntilReleasedOrCommitted()
    {
        SpendLedger l;
        const qint64 now = m_clock.nowMs();
        l.addExecuted("a", Money{150, "USD"}, now - Hour);
        QVERIFY(l.reserve("t1", Money{400, "USD"}, now));
        QVERIFY(!l.reserve("t1", Money{400, "USD"}, now));
        QVERIFY(l.reserve("t2", Money{100, "EUR"}, now));
        SpendLedger::Totals t = l.totals(now);
        QCOMPARE(sum(t.executed), 150.0);
        QCOMPARE(sum(t.reserved), 400.0);
        QCOMPARE(sum(t.all()), 550.0);
        QCOMPARE(sum(t.all(), "EUR"), 100.0);
        // A confirm checking itself leaves its own reservation out.
        QCOMPARE(sum(l.totals(now, "t1").all()), 150.0);
        QCOMPARE(fb::spendLine(t, Money{1000, "USD"}),
                 QStringLiteral("USD 150.00 of USD 1,000.00 used, USD 400.00 waiting for "
                                "approval"));
        l.release("t2");
        l.commit("t1", now);
        t = l.totals(now);
        QCOMPARE(sum(t.executed), 550.0);
        QCOMPARE(sum(t.reserved), 0.0);
        QCOMPARE(l.reservedCount(), 0);
        // 24 hours later the first has left the window, the second not yet.
        QCOMPARE(sum(l.totals(now + 23 * Hour + 1).executed), 400.0);
        QCOMPARE(sum(l.totals(now + 24 * Hour + 1).executed), 0.0);
        l.prune(now + 24 * Hour + 1);
        QCOMPARE(l.executedCount(), 0);
    }

    // A clock stepped back never frees the day: an entry "in the future" counts.
    void clockSteppedBackStillCounts()
    {
        SpendLedger l;
        const qint64 now = m_clock.nowMs();
        l.addExecuted("a", Money{300, "USD"}, now);
        QCOMPARE(sum(l.totals(now - 2 * Hour).executed), 300.0);
        l.prune(now - 2 * Hour);
        QCOMPARE(sum(l.totals(now - 2 * Hour).executed), 300.0);
    }

    void noLogIsAnEmptyDay()
    {
        SpendLedger l;
        const fb::LedgerSeed s = seed(&l);
        QVERIFY2(s.established, qPrintable(s.why));
        QVERIFY(l.isEstablished());
        QCOMPARE(sum(l.totals(m_clock.nowMs()).all()), 0.0);
    }

    // A log just opened (its head file names no record yet) is an empty day, not a gap.
    void freshLogIsAnEmptyDay()
    {
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
        }
        SpendLedger l;
        const fb::LedgerSeed s = seed(&l);
        QVERIFY2(s.established, qPrintable(s.why));
    }

    void seedsCreatesOfTheLastDay()
    {
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
            create(log, "old", price(900)); // 25 h ago: out of the window
            m_clock.advanceMs(2 * Hour);
            create(log, "created", price(150));
            create(log, "rejected", price(200), "rejected");
            create(log, "unknown", price(50), "unknown");
            create(log, "no-outcome", price(25), QString());        // sending, then nothing
            create(log, "old-format", price(10), "created", false); // price only in proposed
            create(log, "unpriced", QJsonObject{{"priced", false}});
            create(log, "euro", price(70, "EUR"));
        }
        m_clock.advanceMs(23 * Hour);
        SpendLedger l;
        const fb::LedgerSeed s = seed(&l);
        QVERIFY2(s.established, qPrintable(s.why));
        const SpendLedger::Totals t = l.totals(m_clock.nowMs());
        QCOMPARE(sum(t.executed), 150.0 + 50 + 25 + 10);
        QCOMPARE(sum(t.executed, "EUR"), 70.0);
        // The clock stepped back 2 hours after the restart: nothing is freed (the 25-hour-old
        // create is back inside the window, the others still count).
        SpendLedger back;
        QVERIFY(fb::seedSpendLedger(logPath(), m_clock.nowMs() - 2 * Hour, &back).established);
        QCOMPARE(sum(back.totals(m_clock.nowMs() - 2 * Hour).executed), 900.0 + 150 + 50 + 25 + 10);
    }

    // Only the window is read: a long log of old records costs the records of one day.
    void readsOnlyTheWindow()
    {
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
            for (int i = 0; i < 2000; ++i)
                QVERIFY(log.recordForTesting("step", {{"index", i}}));
            m_clock.advanceMs(48 * Hour);
            create(log, "recent", price(100));
        }
        SpendLedger l;
        const fb::LedgerSeed s = seed(&l);
        QVERIFY2(s.established, qPrintable(s.why));
        QCOMPARE(sum(l.totals(m_clock.nowMs()).executed), 100.0);
        QVERIFY2(s.recordsRead < 10, qPrintable(QString::number(s.recordsRead)));
    }

    // The log deleted while the broker runs: the writer continues in a new file with a
    // log_continued record; the previous file is gone, so the day is not known.
    void deletedLogLeavesTheDayUnknown()
    {
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
            create(log, "before", price(400));
            QVERIFY(QFile::remove(logPath()));
            create(log, "after", price(100));
        }
        SpendLedger l;
        const fb::LedgerSeed s = seed(&l);
        QVERIFY(!s.established);
        QVERIFY(!l.isEstablished());
        QVERIFY2(l.unestablishedReason().contains("unlinked"), qPrintable(s.why));
        QVERIFY2(l.unestablishedReason().contains("fabric-broker policy reset-ledger"),
                 qPrintable(s.why));
    }

    // A rotation that keeps the previous file at the path the record names is followed.
    void continuedLogIsFollowedToTheReadablePreviousFile()
    {
        const QString moved = m_tmp->filePath("audit.jsonl.1");
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
            create(log, "before", price(400));
            QVERIFY(QFile::rename(logPath(), moved));
            create(log, "after", price(100));
        }
        // The writer names the path it wrote; put the previous file back there and the new one
        // aside, as a restore would, then chain: new file -> previous file.
        const QString fresh = m_tmp->filePath("fresh.jsonl");
        QVERIFY(QFile::rename(logPath(), fresh));
        QVERIFY(QFile::rename(moved, logPath()));
        SpendLedger l;
        const fb::LedgerSeed s = fb::seedSpendLedger(fresh, m_clock.nowMs(), &l);
        QVERIFY2(s.established, qPrintable(s.why));
        QCOMPARE(sum(l.totals(m_clock.nowMs()).executed), 500.0);
    }

    void unreadableRecordInTheWindow()
    {
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
            create(log, "a", price(100));
            create(log, "b", price(100));
        }
        QFile f(logPath());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray bytes = f.readAll();
        f.close();
        bytes.replace("\"outcome\":\"created\"", "\"outcome\":\"rejectex\"");
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bytes);
        f.close();
        SpendLedger l;
        const fb::LedgerSeed s = seed(&l);
        QVERIFY(!s.established);
        QVERIFY2(s.why.contains("gap") || s.why.contains("unreadable"), qPrintable(s.why));
    }

    // The log cut back to fewer records than its head file names (a rewrite by another user).
    void logEndingBeforeItsHeadFile()
    {
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
            create(log, "a", price(100));
        }
        const QByteArray head = [&] {
            QFile h(fb::AuditLog::headFilePath(logPath()));
            return h.open(QIODevice::ReadOnly) ? h.readAll() : QByteArray();
        }();
        QVERIFY(!head.isEmpty());
        QVERIFY(QFile::remove(logPath()));
        SpendLedger l;
        const fb::LedgerSeed s = seed(&l);
        QVERIFY(!s.established);
        QVERIFY2(s.why.contains("head"), qPrintable(s.why));
    }

    void ledgerResetStartsTheDayOver()
    {
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
            create(log, "before", price(400));
            QVERIFY(QFile::remove(logPath()));
            create(log, "after-delete", price(100));
            QVERIFY(log.record(fb::AuditEventType::LedgerReset, {{"reason", "test"}}));
            create(log, "after-reset", price(30));
        }
        SpendLedger l;
        const fb::LedgerSeed s = seed(&l);
        QVERIFY2(s.established, qPrintable(s.why));
        QCOMPARE(sum(l.totals(m_clock.nowMs()).executed), 30.0);
    }

    // An inflated proposal (hundreds of long e-mail addresses, past the schema's maxItems)
    // still keeps request_sha256 and price in its records, so the ledger counts it.
    void inflatedProposalIsStillCounted()
    {
        QJsonArray emails;
        for (int i = 0; i < 400; ++i)
            emails.append(QString(QString(900, QChar(u'a' + i % 26)) + "@example.com"));
        const QJsonObject request{
            {"body", QJsonObject{{"notifications",
                                  QJsonArray{QJsonObject{{"type", "ALL"}, {"emails", emails}}}}}}};
        QVERIFY(QJsonDocument(request).toJson().size() > 300 * 1024);
        const QJsonObject scrubbed = fb::AuditLog::scrub({{"request_sha256", "abc"},
                                                          {"request", request},
                                                          {"price", price(400)},
                                                          {"token_sha256", "t"},
                                                          {"change_type", "connection_create"}});
        QCOMPARE(scrubbed.value("request_sha256").toString(), QStringLiteral("abc"));
        QCOMPARE(scrubbed.value("token_sha256").toString(), QStringLiteral("t"));
        QCOMPARE(scrubbed.value("price").toObject(), price(400));
        QVERIFY(scrubbed.contains("audit_truncated"));
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
            create(log, "inflated", price(400), "created", true, request);
        }
        SpendLedger l;
        const fb::LedgerSeed s = seed(&l);
        QVERIFY2(s.established, qPrintable(s.why));
        QCOMPARE(sum(l.totals(m_clock.nowMs()).executed), 400.0);
    }
};

QTEST_GUILESS_MAIN(TestSpendLedger)
#include "tst_spendledger.moc"
