// The day's marker (core/AuditDayMarker.h, issue #34 item 8): real audit logs written by
// AuditLog with a test clock and a marker kept in another folder. Deleting the log and its head
// file, or opening a fresh log at another path, leaves the day unestablished — and stays so
// across reopenings, since such a log never moves the marker — until a ledger_reset; a marker
// older than the day, or none at all, changes nothing.
#include "TestEnvironment.h"
#include "core/AuditDayMarker.h"
#include "core/AuditLog.h"
#include "core/Clock.h"
#include "core/SpendLedger.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

namespace {
constexpr qint64 Hour = 3600LL * 1000;
} // namespace

class TestAuditDayMarker : public QObject {
    Q_OBJECT

    QTemporaryDir *m_tmp = nullptr;
    fb::ManualClock m_clock{1767225600000};

    QString logPath() const { return m_tmp->filePath("logs/audit.jsonl"); }
    QString markerPath() const { return m_tmp->filePath("state/fabric-broker/audit-day"); }

    // Opens the log at path with the marker, writes n records, returns the marker's problem.
    QString session(const QString &path, int n = 1,
                    fb::AuditEventType type = fb::AuditEventType::Proposed)
    {
        fb::AuditLog log(&m_clock);
        log.setDayMarker(markerPath());
        QString error;
        if (!log.open(path, &error))
            return QStringLiteral("open failed: ") + error;
        const QString problem = log.dayMarkerProblem();
        for (int i = 0; i < n; ++i)
            if (!log.record(type, {{"request_sha256", QStringLiteral("a").repeated(64)}}))
                return QStringLiteral("record failed");
        return problem;
    }

    std::optional<fb::AuditDayMarker> marker()
    {
        QString why;
        return fb::AuditDayMarker::read(markerPath(), &why);
    }

private slots:
    void initTestCase() { fbtest::failOnWarnings(); }

    // A marker that can be read (here: none yet) but not written (its folder cannot be made once
    // the log is open: "state" became a file; under the systemd unit, a read-only home) leaves the
    // records durable and is said once per log, not silently (failOnWarnings: a second warning
    // fails the test).
    void aMarkerThatCannotBeWrittenIsSaidOnce()
    {
        fb::AuditLog log(&m_clock);
        log.setDayMarker(markerPath());
        QString error;
        QVERIFY2(log.open(logPath(), &error), qPrintable(error));
        QCOMPARE(log.dayMarkerProblem(), QString());
        QFile blocker(m_tmp->filePath("state"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(QStringLiteral(
                                 "^cannot write the audit day marker .*/state/fabric-broker/"
                                 "audit-day \\(.*\\): a deleted or replaced audit log would "
                                 "not be noticed by the daily limit$")));
        for (int i = 0; i < 3; ++i)
            QVERIFY(log.record(fb::AuditEventType::Proposed,
                               {{"request_sha256", QStringLiteral("a").repeated(64)}}));
        QVERIFY(!QFile::exists(markerPath()));
        QCOMPARE(log.recordCount(), 3);
    }
    void init()
    {
        m_tmp = new QTemporaryDir;
        QVERIFY(m_tmp->isValid());
    }
    void cleanup()
    {
        delete m_tmp;
        m_tmp = nullptr;
    }

    void aContinuedLogMovesTheMarker()
    {
        QCOMPARE(session(logPath(), 3), QString());
        auto m = marker();
        QVERIFY(m);
        QCOMPARE(m->log, QFileInfo(logPath()).absoluteFilePath());
        QCOMPARE(m->seq, 3);
        QCOMPARE(m->atMs, m_clock.nowMs());
        m_clock.advanceMs(Hour);
        QCOMPARE(session(logPath(), 2), QString());
        QCOMPARE(marker()->seq, 5);
        // Its content is one fixed-size line: each update is one pwrite over the last.
        QFile f(markerPath());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.size(), fb::AuditDayMarker::FileBytes);
    }

    void aDeletedLogLeavesTheDayUnestablishedUntilAReset()
    {
        QCOMPARE(session(logPath(), 3), QString());
        QVERIFY(QFile::remove(logPath()));
        QVERIFY(QFile::remove(fb::AuditLog::headFilePath(logPath())));
        m_clock.advanceMs(Hour);
        const QString problem = session(logPath(), 2);
        QVERIFY2(problem.contains("is missing") && problem.contains("seq 3") &&
                     problem.contains("reset-ledger") && problem.contains(markerPath()),
                 qPrintable(problem));
        // The records of that log never moved the marker: the next start still knows.
        QCOMPARE(marker()->seq, 3);
        QVERIFY2(!session(logPath(), 1).isEmpty(), "the second start forgot the missing day");
        // A ledger reset starts the day over on purpose, and the marker follows the log again.
        QVERIFY(!session(logPath(), 1, fb::AuditEventType::LedgerReset).isEmpty());
        QCOMPARE(session(logPath(), 1), QString());
    }

    void aFreshLogAtAnotherPathDoesNotStartTheDayOver()
    {
        QCOMPARE(session(logPath(), 2), QString());
        const QString other = m_tmp->filePath("elsewhere/audit.jsonl");
        const QString problem = session(other, 1);
        QVERIFY2(problem.contains("is now") &&
                     problem.contains(QFileInfo(logPath()).absoluteFilePath()),
                 qPrintable(problem));
        QCOMPARE(marker()->log, QFileInfo(logPath()).absoluteFilePath());
        // Back at the first log, the day is whole again.
        QCOMPARE(session(logPath(), 1), QString());
    }

    void aReplacedLogOfTheSameLengthIsNoContinuation()
    {
        QCOMPARE(session(logPath(), 2), QString());
        QVERIFY(QFile::remove(logPath()));
        QVERIFY(QFile::remove(fb::AuditLog::headFilePath(logPath())));
        // Another log written without the marker, as long as the old one.
        {
            fb::AuditLog log(&m_clock);
            QVERIFY(log.open(logPath()));
            QVERIFY(log.record(fb::AuditEventType::Proposed, {{"other", true}}));
            QVERIFY(log.record(fb::AuditEventType::Proposed, {{"other", true}}));
        }
        QVERIFY(!session(logPath(), 0).isEmpty());
    }

    void aMarkerOlderThanTheDayChangesNothing()
    {
        QCOMPARE(session(logPath(), 2), QString());
        QVERIFY(QFile::remove(logPath()));
        m_clock.advanceMs(fb::SpendLedger::WindowMs + Hour);
        QCOMPARE(session(logPath(), 1), QString());
    }

    void anUnreadableMarkerFailsClosed()
    {
        QCOMPARE(session(logPath(), 1), QString());
        QFile f(markerPath());
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("{\"format\": \"something else\"}\n");
        f.close();
        const QString problem = session(logPath(), 1);
        QVERIFY2(problem.contains("cannot be read"), qPrintable(problem));
    }

    void noMarkerKeptNoProblem()
    {
        fb::AuditLog log(&m_clock);
        QVERIFY(log.open(logPath()));
        QVERIFY(log.record(fb::AuditEventType::Proposed, {}));
        QCOMPARE(log.dayMarkerProblem(), QString());
        QVERIFY(!QFile::exists(markerPath()));
    }
};

QTEST_GUILESS_MAIN(TestAuditDayMarker)
#include "tst_auditdaymarker.moc"
