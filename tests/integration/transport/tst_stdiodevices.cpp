// StdioDevices: real file descriptors. A pipe is read through a notifier (split frames across
// reads, end of input), a regular file by a reader thread, and a stdout nobody reads never hangs
// the device's destruction, and a source that never blocks is read no faster than consumed.
#include "StdioFixture.h"
#include "TestEnvironment.h"
#include "mcp/McpServer.h"
#include "transport/stdio/StdioDevices.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryFile>

#include <fcntl.h>
#include <unistd.h>

using namespace fb::mcp;
using namespace fb::transport;

class TestStdioDevices : public QObject {
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

    // A source that never blocks (/dev/zero handed over as stdin) is read only as fast as the
    // device is read: nobody reading holds it at the read-ahead bound (1 MiB plus one chunk)
    // instead of growing memory and the event queue without end; reading resumes it.
    void endlessSourceIsReadOnlyAsFastAsConsumed()
    {
        const int fd = ::open("/dev/zero", O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        {
            StdinDevice in(fd);
            QVERIFY(in.usesReaderThread());
            QTest::qWait(300);
            const qint64 held = in.bytesAvailable();
            QVERIFY2(held > 0 && held <= 1024 * 1024 + 64 * 1024, QByteArray::number(held));
            QTest::qWait(200);
            QCOMPARE(in.bytesAvailable(), held); // nothing more while nobody reads
            QByteArray sink(256 * 1024, Qt::Uninitialized);
            qint64 total = 0;
            QElapsedTimer clock;
            clock.start();
            while (total < 8 * 1024 * 1024 && clock.elapsed() < 10000) {
                const qint64 n = in.read(sink.data(), sink.size());
                QVERIFY(n >= 0);
                total += n;
                if (n == 0)
                    QTest::qWait(5);
            }
            QVERIFY2(total >= 8 * 1024 * 1024, QByteArray::number(total));
            QVERIFY(in.bytesAvailable() <= 1024 * 1024 + 64 * 1024);
        }
        ::close(fd);
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
};

QTEST_GUILESS_MAIN(TestStdioDevices)
#include "tst_stdiodevices.moc"
