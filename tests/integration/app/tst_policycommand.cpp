// PolicyCommand: `fabric-broker policy check|show|reset-ledger`. check validates one file (exit
// 1 naming the key, 2 when unreadable); show prints the effective policy with the source of each
// value, as text or JSON (exit 1 when a file is invalid); reset-ledger writes an audited
// ledger_reset record with its reason; every command answers --help; anything else is exit 2.
#include "AppOutput.h"
#include "TestEnvironment.h"
#include "app/PolicyCommand.h"
#include "core/AuditLog.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;

namespace {

using Run = fbtest::CommandRun;

Run run(const QStringList &words)
{
    return fbtest::runCommand(runPolicyCommand, QStringList{"fabric-broker", "policy"} + words);
}

} // namespace

class TestPolicyCommand : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &body)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(body) != body.size())
            return {};
        return path;
    }

private slots:
    void init() { fbtest::failOnWarnings(); }
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void checkValid()
    {
        const QString path = write(
            "valid.json", R"({"spend": {"unpriced": "deny"}, "approval": {"channel": "desktop"}})");
        const Run r = run({"check", path});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, path + ": valid policy (2 key(s) set)\n");
        QCOMPARE(r.err, QString());
    }

    void checkInvalid()
    {
        const QString path = write("invalid.json", R"({"spend": {"unpriced": "sometimes"}})");
        const Run r = run({"check", path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.out, QString());
        QVERIFY2(r.err.startsWith(path + ": "), qPrintable(r.err));
        QVERIFY2(r.err.contains("spend.unpriced"), qPrintable(r.err));

        // The whole syslog target is checked, as the start checks it: no port is an error.
        const QString syslog =
            write("syslog.json", "{\"audit\": {\"syslog\": \"tls://siem.example.com\"}}");
        const Run noPort = run({"check", syslog});
        QCOMPARE(noPort.exitCode, 1);
        QCOMPARE(noPort.err, syslog + ": audit.syslog: syslog target \"tls://siem.example.com\": "
                                      "no port (host:port is required)\n");

        const QString large = write("large.json", QByteArray(64 * 1024 + 10, ' ') + "{}");
        const Run big = run({"check", large});
        QCOMPARE(big.exitCode, 1);
        QCOMPARE(big.err, large + ": larger than 65536 bytes\n");

        const Run missing = run({"check", m_dir.filePath("none.json")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.startsWith("fabric-broker policy check: cannot read "),
                 qPrintable(missing.err));
    }

    void showJsonNamesEachSource()
    {
        const QString user = write("user.json", R"({"revalidate_before_send_after_ms": 1000})");
        fbtest::ScopedEnvironmentVariable policy("FABRIC_BROKER_POLICY", QFile::encodeName(user));
        fbtest::ScopedEnvironmentVariable admin("FABRIC_BROKER_EXTRA_ADMIN_POLICY", QByteArray());
        const Run r = run({"show", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonObject values = doc.value("policy").toObject();
        QCOMPARE(
            values.value("revalidate_before_send_after_ms").toObject(),
            QJsonObject({{"value", 1000}, {"source", user}, {"locked_by_administrator", false}}));
        QCOMPARE(values.value("spend.unpriced").toObject(),
                 QJsonObject({{"value", "allow"}, {"source", "default"}}));
        QCOMPARE(values.value("fabric.endpoint").toObject(),
                 QJsonObject({{"value", QJsonValue()}, {"source", "not set"}}));
        QCOMPARE(doc.value("paths").toObject().value("user").toString(), user);
        QCOMPARE(doc.value("mutate_refused").toBool(), false);

        const Run text = run({"show"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("  revalidate_before_send_after_ms = 1000  [" + user + "]\n"),
                 qPrintable(text.out));
        QVERIFY2(text.out.contains("  spend.unpriced = allow  [default]\n"), qPrintable(text.out));
    }

    void showReportsAnInvalidFile()
    {
        const QString user = write("broken.json", "{ not json");
        fbtest::ScopedEnvironmentVariable policy("FABRIC_BROKER_POLICY", QFile::encodeName(user));
        fbtest::ScopedEnvironmentVariable admin("FABRIC_BROKER_EXTRA_ADMIN_POLICY", QByteArray());
        const Run r = run({"show"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith("ERROR: "), qPrintable(r.err));
        QVERIFY2(r.err.contains("The mutate toolset is refused"), qPrintable(r.err));
        const Run json = run({"show", "--json"});
        QCOMPARE(json.exitCode, 1);
        const QJsonObject doc = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(doc.value("mutate_refused").toBool(), true);
        QVERIFY(!doc.value("errors").toArray().isEmpty());
    }

    void resetLedgerRecordsTheReason()
    {
        const QString log = m_dir.filePath("audit/audit.jsonl");
        fbtest::ScopedEnvironmentVariable audit(AuditLog::PathEnvironmentVariable,
                                                QFile::encodeName(log));
        fbtest::ScopedEnvironmentVariable state("XDG_STATE_HOME",
                                                QFile::encodeName(m_dir.filePath("state")));
        fbtest::ScopedEnvironmentVariable policy(
            "FABRIC_BROKER_POLICY", QFile::encodeName(m_dir.filePath("no-policy.json")));
        fbtest::ScopedEnvironmentVariable admin("FABRIC_BROKER_EXTRA_ADMIN_POLICY", QByteArray());
        const Run r = run({"reset-ledger", "--reason", "restored by the operator"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith(log + ": ledger_reset recorded (seq "), qPrintable(r.out));
        QList<QJsonObject> records;
        QString error;
        QVERIFY2(AuditLog::readRecords(log, &records, &error), qPrintable(error));
        QVERIFY(!records.isEmpty());
        const QJsonObject last = records.last();
        QCOMPARE(last.value("type").toString(), QStringLiteral("ledger_reset"));
        QCOMPARE(last.value("data").toObject().value("reason").toString(),
                 QStringLiteral("restored by the operator"));
    }

    void everyCommandAnswersHelp_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<QString>("usage");
        QTest::newRow("show") << QStringList{"show", "--help"}
                              << "Usage: fabric-broker policy show [--json]\n";
        QTest::newRow("check") << QStringList{"check", "x.json", "-h"}
                               << "Usage: fabric-broker policy check FILE\n";
        QTest::newRow("reset-ledger") << QStringList{"reset-ledger", "--help"}
                                      << "Usage: fabric-broker policy reset-ledger --reason TEXT\n";
        QTest::newRow("policy") << QStringList{"--help"}
                                << "Usage: fabric-broker policy <command>\n";
    }

    void everyCommandAnswersHelp()
    {
        QFETCH(QStringList, words);
        QFETCH(QString, usage);
        const Run r = run(words);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith(usage), qPrintable(r.out));
        QCOMPARE(r.err, QString());
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::newRow("nothing") << QStringList{};
        QTest::newRow("unknown") << QStringList{"explain"};
        QTest::newRow("show extra") << QStringList{"show", "--yaml"};
        QTest::newRow("check no file") << QStringList{"check"};
        QTest::newRow("check option") << QStringList{"check", "--all"};
        QTest::newRow("reset no reason") << QStringList{"reset-ledger"};
        QTest::newRow("reset blank reason") << QStringList{"reset-ledger", "--reason", "  "};
    }

    void usageErrors()
    {
        QFETCH(QStringList, words);
        const Run r = run(words);
        QCOMPARE(r.exitCode, 2);
        if (words.isEmpty()) // the usage on stdout, as for --help
            QVERIFY(r.out.startsWith("Usage: fabric-broker policy <command>\n"));
        else
            QVERIFY2(r.err.startsWith("fabric-broker policy: unknown command or arguments\n"),
                     qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestPolicyCommand)
#include "tst_policycommand.moc"
