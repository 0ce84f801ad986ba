// FabricHttpTransport (and FabricClient on it) against loopback "Fabric" servers this test
// controls byte by byte: keep-alive reuse, chunked and Content-Length bodies, oversized and
// malformed answers refused, a stale keep-alive connection retried once for a read, a real
// create always on a fresh connection and never sent twice, timeouts, answers split at every
// byte or arriving at once, Connection: close, the idle pool's bounds, TLS failures.
#include "TestEnvironment.h"
#include "fabric/FabricClient.h"
#include "fabric/FabricHttpTransport.h"

#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtTest>

#include <functional>
#include <memory>

using namespace fb;
using Kind = FabricResult::Kind;
using Error = FabricHttpResponse::Error;

namespace {

// A loopback server that hands each complete request (head plus Content-Length body) to a
// script, with the connection's index; the script answers with raw bytes, or not at all.
class ScriptServer : public QObject {
public:
    struct Request {
        int connection = 0;
        QByteArray bytes; // the whole request as it arrived
        QByteArray head() const { return bytes.left(bytes.indexOf("\r\n\r\n")); }
        QByteArray firstLine() const { return bytes.left(bytes.indexOf("\r\n")); }
    };
    using Script = std::function<void(ScriptServer &, const Request &)>;

    ScriptServer()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection()) {
                s->setParent(this);
                const int index = int(connections.size());
                connections.append(s);
                auto buffer = std::make_shared<QByteArray>();
                connect(s, &QTcpSocket::readyRead, this, [this, s, index, buffer] {
                    buffer->append(s->readAll());
                    while (takeRequest(index, *buffer)) {
                    }
                });
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QUrl url(const QString &path = QStringLiteral("/fabric/v4/metros")) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path));
    }
    void send(int connection, const QByteArray &bytes)
    {
        if (QTcpSocket *s = connections.value(connection))
            s->write(bytes);
    }
    void close(int connection)
    {
        if (QTcpSocket *s = connections.value(connection))
            s->disconnectFromHost();
    }
    int openConnections() const
    {
        int n = 0;
        for (const auto &s : connections)
            n += s && s->state() == QAbstractSocket::ConnectedState ? 1 : 0;
        return n;
    }

    Script script = [](ScriptServer &server, const Request &r) { server.send(r.connection, ok()); };
    QList<Request> requests;
    QList<QPointer<QTcpSocket>> connections;

    static QByteArray ok(const QByteArray &body = "{\"data\":[]}")
    {
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
               QByteArray::number(body.size()) + "\r\n\r\n" + body;
    }

private:
    bool takeRequest(int index, QByteArray &buffer)
    {
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return false;
        qsizetype length = 0;
        for (const QByteArray &line : buffer.left(end).split('\n')) {
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        }
        if (buffer.size() < end + 4 + length)
            return false;
        Request r{index, buffer.left(end + 4 + length)};
        buffer.remove(0, end + 4 + length);
        requests.append(r);
        script(*this, r);
        return true;
    }

    QTcpServer m_server;
};

struct Done {
    FabricHttpResponse response;
    int attempts = 0;
    bool reused = false;
    bool bytesLeft = false;
    int emitted = 0;
};

FabricHttpRequestSpec getSpec(const QUrl &url, int timeoutMs = 3000, qint64 maxBytes = 1 << 20)
{
    FabricHttpRequestSpec spec;
    spec.url = url;
    spec.timeoutMs = timeoutMs;
    spec.maxResponseBytes = maxBytes;
    spec.retryOnStale = true;
    spec.headers = {{"Accept", "application/json"}};
    return spec;
}

Done run(FabricHttpTransport &transport, FabricHttpRequestSpec spec, int waitMs = 8000)
{
    QObject owner;
    auto done = std::make_shared<Done>();
    FabricHttpRequest *request = transport.request(std::move(spec), &owner);
    QObject::connect(request, &FabricHttpRequest::finished, request, [done, request] {
        ++done->emitted;
        done->response = request->response();
        done->attempts = request->attempts();
        done->reused = request->reusedConnection();
        done->bytesLeft = request->bytesLeft();
    });
    request->start();
    QElapsedTimer t;
    t.start();
    while (done->emitted == 0 && t.elapsed() < waitMs)
        QTest::qWait(2);
    QTest::qWait(10); // a second emission would show
    if (done->emitted != 1)
        qWarning() << "finished emitted" << done->emitted << "times";
    return *done;
}

FabricResult waitCall(FabricCall *call, int ms = 8000)
{
    auto out = std::make_shared<QPair<int, FabricResult>>(0, FabricResult());
    QObject::connect(call, &FabricCall::finished, [out](const FabricResult &r) {
        ++out->first;
        out->second = r;
    });
    QElapsedTimer t;
    t.start();
    while (out->first == 0 && t.elapsed() < ms)
        QTest::qWait(2);
    QTest::qWait(10);
    if (out->first != 1)
        qWarning() << "finished emitted" << out->first << "times";
    return out->second;
}

FabricConfig configFor(const ScriptServer &server, int timeoutMs = 3000)
{
    FabricConfig c;
    c.endpoint = server.url(QString());
    c.staticToken = QStringLiteral("static-token-for-transport-tests");
    c.timeoutMs = timeoutMs;
    return c;
}

CompiledRequest connectionRequest()
{
    CompiledRequest r;
    r.changeType = ChangeType::ConnectionCreate;
    r.path = QStringLiteral("/fabric/v4/connections");
    r.body = R"({"name":"conn-transport","type":"EVPL_VC"})";
    return r;
}

int countLines(const QList<ScriptServer::Request> &requests, const QByteArray &firstLinePrefix)
{
    int n = 0;
    for (const auto &r : requests)
        n += r.firstLine().startsWith(firstLinePrefix) ? 1 : 0;
    return n;
}

} // namespace

class TestFabricHttpTransport : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings({QStringLiteral("outcome unknown for POST ")}); }

    void keepAliveReusesOneConnection()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        FabricHttpTransport transport;
        for (int i = 0; i < 5; ++i) {
            const Done d = run(transport, getSpec(server.url()));
            QCOMPARE(d.emitted, 1);
            QCOMPARE(d.response.error, Error::None);
            QCOMPARE(d.response.status, 200);
            QCOMPARE(d.response.body, QByteArray("{\"data\":[]}"));
            QCOMPARE(d.reused, i > 0);
        }
        QCOMPARE(server.requests.size(), 5);
        QCOMPARE(server.connections.size(), 1);
        QCOMPARE(transport.idleConnections(), 1);
        // The request on the wire: one request line, Host, the caller's headers, no body.
        const QByteArray head = server.requests.first().head();
        QCOMPARE(server.requests.first().firstLine(), QByteArray("GET /fabric/v4/metros HTTP/1.1"));
        QVERIFY2(head.contains("\r\nHost: 127.0.0.1:"), head.constData());
        QVERIFY(head.contains("\r\nAccept: application/json"));
        QVERIFY(!head.toLower().contains("accept-encoding"));
        QVERIFY(!head.toLower().contains("content-length"));
    }

    void chunkedBodyWithExtensionsAndTrailers()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        server.script = [](ScriptServer &s, const ScriptServer::Request &r) {
            s.send(r.connection, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 "5;ext=1\r\n{\"a\":\r\n"
                                 "3;x=\"y\"\r\n[1]\r\n"
                                 "1\r\n}\r\n"
                                 "0\r\nX-Checksum: abc\r\n\r\n");
        };
        FabricHttpTransport transport;
        const Done d = run(transport, getSpec(server.url()));
        QCOMPARE(d.response.error, Error::None);
        QCOMPARE(d.response.body, QByteArray("{\"a\":[1]}"));
        QCOMPARE(transport.idleConnections(), 1);
        const Done again = run(transport, getSpec(server.url()));
        QCOMPARE(again.response.body, QByteArray("{\"a\":[1]}"));
        QCOMPARE(server.connections.size(), 1);
    }

    void contentLengthIsExact()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        // Two bytes more than announced: the body is the announced bytes, the connection is not
        // reused (out of step).
        server.script = [](ScriptServer &s, const ScriptServer::Request &r) {
            s.send(r.connection, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n{\"\"}XX");
        };
        FabricHttpTransport transport;
        const Done d = run(transport, getSpec(server.url()));
        QCOMPARE(d.response.error, Error::None);
        QCOMPARE(d.response.body, QByteArray("{\"\"}"));
        QCOMPARE(transport.idleConnections(), 0);
        run(transport, getSpec(server.url()));
        QCOMPARE(server.connections.size(), 2);
    }

    void oversizedAnswersAreRefused_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::addColumn<int>("error");
        QTest::addColumn<QString>("words");
        QTest::newRow("header-block")
            << QByteArray("HTTP/1.1 200 OK\r\n" + QByteArray("X-Big: ").repeated(1) +
                          QByteArray(70 * 1024, 'h') + "\r\nContent-Length: 0\r\n\r\n")
            << int(Error::Protocol) << "65536";
        QTest::newRow("announced-body")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n") << int(Error::TooLarge)
            << "4096";
        QTest::newRow("chunked-body")
            << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" +
                          QByteArray(0x800, 'x') + "\r\n800\r\n" + QByteArray(0x800, 'x') +
                          "\r\n1\r\nx\r\n0\r\n\r\n")
            << int(Error::TooLarge) << "4096";
    }
    void oversizedAnswersAreRefused()
    {
        QFETCH(QByteArray, answer);
        QFETCH(int, error);
        QFETCH(QString, words);
        ScriptServer server;
        QVERIFY(server.listen());
        server.script = [answer](ScriptServer &s, const ScriptServer::Request &r) {
            s.send(r.connection, answer);
        };
        FabricHttpTransport transport;
        const Done d = run(transport, getSpec(server.url(), 3000, 4096));
        QCOMPARE(int(d.response.error), error);
        QVERIFY2(d.response.errorString.contains(words), qPrintable(d.response.errorString));
        QVERIFY(d.response.body.isEmpty());
        QCOMPARE(transport.idleConnections(), 0);
        QTRY_COMPARE(server.openConnections(), 0); // the client hung up
    }

    void malformedAnswersAreRefused_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::newRow("status-line") << QByteArray("HTTP/1.1 OK 200\r\nContent-Length: 0\r\n\r\n");
        QTest::newRow("not-http") << QByteArray("<html>hello</html>\r\n\r\n");
        QTest::newRow("chunk-size") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: "
                                                  "chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
        QTest::newRow("conflicting-length")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 20\r\n\r\n{}");
        QTest::newRow("length-and-chunked")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: "
                          "chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
        QTest::newRow("obs-fold") << QByteArray(
            "HTTP/1.1 200 OK\r\nX-A: 1\r\n 2\r\nContent-Length: 2\r\n\r\n{}");
    }
    void malformedAnswersAreRefused()
    {
        QFETCH(QByteArray, answer);
        ScriptServer server;
        QVERIFY(server.listen());
        server.script = [answer](ScriptServer &s, const ScriptServer::Request &r) {
            s.send(r.connection, answer);
        };
        FabricHttpTransport transport;
        const Done d = run(transport, getSpec(server.url()));
        QCOMPARE(d.response.error, Error::Protocol);
        QVERIFY(!d.response.errorString.isEmpty());
        QVERIFY(d.response.body.isEmpty());
        QCOMPARE(server.requests.size(), 1); // not retried: the connection was fresh
        // Through the client: an error with the reason, not a crash or a half body.
        FabricClient client(configFor(server));
        const FabricResult r = waitCall(client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(r.kind, Kind::NetworkError);
        QVERIFY(r.requestSent);
        QVERIFY2(r.message.contains(QStringLiteral("the connection failed")),
                 qPrintable(r.message));
    }

    void staleKeepAliveConnectionIsRetriedOnceForARead()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        // The second request on connection 0 meets a server that closed it without answering
        // (the keep-alive race: it had timed the connection out as the request left).
        server.script = [](ScriptServer &s, const ScriptServer::Request &r) {
            if (r.connection == 0 && s.requests.size() == 2)
                s.connections.at(0)->abort();
            else
                s.send(r.connection, ScriptServer::ok());
        };
        FabricHttpTransport transport;
        QCOMPARE(run(transport, getSpec(server.url())).response.error, Error::None);
        const Done d = run(transport, getSpec(server.url()));
        QCOMPARE(d.response.error, Error::None);
        QCOMPARE(d.response.status, 200);
        QVERIFY(d.reused);
        QCOMPARE(d.attempts, 2);
        QCOMPARE(server.connections.size(), 2);
        QCOMPARE(server.requests.size(), 3);
        QCOMPARE(server.requests.at(2).connection, 1);
    }

    void staleRetryIsOnceOnly()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        // After the first answer every request is met by a close: one retry, then the failure.
        server.script = [](ScriptServer &s, const ScriptServer::Request &r) {
            if (s.requests.size() == 1)
                s.send(r.connection, ScriptServer::ok());
            else
                s.connections.at(r.connection)->abort();
        };
        FabricHttpTransport transport;
        run(transport, getSpec(server.url()));
        const Done d = run(transport, getSpec(server.url()));
        QCOMPARE(d.response.error, Error::Closed);
        QCOMPARE(d.attempts, 2);
        QCOMPARE(server.requests.size(), 3);
    }

    void createAlwaysUsesAFreshConnectionAndIsSentOnce()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        // Reads answer; the create's connection is closed by the server without an answer.
        server.script = [](ScriptServer &s, const ScriptServer::Request &r) {
            if (r.firstLine().startsWith("POST /fabric/v4/connections "))
                s.connections.at(r.connection)->abort();
            else
                s.send(r.connection, ScriptServer::ok());
        };
        FabricClient client(configFor(server));
        for (int i = 0; i < 2; ++i)
            QCOMPARE(waitCall(client.get(QStringLiteral("/fabric/v4/metros"))).kind, Kind::Ok);
        QCOMPARE(server.connections.size(), 1); // the reads share one
        const FabricResult r = waitCall(client.create(connectionRequest()));
        QCOMPARE(r.kind, Kind::OutcomeUnknown);
        QVERIFY(r.requestSent);
        QTest::qWait(300); // a (wrong) resend would show up
        QCOMPARE(countLines(server.requests, "POST /fabric/v4/connections "), 1);
        QCOMPARE(server.connections.size(), 2);
        const ScriptServer::Request create = server.requests.last();
        QCOMPARE(create.connection, 1); // a new connection, not the idle one
        QVERIFY(create.bytes.endsWith(connectionRequest().body));
        // After the create, reads still work (the idle read connection was kept or replaced).
        QCOMPARE(waitCall(client.get(QStringLiteral("/fabric/v4/metros"))).kind, Kind::Ok);
    }

    void createWhoseConnectionDropsAfterSendingIsOutcomeUnknown_data()
    {
        QTest::addColumn<int>("how");
        QTest::newRow("close") << 0;
        QTest::newRow("reset") << 1;
        QTest::newRow("half-an-answer") << 2;
    }
    void createWhoseConnectionDropsAfterSendingIsOutcomeUnknown()
    {
        QFETCH(int, how);
        ScriptServer server;
        QVERIFY(server.listen());
        server.script = [how](ScriptServer &s, const ScriptServer::Request &r) {
            if (how == 2)
                s.send(r.connection, "HTTP/1.1 201 Created\r\nContent-Length: 50\r\n\r\n{\"uu");
            if (how == 1)
                s.connections.at(r.connection)->abort();
            else
                s.close(r.connection);
        };
        FabricClient client(configFor(server));
        const FabricResult r = waitCall(client.create(connectionRequest()));
        QCOMPARE(r.kind, Kind::OutcomeUnknown);
        QVERIFY(r.requestSent);
        QCOMPARE(createOutcome(r), CreateOutcome::Unknown);
        QTest::qWait(300);
        QCOMPARE(server.requests.size(), 1);
        QCOMPARE(server.connections.size(), 1);
    }

    void timeoutMidBody()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        server.script = [](ScriptServer &s, const ScriptServer::Request &r) {
            s.send(r.connection, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"data\":");
        };
        FabricHttpTransport transport;
        QElapsedTimer t;
        t.start();
        const Done d = run(transport, getSpec(server.url(), 300));
        QCOMPARE(d.response.error, Error::Timeout);
        QCOMPARE(d.response.status, 200);
        QVERIFY(d.response.body.isEmpty());
        QVERIFY(t.elapsed() >= 250);
        QVERIFY(t.elapsed() < 3000);
        // Through the client: a read times out as Timeout, a create as OutcomeUnknown.
        FabricClient client(configFor(server, 300));
        QCOMPARE(waitCall(client.get(QStringLiteral("/fabric/v4/metros"))).kind, Kind::Timeout);
        const FabricResult c = waitCall(client.create(connectionRequest()));
        QCOMPARE(c.kind, Kind::OutcomeUnknown);
        QCOMPARE(countLines(server.requests, "POST /fabric/v4/connections "), 1);
    }

    void answerFedOneByteAtATime_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::newRow("content-length") << ScriptServer::ok("{\"data\":[1,2,3],\"x\":\"y\"}");
        QTest::newRow("chunked") << QByteArray(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
            "\r\n6;e=1\r\n{\"data\r\n"
            "12\r\n\":[1,2,3],\"x\":\"y\"}\r\n0\r\nT: 1\r\n\r\n");
    }
    void answerFedOneByteAtATime()
    {
        QFETCH(QByteArray, answer);
        ScriptServer server;
        QVERIFY(server.listen());
        server.script = [answer](ScriptServer &s, const ScriptServer::Request &r) {
            QPointer<QTcpSocket> socket = s.connections.at(r.connection);
            for (const char c : answer) {
                if (!socket)
                    return;
                socket->write(&c, 1);
                socket->flush();
                QTest::qWait(1); // each byte its own segment, the client reads between them
            }
        };
        FabricHttpTransport transport;
        const Done d = run(transport, getSpec(server.url()), 20000);
        QCOMPARE(d.response.error, Error::None);
        QCOMPARE(d.response.body, QByteArray("{\"data\":[1,2,3],\"x\":\"y\"}"));
        QCOMPARE(transport.idleConnections(), 1);
    }

    void answerArrivingAtOnce()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        const QByteArray body = "{\"data\":\"" + QByteArray(20000, 'z') + "\"}";
        server.script = [body](ScriptServer &s, const ScriptServer::Request &r) {
            s.send(r.connection, ScriptServer::ok(body)); // one write
        };
        FabricHttpTransport transport;
        const Done d = run(transport, getSpec(server.url()));
        QCOMPARE(d.response.error, Error::None);
        QCOMPARE(d.response.body, body);
    }

    void connectionCloseIsHonoured()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        server.script = [](ScriptServer &s, const ScriptServer::Request &r) {
            s.send(r.connection, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: "
                                 "2\r\n\r\n{}");
        };
        FabricHttpTransport transport;
        QCOMPARE(run(transport, getSpec(server.url())).response.error, Error::None);
        QCOMPARE(transport.idleConnections(), 0);
        QCOMPARE(run(transport, getSpec(server.url())).response.error, Error::None);
        QCOMPARE(server.connections.size(), 2);
        // Without a length the close ends the body, only when announced.
        server.script = [](ScriptServer &s, const ScriptServer::Request &r) {
            s.send(r.connection, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"eof\":1}");
            s.close(r.connection);
        };
        const Done eof = run(transport, getSpec(server.url()));
        QCOMPARE(eof.response.error, Error::None);
        QCOMPARE(eof.response.body, QByteArray("{\"eof\":1}"));
        server.script = [](ScriptServer &s, const ScriptServer::Request &r) {
            s.send(r.connection, "HTTP/1.1 200 OK\r\n\r\n{\"eof\":1}");
            s.close(r.connection);
        };
        QCOMPARE(run(transport, getSpec(server.url())).response.error, Error::Protocol);
    }

    void idlePoolIsBounded()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        FabricHttpTransport transport;
        transport.setIdleTimeoutMs(300);
        // Six at once: six connections, four kept afterwards.
        QObject owner;
        int finished = 0;
        for (int i = 0; i < 6; ++i) {
            FabricHttpRequest *request = transport.request(getSpec(server.url()), &owner);
            connect(request, &FabricHttpRequest::finished, this, [&finished] { ++finished; });
            request->start();
        }
        QTRY_COMPARE(finished, 6);
        QCOMPARE(server.connections.size(), 6);
        QCOMPARE(transport.idleConnections(), FabricHttpTransport::kMaxIdlePerOrigin);
        QTRY_COMPARE(server.openConnections(), FabricHttpTransport::kMaxIdlePerOrigin);
        // Unused for the idle timeout: all closed.
        QTRY_COMPARE_WITH_TIMEOUT(transport.idleConnections(), 0, 3000);
        QTRY_COMPARE(server.openConnections(), 0);
        // The server closing an idle connection: it leaves the pool at once.
        run(transport, getSpec(server.url()));
        QCOMPARE(transport.idleConnections(), 1);
        server.close(int(server.connections.size()) - 1);
        QTRY_COMPARE(transport.idleConnections(), 0);
    }

    void tlsFailureSendsNothing()
    {
        // An https endpoint that does not speak TLS: the handshake fails, the create is not
        // sent (no HTTP request reaches the server) and that is what the result says.
        QTcpServer plain;
        QVERIFY(plain.listen(QHostAddress::LocalHost, 0));
        QByteArray seen;
        connect(&plain, &QTcpServer::newConnection, this, [&] {
            QTcpSocket *s = plain.nextPendingConnection();
            connect(s, &QTcpSocket::readyRead, this, [&seen, s] {
                seen += s->readAll();
                s->write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
                s->disconnectFromHost();
            });
        });
        FabricConfig c;
        c.endpoint = QUrl(QStringLiteral("https://127.0.0.1:%1").arg(plain.serverPort()));
        c.staticToken = QStringLiteral("static-token-for-transport-tests");
        c.timeoutMs = 3000;
        FabricClient client(c);
        const FabricResult r = waitCall(client.create(connectionRequest()));
        QCOMPARE(r.kind, Kind::NetworkError);
        QVERIFY(!r.requestSent);
        QVERIFY(!seen.contains("POST"));
        QVERIFY(!seen.contains("static-token"));
    }

    void controlCharactersInHeadersAreNeverSent()
    {
        ScriptServer server;
        QVERIFY(server.listen());
        FabricHttpTransport transport;
        FabricHttpRequestSpec spec = getSpec(server.url());
        spec.headers.append(
            qMakePair(QByteArray("Authorization"), QByteArray("Bearer x\r\nX-Injected: 1")));
        const Done d = run(transport, spec);
        QCOMPARE(d.response.error, Error::Other);
        QVERIFY(!d.bytesLeft);
        QTest::qWait(50);
        QCOMPARE(server.requests.size(), 0);
    }
};

QTEST_MAIN(TestFabricHttpTransport)
#include "tst_fabrichttptransport.moc"
