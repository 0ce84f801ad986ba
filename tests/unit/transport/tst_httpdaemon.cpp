// HttpDaemon's limits, applied before bytes are buffered, over real TCP behind an HttpServer:
// the header and body deadlines, a Content-Length over the limit and a foreign Host refused before
// the body, a chunked body cut off at the limit, and the connection cap evicting the oldest idle
// connection with a 503.
#include "HttpTransportFixture.h"
#include "TestEnvironment.h"

class TestHttpDaemon : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings(
            {QStringLiteral("HTTP: refused a request with a foreign Host or Origin$"),
             QStringLiteral("HTTP: aborted a request body that arrived too slowly$"),
             QStringLiteral("HTTP: request body over the limit, refused$")});
    }

    void limitsBeforeBytes();
    void connectionCapEvictsIdle();
};

namespace {

// Reads until the peer closes (or 10 s): the raw bytes the server sent.
QByteArray readUntilClosed(QTcpSocket &socket)
{
    // A socket that the server reset is closed as a device too: read only while it is open.
    QByteArray in;
    const auto drain = [&] {
        if (socket.isOpen())
            in += socket.readAll();
    };
    (void)QTest::qWaitFor(
        [&] {
            drain();
            return socket.state() != QAbstractSocket::ConnectedState;
        },
        10000);
    drain();
    return in;
}

QByteArray headerBlock(const Fixture &f, const QByteArray &extra)
{
    QByteArray out = "POST /mcp HTTP/1.1\r\n";
    for (const auto &[k, v] : f.headers())
        out += k + ": " + v + "\r\n";
    return out + extra + "\r\n";
}

} // namespace

void TestHttpDaemon::limitsBeforeBytes()
{
    HttpServerOptions options;
    options.limits.headerTimeoutMs = 300;
    options.limits.bodyTimeoutMs = 300;
    Fixture f(options);
    {
        // Headers that never finish: 408 with a JSON-RPC body, then closed.
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, f.http->port());
        QVERIFY(socket.waitForConnected(5000));
        socket.write("POST /mcp HTTP/1.1\r\nHost: ");
        const QByteArray in = readUntilClosed(socket);
        QVERIFY2(in.startsWith("HTTP/1.1 408 "), in.constData());
        QVERIFY(in.contains("\"jsonrpc\":\"2.0\""));
    }
    {
        // A Content-Length over the limit is refused on the headers, no byte of the body sent.
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, f.http->port());
        QVERIFY(socket.waitForConnected(5000));
        socket.write(headerBlock(f, "Content-Length: 5000000\r\n"));
        const QByteArray in = readUntilClosed(socket);
        QVERIFY2(in.startsWith("HTTP/1.1 413 "), in.constData());
        QVERIFY(in.contains("-32600"));
    }
    {
        // A foreign Host is refused before the body (which is never sent).
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, f.http->port());
        QVERIFY(socket.waitForConnected(5000));
        socket.write("POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 100\r\n\r\n");
        QVERIFY(readUntilClosed(socket).startsWith("HTTP/1.1 403 "));
    }
    {
        // A body that stops arriving is aborted.
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, f.http->port());
        QVERIFY(socket.waitForConnected(5000));
        socket.write(headerBlock(f, "Content-Length: 100\r\n") + "{\"jsonrpc\"");
        QVERIFY(readUntilClosed(socket).startsWith("HTTP/1.1 408 "));
    }
    {
        // A chunked body that grows over the limit is cut off: the server closes the connection
        // (its 413 may be lost to the reset of a connection the client still writes to).
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, f.http->port());
        QVERIFY(socket.waitForConnected(5000));
        socket.write(headerBlock(f, "Transfer-Encoding: chunked\r\n"));
        const QByteArray chunk(64 * 1024, 'x');
        for (int i = 0; i < 80 && socket.state() == QAbstractSocket::ConnectedState; ++i) {
            socket.write(QByteArray::number(chunk.size(), 16) + "\r\n" + chunk + "\r\n");
            socket.waitForBytesWritten(1000);
            QTest::qWait(1);
        }
        (void)readUntilClosed(socket);
        QCOMPARE(socket.state(), QAbstractSocket::UnconnectedState);
    }
    // The server still serves.
    QVERIFY(!f.initialize().isEmpty());
}

void TestHttpDaemon::connectionCapEvictsIdle()
{
    HttpServerOptions options;
    options.limits.maxConnections = 4;
    Fixture f(options);
    std::vector<std::unique_ptr<QTcpSocket>> idle;
    for (int i = 0; i < 4; ++i) {
        idle.push_back(std::make_unique<QTcpSocket>());
        idle.back()->connectToHost(QHostAddress::LocalHost, f.http->port());
        QVERIFY(idle.back()->waitForConnected(5000));
        QTest::qWait(20); // the oldest is the first
    }
    // A fifth connection with a request is served: the oldest idle one made room with a 503.
    QVERIFY(!f.initialize().isEmpty());
    const QByteArray evicted = readUntilClosed(*idle.front());
    QVERIFY2(evicted.startsWith("HTTP/1.1 503 "), evicted.constData());
    QVERIFY(evicted.contains("too many connections"));
}
QTEST_GUILESS_MAIN(TestHttpDaemon)
#include "tst_httpdaemon.moc"
