// HttpChannel's event streams over real HTTP (the Streamable HTTP transport; SseStream alone:
// tst_ssestream): a tools/call answered as text/event-stream (priming event,
// progress, an elicitation request answered by a POST, the response), its resumption with
// Last-Event-ID after the connection dropped (the missed events once and only once), and the
// session's GET stream (list_changed, one at a time).
#include "HttpStreamsFixture.h"
#include "TestEnvironment.h"

class TestHttpChannel : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void postAnsweredAsStream();
    void jsonWhenNotAccepted();
    void resumeReplaysMissedEventsOnce();
    void getStream();
    void modernListen();
    void slowReaderLosesItsStream();
};

void TestHttpChannel::postAnsweredAsStream()
{
    Fixture f;
    const QByteArray sid = f.initialize();
    QVERIFY(!sid.isEmpty());
    auto post = f.open("POST", f.waitCall(), f.headers(sid));
    QVERIFY(post->waitEvents(1));
    QCOMPARE(post->status, 200);
    QCOMPARE(post->headers.value("content-type"), QByteArray("text/event-stream"));
    QCOMPARE(post->headers.value("mcp-session-id"), sid);
    QList<Event> events = post->events();
    QCOMPARE(events[0].retry, 1000); // the priming event: an id, retry, no data
    QVERIFY(!events[0].id.isEmpty());
    QVERIFY(events[0].data.isEmpty());
    QTRY_VERIFY(f.call);
    // Progress while the call waits.
    f.call->progress(1, 10, "waiting");
    QVERIFY(post->waitEvents(2));
    QCOMPARE(post->events()[1].json().value("method").toString(),
             QString("notifications/progress"));
    QCOMPARE(at(post->events()[1].json(), {"params", "progressToken"}).toString(), QString("tok"));
    // An elicitation on the same stream; the client answers with a POST.
    QJsonObject answer;
    f.call->sendClientRequest(
        "elicitation/create",
        QJsonObject{
            {"message", "ok?"},
            {"requestedSchema", QJsonObject{{"type", "object"}, {"properties", QJsonObject()}}}},
        10000, [&](const ClientReply &r) { answer = r.result; });
    QVERIFY(post->waitEvents(3));
    const QJsonObject request = post->events()[2].json();
    QCOMPARE(request.value("method").toString(), QString("elicitation/create"));
    auto reply = f.open(
        "POST",
        QJsonDocument(
            QJsonObject{{"jsonrpc", "2.0"},
                        {"id", request.value("id")},
                        {"result", QJsonObject{{"action", "accept"}, {"content", QJsonObject()}}}})
            .toJson(QJsonDocument::Compact),
        f.headers(sid));
    QVERIFY(reply->waitEnd());
    QCOMPARE(reply->status, 202);
    QTRY_COMPARE(answer.value("action").toString(), QString("accept"));
    // The response is the last event, then the stream ends.
    f.call->finishStructured(QJsonObject{{"done", true}}, "done");
    QVERIFY(post->waitEnd());
    events = post->events();
    QCOMPARE(events.size(), 4);
    QCOMPARE(events[3].json().value("id").toInt(), 7); // the client's id
    QCOMPARE(at(events[3].json(), {"result", "structuredContent", "done"}).toBool(), true);
    QSet<QByteArray> ids;
    for (const Event &e : events)
        ids.insert(e.id);
    QCOMPARE(ids.size(), 4); // every event has its own id
}

void TestHttpChannel::jsonWhenNotAccepted()
{
    Fixture f;
    const QByteArray sid = f.initialize();
    // A client that accepts JSON only gets JSON, and its call is cancelled when it leaves.
    auto post = f.open("POST", f.waitCall(), f.headers(sid, "application/json"));
    QTRY_VERIFY(f.call);
    f.call->progress(1, 10); // nowhere to go: dropped
    post->abort();
    QTRY_COMPARE(f.cancelled.size(), 1);
    // tools/list never streams.
    auto list = f.open("POST", rpc(2, "tools/list"), f.headers(sid));
    QVERIFY(list->waitEnd());
    QCOMPARE(list->headers.value("content-type"), QByteArray("application/json"));
}

void TestHttpChannel::resumeReplaysMissedEventsOnce()
{
    Fixture f;
    const QByteArray sid = f.initialize();
    auto post = f.open("POST", f.waitCall(), f.headers(sid));
    QTRY_VERIFY(f.call);
    f.call->progress(1, 10);
    QVERIFY(post->waitEvents(2));
    const QByteArray seen = post->events()[1].id;
    post->abort(); // the connection drops; the call goes on
    QTest::qWait(100);
    f.call->progress(2, 10);
    f.call->progress(3, 10);
    QVERIFY(f.cancelled.isEmpty());
    auto h = f.headers(sid, "text/event-stream");
    h.append(qMakePair(QByteArray("Last-Event-ID"), seen));
    auto get = f.open("GET", {}, h);
    QVERIFY(get->waitEvents(2));
    QCOMPARE(get->status, 200);
    QCOMPARE(get->headers.value("content-type"), QByteArray("text/event-stream"));
    QList<Event> events = get->events();
    QCOMPARE(at(events[0].json(), {"params", "progress"}).toInt(), 2);
    QCOMPARE(at(events[1].json(), {"params", "progress"}).toInt(), 3);
    // Live events follow on the resumed stream, then the response ends it.
    f.call->progress(4, 10);
    f.call->finishStructured(QJsonObject{{"done", true}}, "done");
    QVERIFY(get->waitEnd());
    events = get->events();
    QCOMPARE(events.size(), 4); // 2, 3, 4, the response: none twice
    QCOMPARE(at(events[2].json(), {"params", "progress"}).toInt(), 4);
    QCOMPARE(events[3].json().value("id").toInt(), 7);
    // A second resumption from the same point replays the same events, again once each.
    auto again = f.open("GET", {}, h);
    QVERIFY(again->waitEnd());
    QCOMPARE(again->events().size(), 4);
    QCOMPARE(again->events()[3].json().value("id").toInt(), 7);
    // An unknown stream, or another session's id: refused.
    h.last().second = "p999.1";
    auto unknown = f.open("GET", {}, h);
    QVERIFY(unknown->waitEnd());
    QCOMPARE(unknown->status, 409);
    QVERIFY(f.cancelled.isEmpty());
}

void TestHttpChannel::getStream()
{
    Fixture f;
    const QByteArray sid = f.initialize();
    auto json = f.open("GET", {}, f.headers(sid, "application/json"));
    QVERIFY(json->waitEnd());
    QCOMPARE(json->status, 406);
    auto noSession = f.open("GET", {}, f.headers({}, "text/event-stream"));
    QVERIFY(noSession->waitEnd());
    QCOMPARE(noSession->status, 400);
    auto get = f.open("GET", {}, f.headers(sid, "text/event-stream"));
    QVERIFY(get->waitEvents(1));
    QCOMPARE(get->status, 200);
    QCOMPARE(get->events()[0].retry, 1000);
    // One GET stream per session at a time.
    auto second = f.open("GET", {}, f.headers(sid, "text/event-stream"));
    QVERIFY(second->waitEnd());
    QCOMPARE(second->status, 409);
    // A server-initiated notification goes to it.
    f.registry.setServedToolsets({"read", "mutate"});
    QVERIFY(get->waitEvents(2));
    QCOMPARE(get->events()[1].json().value("method").toString(),
             QString("notifications/tools/list_changed"));
    // DELETE ends the session and its stream.
    auto del = f.open("DELETE", {}, f.headers(sid));
    QVERIFY(del->waitEnd());
    QVERIFY(get->waitEnd());
}

void TestHttpChannel::modernListen()
{
    Fixture f;
    QJsonObject params{
        {"notifications", QJsonObject{{"toolsListChanged", true}, {"promptsListChanged", true}}},
        {"_meta", QJsonObject{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                              {"io.modelcontextprotocol/clientCapabilities", QJsonObject()}}}};
    const QByteArray body = rpc("listen:1", "subscriptions/listen", params);
    auto h = f.headers();
    h[4].second = "2026-07-28";
    h.append(qMakePair(QByteArray("Mcp-Method"), QByteArray("subscriptions/listen")));
    auto listen = f.open("POST", body, h);
    QVERIFY(listen->waitEvents(1));
    QCOMPARE(listen->status, 200);
    QCOMPARE(listen->headers.value("content-type"), QByteArray("text/event-stream"));
    QCOMPARE(listen->headers.value("mcp-session-id"), QByteArray()); // stateless
    // The acknowledgement first: only what this server has (tools), with the client's id.
    QJsonObject ack = listen->events()[0].json();
    QCOMPARE(ack.value("method").toString(), QString("notifications/subscriptions/acknowledged"));
    QCOMPARE(at(ack, {"params", "_meta", "io.modelcontextprotocol/subscriptionId"}).toString(),
             QString("listen:1"));
    QCOMPARE(at(ack, {"params", "notifications"}).toObject(),
             QJsonObject({{"toolsListChanged", true}}));
    // A change of the tool list reaches it.
    f.registry.setServedToolsets({"read", "mutate"});
    QVERIFY(listen->waitEvents(2));
    const QJsonObject changed = listen->events()[1].json();
    QCOMPARE(changed.value("method").toString(), QString("notifications/tools/list_changed"));
    QCOMPARE(at(changed, {"params", "_meta", "io.modelcontextprotocol/subscriptionId"}).toString(),
             QString("listen:1"));
    QVERIFY(!listen->ended);
    // Closing the stream ends the subscription: the same id can listen again.
    listen->abort();
    QTest::qWait(200);
    auto again = f.open("POST", body, h);
    QVERIFY(again->waitEvents(1));
    QCOMPARE(again->events()[0].json().value("method").toString(),
             QString("notifications/subscriptions/acknowledged"));
    // Without text/event-stream in Accept: 406.
    h[3].second = "application/json";
    auto json = f.open("POST", body, h);
    QVERIFY(json->waitEnd());
    QCOMPARE(json->status, 406);
}

void TestHttpChannel::slowReaderLosesItsStream()
{
    HttpServerOptions options;
    options.streams.maxBacklogBytes = 256 * 1024;
    Fixture f(options);
    const QByteArray sid = f.initialize();
    auto post = f.open("POST", f.waitCall(), f.headers(sid));
    QTRY_VERIFY(f.call);
    // The client reads nothing: the socket buffers fill, then the stream's backlog, whose cap
    // ends the stream (the connection is closed) instead of growing the server's memory.
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression("closed an event stream: the client read "
                                                          "the event stream too slowly"));
    const QString pad(400, QChar(u'x'));
    for (int i = 1; i <= 40000 && f.call; ++i) {
        f.call->progress(i, -1, pad);
        if (i % 500 == 0)
            QCoreApplication::processEvents(); // MHD writes what the socket takes
    }
    // The client finds its connection closed once it reads what the buffers held.
    QVERIFY(QTest::qWaitFor(
        [&] {
            post->pump();
            return post->closed();
        },
        20000));
    QVERIFY(!post->ended); // no clean end of the chunked body: an error
    // The stream cannot be resumed, and says why.
    auto h = f.headers(sid, "text/event-stream");
    h.append(qMakePair(QByteArray("Last-Event-ID"), post->events().value(0).id));
    auto resume = f.open("GET", {}, h);
    QVERIFY(resume->waitEnd());
    QCOMPARE(resume->status, 409);
    QVERIFY2(resume->body.contains("too slowly"), resume->body.constData());
}

QTEST_GUILESS_MAIN(TestHttpChannel)
#include "tst_httpchannel.moc"
