// Hostile clients against a real McpServer over QLocalSocket (LocalSocketServer): oversized
// frames, deep JSON nesting, slowloris partial frames, a client that never reads, a pipelined
// ping flood, garbage after a valid frame, invalid ids, replies to requests the server never
// sent. Throughout, a well-behaved session (the Prober) keeps pinging and must be answered
// within a bound, and the process's resident memory must stay bounded.
#include "HardeningUtil.h"
#include "TestEnvironment.h"
#include "mcp/McpServer.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"
#include "transport/socket/LocalSocketServer.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace fb::mcp;
using namespace fb::transport;
using namespace fbtest;

namespace {

constexpr qint64 kMaxFrame = 1024 * 1024;       // maxFrameBytes of the server under attack
constexpr qint64 kMaxPending = 2 * 1024 * 1024; // maxPendingWriteBytes
constexpr qint64 kLatencyBoundMs = 3000;        // generous: CI runs this under ASan too
constexpr qint64 kRssBoundKiB = 200 * 1024;     // +200 MiB over the whole run

const QByteArray kInit =
    frame(0, "initialize",
          {{"protocolVersion", "2025-06-18"},
           {"capabilities", QJsonObject()},
           {"clientInfo", QJsonObject{{"name", "hostile"}, {"version", "1"}}}}) +
    frame(QJsonValue::Undefined, "notifications/initialized");

bool isResponseTo(const QJsonObject &o, const QJsonValue &id)
{
    return !o.contains("method") && o.contains("id") && o.value("id") == id;
}

int errorCode(const QJsonObject &o)
{
    return o.value("error").toObject().value("code").toInt();
}

} // namespace

class TestHostileClients : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    ToolRegistry m_registry;
    std::unique_ptr<McpServer> m_server;
    std::unique_ptr<LocalSocketServer> m_lss;
    std::unique_ptr<Prober> m_prober;
    qint64 m_rssStart = 0;
    QString m_path;

    // The prober was answered recently and never waited longer than the bound.
    void checkProber(const char *phase)
    {
        QVERIFY2(m_prober->waitAnswer(kLatencyBoundMs),
                 qPrintable(QString("%1: the well-behaved session got no answer").arg(phase)));
        const qint64 raw = rssKiB();
        qInfo("%s: well-behaved session max ping latency so far %lld ms (%d pings answered), "
              "RSS %+lld KiB (%+lld KiB retained)",
              phase, m_prober->maxLatencyMs, m_prober->answered, raw - m_rssStart,
              retainedRssKiB() - m_rssStart);
        QVERIFY2(
            m_prober->maxLatencyMs < kLatencyBoundMs,
            qPrintable(QString("%1: ping latency %2 ms").arg(phase).arg(m_prober->maxLatencyMs)));
    }
    void waitSessions(int n) { QTRY_COMPARE_WITH_TIMEOUT(m_server->sessionCount(), n, 10000); }

private slots:
    void init()
    {
        fbtest::failOnWarnings(
            {QStringLiteral("session \\d+ discarding a frame larger than "),
             QStringLiteral("session \\d+ has \\d+ bytes waiting to be written ")});
    }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        ToolDefinition echo;
        echo.name = "echo";
        echo.description = QString(8000, 'd'); // tools/list answers of ~8 KB
        echo.toolset = "read";
        echo.handler = [](ToolCall *c) { c->finishStructured(c->arguments(), QString()); };
        m_registry.registerTool(echo);
        ServerOptions options;
        options.version = "hardening";
        options.maxFrameBytes = kMaxFrame;
        options.maxPendingWriteBytes = kMaxPending;
        options.maxSessions = 64;
        m_server = std::make_unique<McpServer>(&m_registry, options);
        m_lss = std::make_unique<LocalSocketServer>(m_server.get());
        QString error;
        QVERIFY2(m_lss->listen(m_dir.path() + "/hostile.sock", &error), qPrintable(error));
        m_path = m_lss->socketPath();
        m_prober = std::make_unique<Prober>();
        QVERIFY(m_prober->start(m_path));
        QVERIFY(m_prober->waitAnswer(2000));
        m_rssStart = retainedRssKiB();
        qInfo("start: VmRSS %lld KiB (retained), VmHWM %lld KiB", m_rssStart, hwmKiB());
    }

    void oversizedFrames()
    {
        const int fd = rawConnect(m_path);
        QVERIFY(fd >= 0);
        QByteArray partial;
        QVERIFY(rawWrite(fd, kInit));
        // Three 3 MiB lines (3x the limit), one exactly at the limit, then a ping.
        const QByteArray big(3 * kMaxFrame, 'x');
        for (int i = 0; i < 3; ++i)
            QVERIFY(rawWrite(fd, big + '\n'));
        QByteArray atLimit = frame(1, "ping");
        atLimit.chop(1);
        atLimit.append(QByteArray(kMaxFrame - atLimit.size(), ' ')); // JSON allows trailing ws
        QVERIFY(rawWrite(fd, atLimit + '\n'));
        QVERIFY(rawWrite(fd, frame(2, "ping")));
        const auto msgs = rawReadUntil(
            fd,
            [](const QList<QJsonObject> &l) { return !l.isEmpty() && isResponseTo(l.last(), 2); },
            20000, &partial);
        QVERIFY(!msgs.isEmpty());
        int oversized = 0;
        for (const QJsonObject &o : msgs) {
            if (errorCode(o) == -32600 && o.value("id").isNull() &&
                o.value("error").toObject().value("message").toString().contains("maximum size"))
                ++oversized;
        }
        QCOMPARE(oversized, 3);
        QVERIFY(std::any_of(msgs.begin(), msgs.end(), [](const QJsonObject &o) {
            return isResponseTo(o, 1) && o.contains("result");
        }));
        QVERIFY(isResponseTo(msgs.last(), 2) && msgs.last().contains("result"));
        ::close(fd);
        checkProber("oversized frames");
        waitSessions(1);
    }

    void deepNesting()
    {
        const int fd = rawConnect(m_path);
        QVERIFY(fd >= 0);
        QByteArray partial;
        QVERIFY(rawWrite(fd, kInit));
        QVERIFY(rawWrite(fd, QByteArray(100000, '[') + '\n'));
        QByteArray objects;
        for (int i = 0; i < 100000; ++i)
            objects += "{\"a\":";
        QVERIFY(rawWrite(fd, objects + '\n'));
        // Deep but within Qt's nesting limit, through a whole tools/call and back.
        const int depth = 1000;
        const QByteArray nested = QByteArray(depth, '[') + QByteArray(depth, ']');
        QVERIFY(rawWrite(fd, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"echo\",\"arguments\":{\"a\":" +
                                 nested + "}}}\n"));
        // A deep batch (not allowed at this protocol version, but it has to be parsed first).
        QVERIFY(rawWrite(fd, QByteArray(50000, '[') + QByteArray(50000, ']') + '\n'));
        QVERIFY(rawWrite(fd, frame(4, "ping")));
        const auto msgs = rawReadUntil(
            fd,
            [](const QList<QJsonObject> &l) { return !l.isEmpty() && isResponseTo(l.last(), 4); },
            20000, &partial);
        QVERIFY(!msgs.isEmpty());
        QVERIFY(isResponseTo(msgs.last(), 4));
        int parseErrors = 0;
        bool echoed = false;
        for (const QJsonObject &o : msgs) {
            if (errorCode(o) == -32700)
                ++parseErrors;
            if (isResponseTo(o, 3))
                echoed = o.value("result").toObject().contains("structuredContent");
        }
        QCOMPARE(parseErrors, 3);
        QVERIFY(echoed);
        ::close(fd);
        checkProber("deep nesting");
        waitSessions(1);
    }

    void slowlorisIsBoundedByMaxFrame()
    {
        // Eight clients trickle a never-ending line, 8 KiB every few ms, up to 1.25x the frame
        // limit each. Each is told once that its frame is too big; none is buffered beyond the
        // limit; the well-behaved session stays responsive.
        constexpr int kClients = 8;
        QList<int> fds;
        QList<QByteArray> partials(kClients);
        for (int i = 0; i < kClients; ++i) {
            const int fd = rawConnect(m_path);
            QVERIFY(fd >= 0);
            QVERIFY(rawWrite(fd, kInit));
            fds.append(fd);
        }
        const QByteArray piece(8192, 'a');
        const qint64 total = kMaxFrame + kMaxFrame / 4;
        qint64 peakRss = 0;
        for (qint64 sent = 0; sent < total; sent += piece.size()) {
            for (int fd : std::as_const(fds))
                QVERIFY(rawWrite(fd, piece));
            QTest::qWait(1);
            peakRss = qMax(peakRss, rssKiB() - m_rssStart);
        }
        qInfo("slowloris: %d clients x %lld bytes trickled, peak RSS %+lld KiB", kClients, total,
              peakRss);
        checkProber("slowloris");
        QCOMPARE(m_server->sessionCount(), 1 + kClients); // still connected, just discarding
        for (int i = 0; i < kClients; ++i) {
            // Ending the line makes the session parse again.
            QVERIFY(rawWrite(fds[i], "\n" + frame(5, "ping")));
            const auto msgs = rawReadUntil(
                fds[i],
                [](const QList<QJsonObject> &l) {
                    return !l.isEmpty() && isResponseTo(l.last(), 5);
                },
                10000, &partials[i]);
            int oversized = 0;
            for (const QJsonObject &o : msgs)
                oversized += errorCode(o) == -32600 ? 1 : 0;
            QCOMPARE(oversized, 1);
            QVERIFY(!msgs.isEmpty() && isResponseTo(msgs.last(), 5));
        }
        for (int fd : std::as_const(fds))
            ::close(fd);
        waitSessions(1);
    }

    void clientThatNeverReadsIsDropped()
    {
        QSignalSpy closed(m_server.get(), &McpServer::sessionClosed);
        const int fd = rawConnect(m_path);
        QVERIFY(fd >= 0); // a session from its first byte on (it could have been a relay's)
        QByteArray flood = kInit;
        for (int i = 1; i <= 1000; ++i) // ~8 MB of tools/list answers, never read
            flood += frame(i, "tools/list");
        QVERIFY(rawWrite(fd, flood));
        QTRY_VERIFY_WITH_TIMEOUT(closed.count() >= 1, 10000);
        waitSessions(1);
        checkProber("never-reading client");
        // The dropped client sees the end of the connection once it reads what was flushed.
        QByteArray partial;
        QElapsedTimer t;
        t.start();
        bool open = true;
        while (open && t.elapsed() < 10000) {
            open = rawDrain(fd, &partial);
            QTest::qWait(5);
        }
        QVERIFY2(!open, "the dropped connection was not closed by the server");
        qInfo("never-reading client: dropped after the server had queued more than %lld bytes; "
              "it received %lld bytes before the close",
              kMaxPending, qint64(partial.size()));
        ::close(fd);
    }

    void pipelinedPingFlood()
    {
        const int fd = rawConnect(m_path);
        QVERIFY(fd >= 0);
        QByteArray flood = kInit;
        constexpr int kPings = 10000;
        for (int i = 1; i <= kPings; ++i)
            flood += frame(i, "ping");
        QElapsedTimer t;
        t.start();
        QVERIFY(rawWrite(fd, flood));
        QByteArray partial;
        const auto msgs = rawReadUntil(
            fd, [](const QList<QJsonObject> &l) { return l.size() >= kPings + 1; }, 60000,
            &partial);
        qInfo("ping flood: %d pipelined pings (%lld bytes) answered in %lld ms", kPings,
              qint64(flood.size()), t.elapsed());
        QCOMPARE(msgs.size(), kPings + 1);
        QVERIFY(isResponseTo(msgs.at(0), 0));
        for (int i = 1; i <= kPings; ++i) {
            if (!isResponseTo(msgs.at(i), i) || !msgs.at(i).contains("result"))
                QFAIL(qPrintable(QString("response %1 is not the answer to ping %1").arg(i)));
        }
        checkProber("ping flood");
        ::close(fd);
        waitSessions(1);
    }

    void garbageAfterValidFrame()
    {
        const int fd = rawConnect(m_path);
        QVERIFY(fd >= 0);
        QVERIFY(rawWrite(fd, kInit));
        QByteArray bytes;
        bytes += frame(1, "ping").chopped(1) + "garbage\n";      // trailing bytes on the same line
        bytes += frame(2, "ping");                               // fine
        bytes += QByteArray("\x00\xff\xfe\x01junk", 8) + "\n";   // binary garbage line
        bytes += frame(3, "ping").chopped(1) + frame(4, "ping"); // two objects on one line
        bytes += "\r\n\r\n   \n";                                // blank lines: ignored
        bytes += frame(5, "ping");
        QVERIFY(rawWrite(fd, bytes));
        QByteArray partial;
        const auto msgs = rawReadUntil(
            fd,
            [](const QList<QJsonObject> &l) { return !l.isEmpty() && isResponseTo(l.last(), 5); },
            10000, &partial);
        // initialize, parse error, ping 2, parse error, parse error, ping 5.
        QCOMPARE(msgs.size(), 6);
        QVERIFY(isResponseTo(msgs.at(0), 0));
        QCOMPARE(errorCode(msgs.at(1)), -32700);
        QVERIFY(msgs.at(1).value("id").isNull());
        QVERIFY(isResponseTo(msgs.at(2), 2));
        QCOMPARE(errorCode(msgs.at(3)), -32700);
        QCOMPARE(errorCode(msgs.at(4)), -32700);
        QVERIFY(isResponseTo(msgs.at(5), 5));
        ::close(fd);
        checkProber("garbage after a valid frame");
        waitSessions(1);
    }

    void invalidIds()
    {
        const int fd = rawConnect(m_path);
        QVERIFY(fd >= 0);
        QVERIFY(rawWrite(fd, kInit));
        const QList<QByteArray> bad = {"{}", "[]", "true", "null", "[1]", "{\"a\":1}"};
        QByteArray bytes;
        for (const QByteArray &id : bad)
            bytes += "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}\n";
        // Valid but unusual ids are echoed back as given.
        const QString longId(100000, 'i');
        bytes += frame(longId, "ping");
        bytes += frame(-0.5, "ping");
        bytes += frame(1e300, "ping");
        bytes += frame(6, "ping");
        QVERIFY(rawWrite(fd, bytes));
        QByteArray partial;
        const auto msgs = rawReadUntil(
            fd,
            [](const QList<QJsonObject> &l) { return !l.isEmpty() && isResponseTo(l.last(), 6); },
            10000, &partial);
        QCOMPARE(msgs.size(), 1 + bad.size() + 4);
        for (int i = 1; i <= bad.size(); ++i) {
            QCOMPARE(errorCode(msgs.at(i)), -32600);
            QVERIFY(msgs.at(i).value("id").isNull());
        }
        QVERIFY(isResponseTo(msgs.at(bad.size() + 1), longId));
        QVERIFY(isResponseTo(msgs.at(bad.size() + 2), -0.5));
        QVERIFY(isResponseTo(msgs.at(bad.size() + 3), 1e300));
        ::close(fd);
        checkProber("invalid ids");
        waitSessions(1);
    }

    void repliesToRequestsNeverSent()
    {
        const int fd = rawConnect(m_path);
        QVERIFY(fd >= 0);
        QVERIFY(rawWrite(fd, kInit));
        QByteArray bytes;
        for (const QByteArray &id :
             QList<QByteArray>{"1", "99", "\"abc\"", "-5", "1e20", "0", "2.5"}) {
            bytes += "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"action\":\"accept\"}}\n";
            bytes += "{\"jsonrpc\":\"2.0\",\"id\":" + id +
                     ",\"error\":{\"code\":-1,\"message\":\"x\"}}\n";
        }
        bytes += "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}\n";
        bytes += frame(7, "ping");
        QVERIFY(rawWrite(fd, bytes));
        QByteArray partial;
        const auto msgs = rawReadUntil(
            fd,
            [](const QList<QJsonObject> &l) { return !l.isEmpty() && isResponseTo(l.last(), 7); },
            10000, &partial);
        // Nothing but initialize and the ping: stray replies are ignored, never answered.
        QCOMPARE(msgs.size(), 2);
        QVERIFY(isResponseTo(msgs.at(0), 0));
        QVERIFY(isResponseTo(msgs.at(1), 7));
        ::close(fd);
        checkProber("replies to requests never sent");
        waitSessions(1);
    }

    void cleanupTestCase()
    {
        QVERIFY(m_prober->waitAnswer(kLatencyBoundMs));
        const qint64 raw = rssKiB();
        const qint64 retained = retainedRssKiB();
        const qint64 growth = retained - m_rssStart;
        qInfo("end: VmRSS %lld KiB before purging allocator caches, %lld KiB retained (%+lld KiB "
              "since start), VmHWM %lld KiB; well-behaved session: %d pings answered, max "
              "latency %lld ms",
              raw, retained, growth, hwmKiB(), m_prober->answered, m_prober->maxLatencyMs);
        QVERIFY2(growth < kRssBoundKiB, qPrintable(QString("RSS grew by %1 KiB").arg(growth)));
        QVERIFY(m_prober->maxLatencyMs < kLatencyBoundMs);
        m_prober.reset();
        m_lss.reset();
        m_server.reset();
    }
};

QTEST_GUILESS_MAIN(TestHostileClients)
#include "tst_hostile_clients.moc"
