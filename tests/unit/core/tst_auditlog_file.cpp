// fb::AuditLog's file safety (AuditLogFile): a symlinked log is refused; a log replaced, moved,
// unlinked, swapped for a symlink or garbage, or truncated while running is detected and
// followed or fails closed; the .head file follows the log and catches a truncated tail.
#include "TestEnvironment.h"
#include "auditlog_fixtures.h"

using fb::AuditLog;
using namespace fbtest::auditlog;

class TestAuditLogFile : public QObject, protected Fixture {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings();
        setUp();
    }
    void cleanup() { tearDown(); }

    void symlinkIsRefused()
    {
        const QString target = m_tmp->filePath(QStringLiteral("elsewhere.jsonl"));
        writeAll(target, {});
        QVERIFY(QFile::link(target, m_path));
        AuditLog log(&m_clock);
        QString error;
        QVERIFY(!log.open(m_path, &error));
        QVERIFY2(error.contains(QStringLiteral("symbolic link")), qPrintable(error));
        QCOMPARE(readAll(target), QByteArray());
    }

    void replacedWhileRunning()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 1}}));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 2}}));
        const QString oldHead = log.headSha256();
        const QString moved = m_tmp->filePath(QStringLiteral("audit.old.jsonl"));
        QVERIFY(QFile::rename(m_path, moved));
        writeAll(m_path, {}); // a new, empty file takes the path (logrotate "create")
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 3}}));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 4}}));

        QCOMPARE(lines(moved).size(), 2); // nothing more went into the old file
        const QList<QByteArray> ls = lines(m_path);
        QCOMPARE(ls.size(), 3);
        const QJsonObject link = parse(ls.at(0));
        QCOMPARE(link.value(QStringLiteral("type")).toString(), QStringLiteral("log_continued"));
        QCOMPARE(link.value(QStringLiteral("seq")).toInt(), 1);
        const QJsonObject data = link.value(QStringLiteral("data")).toObject();
        QCOMPARE(data.value(QStringLiteral("reason")).toString(), QStringLiteral("replaced"));
        const QJsonObject previous = data.value(QStringLiteral("previous")).toObject();
        QCOMPARE(previous.value(QStringLiteral("seq")).toInt(), 2);
        QCOMPARE(previous.value(QStringLiteral("sha256")).toString(), oldHead);
        QCOMPARE(
            parse(ls.at(1)).value(QStringLiteral("data")).toObject().value(QStringLiteral("index")),
            QJsonValue(3));

        const auto oldV = AuditLog::verify(moved);
        QVERIFY2(oldV.ok, qPrintable(oldV.problem));
        QCOMPARE(oldV.headSha256, oldHead);
        const auto newV = AuditLog::verify(m_path);
        QVERIFY2(newV.ok, qPrintable(newV.problem));
        QVERIFY2(newV.headFileChecked, qPrintable(newV.headFileNote));
        QCOMPARE(newV.records, 3);
        QCOMPARE(newV.continuations.size(), 1);
        QCOMPARE(newV.continuations.first().reason, QStringLiteral("replaced"));
        QCOMPARE(newV.continuations.first().previous.sha256, oldHead);
        QCOMPARE(newV.continuations.first().previous.seq, 2);
        // The old file's head, kept elsewhere, is found as the head the new file continues from.
        fb::AuditVerifyOptions options;
        options.keptHead = fb::AuditHead{2, oldHead};
        const auto kept = AuditLog::verify(m_path, options);
        QVERIFY2(kept.ok, qPrintable(kept.problem));
        QVERIFY(kept.keptHeadFound);
    }

    void movedAndUnlinkedWhileRunning()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        const QString moved = m_tmp->filePath(QStringLiteral("moved.jsonl"));
        QVERIFY(QFile::rename(m_path, moved)); // moved away, nothing at the path
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QList<QByteArray> ls = lines(m_path);
        QCOMPARE(ls.size(), 2);
        QCOMPARE(parse(ls.at(0))
                     .value(QStringLiteral("data"))
                     .toObject()
                     .value(QStringLiteral("reason")),
                 QJsonValue(QStringLiteral("moved")));
        QCOMPARE(lines(moved).size(), 1);
        const QString headBeforeUnlink = log.headSha256();

        QVERIFY(QFile::remove(m_path)); // unlinked
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("after"), true}}));
        ls = lines(m_path);
        QCOMPARE(ls.size(), 2);
        const QJsonObject link = parse(ls.at(0));
        QCOMPARE(link.value(QStringLiteral("type")).toString(), QStringLiteral("log_continued"));
        const QJsonObject data = link.value(QStringLiteral("data")).toObject();
        QCOMPARE(data.value(QStringLiteral("reason")).toString(), QStringLiteral("unlinked"));
        QCOMPARE(data.value(QStringLiteral("previous"))
                     .toObject()
                     .value(QStringLiteral("sha256"))
                     .toString(),
                 headBeforeUnlink);
        QCOMPARE(mode(m_path), 0600);
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 2);
        QVERIFY(AuditLog::verify(moved).ok);
    }

    void replacedBySymlinkFailsClosed()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        const QString target = m_tmp->filePath(QStringLiteral("target.jsonl"));
        writeAll(target, {});
        QVERIFY(QFile::remove(m_path));
        QVERIFY(QFile::link(target, m_path));
        QVERIFY(!log.record(fb::AuditEventType::Sending, {}));
        QVERIFY2(log.lastError().contains(QStringLiteral("symbolic link")),
                 qPrintable(log.lastError()));
        QCOMPARE(readAll(target), QByteArray());
    }

    void replacedByGarbageFailsUntilRepaired()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        const QString head = log.headSha256();
        QVERIFY(QFile::remove(m_path));
        writeAll(m_path, "not an audit log\n");
        QVERIFY(!log.record(fb::AuditEventType::Sending, {}));
        QVERIFY(!log.record(fb::AuditEventType::Sending, {}));
        QCOMPARE(readAll(m_path), QByteArray("not an audit log\n"));
        // Repaired in place: the link to the old head is still written first.
        writeAll(m_path, {});
        QVERIFY2(log.recordForTesting(QStringLiteral("step"), {}), qPrintable(log.lastError()));
        const QList<QByteArray> ls = lines(m_path);
        QCOMPARE(ls.size(), 2);
        const QJsonObject link = parse(ls.at(0));
        QCOMPARE(link.value(QStringLiteral("type")).toString(), QStringLiteral("log_continued"));
        QCOMPARE(link.value(QStringLiteral("data"))
                     .toObject()
                     .value(QStringLiteral("previous"))
                     .toObject()
                     .value(QStringLiteral("sha256"))
                     .toString(),
                 head);
        QVERIFY(AuditLog::verify(m_path).ok);
    }

    void truncatedWhileRunning()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        for (int i = 1; i <= 3; ++i)
            QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), i}}));
        const QString head = log.headSha256();
        const QList<QByteArray> before = lines(m_path);
        QVERIFY(::truncate(QFile::encodeName(m_path).constData(), before.at(0).size() + 1) == 0);
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 4}}));
        const QList<QByteArray> ls = lines(m_path);
        QCOMPARE(ls.size(), 3);
        const QJsonObject link = parse(ls.at(1));
        QCOMPARE(link.value(QStringLiteral("seq")).toInt(), 2);
        QCOMPARE(link.value(QStringLiteral("prev")).toString().toLatin1(), sha(ls.at(0)));
        const QJsonObject data = link.value(QStringLiteral("data")).toObject();
        QCOMPARE(data.value(QStringLiteral("reason")).toString(), QStringLiteral("truncated"));
        QCOMPARE(data.value(QStringLiteral("previous")).toObject().value(QStringLiteral("seq")),
                 QJsonValue(3));
        QCOMPARE(data.value(QStringLiteral("previous"))
                     .toObject()
                     .value(QStringLiteral("sha256"))
                     .toString(),
                 head);
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.continuations.size(), 1);
    }

    // ---- the tail: head file and kept head ----

    void headFileFollowsTheLog()
    {
        writeRecords(2);
        QByteArray head = readAll(AuditLog::headFilePath(m_path));
        QCOMPARE(head.size(), 160);
        QVERIFY(head.endsWith('\n'));
        const QJsonObject o = QJsonDocument::fromJson(head.trimmed()).object();
        QCOMPARE(o.value(QStringLiteral("seq")).toInt(), 2);
        QCOMPARE(o.value(QStringLiteral("sha256")).toString().toLatin1(),
                 sha(lines(m_path).last()));
        QCOMPARE(mode(AuditLog::headFilePath(m_path)), 0600);
        const auto v = AuditLog::verify(m_path);
        QVERIFY(v.ok);
        QVERIFY2(v.headFileChecked, qPrintable(v.headFileNote));

        // No head file: intact, but the tail is not checked, and verify says so.
        QVERIFY(QFile::remove(AuditLog::headFilePath(m_path)));
        const auto none = AuditLog::verify(m_path);
        QVERIFY(none.ok);
        QVERIFY(!none.headFileChecked);
        QVERIFY2(none.headFileNote.contains(QStringLiteral("no head file")),
                 qPrintable(none.headFileNote));
        // Reopening writes it again.
        writeRecords(0);
        QVERIFY(AuditLog::verify(m_path).headFileChecked);
    }

    void truncatedTailIsDetected()
    {
        writeRecords(5);
        const QList<QByteArray> ls = lines(m_path);
        // Cut back to three whole records: the chain that is left is valid.
        writeAll(m_path, joinLines(ls.mid(0, 3)));
        auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QVERIFY(v.truncated);
        QCOMPARE(v.records, 3);
        QVERIFY2(v.problem.contains(QStringLiteral("truncated tail")), qPrintable(v.problem));
        QVERIFY2(v.problem.contains(QStringLiteral("2 record(s) were removed")),
                 qPrintable(v.problem));
        // The same file without the head file check: indistinguishable from an intact log.
        fb::AuditVerifyOptions noHeadFile;
        noHeadFile.useHeadFile = false;
        QVERIFY(AuditLog::verify(m_path, noHeadFile).ok);

        // A cut in the middle of the fourth record: the torn rest is not the fourth record.
        writeAll(m_path, joinLines(ls.mid(0, 3)) + ls.at(3).left(50));
        v = AuditLog::verify(m_path);
        QVERIFY(v.truncated);
        QVERIFY2(v.problem.contains(QStringLiteral("2 record(s) were removed")),
                 qPrintable(v.problem));

        // A rewritten last record at the head's seq.
        QList<QByteArray> edited = ls;
        edited[4].replace("port A", "port Z");
        writeAll(m_path, joinLines(edited));
        v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QVERIFY(!v.truncated);
        QVERIFY2(v.problem.contains(QStringLiteral("prev")) ||
                     v.problem.contains(QStringLiteral("does not match the head file")),
                 qPrintable(v.problem));

        // A writer opening the truncated log records what it found and goes on.
        writeAll(m_path, joinLines(ls.mid(0, 3)));
        writeRecords(1, 6);
        v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 5);
        QCOMPARE(v.continuations.size(), 1);
        QCOMPARE(v.continuations.first().reason, QStringLiteral("truncated"));
        QCOMPARE(v.continuations.first().previous.seq, 5);
        QCOMPARE(v.continuations.first().previous.sha256.toLatin1(), sha(ls.at(4)));
    }

    void crashBeforeHeadUpdateIsNotTruncation()
    {
        writeRecords(3);
        const QByteArray head = readAll(AuditLog::headFilePath(m_path));
        writeRecords(1, 4);
        // As if the process died between the record's fdatasync and the head file's update.
        writeAll(AuditLog::headFilePath(m_path), head);
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QVERIFY(v.headFileChecked);
        QVERIFY2(v.headFileNote.contains(QStringLiteral("1 record(s) behind")),
                 qPrintable(v.headFileNote));
    }

    void verifyAgainstAKeptHead()
    {
        writeRecords(3);
        const QList<QByteArray> three = lines(m_path);
        const fb::AuditHead kept{3, QString::fromLatin1(sha(three.last()))};
        QCOMPARE(fb::AuditHead::parse(kept.toString())->sha256, kept.sha256);
        QCOMPARE(fb::AuditHead::parse(kept.toString())->seq, 3);
        QCOMPARE(fb::AuditHead::parse(kept.sha256)->seq, 0);
        QVERIFY(!fb::AuditHead::parse(QStringLiteral("3:xyz")));
        QVERIFY(!fb::AuditHead::parse(QStringLiteral("-1:") + kept.sha256));
        QVERIFY(!fb::AuditHead::parse(kept.sha256.toUpper()));
        writeRecords(2, 4);

        fb::AuditVerifyOptions options;
        options.keptHead = kept;
        auto v = AuditLog::verify(m_path, options);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QVERIFY(v.keptHeadFound);
        QCOMPARE(v.keptHeadLine, 3);
        QCOMPARE(v.recordsAfterKeptHead, 2);
        options.keptHead = fb::AuditHead{0, kept.sha256}; // the hash alone
        QVERIFY(AuditLog::verify(m_path, options).keptHeadFound);

        // Cut back to two records, head file gone too (a writer that rewrote both): only the
        // kept head tells.
        const QList<QByteArray> five = lines(m_path);
        writeAll(m_path, joinLines(five.mid(0, 2)));
        QVERIFY(QFile::remove(AuditLog::headFilePath(m_path)));
        QVERIFY(AuditLog::verify(m_path).ok);
        options.keptHead = kept;
        v = AuditLog::verify(m_path, options);
        QVERIFY(!v.ok);
        QVERIFY(v.truncated);
        QVERIFY2(v.problem.contains(QStringLiteral("at least 1 record(s) after seq 2 were "
                                                   "deleted")),
                 qPrintable(v.problem));

        // Rewritten from record 2 on: the kept head is no longer in the log.
        writeAll(m_path, joinLines(five.mid(0, 1)));
        writeRecords(4, 100);
        v = AuditLog::verify(m_path, options);
        QVERIFY(!v.ok);
        QVERIFY(!v.truncated);
        QVERIFY2(v.problem.contains(QStringLiteral("is not in this log")), qPrintable(v.problem));
    }
};

QTEST_GUILESS_MAIN(TestAuditLogFile)
#include "tst_auditlog_file.moc"
