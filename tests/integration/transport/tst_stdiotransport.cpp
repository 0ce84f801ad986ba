// StdioTransport: a child process serving its own stdio, whose stdout must carry nothing but MCP
// frames and which exits quickly at the end of input. The devices alone: tst_stdiodevices.
#include "StdioFixture.h"
#include "TestEnvironment.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"
#include "transport/stdio/StdioDevices.h"
#include "transport/stdio/StdioTransport.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryFile>
#include <QTest>

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

using namespace fb::mcp;
using namespace fb::transport;

namespace {

int childMain(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    ToolRegistry registry;
    registerEcho(registry);
    McpServer server(&registry, {});
    QObject::connect(StdioTransport::serve(&server), &StdioTransport::finished, &app,
                     &QCoreApplication::quit);
    qInfo("child: this goes to stderr, never to stdout");
    return app.exec();
}

} // namespace

class TestStdioTransport : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void processStdioOnlyFramesAndQuickExit()
    {
        QProcess child;
        child.setProgram(QCoreApplication::applicationFilePath());
        child.setArguments({"--stdio-child"});
        child.setProcessChannelMode(QProcess::SeparateChannels);
        child.start();
        QVERIFY(child.waitForStarted());
        child.write(initFrames() +
                    frame(1, "tools/call",
                          QJsonObject{{"name", "echo"}, {"arguments", QJsonObject{{"x", "y"}}}}) +
                    "not json\n");
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += child.readAllStandardOutput()).count('\n') >= 3, 5000);
        QElapsedTimer t;
        t.start();
        child.closeWriteChannel();
        QVERIFY(child.waitForFinished(3000));
        QVERIFY2(t.elapsed() < 1000, QByteArray::number(t.elapsed()).constData());
        QCOMPARE(child.exitCode(), 0);
        out += child.readAllStandardOutput();
        const QList<QByteArray> lines = out.trimmed().split('\n');
        QVERIFY2(lines.size() == 3, out.constData());
        for (const QByteArray &line : lines) {
            QJsonParseError err;
            const QJsonObject o = QJsonDocument::fromJson(line, &err).object();
            QCOMPARE(err.error, QJsonParseError::NoError);
            QCOMPARE(o.value("jsonrpc").toString(), QString("2.0"));
        }
        // The tool result comes after the parse error: tools/call handlers run after the read.
        QCOMPARE(
            QJsonDocument::fromJson(lines.at(1)).object().value("error").toObject().value("code"),
            QJsonValue(-32700));
        QCOMPARE(QJsonDocument::fromJson(lines.at(2)).object().value("id"), QJsonValue(1));
        QVERIFY(child.readAllStandardError().contains("never to stdout"));
    }

    void processStdioFromRegularFile()
    {
        QTemporaryFile file;
        QVERIFY(file.open());
        file.write(initFrames() + frame(1, "ping"));
        file.close();
        QProcess child;
        child.setProgram(QCoreApplication::applicationFilePath());
        child.setArguments({"--stdio-child"});
        child.setStandardInputFile(file.fileName());
        child.start();
        QVERIFY(child.waitForFinished(3000));
        const QList<QByteArray> lines = child.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QCOMPARE(QJsonDocument::fromJson(lines.at(1)).object().value("id"), QJsonValue(1));
    }
};

int main(int argc, char **argv)
{
    if (argc > 1 && qstrcmp(argv[1], "--stdio-child") == 0)
        return childMain(argc, argv);
    QCoreApplication app(argc, argv);
    TestStdioTransport test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_stdiotransport.moc"
