// StdioDevices and StdioTransport: real file descriptors (pipes, regular files),
// end of input, and a child process whose stdout must carry nothing but MCP frames.
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

void registerEcho(ToolRegistry &registry)
{
    ToolDefinition echo;
    echo.name = "echo";
    echo.description = "echo";
    echo.toolset = "read";
    echo.handler = [](ToolCall *c) { c->finishStructured(c->arguments(), QString()); };
    registry.registerTool(echo);
}

QByteArray frame(int id, const QString &method, const QJsonObject &params = {})
{
    QJsonObject m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.isEmpty())
        m.insert("params", params);
    return QJsonDocument(m).toJson(QJsonDocument::Compact) + '\n';
}

QByteArray initFrames()
{
    return frame(0, "initialize", QJsonObject{{"protocolVersion", "2025-11-25"}}) +
           "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
}

// Reads lines from a non-blocking fd while the event loop runs.
QList<QByteArray> readLines(int fd, int count, int timeoutMs = 3000)
{
    QByteArray buffer;
    QList<QByteArray> lines;
    QElapsedTimer t;
    t.start();
    while (lines.size() < count && t.elapsed() < timeoutMs) {
        char chunk[4096];
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n > 0) {
            buffer.append(chunk, n);
            qsizetype nl;
            while ((nl = buffer.indexOf('\n')) >= 0) {
                lines.append(buffer.left(nl));
                buffer.remove(0, nl + 1);
            }
        } else {
            QTest::qWait(5);
        }
    }
    return lines;
}

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
    void pipeUsesNotifier()
    {
        int in[2], out[2];
        QCOMPARE(::pipe(in), 0);
        QCOMPARE(::pipe(out), 0);
        ::fcntl(out[0], F_SETFL, O_NONBLOCK);
        ToolRegistry registry;
        registerEcho(registry);
        McpServer server(&registry, {});
        QSignalSpy closed(&server, &McpServer::sessionClosed);
        {
            StdioDevices io(in[0], out[1]);
            QVERIFY(!io.input()->usesReaderThread());
            QSignalSpy finished(&io, &StdioDevices::inputFinished);
            server.serve({"stdio", io.input(), io.output(), false});
            const QByteArray req =
                initFrames() +
                frame(1, "tools/call",
                      QJsonObject{{"name", "echo"}, {"arguments", QJsonObject{{"a", 1}}}});
            // Split writes: partial frames across reads.
            QCOMPARE(::write(in[1], req.constData(), 10), 10);
            QTest::qWait(20);
            QCOMPARE(::write(in[1], req.constData() + 10, size_t(req.size() - 10)),
                     ssize_t(req.size() - 10));
            const QList<QByteArray> lines = readLines(out[0], 2);
            QCOMPARE(lines.size(), 2);
            QCOMPARE(QJsonDocument::fromJson(lines.at(1)).object().value("id"), QJsonValue(1));
            ::close(in[1]);
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 1000);
            QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, 1000);
        }
        ::close(in[0]);
        ::close(out[0]);
        ::close(out[1]);
    }

    void regularFileUsesReaderThread()
    {
        QTemporaryFile file;
        QVERIFY(file.open());
        file.write(initFrames() + frame(1, "ping") + frame(2, "tools/list"));
        file.flush();
        const int fd = ::open(QFile::encodeName(file.fileName()).constData(), O_RDONLY);
        QVERIFY(fd >= 0);
        int out[2];
        QCOMPARE(::pipe(out), 0);
        ::fcntl(out[0], F_SETFL, O_NONBLOCK);
        ToolRegistry registry;
        registerEcho(registry);
        McpServer server(&registry, {});
        QSignalSpy closed(&server, &McpServer::sessionClosed);
        {
            StdioDevices io(fd, out[1]);
            QVERIFY(io.input()->usesReaderThread());
            server.serve({"stdio", io.input(), io.output(), false});
            const QList<QByteArray> lines = readLines(out[0], 3);
            QCOMPARE(lines.size(), 3);
            QVERIFY(lines.at(2).contains("\"tools\":[{"));
            QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, 1000); // end of file
        }
        ::close(fd);
        ::close(out[0]);
        ::close(out[1]);
    }

    void stdoutNobodyReadsDoesNotHangDestruction()
    {
        int out[2];
        QCOMPARE(::pipe(out), 0);
        QElapsedTimer t;
        t.start();
        {
            StdoutDevice dev(out[1]);
            QCOMPARE(dev.write(QByteArray(1024 * 1024, 'x')), qint64(1024 * 1024));
            QTest::qWait(50);
            QVERIFY(dev.bytesToWrite() > 0); // the pipe (64 KiB) is full
            QVERIFY(!dev.waitForBytesWritten(50));
        }
        QVERIFY2(t.elapsed() < 2500, QByteArray::number(t.elapsed()).constData());
        ::close(out[0]);
        ::close(out[1]);
    }

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
