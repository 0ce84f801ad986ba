// Runs the built fabric-broker binary ($FB_BROKER_BIN) as "fabric-broker audit verify|head|export"
// against logs written by fb::AuditLog, and checks exit codes and output.
#include "TestEnvironment.h"
#include "core/AuditLog.h"
#include "core/Clock.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

const qint64 kDay = 24 * 60 * 60 * 1000;

} // namespace

class TestAuditCommand : public QObject {
    Q_OBJECT

private:
    QString m_bin;
    QTemporaryDir *m_tmp = nullptr;
    QString m_path;

    Run run(const QStringList &args, const QMap<QString, QString> &env = {})
    {
        QProcess p;
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.remove(QStringLiteral("EQUINIX_MCP_AUDIT_LOG"));
        e.insert(QStringLiteral("XDG_DATA_HOME"), m_tmp->filePath(QStringLiteral("xdg")));
        for (auto it = env.begin(); it != env.end(); ++it)
            e.insert(it.key(), it.value());
        p.setProcessEnvironment(e);
        p.start(m_bin, QStringList{QStringLiteral("audit")} + args);
        Run r;
        if (!p.waitForFinished(60000)) {
            p.kill();
            p.waitForFinished();
            return r;
        }
        r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    // Four records as the broker writes them, one day apart starting 2026-01-01T00:00:01Z.
    void writeSampleLog()
    {
        fb::ManualClock clock(1767225601000);
        fb::AuditLog log(&clock);
        QString error;
        QVERIFY2(log.open(m_path, &error), qPrintable(error));
        const QJsonObject client{{QStringLiteral("name"), QStringLiteral("claude-code")},
                                 {QStringLiteral("version"), QStringLiteral("1.0")},
                                 {QStringLiteral("transport"), QStringLiteral("stdio")},
                                 {QStringLiteral("sessionId"), QStringLiteral("7")}};
        const QString sha(64, u'a');
        QVERIFY(log.record(fb::AuditEventType::Proposed,
                           {{QStringLiteral("change_type"), QStringLiteral("connection.create")},
                            {QStringLiteral("target"), QStringLiteral("port A, vlan 100 \"x\"")},
                            {QStringLiteral("request_sha256"), sha},
                            {QStringLiteral("token_sha256"), QString(64, u'b')},
                            {QStringLiteral("client"), client}}));
        clock.advanceMs(kDay);
        QVERIFY(log.record(fb::AuditEventType::Redemption,
                           {{QStringLiteral("outcome"), QStringLiteral("consumed")},
                            {QStringLiteral("request_sha256"), sha},
                            {QStringLiteral("client"), client}}));
        clock.advanceMs(kDay);
        QVERIFY(log.record(fb::AuditEventType::Decision,
                           {{QStringLiteral("status"), QStringLiteral("accepted")},
                            {QStringLiteral("channel"), QStringLiteral("elicitation")},
                            {QStringLiteral("decision_latency_ms"), 4200},
                            {QStringLiteral("request_sha256"), sha},
                            {QStringLiteral("client"), client}}));
        clock.advanceMs(kDay);
        QVERIFY(log.record(fb::AuditEventType::Executed,
                           {{QStringLiteral("sent"), true},
                            {QStringLiteral("outcome"), QStringLiteral("created")},
                            {QStringLiteral("uuid"), QStringLiteral("uuid-1")},
                            {QStringLiteral("request_sha256"), sha}}));
    }

private slots:
    void initTestCase()
    {
        m_bin = fbtest::brokerBinary();
        if (m_bin.isEmpty())
            QSKIP("FB_BROKER_BIN is not set (run through ctest)");
        QVERIFY2(QFile::exists(m_bin), qPrintable(m_bin));
    }
    void init()
    {
        fbtest::failOnWarnings();
        m_tmp = new QTemporaryDir;
        QVERIFY(m_tmp->isValid());
        m_path = m_tmp->filePath(QStringLiteral("audit.jsonl"));
        writeSampleLog();
    }
    void cleanup()
    {
        delete m_tmp;
        m_tmp = nullptr;
    }

    void verifyIntact()
    {
        const Run r = run({QStringLiteral("verify"), m_path});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        QVERIFY2(r.out.startsWith("OK: "), r.out);
        QVERIFY2(r.out.contains("4 record(s) verified"), r.out);
        const QByteArray lastLine = readAll(m_path).chopped(1).split('\n').last();
        QVERIFY2(
            r.out.contains(QCryptographicHash::hash(lastLine, QCryptographicHash::Sha256).toHex()),
            r.out);
    }

    void verifyBroken()
    {
        QByteArray bytes = readAll(m_path);
        QVERIFY(bytes.contains("consumed"));
        bytes.replace("consumed", "consumeD");
        writeAll(m_path, bytes);
        const Run r = run({QStringLiteral("verify"), m_path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("BROKEN"), r.out);
        QVERIFY2(r.out.contains("line 3: prev mismatch"), r.out);
    }

    void verifyDeletedLine()
    {
        QList<QByteArray> lines = readAll(m_path).chopped(1).split('\n');
        lines.removeAt(2);
        writeAll(m_path, lines.join('\n') + '\n');
        const Run r = run({QStringLiteral("verify"), m_path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("line 3: seq gap"), r.out);
    }

    void verifyTornTail()
    {
        const QByteArray bytes = readAll(m_path);
        writeAll(m_path, bytes + bytes.left(25));
        Run r = run({QStringLiteral("verify"), m_path});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        QVERIFY2(r.out.contains("truncated/torn record at line 5"), r.out);
        r = run({QStringLiteral("verify"), QStringLiteral("--strict"), m_path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("truncated/torn record at line 5"), r.out);
    }

    void verifyDefaultPathFromEnvironment()
    {
        const Run r =
            run({QStringLiteral("verify")}, {{QStringLiteral("EQUINIX_MCP_AUDIT_LOG"), m_path}});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        QVERIFY2(r.out.contains(m_path.toUtf8()), r.out);
    }

    void verifyIoError()
    {
        const Run r = run({QStringLiteral("verify"), m_tmp->filePath(QStringLiteral("missing"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("cannot read"), r.err);
        // A device never ends: refused, not read forever.
        const Run dev = run({QStringLiteral("verify"), QStringLiteral("/dev/zero")});
        QCOMPARE(dev.exitCode, 2);
        QVERIFY2(dev.err.contains("not a regular file"), dev.err);
    }

    void usage()
    {
        QCOMPARE(run({}).exitCode, 2);
        QCOMPARE(run({QStringLiteral("frobnicate")}).exitCode, 2);
        QCOMPARE(run({QStringLiteral("verify"), m_path, m_path}).exitCode, 2);
        QCOMPARE(run({QStringLiteral("verify"), QStringLiteral("--bogus")}).exitCode, 2);
        Run r = run({QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("fabric-broker audit <command>"), r.out);
        r = run({QStringLiteral("verify"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("Usage: fabric-broker audit verify"), r.out);
        r = run({QStringLiteral("export"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("--since"), r.out);
        r = run({QStringLiteral("--help")});
        QVERIFY2(r.out.contains("head [FILE]"), r.out);
        QVERIFY2(r.out.contains("--head SEQ:SHA256"), r.out);
        r = run({QStringLiteral("head"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("Usage: fabric-broker audit head [FILE]"), r.out);
        r = run({QStringLiteral("verify"), QStringLiteral("--help")});
        QVERIFY2(r.out.contains("--head <SEQ:SHA256>"), r.out);
    }

    void headCommand()
    {
        const Run r = run({QStringLiteral("head"), m_path});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        const QByteArray lastLine = readAll(m_path).chopped(1).split('\n').last();
        QCOMPARE(r.out,
                 "4:" + QCryptographicHash::hash(lastLine, QCryptographicHash::Sha256).toHex() +
                     "\n");
        QVERIFY(r.err.isEmpty());

        // Broken: nothing on stdout, exit 1.
        QByteArray bytes = readAll(m_path);
        bytes.replace("consumed", "consumeD");
        writeAll(m_path, bytes);
        const Run broken = run({QStringLiteral("head"), m_path});
        QCOMPARE(broken.exitCode, 1);
        QVERIFY(broken.out.isEmpty());
        QVERIFY2(broken.err.contains("broken"), broken.err);
        QCOMPARE(run({QStringLiteral("head"), m_tmp->filePath(QStringLiteral("missing"))}).exitCode,
                 2);
    }

    void verifyTruncatedTail()
    {
        QList<QByteArray> lines = readAll(m_path).chopped(1).split('\n');
        lines.removeLast(); // a shorter chain that is valid on its own
        writeAll(m_path, lines.join('\n') + '\n');
        const Run r = run({QStringLiteral("verify"), m_path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.startsWith("TRUNCATED: "), r.out);
        QVERIFY2(r.out.contains("the log ends at seq 3 but its head file"), r.out);
        QVERIFY2(r.out.contains("1 record(s) were removed from the end"), r.out);

        // Without the head file, only the tail cannot be checked, and verify says so.
        QVERIFY(QFile::remove(fb::AuditLog::headFilePath(m_path)));
        const Run none = run({QStringLiteral("verify"), m_path});
        QCOMPARE(none.exitCode, 0);
        QVERIFY2(none.out.contains("warning: no head file"), none.out);
    }

    void verifyAgainstKeptHead()
    {
        const QByteArray kept = run({QStringLiteral("head"), m_path}).out.trimmed();
        QVERIFY(kept.startsWith("4:"));
        Run r = run({QStringLiteral("verify"), QStringLiteral("--head"), QString::fromLatin1(kept),
                     m_path});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        QVERIFY2(r.out.contains("kept head: found: the kept head is the record at line 4 (seq 4); "
                                "0 record(s) after it."),
                 r.out);
        // The hash alone works too.
        r = run({QStringLiteral("verify"),
                 QStringLiteral("--head=") + QString::fromLatin1(kept.mid(2)), m_path});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());

        // Records deleted after an older point, head file rewritten to match: only the kept
        // head tells.
        QList<QByteArray> lines = readAll(m_path).chopped(1).split('\n');
        writeAll(m_path, lines.mid(0, 2).join('\n') + '\n');
        QVERIFY(QFile::remove(fb::AuditLog::headFilePath(m_path)));
        QCOMPARE(run({QStringLiteral("verify"), m_path}).exitCode, 0);
        r = run({QStringLiteral("verify"), QStringLiteral("--head"), QString::fromLatin1(kept),
                 m_path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.startsWith("TRUNCATED: "), r.out);
        QVERIFY2(r.out.contains("at least 2 record(s) after seq 2 were deleted"), r.out);

        QCOMPARE(run({QStringLiteral("verify"), QStringLiteral("--head"), QStringLiteral("4:abc"),
                      m_path})
                     .exitCode,
                 2);
    }

    void exportTruncatedLogWarns()
    {
        QList<QByteArray> lines = readAll(m_path).chopped(1).split('\n');
        lines.removeLast();
        writeAll(m_path, lines.join('\n') + '\n');
        const Run r = run(
            {QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("csv"), m_path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QByteArray("the chain of " + m_path.toUtf8() +
                                           " is truncated: truncated tail")),
                 r.err);
        QCOMPARE(r.out.count('\n'), 4); // header + the three records left
    }

    void verifyContinuedLog()
    {
        fb::ManualClock clock(1767225601000);
        fb::AuditLog log(&clock);
        QVERIFY(log.open(m_path, nullptr));
        const QString moved = m_tmp->filePath(QStringLiteral("audit.1.jsonl"));
        QVERIFY(QFile::rename(m_path, moved));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        log.close();

        Run r = run({QStringLiteral("verify"), moved});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        const QByteArray oldHead = run({QStringLiteral("head"), moved}).out.trimmed();
        r = run({QStringLiteral("verify"), m_path});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        QVERIFY2(r.out.contains(
                     QByteArray("warning: line 1 (seq 1): the log continues from a previous file "
                                "(reason: moved); previous head seq 4 sha256 " +
                                oldHead.mid(2))),
                 r.out);
        r = run({QStringLiteral("verify"), QStringLiteral("--head"), QString::fromLatin1(oldHead),
                 m_path});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        QVERIFY2(r.out.contains("previous log file this one continues from"), r.out);
        QCOMPARE(run({QStringLiteral("verify"), QStringLiteral("--strict"), m_path}).exitCode, 1);
    }

    void exportCsv()
    {
        const Run r = run(
            {QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("csv"), m_path});
        QVERIFY2(r.exitCode == 0, r.err);
        const QList<QByteArray> rows = r.out.chopped(1).split('\n');
        QCOMPARE(rows.size(), 5);
        QCOMPARE(rows.at(0), QByteArray("seq,time,type,change_type,target,request_sha256,status,"
                                        "channel,outcome,uuid,client"));
        const QByteArray sha(64, 'a');
        QCOMPARE(rows.at(1), "1,2026-01-01T00:00:01.000Z,proposed,connection.create,"
                             "\"port A, vlan 100 \"\"x\"\"\"," +
                                 sha + ",,,,,claude-code 1.0 (stdio; session 7)");
        QCOMPARE(rows.at(3), "3,2026-01-03T00:00:01.000Z,decision,,," + sha +
                                 ",accepted,elicitation,,,claude-code 1.0 (stdio; session 7)");
        QCOMPARE(rows.at(4), "4,2026-01-04T00:00:01.000Z,executed,,," + sha + ",,,created,uuid-1,");
    }

    void exportJson()
    {
        const Run r = run({QStringLiteral("export"), QStringLiteral("--format=json"), m_path});
        QVERIFY2(r.exitCode == 0, r.err);
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out, &pe);
        QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(pe.errorString()));
        QVERIFY(doc.isArray());
        const QJsonArray a = doc.array();
        QCOMPARE(a.size(), 4);
        QCOMPARE(a.at(0).toObject().value(QStringLiteral("seq")).toInt(), 1);
        QCOMPARE(a.at(3).toObject().value(QStringLiteral("type")).toString(),
                 QStringLiteral("executed"));
        QCOMPARE(a.at(2)
                     .toObject()
                     .value(QStringLiteral("data"))
                     .toObject()
                     .value(QStringLiteral("decision_latency_ms"))
                     .toInt(),
                 4200);
        // Elements are the log's lines byte for byte.
        const QList<QByteArray> lines = readAll(m_path).chopped(1).split('\n');
        for (const QByteArray &line : lines)
            QVERIFY(r.out.contains(line));
    }

    void exportSince()
    {
        Run r = run({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("json"),
                     QStringLiteral("--since"), QStringLiteral("2026-01-03"), m_path});
        QVERIFY2(r.exitCode == 0, r.err);
        QJsonArray a = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(a.size(), 2);
        QCOMPARE(a.at(0).toObject().value(QStringLiteral("seq")).toInt(), 3);

        r = run({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("csv"),
                 QStringLiteral("--since"), QStringLiteral("2026-01-02T00:00:01.001Z"), m_path});
        QVERIFY2(r.exitCode == 0, r.err);
        QCOMPARE(r.out.count('\n'), 3); // header + 2 rows

        r = run({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("json"),
                 QStringLiteral("--since"), QStringLiteral("2026-01-02T01:00:01+01:00"), m_path});
        QVERIFY2(r.exitCode == 0, r.err);
        QCOMPARE(QJsonDocument::fromJson(r.out).array().size(), 3);

        r = run({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("json"),
                 QStringLiteral("--since"), QStringLiteral("2030-01-01"), m_path});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray("[]\n"));
    }

    void exportUsageErrors()
    {
        QCOMPARE(run({QStringLiteral("export"), m_path}).exitCode, 2);
        QCOMPARE(run({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("xml"),
                      m_path})
                     .exitCode,
                 2);
        QCOMPARE(run({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("csv"),
                      QStringLiteral("--since"), QStringLiteral("yesterday"), m_path})
                     .exitCode,
                 2);
        QCOMPARE(run({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("csv"),
                      m_tmp->filePath(QStringLiteral("missing"))})
                     .exitCode,
                 2);
    }

    void exportBrokenLogWarns()
    {
        QList<QByteArray> lines = readAll(m_path).chopped(1).split('\n');
        lines.removeAt(1);
        writeAll(m_path, lines.join('\n') + '\n');
        const Run r = run(
            {QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("csv"), m_path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("broken at line 2"), r.err);
        QCOMPARE(r.out.count('\n'), 4); // the three remaining records are still exported
    }
};

QTEST_GUILESS_MAIN(TestAuditCommand)
#include "tst_auditcommand.moc"
