// Unit tests of fb::AuditLog: record format, hash chain across reopen, verification of
// tampering, torn writes and recovery, scrubbing of tokens and secrets, permissions, sync.
#include "TestEnvironment.h"
#include "core/AuditLog.h"
#include "core/CanonicalJson.h"
#include "core/Clock.h"
#include "core/ProposalStore.h"
#include "core/TokenDigest.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using fb::AuditLog;

namespace {

QByteArray sha(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

// Lines without their newline; a final newline does not make an extra empty line.
QList<QByteArray> lines(const QString &path)
{
    QByteArray all = readAll(path);
    if (all.endsWith('\n'))
        all.chop(1);
    return all.isEmpty() ? QList<QByteArray>{} : all.split('\n');
}

QByteArray joinLines(const QList<QByteArray> &ls)
{
    return ls.join('\n') + '\n';
}

QJsonObject parse(const QByteArray &line)
{
    return QJsonDocument::fromJson(line).object();
}

int mode(const QString &path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return -1;
    return static_cast<int>(st.st_mode & 0777);
}

qint64 canonicalSize(const QJsonObject &o)
{
    return fb::canonicalJson(o).size();
}

const QString kToken = QStringLiteral("chg-0123456789abcdef0123456789abcdef");

} // namespace

class TestAuditLog : public QObject {
    Q_OBJECT

private:
    QTemporaryDir *m_tmp = nullptr;
    fb::ManualClock m_clock;
    QString m_path;

    // Writes n records "step" 1..n to m_path with a fresh writer.
    void writeRecords(int n, int firstIndex = 1)
    {
        AuditLog log(&m_clock);
        QString error;
        QVERIFY2(log.open(m_path, &error), qPrintable(error));
        for (int i = 0; i < n; ++i) {
            m_clock.advanceMs(1500);
            QVERIFY(log.recordForTesting(
                QStringLiteral("step"),
                {{QStringLiteral("index"), firstIndex + i},
                 {QStringLiteral("target"), QStringLiteral("port A to port B")}}));
        }
    }

private slots:
    void init()
    {
        fbtest::failOnWarnings();
        m_tmp = new QTemporaryDir;
        QVERIFY(m_tmp->isValid());
        m_path = m_tmp->filePath(QStringLiteral("audit.jsonl"));
        m_clock.setNowMs(1767225600000); // 2026-01-01T00:00:00.000Z
    }
    void cleanup()
    {
        delete m_tmp;
        m_tmp = nullptr;
    }

    // Another process holding the log's flock: record() gives up after a bounded wait (never a
    // blocking flock on the event loop) and says why; once the lock is free it records again.
    void lockHeldElsewhereFailsTheRecord()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        const int other = ::open(QFile::encodeName(m_path).constData(), O_RDONLY | O_CLOEXEC);
        QVERIFY(other >= 0);
        QCOMPARE(::flock(other, LOCK_EX), 0);
        QVERIFY(!log.recordForTesting(QStringLiteral("step"), {}));
        QVERIFY2(log.lastError().contains(QStringLiteral("lock")), qPrintable(log.lastError()));
        QCOMPARE(log.recordCount(), 1);
        ::flock(other, LOCK_UN);
        ::close(other);
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(log.recordCount(), 2);
        QVERIFY(AuditLog::verify(m_path).ok);
    }

    void recordFormat()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QCOMPARE(log.recordCount(), 0);
        QCOMPARE(log.headSha256(), AuditLog::zeroHash());
        m_clock.advanceMs(1234);
        QVERIFY(log.record(
            fb::AuditEventType::Proposed,
            {{QStringLiteral("target"), QStringLiteral("x")}, {QStringLiteral("price"), 12.5}}));
        QCOMPARE(log.recordCount(), 1);
        QCOMPARE(log.path(), m_path);

        const QByteArray all = readAll(m_path);
        QVERIFY(all.endsWith('\n'));
        QCOMPARE(all.count('\n'), 1);
        const QByteArray line = all.chopped(1);
        QCOMPARE(fb::canonicalJson(parse(line)), line); // canonical form, one line
        QCOMPARE(line, QByteArray("{\"data\":{\"price\":12.5,\"target\":\"x\"},\"prev\":\"" +
                                  QByteArray(64, '0') +
                                  "\",\"seq\":1,\"time\":\"2026-01-01T00:00:01.234Z\","
                                  "\"type\":\"proposed\"}"));
        QCOMPARE(log.headSha256().toLatin1(), sha(line));

        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 1);
        QCOMPARE(v.firstBadLine, 0);
        QVERIFY(v.problem.isEmpty());
        QCOMPARE(v.headSha256.toLatin1(), sha(line));
    }

    void chainAcrossReopen()
    {
        writeRecords(3);
        {
            AuditLog log(&m_clock);
            QVERIFY(log.open(m_path, nullptr));
            QCOMPARE(log.recordCount(), 3);
            const QList<QByteArray> before = lines(m_path);
            QCOMPARE(log.headSha256().toLatin1(), sha(before.last()));
            QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 4}}));
            QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 5}}));
            QCOMPARE(log.recordCount(), 5);
        }
        const QList<QByteArray> ls = lines(m_path);
        QCOMPARE(ls.size(), 5);
        for (int i = 0; i < ls.size(); ++i) {
            const QJsonObject o = parse(ls.at(i));
            QCOMPARE(o.value(QStringLiteral("seq")).toInt(), i + 1);
            const QByteArray expectedPrev = i == 0 ? QByteArray(64, '0') : sha(ls.at(i - 1));
            QCOMPARE(o.value(QStringLiteral("prev")).toString().toLatin1(), expectedPrev);
        }
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 5);
        QCOMPARE(v.lastSeq, 5);
        QVERIFY(v.tornLines.isEmpty());
    }

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

    void scrubsTokensAndSecrets()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        const QJsonObject data{
            {QStringLiteral("confirm_token"), kToken},
            {QStringLiteral("message"),
             QStringLiteral("Confirm token: %1 (expires soon)").arg(kToken)},
            {QStringLiteral("not_a_token"), QStringLiteral("chg-0123")},
            {QStringLiteral("access_token"), QStringLiteral("eyJhbGciOi.secret")},
            {QStringLiteral("Client_Secret"), QStringLiteral("s3cr3t")},
            {QStringLiteral("request"),
             QJsonObject{
                 {QStringLiteral("headers"),
                  QJsonObject{
                      {QStringLiteral("Authorization"), QStringLiteral("Bearer eyJhbGciOi.secret")},
                      {QStringLiteral("Accept"), QStringLiteral("application/json")}}},
                 {QStringLiteral("items"),
                  QJsonArray{kToken,
                             QJsonObject{{QStringLiteral("password"), QStringLiteral("hunter2")},
                                         {QStringLiteral("dbPassword"), QStringLiteral("hunter3")},
                                         {QStringLiteral("secret"), 42},
                                         {QStringLiteral("name"), QStringLiteral("n")}}}}}},
            {QStringLiteral("tokens_by_id"), QJsonObject{{kToken, 1}}},
        };
        QVERIFY(log.record(fb::AuditEventType::Proposed, data));
        const QByteArray all = readAll(m_path);
        for (const char *forbidden :
             {"chg-0123456789abcdef", "eyJhbGciOi", "s3cr3t", "hunter", "Authorization",
              "access_token", "Client_Secret", "\"secret\"", "Bearer"})
            QVERIFY2(!all.contains(forbidden), forbidden);

        const QString hashed = QStringLiteral("sha256:") + fb::tokenDigest(kToken);
        const QJsonObject stored = parse(all.chopped(1)).value(QStringLiteral("data")).toObject();
        QCOMPARE(stored.value(QStringLiteral("confirm_token")).toString(), hashed);
        QCOMPARE(stored.value(QStringLiteral("message")).toString(),
                 QStringLiteral("Confirm token: %1 (expires soon)").arg(hashed));
        QCOMPARE(stored.value(QStringLiteral("not_a_token")).toString(),
                 QStringLiteral("chg-0123"));
        const QJsonObject request = stored.value(QStringLiteral("request")).toObject();
        QCOMPARE(request.value(QStringLiteral("headers")).toObject(),
                 (QJsonObject{{QStringLiteral("Accept"), QStringLiteral("application/json")}}));
        const QJsonArray items = request.value(QStringLiteral("items")).toArray();
        QCOMPARE(items.at(0).toString(), hashed);
        QCOMPARE(items.at(1).toObject(),
                 (QJsonObject{{QStringLiteral("name"), QStringLiteral("n")}}));
        QVERIFY(stored.value(QStringLiteral("tokens_by_id")).toObject().contains(hashed));
        QVERIFY(!stored.contains(QStringLiteral("access_token")));
        QVERIFY(AuditLog::verify(m_path).ok);

        // token_sha256 (what the broker writes) is not mistaken for a secret.
        const QJsonObject kept =
            AuditLog::scrub({{QStringLiteral("token_sha256"), fb::tokenDigest(kToken)},
                             {QStringLiteral("request_sha256"), QStringLiteral("ab")}});
        QCOMPARE(kept.size(), 2);
    }

    void evictionAndExpiryRecords()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        fb::Proposal p;
        p.token = kToken;
        p.target = QStringLiteral("port A to port B");
        p.requestSha256 = QString(64, u'a');
        p.proposedAtMs = m_clock.nowMs();
        p.expiresAtMs = p.proposedAtMs + 600000;
        p.context = {
            {QStringLiteral("client"), QJsonObject{{QStringLiteral("name"), QStringLiteral("c")}}}};
        m_clock.advanceMs(5000);
        QVERIFY(log.recordEviction(p));
        m_clock.advanceMs(600000);
        QVERIFY(log.recordExpiry(p));

        QList<QJsonObject> records;
        QVERIFY(AuditLog::readRecords(m_path, &records));
        QCOMPARE(records.size(), 2);
        QCOMPARE(records.at(0).value(QStringLiteral("type")).toString(), QStringLiteral("evicted"));
        QCOMPARE(records.at(1).value(QStringLiteral("type")).toString(), QStringLiteral("expired"));
        const QJsonObject d = records.at(0).value(QStringLiteral("data")).toObject();
        QCOMPARE(d.value(QStringLiteral("token_sha256")).toString(), fb::tokenDigest(kToken));
        QCOMPARE(d.value(QStringLiteral("target")).toString(), p.target);
        QCOMPARE(d.value(QStringLiteral("request_sha256")).toString(), p.requestSha256);
        QCOMPARE(d.value(QStringLiteral("age_ms")).toInt(), 5000);
        QCOMPARE(
            d.value(QStringLiteral("client")).toObject().value(QStringLiteral("name")).toString(),
            QStringLiteral("c"));
        QCOMPARE(records.at(1).value(QStringLiteral("time")).toString(),
                 QStringLiteral("2026-01-01T00:10:05.000Z"));
        QVERIFY(!readAll(m_path).contains("chg-"));
    }

    void permissions()
    {
        const QString nested = m_tmp->filePath(QStringLiteral("a/b/audit.jsonl"));
        AuditLog log(&m_clock);
        QString error;
        QVERIFY2(log.open(nested, &error), qPrintable(error));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(mode(nested), 0600);
        QCOMPARE(mode(m_tmp->filePath(QStringLiteral("a/b"))), 0700);
        QCOMPARE(mode(m_tmp->filePath(QStringLiteral("a"))), 0700);

        // An existing, too-open log is tightened.
        writeAll(m_path, {});
        QVERIFY(QFile::setPermissions(m_path, QFile::ReadOwner | QFile::WriteOwner |
                                                  QFile::ReadGroup | QFile::ReadOther));
        QCOMPARE(mode(m_path), 0644);
        AuditLog other(&m_clock);
        QVERIFY(other.open(m_path, nullptr));
        QCOMPARE(mode(m_path), 0600);

        // Not a regular file.
        AuditLog dir(&m_clock);
        QVERIFY(!dir.open(m_tmp->path(), &error));
        QVERIFY(!dir.recordForTesting(QStringLiteral("step"), {}));
    }

    void defaultPath()
    {
        fbtest::ScopedEnvironmentVariable log("EQUINIX_MCP_AUDIT_LOG", QFile::encodeName(m_path));
        fbtest::ScopedEnvironmentVariable xdg("XDG_DATA_HOME");
        QCOMPARE(AuditLog::defaultPath(), m_path);
        qunsetenv("EQUINIX_MCP_AUDIT_LOG");
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_tmp->path()));
        QCOMPARE(AuditLog::defaultPath(),
                 m_tmp->path() + QStringLiteral("/fabric-broker/audit.jsonl"));
    }

    void syncIsCalledBeforeRecordReturns()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        int syncs = 0;
        qint64 sizeAtSync = -1;
        const QString path = m_path;
        log.setIoHooksForTesting(nullptr, [&](int fd) {
            ++syncs;
            sizeAtSync = QFileInfo(path).size();
            return ::fdatasync(fd);
        });
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(syncs, 1);
        QCOMPARE(sizeAtSync, readAll(m_path).size()); // the whole line was written first
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(syncs, 2);
    }

    void syncFailureIsNotDurable()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        log.setIoHooksForTesting(nullptr, [](int) {
            errno = EIO;
            return -1;
        });
        QVERIFY(!log.record(fb::AuditEventType::Sending, {}));
        QVERIFY2(log.lastError().contains(QStringLiteral("sync")), qPrintable(log.lastError()));
        // The bytes did reach the file: the chain continues after them once sync works again.
        log.setIoHooksForTesting(nullptr, nullptr);
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(log.recordCount(), 3);
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 3);
    }

    void partialWriteLeavesTornLineAndRecovers()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        int calls = 0;
        log.setIoHooksForTesting(
            [&](int fd, const char *data, qint64 size) -> qint64 {
                if (calls++ == 0)
                    return ::write(fd, data, static_cast<size_t>(qMin<qint64>(size, 20)));
                errno = ENOSPC;
                return -1;
            },
            nullptr);
        QVERIFY(!log.record(fb::AuditEventType::Sending, {}));
        QVERIFY2(log.lastError().contains(QStringLiteral("write")), qPrintable(log.lastError()));
        QCOMPARE(log.recordCount(), 1);
        log.setIoHooksForTesting(nullptr, nullptr);
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(log.recordCount(), 2);

        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 2);
        QCOMPARE(v.tornLines, QList<qint64>{2});
    }

    void twoWritersInterleave()
    {
        AuditLog a(&m_clock);
        AuditLog b(&m_clock);
        QVERIFY(a.open(m_path, nullptr));
        QVERIFY(b.open(m_path, nullptr));
        for (int i = 0; i < 5; ++i) {
            QVERIFY(a.recordForTesting(QStringLiteral("a"), {}));
            QVERIFY(b.recordForTesting(QStringLiteral("b"), {}));
        }
        QCOMPARE(b.recordCount(), 10);
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 10);
    }

    // ---- bounds on client-supplied values ----

    void deepClientInfoIsBoundedAndVerifies()
    {
        // A capabilities object nested 1010 levels deep: before the bounds, its record was deeper
        // than verification parses (1000) and the chain was reported BROKEN from then on.
        QJsonObject deep{{QStringLiteral("leaf"), true}};
        for (int i = 0; i < 1010; ++i)
            deep = QJsonObject{{QStringLiteral("x"), deep}};
        const QJsonObject client{{QStringLiteral("name"), QStringLiteral("hostile")},
                                 {QStringLiteral("capabilities"), deep}};
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.record(fb::AuditEventType::Proposed,
                           {{QStringLiteral("client"), client}, {QStringLiteral("target"), 1}}));
        QVERIFY(log.record(fb::AuditEventType::Decision, {{QStringLiteral("client"), client}}));
        log.close();

        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 2);
        const QByteArray first = lines(m_path).first();
        QVERIFY2(first.count('{') < 20, first.left(400));
        const QJsonObject data = parse(first).value(QStringLiteral("data")).toObject();
        QCOMPARE(data.value(QStringLiteral("target")).toInt(), 1);
        QCOMPARE(data.value(QStringLiteral("client"))
                     .toObject()
                     .value(QStringLiteral("name"))
                     .toString(),
                 QStringLiteral("hostile"));
        QVERIFY2(first.contains("[truncated: nested deeper than 6 level(s)]"), first);
        const QJsonArray marks = data.value(QStringLiteral("audit_truncated")).toArray();
        QCOMPARE(marks.size(), 1);
        QVERIFY2(marks.at(0).toString().startsWith(QStringLiteral("client.capabilities.x.x.x")),
                 qPrintable(marks.at(0).toString()));

        // The writer reopens it and goes on.
        AuditLog again(&m_clock);
        QString error;
        QVERIFY2(again.open(m_path, &error), qPrintable(error));
        QCOMPARE(again.recordCount(), 2);
    }

    void hugeValuesAreBounded()
    {
        QJsonObject manyKeys;
        for (int i = 0; i < 20000; ++i)
            manyKeys.insert(QStringLiteral("k%1").arg(i, 5, 10, QLatin1Char('0')), i);
        QJsonArray manyElements;
        for (int i = 0; i < 5000; ++i)
            manyElements.append(i);
        const QJsonObject client{{QStringLiteral("name"), QString(100000, u'n')},
                                 {QStringLiteral("capabilities"), manyKeys}};
        QJsonObject data{{QStringLiteral("client"), client},
                         {QStringLiteral("list"), manyElements},
                         {QStringLiteral("message"), QString(50000, u'm')}};
        const QJsonObject out = AuditLog::scrub(data);
        const QJsonObject c = out.value(QStringLiteral("client")).toObject();
        QVERIFY(c.value(QStringLiteral("name")).toString().size() < 600);
        QVERIFY(c.value(QStringLiteral("name"))
                    .toString()
                    .contains(QStringLiteral("…[truncated: 99488 more character(s)]")));
        const QJsonObject caps = c.value(QStringLiteral("capabilities")).toObject();
        QVERIFY(caps.size() <= AuditLog::ClientBounds.members + 1);
        QCOMPARE(caps.value(QStringLiteral("[truncated]")).toString(),
                 QStringLiteral("%1 more member(s) left out")
                     .arg(20000 - AuditLog::ClientBounds.members));
        QVERIFY(canonicalSize(c) <= AuditLog::ClientBounds.totalBytes + 1024);
        const QJsonArray list = out.value(QStringLiteral("list")).toArray();
        QCOMPARE(list.size(), AuditLog::DataBounds.elements + 1);
        QCOMPARE(list.last().toString(), QStringLiteral("[truncated: %1 more element(s) left out]")
                                             .arg(5000 - AuditLog::DataBounds.elements));
        QCOMPARE(out.value(QStringLiteral("message")).toString().left(8192), QString(8192, u'm'));
        const QJsonArray marks = out.value(QStringLiteral("audit_truncated")).toArray();
        QCOMPARE(marks.size(), 4);

        // Total size: many members that are each within bounds still stop at the budget.
        QJsonObject wide;
        for (int i = 0; i < 250; ++i)
            wide.insert(QStringLiteral("s%1").arg(i, 3, 10, QLatin1Char('0')), QString(8000, u'w'));
        const QJsonObject bounded = AuditLog::scrub(wide);
        QVERIFY(canonicalSize(bounded) <= AuditLog::DataBounds.totalBytes + 16 * 1024);
        QVERIFY(bounded.contains(QStringLiteral("[truncated]")));

        // Small, legitimate data passes unchanged.
        const QJsonObject plain{{QStringLiteral("a"), QJsonArray{1, 2, QStringLiteral("x")}},
                                {QStringLiteral("b"), QJsonObject{{QStringLiteral("c"), true}}}};
        QCOMPARE(AuditLog::scrub(plain), plain);

        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.record(fb::AuditEventType::Proposed, data));
        QVERIFY(readAll(m_path).size() < 300 * 1024);
        QVERIFY(AuditLog::verify(m_path).ok);
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

    void recordWithoutOpenFails()
    {
        AuditLog log(&m_clock);
        QVERIFY(!log.recordForTesting(QStringLiteral("step"), {}));
        QVERIFY(!log.lastError().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestAuditLog)
#include "tst_auditlog.moc"
