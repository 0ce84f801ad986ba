// ClientConfigCommand: `fabric-broker client-config` prints the snippets of the one generator
// (mcp::ClientSnippets) for the executable given (default: this one), as text or as one JSON
// object, with the HTTP snippets when --http names an http:// URL; anything else is a usage
// error (exit 2) that prints nothing on stdout.
#include "AppOutput.h"
#include "TestEnvironment.h"
#include "app/ClientConfigCommand.h"
#include "mcp/ClientSnippets.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace fb;

namespace {

const QString kExe = QStringLiteral("/opt/Fabric Broker/bin/fabric-broker");
const QString kUrl = QStringLiteral("http://127.0.0.1:7431/mcp");

using Run = fbtest::CommandRun;

Run run(const QStringList &options)
{
    return fbtest::runCommand(runClientConfigCommand,
                              QStringList{"fabric-broker", "client-config"} + options);
}

} // namespace

class TestClientConfigCommand : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void jsonIsTheGeneratorsOwn()
    {
        const Run r = run({"--json", "--executable", kExe});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.err, QString());
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object(),
                 mcp::ClientSnippets::toJson(kExe));

        const Run http = run({"--json", "--executable", kExe, "--http", kUrl});
        QCOMPARE(http.exitCode, 0);
        QJsonObject expected = mcp::ClientSnippets::toJson(kExe);
        expected.insert("http", mcp::ClientSnippets::httpJson(kUrl, kExe));
        QCOMPARE(QJsonDocument::fromJson(http.out.toUtf8()).object(), expected);
    }

    void textNamesEachClientAndHowToUseIt()
    {
        const Run r = run({"--executable", kExe});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith("# " + mcp::ClientSnippets::proposalsNote() + "\n# " +
                                 mcp::ClientSnippets::toolsetsNote() + "\n\n"));
        const QList<mcp::ClientSnippet> snippets = mcp::ClientSnippets::all(kExe);
        QVERIFY(!snippets.isEmpty());
        for (const mcp::ClientSnippet &s : snippets) {
            QVERIFY2(r.out.contains("# " + s.client + " ("), qPrintable(s.client));
            QVERIFY2(r.out.contains(s.text + "\n\n"), qPrintable(s.id));
            if (s.kind == mcp::ClientSnippet::Kind::File)
                QVERIFY(r.out.contains("# " + s.client + " (add to " + s.where + ")\n"));
            if (s.kind == mcp::ClientSnippet::Kind::Link)
                QVERIFY(r.out.contains("# " + s.client + " (open this link)\n"));
            if (s.kind == mcp::ClientSnippet::Kind::Command)
                QVERIFY(r.out.contains("# " + s.client + " (run in a terminal)\n"));
        }
        QVERIFY(!r.out.contains(mcp::ClientSnippets::httpNote()));
        QVERIFY(!r.out.contains(kUrl));
    }

    void textWithHttp()
    {
        const Run r = run({"--executable", kExe, "--http", kUrl});
        QCOMPARE(r.exitCode, 0);
        for (const mcp::ClientSnippet &s : mcp::ClientSnippets::http(kUrl, kExe)) {
            QVERIFY2(r.out.contains(s.text + "\n\n"), qPrintable(s.id));
            if (!s.note.isEmpty())
                QVERIFY2(r.out.contains("# " + s.note + "\n"), qPrintable(s.id));
        }
        QVERIFY(r.out.endsWith("# " + mcp::ClientSnippets::httpNote() + "\n"));
    }

    void defaultExecutableIsThisOne()
    {
        const Run r = run({"--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object(),
                 mcp::ClientSnippets::toJson(QCoreApplication::applicationFilePath()));
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::newRow("https") << QStringList{"--http", "https://127.0.0.1:7431/mcp"};
        QTest::newRow("no host") << QStringList{"--http", "http://"};
        QTest::newRow("not a URL") << QStringList{"--http", "127.0.0.1:7431"};
        QTest::newRow("unknown option") << QStringList{"--yaml"};
        QTest::newRow("argument") << QStringList{"claude"};
    }

    void usageErrors()
    {
        QFETCH(QStringList, options);
        const Run r = run(options);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.out, QString());
        QVERIFY2(r.err.endsWith("Try 'fabric-broker client-config --help'.\n"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestClientConfigCommand)
#include "tst_clientconfigcommand.moc"
