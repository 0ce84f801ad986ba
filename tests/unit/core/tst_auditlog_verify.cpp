// fb::AuditLog's verification and recovery (AuditVerify, AuditRecordFormat): every kind of
// tampering is detected (a modified, deleted, reordered, duplicated or non-canonical line, a seq
// gap, a bad first prev, hostile lines, random corruption), and a torn last line from an
// interrupted write is recovered on reopen without breaking the chain.
#include "TestEnvironment.h"
#include "auditlog_fixtures.h"

using fb::AuditLog;
using namespace fbtest::auditlog;

class TestAuditLogVerify : public QObject, protected Fixture {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings();
        setUp();
    }
    void cleanup() { tearDown(); }

    void verifyDetectsModifiedByte()
    {
        writeRecords(4);
        QList<QByteArray> ls = lines(m_path);
        // Still valid, canonical JSON: only the chain can tell.
        QVERIFY(ls[1].contains("port A"));
        ls[1].replace("port A", "port C");
        writeAll(m_path, joinLines(ls));
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 3);
        QVERIFY2(v.problem.contains(QStringLiteral("prev mismatch")), qPrintable(v.problem));
        QVERIFY2(v.problem.contains(QStringLiteral("line 2")), qPrintable(v.problem));
        QCOMPARE(v.records, 2);
    }

    void verifyDetectsModifiedByteBreakingJson()
    {
        writeRecords(4);
        QList<QByteArray> ls = lines(m_path);
        ls[1].replace("\"index\":2", "\"index\":2x");
        writeAll(m_path, joinLines(ls));
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 2);
        QVERIFY2(v.problem.contains(QStringLiteral("bad JSON")), qPrintable(v.problem));
        QCOMPARE(v.records, 1);
    }

    void verifyDetectsModifiedLastLine()
    {
        // A last line altered into invalid JSON, still ending with its newline, is not a torn
        // write if its content does not look like a record prefix.
        writeRecords(2);
        QList<QByteArray> ls = lines(m_path);
        ls[1][0] = '[';
        writeAll(m_path, joinLines(ls));
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 2);
        QVERIFY2(v.problem.contains(QStringLiteral("bad JSON")), qPrintable(v.problem));
    }

    void verifyDetectsNonCanonicalLine()
    {
        writeRecords(2);
        QList<QByteArray> ls = lines(m_path);
        ls[1].replace("{\"data\":", "{ \"data\":");
        writeAll(m_path, joinLines(ls));
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 2);
        QVERIFY2(v.problem.contains(QStringLiteral("canonical")), qPrintable(v.problem));
        // The writer refuses to chain onto it.
        AuditLog log(&m_clock);
        QString error;
        QVERIFY(!log.open(m_path, &error));
        QVERIFY2(error.contains(QStringLiteral("not a valid audit record")), qPrintable(error));
        QVERIFY(!log.recordForTesting(QStringLiteral("step"), {}));
    }

    void verifyDetectsDeletedLine()
    {
        writeRecords(4);
        QList<QByteArray> ls = lines(m_path);
        ls.removeAt(1);
        writeAll(m_path, joinLines(ls));
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 2);
        QVERIFY2(v.problem.contains(QStringLiteral("seq gap: expected 2, found 3")),
                 qPrintable(v.problem));
        QCOMPARE(v.records, 1);
    }

    void verifyDetectsDeletedFirstLine()
    {
        writeRecords(3);
        QList<QByteArray> ls = lines(m_path);
        ls.removeFirst();
        writeAll(m_path, joinLines(ls));
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 1);
        QVERIFY2(v.problem.contains(QStringLiteral("seq gap")), qPrintable(v.problem));
    }

    void verifyDetectsReorderedLines()
    {
        writeRecords(4);
        QList<QByteArray> ls = lines(m_path);
        ls.swapItemsAt(1, 2);
        writeAll(m_path, joinLines(ls));
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 2);
        QVERIFY2(v.problem.contains(QStringLiteral("seq gap: expected 2, found 3")),
                 qPrintable(v.problem));
    }

    void verifyDetectsSeqGapWithIntactHashes()
    {
        // A forger who recomputes prev but skips a sequence number is still caught.
        writeRecords(1);
        const QByteArray first = lines(m_path).first();
        const QJsonObject forged{
            {QStringLiteral("seq"), 3},
            {QStringLiteral("time"), QStringLiteral("2026-01-01T00:00:09.000Z")},
            {QStringLiteral("type"), QStringLiteral("step")},
            {QStringLiteral("data"), QJsonObject{}},
            {QStringLiteral("prev"), QString::fromLatin1(sha(first))}};
        writeAll(m_path, first + '\n' + fb::canonicalJson(forged) + '\n');
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 2);
        QVERIFY2(v.problem.contains(QStringLiteral("seq gap: expected 2, found 3")),
                 qPrintable(v.problem));

        // The same record with seq 2 verifies: the check above is about seq alone.
        QJsonObject fixed = forged;
        fixed.insert(QStringLiteral("seq"), 2);
        writeAll(m_path, first + '\n' + fb::canonicalJson(fixed) + '\n');
        QVERIFY(AuditLog::verify(m_path).ok);
    }

    void verifyDetectsDuplicatedLine()
    {
        writeRecords(2);
        QList<QByteArray> ls = lines(m_path);
        ls.append(ls.last());
        writeAll(m_path, joinLines(ls));
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 3);
        QVERIFY2(v.problem.contains(QStringLiteral("out of order or duplicated")),
                 qPrintable(v.problem));
    }

    void verifyDetectsBadFirstPrev()
    {
        const QJsonObject rec{{QStringLiteral("seq"), 1},
                              {QStringLiteral("time"), QStringLiteral("2026-01-01T00:00:00.000Z")},
                              {QStringLiteral("type"), QStringLiteral("step")},
                              {QStringLiteral("data"), QJsonObject{}},
                              {QStringLiteral("prev"), QString(64, u'1')}};
        writeAll(m_path, fb::canonicalJson(rec) + '\n');
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 1);
        QVERIFY2(v.problem.contains(QStringLiteral("prev mismatch")), qPrintable(v.problem));
    }

    void verifyEmptyAndMissing()
    {
        writeAll(m_path, {});
        auto v = AuditLog::verify(m_path);
        QVERIFY(v.ok);
        QCOMPARE(v.records, 0);
        QCOMPARE(v.headSha256, AuditLog::zeroHash());

        v = AuditLog::verify(m_tmp->filePath(QStringLiteral("missing.jsonl")));
        QVERIFY(!v.ok);
        QVERIFY(v.ioError);
    }

    void verifyIsRobustAgainstHostileLines()
    {
        writeRecords(1);
        const QByteArray good = readAll(m_path);
        // Nested far deeper than any record: reported clearly, not as a torn write.
        const QByteArray deep = "{\"data\":" + QByteArray(5000, '[') + QByteArray(5000, ']') + "}";
        writeAll(m_path, good + deep + "\n");
        auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 2);
        QVERIFY2(v.problem.contains(QStringLiteral("nested deeper than 256 levels")),
                 qPrintable(v.problem));
        QVERIFY(v.tornLines.isEmpty());

        // A huge record with 200000 members (the old duplicate-key scan was quadratic): verified
        // when intact, without stalling.
        const QByteArray prev = sha(good.chopped(1));
        QByteArray huge = "{\"data\":{";
        for (int i = 0; i < 200000; ++i) {
            if (i)
                huge += ',';
            huge += "\"m" + QByteArray::number(i).rightJustified(6, '0') +
                    "\":" + QByteArray::number(i);
        }
        huge += "},\"prev\":\"" + prev +
                "\",\"seq\":2,\"time\":\"2026-01-01T00:00:05.000Z\",\"type\":\"hostile\"}";
        QCOMPARE(fb::canonicalJson(parse(huge)), huge);
        QFile::remove(AuditLog::headFilePath(m_path));
        writeAll(m_path, good + huge + "\n");
        v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 2);

        // The same record with a duplicated key is not canonical.
        QByteArray dup = huge;
        dup.replace("\"m000001\":1,", "\"m000001\":1,\"m000001\":1,");
        writeAll(m_path, good + dup + "\n");
        v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QVERIFY2(v.problem.contains(QStringLiteral("canonical")), qPrintable(v.problem));

        // A line longer than the verifier reads.
        writeAll(m_path, good + "{\"data\":\"" + QByteArray(AuditLog::MaxLineBytes + 10, 'a') +
                             "\"}\n" + good);
        v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 2);
        QVERIFY2(v.problem.contains(QStringLiteral("line longer than")), qPrintable(v.problem));
    }

    // ---- replaced, moved, unlinked, truncated ----

    void tornLastLine()
    {
        writeRecords(3);
        const QByteArray intact = readAll(m_path);
        QList<QByteArray> ls = lines(m_path);
        // An interrupted write of a fourth record: a prefix without newline.
        writeAll(m_path, intact + ls.last().left(40));
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 3);
        QCOMPARE(v.lastSeq, 3);
        QCOMPARE(v.tornLines, QList<qint64>{4});
        QCOMPARE(v.firstBadLine, 4);
        QVERIFY2(v.problem.contains(QStringLiteral("truncated/torn record at line 4")),
                 qPrintable(v.problem));
        QCOMPARE(v.headSha256.toLatin1(), sha(ls.last()));

        // Even a single byte of a record is a torn write.
        writeAll(m_path, intact + "{");
        const auto one = AuditLog::verify(m_path);
        QVERIFY(one.ok);
        QCOMPARE(one.tornLines, QList<qint64>{4});

        // Garbage that is not the start of a record is not.
        writeAll(m_path, intact + "hello");
        const auto garbage = AuditLog::verify(m_path);
        QVERIFY(!garbage.ok);
        QCOMPARE(garbage.firstBadLine, 4);
        QVERIFY2(garbage.problem.contains(QStringLiteral("bad JSON")), qPrintable(garbage.problem));

        // readRecords skips the torn line.
        writeAll(m_path, intact + ls.last().left(40));
        QList<QJsonObject> records;
        QVERIFY(AuditLog::readRecords(m_path, &records));
        QCOMPARE(records.size(), 3);
    }

    void reopenAfterTornLine()
    {
        writeRecords(3);
        const QList<QByteArray> original = lines(m_path);
        const QByteArray torn = original.last().left(57);
        writeAll(m_path, readAll(m_path) + torn);

        {
            AuditLog log(&m_clock);
            QString error;
            QVERIFY2(log.open(m_path, &error), qPrintable(error));
            QCOMPARE(log.recordCount(), 3);
            QCOMPARE(log.headSha256().toLatin1(), sha(original.last()));
            QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 4}}));
            QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 5}}));
            QCOMPARE(log.recordCount(), 5);
        }
        const QList<QByteArray> ls = lines(m_path);
        QCOMPARE(ls.size(), 6);
        QCOMPARE(ls.at(3), torn); // kept as evidence, terminated by a newline
        const QJsonObject fourth = parse(ls.at(4));
        QCOMPARE(fourth.value(QStringLiteral("seq")).toInt(), 4);
        QCOMPARE(fourth.value(QStringLiteral("prev")).toString().toLatin1(), sha(ls.at(2)));

        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 5);
        QCOMPARE(v.lastSeq, 5);
        QCOMPARE(v.tornLines, QList<qint64>{4});
        QCOMPARE(v.firstBadLine, 4);
        QVERIFY2(v.problem.contains(QStringLiteral("truncated/torn record at line 4")),
                 qPrintable(v.problem));

        // A second reopen continues from seq 5 and verifies the same way.
        writeRecords(1, 6);
        const auto again = AuditLog::verify(m_path);
        QVERIFY(again.ok);
        QCOMPARE(again.records, 6);
        QCOMPARE(again.tornLines, QList<qint64>{4});
    }

    void tornLineInTheMiddleMustBeSkippedByTheChain()
    {
        // A record turned into a record-looking fragment is tampering, not a torn write: the
        // next record chains to the original, not to the record before the fragment.
        writeRecords(4);
        QList<QByteArray> ls = lines(m_path);
        ls[1] = ls[1].left(30);
        writeAll(m_path, joinLines(ls));
        const auto v = AuditLog::verify(m_path);
        QVERIFY(!v.ok);
        QCOMPARE(v.firstBadLine, 2);
        QVERIFY2(v.problem.contains(QStringLiteral("not an interrupted write")),
                 qPrintable(v.problem));
    }

    void reopenAfterTornFirstLine()
    {
        writeAll(m_path, QByteArray("{\"data\":{\"ind"));
        writeRecords(2);
        const QList<QByteArray> ls = lines(m_path);
        QCOMPARE(ls.size(), 3);
        QCOMPARE(parse(ls.at(1)).value(QStringLiteral("prev")).toString(), AuditLog::zeroHash());
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 2);
        QCOMPARE(v.tornLines, QList<qint64>{1});
    }

    void reopenAfterValidLineWithoutNewline()
    {
        writeRecords(2);
        QByteArray all = readAll(m_path);
        all.chop(1);
        writeAll(m_path, all);
        QVERIFY(AuditLog::verify(m_path).ok);
        writeRecords(1, 3);
        const QList<QByteArray> ls = lines(m_path);
        QCOMPARE(ls.size(), 3);
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 3);
        QVERIFY(v.tornLines.isEmpty());
        QCOMPARE(v.firstBadLine, 0);
    }

    void reopenScansBeyondTheTailWindow()
    {
        // A last record larger than the 64 KiB tail window is still found.
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("small"), {}));
        QJsonObject big;
        for (int i = 0; i < 40; ++i) // 40 strings of 4000 characters: within the bounds
            big.insert(QStringLiteral("blob%1").arg(i), QString(4000, u'x'));
        QVERIFY(log.recordForTesting(QStringLiteral("big"), big));
        QVERIFY(lines(m_path).last().size() > 64 * 1024);
        log.close();
        QVERIFY(!log.isOpen());
        AuditLog reopened(&m_clock);
        QVERIFY(reopened.open(m_path, nullptr));
        QCOMPARE(reopened.recordCount(), 2);
        QVERIFY(reopened.recordForTesting(QStringLiteral("after"), {}));
        QVERIFY(AuditLog::verify(m_path).ok);
    }

    void randomCorruptionNeverVerifiesAsIntact()
    {
        // Property: whatever is done to the bytes of a log (its head file kept), verify() never
        // crashes, and when it says ok, the records it would export are exactly the original
        // ones (only torn-looking fragments or a missing final newline may have been added).
        writeRecords(6);
        const QByteArray original = readAll(m_path);
        QList<QJsonObject> want;
        QVERIFY(AuditLog::readRecords(m_path, &want));
        QRandomGenerator rng(20261201);
        const QList<QByteArray> ls = lines(m_path);
        int detected = 0;
        for (int i = 0; i < 200; ++i) {
            QByteArray bytes = original;
            const int kind = int(rng.bounded(7));
            const qsizetype at = rng.bounded(int(bytes.size()));
            switch (kind) {
            case 0: // flip one byte
                bytes[at] = char(bytes.at(at) ^ (1 << rng.bounded(8)));
                break;
            case 1: // cut the file
                bytes.truncate(at);
                break;
            case 2: // delete a range
                bytes.remove(at, 1 + rng.bounded(200));
                break;
            case 3: // insert a byte (often a newline or a quote)
                bytes.insert(at, "\n\"{}[],:0a\\"[rng.bounded(12)]);
                break;
            case 4: { // drop, duplicate or swap whole lines
                QList<QByteArray> m = ls;
                const qsizetype a = rng.bounded(int(m.size()));
                const qsizetype b = rng.bounded(int(m.size()));
                if (rng.bounded(3) == 0)
                    m.removeAt(a);
                else if (rng.bounded(2) == 0)
                    m.insert(a, m.at(b));
                else
                    m.swapItemsAt(a, b);
                bytes = joinLines(m);
                break;
            }
            case 5: // replace a digit or a letter by another one
                for (qsizetype j = at; j < bytes.size(); ++j) {
                    const char c = bytes.at(j);
                    if (c >= '0' && c <= '8') {
                        bytes[j] = char(c + 1);
                        break;
                    }
                    if (c >= 'a' && c <= 'e') {
                        bytes[j] = char(c + 1);
                        break;
                    }
                }
                break;
            default: // nest: wrap a stretch in brackets
                bytes.insert(at, QByteArray(int(rng.bounded(400)), '['));
                break;
            }
            if (bytes == original)
                continue;
            writeAll(m_path, bytes);
            const auto v = AuditLog::verify(m_path);
            QList<QJsonObject> got;
            QVERIFY(AuditLog::readRecords(m_path, &got));
            if (!v.ok) {
                ++detected;
                continue;
            }
            QVERIFY2(got == want, qPrintable(QStringLiteral("mutation %1 (kind %2 at %3) verified "
                                                            "as intact but changed the records")
                                                 .arg(i)
                                                 .arg(kind)
                                                 .arg(at)));
        }
        qInfo("%d of 200 mutations detected", detected);
        QVERIFY(detected > 150);
    }
};

QTEST_GUILESS_MAIN(TestAuditLogVerify)
#include "tst_auditlog_verify.moc"
