// HttpServer, the loopback Streamable HTTP transport: the bearer token required, Host/Origin,
// body limit, the 2025 session rules, the 2026-07-28 standard headers, and the id matching of
// HttpChannel. The token file: tst_httptoken; the address: tst_httpaddress; the limits applied
// before bytes are buffered: tst_httpdaemon.
#include "HttpTransportFixture.h"
#include "TestEnvironment.h"

class TestHttpServer : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings(
            {QStringLiteral("HTTP: refused a request with a foreign Host or Origin$"),
             QStringLiteral("HTTP: request body over the limit, refused$")});
    }

    void bearerRequired();
    void hostAndOriginValidated();
    void bodyLimit();
    void strictJson();
    void sessionRules();
    void sessionLimitEvictsLeastRecentlyUsed();
    void closedConnectionCancels();
    void modernHeaders();
    void modernRequestsShareOneSession();
};

void TestHttpServer::bearerRequired()
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

void TestHttpServer::hostAndOriginValidated()
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

void TestHttpServer::bodyLimit()
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

void TestHttpServer::strictJson()
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

void TestHttpServer::sessionRules()
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
    // A client that accepts JSON only gets its tools/call as JSON (tst_httpchannel: the stream).
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
    // GET is the event stream (tst_httpchannel): a client that does not accept it gets 406;
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

void TestHttpServer::sessionLimitEvictsLeastRecentlyUsed()
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

void TestHttpServer::closedConnectionCancels()
{
    Fixture f;
    const QByteArray sid = f.initialize();
    QVERIFY(!sid.isEmpty());
    {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, f.http->port());
        QVERIFY(socket.waitForConnected(5000));
        const QByteArray body = rpc(7, "tools/call", QJsonObject{{"name", "slow"}});
        // A JSON response (an event stream outlives its connection: tst_httpchannel).
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

void TestHttpServer::modernHeaders()
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

void TestHttpServer::modernRequestsShareOneSession()
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

QTEST_GUILESS_MAIN(TestHttpServer)
#include "tst_httpserver.moc"
