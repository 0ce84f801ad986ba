// The loopback Streamable HTTP transport: bearer token, Host/Origin, body limit, the 2025
// session rules, the 2026-07-28 standard headers, and the id matching of HttpChannel.
#include "HttpTransportFixture.h"
#include "TestEnvironment.h"

class TestHttpTransport : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings(
            {QStringLiteral("HTTP: refused a request with a foreign Host or Origin$"),
             QStringLiteral("HTTP: aborted a request body that arrived too slowly$"),
             QStringLiteral("HTTP: request body over the limit, refused$")});
    }

    void tokenFile();
    void authorizationHeader();
    void parseAddress();
    void bearerRequired();
    void hostAndOriginValidated();
    void bodyLimit();
    void strictJson();
    void sessionRules();
    void sessionLimitEvictsLeastRecentlyUsed();
    void closedConnectionCancels();
    void modernHeaders();
    void modernRequestsShareOneSession();
    void limitsBeforeBytes();
    void connectionCapEvictsIdle();
    void tokenFileNoFollow();
};

void TestHttpTransport::tokenFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("sub/fabric-broker-http.token");
    QString error;
    const QByteArray a = HttpToken::loadOrCreate(path, &error);
    QVERIFY2(!a.isEmpty(), qPrintable(error));
    QCOMPARE(a.size(), 43);
    struct stat st = {};
    QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0600u);
    QCOMPARE(HttpToken::loadOrCreate(path, &error), a); // reused across runs
    const QByteArray b = HttpToken::rotate(path, &error);
    QVERIFY(!b.isEmpty());
    QVERIFY(b != a);
    QCOMPARE(HttpToken::loadOrCreate(path, &error), b);
    QVERIFY(HttpToken::generate() != HttpToken::generate());
    // A file others can read is not trusted (the token may have leaked).
    QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                            QFileDevice::ReadGroup));
    QVERIFY(HttpToken::loadOrCreate(path, &error).isEmpty());
    QVERIFY(error.contains("0600"));
}

void TestHttpTransport::authorizationHeader()
{
    const QByteArray t = HttpToken::generate();
    QVERIFY(HttpToken::authorizationMatches(t, "Bearer " + t));
    QVERIFY(HttpToken::authorizationMatches(t, "bearer  " + t + " "));
    QVERIFY(!HttpToken::authorizationMatches(t, "Bearer " + t.left(42)));
    QVERIFY(!HttpToken::authorizationMatches(t, "Bearer " + t + "x"));
    QVERIFY(!HttpToken::authorizationMatches(t, "Basic " + t));
    QVERIFY(!HttpToken::authorizationMatches(t, t));
    QVERIFY(!HttpToken::authorizationMatches(t, {}));
    QVERIFY(!HttpToken::authorizationMatches({}, "Bearer "));
}

void TestHttpTransport::parseAddress()
{
    QHostAddress a;
    quint16 p = 1;
    QString error;
    QVERIFY(HttpAddress::parse("127.0.0.1:0", &a, &p, &error));
    QCOMPARE(a, QHostAddress(QHostAddress::LocalHost));
    QCOMPARE(p, 0);
    QVERIFY(HttpAddress::parse("[::1]:8080", &a, &p, &error));
    QCOMPARE(a, QHostAddress(QHostAddress::LocalHostIPv6));
    QCOMPARE(p, 8080);
    QVERIFY(HttpAddress::parse("localhost:9", &a, &p, &error));
    QCOMPARE(a, QHostAddress(QHostAddress::LocalHost));
    for (const char *bad : {"0.0.0.0:80", "10.1.2.3:80", "[::]:80", "example.com:80", "127.0.0.1",
                            "127.0.0.1:70000", "127.0.0.1:x", ""}) {
        error.clear();
        QVERIFY2(!HttpAddress::parse(bad, &a, &p, &error), bad);
        QVERIFY(!error.isEmpty());
    }
}

void TestHttpTransport::bearerRequired()
{
    Fixture f;
    auto h = f.headers();
    h.removeAt(1);
    Reply r = exchange(f.http->port(), "POST", rpc(1, "ping"), h);
    QCOMPARE(r.status, 401);
    QVERIFY(r.headers.value("www-authenticate").startsWith("Bearer"));
    QVERIFY(!r.body.contains(f.token));
    h.append(qMakePair(QByteArray("Authorization"), "Bearer " + HttpToken::generate()));
    QCOMPARE(exchange(f.http->port(), "POST", rpc(1, "ping"), h).status, 401);
    // Every method, not only POST.
    h.removeLast();
    QCOMPARE(exchange(f.http->port(), "DELETE", {}, h).status, 401);
    QCOMPARE(exchange(f.http->port(), "GET", {}, h).status, 401);
}

void TestHttpTransport::hostAndOriginValidated()
{
    Fixture f;
    const QByteArray port = QByteArray::number(f.http->port());
    const auto with = [&](const QByteArray &host, const QByteArray &origin) {
        auto h = f.headers();
        h[0].second = host;
        if (!origin.isEmpty())
            h.append(qMakePair(QByteArray("Origin"), origin));
        return exchange(f.http->port(), "POST",
                        rpc(1, "initialize", QJsonObject{{"protocolVersion", "2025-11-25"}}), h);
    };
    // DNS rebinding: a foreign Host name, or the right name with another port.
    QCOMPARE(with("evil.example:" + port, {}).status, 403);
    QCOMPARE(with("127.0.0.1:1", {}).status, 403);
    QCOMPARE(with("127.0.0.1:" + port, "http://evil.example").status, 403);
    QCOMPARE(with("127.0.0.1:" + port, "null").status, 403);
    QCOMPARE(with("127.0.0.1:" + port, "https://127.0.0.1:" + port).status, 403);
    const Reply ok = with("localhost:" + port, "http://127.0.0.1:" + port);
    QCOMPARE(ok.status, 200);
    QCOMPARE(with("[::1]:" + port, {}).status, 200);
    // No CORS grants, ever.
    for (const QByteArray &name : ok.headers.keys())
        QVERIFY2(!name.startsWith("access-control-"), name.constData());
}

void TestHttpTransport::bodyLimit()
{
    HttpServerOptions options;
    options.maxBodyBytes = 1024;
    Fixture f(options);
    // Just over the limit: refused after parsing.
    const QByteArray padded = rpc(1, "ping", QJsonObject{{"pad", QString(2000, u'x')}});
    Reply r = f.post(padded);
    QCOMPARE(r.status, 413);
    // Far over it: cut off while the bytes arrive, and the connection is closed.
    bool closed = false;
    r = exchange(f.http->port(), "POST",
                 rpc(1, "ping", QJsonObject{{"pad", QString(512 * 1024, u'x')}}), f.headers(),
                 &closed);
    QCOMPARE(r.status, 413);
    QVERIFY(closed);
    // The server still serves.
    QVERIFY(!f.initialize().isEmpty());
}

void TestHttpTransport::strictJson()
{
    Fixture f;
    Reply r = f.post("{\"jsonrpc\":\"2.0\",\"id\":1,");
    QCOMPARE(r.status, 400);
    QCOMPARE(r.json().value("error").toObject().value("code").toInt(), -32700);
    r = f.post("[]");
    QCOMPARE(r.status, 400);
    QCOMPARE(r.json().value("error").toObject().value("code").toInt(), -32600);
    r = f.post(R"({"jsonrpc":"1.0","id":1,"method":"ping"})");
    QCOMPARE(r.status, 400);
    QCOMPARE(r.json().value("id").toInt(), 1);
    r = f.post(R"({"jsonrpc":"2.0","id":{},"method":"ping"})");
    QCOMPARE(r.status, 400);
    auto h = f.headers();
    h[2].second = "text/plain";
    QCOMPARE(exchange(f.http->port(), "POST", rpc(1, "ping"), h).status, 415);
    h = f.headers();
    h[3].second = "text/html";
    QCOMPARE(exchange(f.http->port(), "POST", rpc(1, "ping"), h).status, 406);
}

void TestHttpTransport::sessionRules()
{
    Fixture f;
    const QByteArray sid = f.initialize();
    QCOMPARE(sid.size(), 32);
    QCOMPARE(f.http->sessionCount(), 1);
    QCOMPARE(f.server->sessions().value(0).transport, QString("http"));
    QCOMPARE(
        f.post(rpc(QJsonValue(QJsonValue::Undefined), "notifications/initialized"), sid).status,
        202);
    // Without the header: 400; an unknown one: 404.
    Reply r = f.post(rpc(2, "tools/list"));
    QCOMPARE(r.status, 400);
    QCOMPARE(f.post(rpc(2, "tools/list"), "0123456789abcdef0123456789abcdef").status, 404);
    r = f.post(rpc("list-1", "tools/list"), sid);
    QCOMPARE(r.status, 200);
    QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
    QCOMPARE(r.headers.value("mcp-session-id"), sid);
    QCOMPARE(r.json().value("id").toString(), QString("list-1")); // the client's id, restored
    QCOMPARE(r.json().value("result").toObject().value("tools").toArray().size(), 2);
    // A client that accepts JSON only gets its tools/call as JSON (tst_httpstreams: the stream).
    auto jsonOnly = f.headers(sid);
    jsonOnly[3].second = "application/json";
    r = exchange(
        f.http->port(), "POST",
        rpc(3, "tools/call", QJsonObject{{"name", "echo"}, {"arguments", QJsonObject{{"a", 1}}}}),
        jsonOnly);
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json().value("id").toInt(), 3);
    QCOMPARE(at(r.json(), {"result", "structuredContent", "args", "a"}).toInt(), 1);
    // An unsupported MCP-Protocol-Version header.
    auto h = f.headers(sid);
    h.append(qMakePair(QByteArray("MCP-Protocol-Version"), QByteArray("1999-01-01")));
    QCOMPARE(exchange(f.http->port(), "POST", rpc(4, "ping"), h).status, 400);
    // GET is the event stream (tst_httpstreams): a client that does not accept it gets 406;
    // other methods 405.
    r = exchange(f.http->port(), "GET", {}, jsonOnly);
    QCOMPARE(r.status, 406);
    r = exchange(f.http->port(), "PUT", {}, f.headers(sid));
    QCOMPARE(r.status, 405);
    QVERIFY(r.headers.value("allow").contains("GET, POST"));
    // DELETE ends it.
    QCOMPARE(exchange(f.http->port(), "DELETE", {}, f.headers(sid)).status, 200);
    QCOMPARE(f.http->sessionCount(), 0);
    QCOMPARE(f.post(rpc(5, "ping"), sid).status, 404);
    QCOMPARE(exchange(f.http->port(), "DELETE", {}, f.headers(sid)).status, 404);
    QTRY_COMPARE(f.server->sessionCount(), 0);
}

void TestHttpTransport::sessionLimitEvictsLeastRecentlyUsed()
{
    HttpServerOptions options;
    options.maxSessions = 2;
    Fixture f(options);
    const QByteArray a = f.initialize();
    QTest::qWait(5);
    const QByteArray b = f.initialize();
    QTest::qWait(5);
    QCOMPARE(f.post(rpc(1, "ping"), a).status, 200); // a is now the more recent
    QTest::qWait(5);
    const QByteArray c = f.initialize();
    QVERIFY(!c.isEmpty());
    QCOMPARE(f.http->sessionCount(), 2);
    QCOMPARE(f.post(rpc(2, "ping"), b).status, 404);
    QCOMPARE(f.post(rpc(2, "ping"), a).status, 200);
    QCOMPARE(f.post(rpc(2, "ping"), c).status, 200);
}

void TestHttpTransport::closedConnectionCancels()
{
    Fixture f;
    const QByteArray sid = f.initialize();
    QVERIFY(!sid.isEmpty());
    {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, f.http->port());
        QVERIFY(socket.waitForConnected(5000));
        const QByteArray body = rpc(7, "tools/call", QJsonObject{{"name", "slow"}});
        // A JSON response (an event stream outlives its connection: tst_httpstreams).
        auto h = f.headers(sid);
        h[3].second = "application/json";
        QByteArray out = "POST /mcp HTTP/1.1\r\n";
        for (const auto &[k, v] : h)
            out += k + ": " + v + "\r\n";
        out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
        socket.write(out);
        QTRY_VERIFY(f.slow);
        socket.abort();
    }
    QTRY_COMPARE(f.cancelled.size(), 1);
    // The session lives on.
    QCOMPARE(f.post(rpc(8, "ping"), sid).status, 200);
}

void TestHttpTransport::modernHeaders()
{
    Fixture f;
    const auto modern = [&](const QByteArray &body,
                            const QList<QPair<QByteArray, QByteArray>> &extra) {
        auto h = f.headers();
        h.append(extra);
        return exchange(f.http->port(), "POST", body, h);
    };
    const QByteArray ping = rpc(1, "ping", modernMeta());
    // Missing MCP-Protocol-Version, missing Mcp-Method, a disagreeing one.
    Reply r = modern(ping, {{"Mcp-Method", "ping"}});
    QCOMPARE(r.status, 400);
    QCOMPARE(r.errorCode(), -32020);
    QCOMPARE(r.json().value("id").toInt(), 1);
    r = modern(ping, {{"MCP-Protocol-Version", "2026-07-28"}});
    QCOMPARE(r.errorCode(), -32020);
    r = modern(ping, {{"MCP-Protocol-Version", "2025-11-25"}, {"Mcp-Method", "ping"}});
    QCOMPARE(r.errorCode(), -32020);
    r = modern(ping, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}});
    QCOMPARE(r.errorCode(), -32020);
    // Mcp-Name: required for tools/call, plain or base64-sentinel, must agree.
    QJsonObject params = modernMeta();
    params.insert("name", "echo");
    const QByteArray call = rpc(2, "tools/call", params);
    const QList<QPair<QByteArray, QByteArray>> std{{"MCP-Protocol-Version", "2026-07-28"},
                                                   {"Mcp-Method", "tools/call"}};
    r = modern(call, std);
    QCOMPARE(r.status, 400);
    QCOMPARE(r.errorCode(), -32020);
    r = modern(call, std + QList<QPair<QByteArray, QByteArray>>{{"Mcp-Name", "other"}});
    QCOMPARE(r.errorCode(), -32020);
    r = modern(call, std + QList<QPair<QByteArray, QByteArray>>{{"Mcp-Name", "=?base64?!!?="}});
    QCOMPARE(r.errorCode(), -32020);
    r = modern(call, std + QList<QPair<QByteArray, QByteArray>>{
                               {"Mcp-Name", "=?base64?" + QByteArray("echo").toBase64() + "?="}});
    QVERIFY2(r.status == 200, r.body.constData());
    // A modern header without the envelope.
    r = modern(rpc(3, "ping"), {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "ping"}});
    QCOMPARE(r.status, 400);
    QCOMPARE(r.errorCode(), -32602);
    // Batches may not carry the envelope.
    r = f.post("[" + ping + "]");
    QCOMPARE(r.status, 400);
    // A well-formed modern request needs no session and gets none.
    r = modern(rpc(4, "tools/list", modernMeta()),
               {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}});
    QCOMPARE(r.status, 200);
    QVERIFY(!r.headers.contains("mcp-session-id"));
    QCOMPARE(r.json().value("id").toInt(), 4);
    QCOMPARE(at(r.json(), {"result", "resultType"}).toString(), QString("complete"));
    QCOMPARE(f.http->sessionCount(), 0);
    // Entry-gate errors carry their HTTP status, as the SDK maps them: a removed method 404,
    // an incomplete envelope 400 (-32602), an unsupported version 400 (-32022).
    r = modern(ping, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "ping"}});
    QCOMPARE(r.status, 404);
    QCOMPARE(r.errorCode(), -32601);
    QJsonObject incomplete{
        {"_meta", QJsonObject{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}};
    r = modern(rpc(5, "tools/list", incomplete),
               {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}});
    QCOMPARE(r.status, 400);
    QCOMPARE(r.errorCode(), -32602);
    QJsonObject future = modernMeta();
    QJsonObject meta = future.value("_meta").toObject();
    meta.insert("io.modelcontextprotocol/protocolVersion", "2099-01-01");
    future.insert("_meta", meta);
    r = modern(rpc(6, "tools/list", future),
               {{"MCP-Protocol-Version", "2099-01-01"}, {"Mcp-Method", "tools/list"}});
    QCOMPARE(r.status, 400);
    QCOMPARE(r.errorCode(), -32022);
    // A tool's own error stays in-band.
    QJsonObject unknown = modernMeta();
    unknown.insert("name", "no_such_tool");
    r = modern(rpc(7, "tools/call", unknown), {{"MCP-Protocol-Version", "2026-07-28"},
                                               {"Mcp-Method", "tools/call"},
                                               {"Mcp-Name", "no_such_tool"}});
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json().value("id").toInt(), 7);
}

void TestHttpTransport::modernRequestsShareOneSession()
{
    Fixture f;
    const QList<QPair<QByteArray, QByteArray>> std{{"MCP-Protocol-Version", "2026-07-28"},
                                                   {"Mcp-Method", "tools/list"}};
    auto h = f.headers();
    h.append(std);
    for (int i = 0; i < 3; ++i) {
        // The same id from "different clients": each answer carries its own id back.
        const Reply r = exchange(f.http->port(), "POST", rpc(0, "tools/list", modernMeta()), h);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.json().value("id").toInt(), 0);
    }
    QCOMPARE(f.server->sessionCount(), 1);
}

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

void TestHttpTransport::limitsBeforeBytes()
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

void TestHttpTransport::connectionCapEvictsIdle()
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

void TestHttpTransport::tokenFileNoFollow()
{
    QTemporaryDir dir;
    const QString target = dir.filePath("elsewhere");
    QFile file(target);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(43, 'A') + '\n');
    file.close();
    QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    const QString link = dir.filePath("fabric-broker-http.token");
    QVERIFY(QFile::link(target, link));
    QString error;
    QVERIFY(HttpToken::loadOrCreate(link, &error).isEmpty()); // never read through a symlink
    QVERIFY(error.contains("private file"));
    // A rotation replaces the link itself, never writes through it.
    QVERIFY(!HttpToken::rotate(link, &error).isEmpty());
    QVERIFY(!QFileInfo(link).isSymLink());
    QFile original(target);
    QVERIFY(original.open(QIODevice::ReadOnly));
    QCOMPARE(original.readAll().trimmed(), QByteArray(43, 'A'));
}
QTEST_GUILESS_MAIN(TestHttpTransport)
#include "tst_httptransport.moc"
