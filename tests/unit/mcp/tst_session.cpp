// Protocol tests of one MCP session driven over an in-memory pipe.
#include "TestEnvironment.h"
#include "TestPipe.h"
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"
#include "mcp/Session.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QLoggingCategory>
#include <QPointer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <memory>

using namespace fb::mcp;
using fbtest::TestClient;

namespace {

struct Fixture {
    ToolRegistry registry;
    std::unique_ptr<McpServer> server;
    TestClient client;
    Session *session = nullptr;
    // Tool-side observations.
    int echoCalls = 0;
    int slowStarts = 0;
    QPointer<ToolCall> slow; // the last "slow" call, finished by the test
    QStringList cancelledReasons;
    QList<ClientReply> replies;
    qint64 lastClientRequestId = -1;

    explicit Fixture(ServerOptions options = {})
    {
        options.version = "9.9.9";
        options.instructions = "Use the read tools first.";
        registry.registerTool(
            {"echo", "Echo", "Echoes its arguments", QJsonObject{{"type", "object"}},
             QJsonObject{{"type", "object"}}, QJsonObject{{"readOnlyHint", true}}, "read",
             [this](ToolCall *c) {
                 ++echoCalls;
                 c->finishStructured(QJsonObject{{"args", c->arguments()}}, QString());
             }});
        registry.registerTool({"slow",
                               "Slow",
                               "Finishes when the test says so",
                               QJsonObject{{"type", "object"}},
                               {},
                               {},
                               "read",
                               [this](ToolCall *c) {
                                   ++slowStarts;
                                   slow = c;
                                   QObject::connect(c, &ToolCall::cancelled, c,
                                                    [this](const QString &reason) {
                                                        cancelledReasons.append(reason);
                                                    });
                               }});
        registry.registerTool(
            {"ask",
             "Ask",
             "Elicits",
             QJsonObject{{"type", "object"}},
             {},
             {},
             "read",
             [this](ToolCall *c) {
                 slow = c;
                 const int timeout = c->arguments().value("timeoutMs").toInt(5000);
                 lastClientRequestId = c->sendClientRequest(
                     "elicitation/create",
                     QJsonObject{{"message", "Approve?"},
                                 {"requestedSchema",
                                  QJsonObject{{"type", "object"}, {"properties", QJsonObject()}}}},
                     timeout, [this](const ClientReply &r) { replies.append(r); });
             }});
        registry.registerTool({"create_thing",
                               "Create",
                               "Mutates",
                               QJsonObject{{"type", "object"}},
                               {},
                               {},
                               "mutate",
                               [](ToolCall *c) { c->finishError("no"); }});
        server = std::make_unique<McpServer>(&registry, options);
        session = server->serve({"stdio", &client.serverEnd, &client.serverEnd, false});
    }

    // Sessions end (and run their callbacks) before the members they write to go away.
    ~Fixture() { server.reset(); }

    QJsonObject initialize(const QString &version = "2025-11-25",
                           const QJsonObject &capabilities = {}, bool sendInitialized = true)
    {
        client.request(
            0, "initialize",
            QJsonObject{{"protocolVersion", version},
                        {"capabilities", capabilities},
                        {"clientInfo", QJsonObject{{"name", "test-client"}, {"version", "1.0"}}}});
        const QJsonObject r = client.response(0);
        if (sendInitialized) {
            client.notify("notifications/initialized");
            (void)QTest::qWaitFor([this] { return session->clientInfo().initialized; }, 2000);
        }
        return r;
    }
};

QJsonObject call(const QString &name, const QJsonObject &args = {}, const QJsonValue &token = {})
{
    QJsonObject p{{"name", name}, {"arguments", args}};
    if (!token.isUndefined() && !token.isNull())
        p.insert("_meta", QJsonObject{{"progressToken", token}});
    return p;
}

} // namespace

class TestMcpSession : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void initializeEchoesSupportedVersions_data();
    void initializeEchoesSupportedVersions();
    void initializeResultShape();
    void initializeLogNamesTheSession();
    void requestsBeforeInitialize();
    void serverDiscoverIsAnswered();
    void errorCodes_data();
    void errorCodes();
    void doubleInitialize();
    void idsOfEveryType_data();
    void idsOfEveryType();
    void flatFramesAnswerAsTheDocumentWould_data();
    void flatFramesAnswerAsTheDocumentWould();
    void framingPartialLinesCrlfEmptyLines();
    void invalidUtf8IsParseError();
    void oversizedFrameThenValidFrame();
    void oversizedFrameStreamedInPieces();
    void batchesOnlyAt20250326();
    void batchWithAsyncToolCall();
    void toolsListFromCacheAndGating();
    void preSerializedResultIsTheSameBytes();
    void toolsListChangedOnlyToInitialized();
    void toolsCallResultShape();
    void cancelInSameReadNeverStarts();
    void clientCancelsInFlightCall();
    void clientCancelReportEvenIfCancelled();
    void cancelUnknownOrInitializeIgnored();
    void progressIsMonotonic();
    void progressWithoutTokenSendsNothing();
    void loggingSetLevelAndBroadcast();
    void elicitationResult();
    void elicitationErrorReply();
    void elicitationTimeoutSendsCancelled();
    void elicitationCancelledByServer();
    void elicitationCancelledWhenCallCancelled();
    void elicitationNotSent_data();
    void elicitationNotSent();
    void replyToUnknownIdIgnored();
    void serverPingsClient();
    void endOfInputCancelsEverything();
    void slowReaderIsDropped();
    void duplicateInFlightId();
    void devicesDestroyedFirst();
};

void TestMcpSession::initializeEchoesSupportedVersions_data()
{
    QTest::addColumn<QString>("requested");
    QTest::addColumn<QString>("expected");
    QTest::newRow("2025-11-25") << "2025-11-25"
                                << "2025-11-25";
    QTest::newRow("2025-06-18") << "2025-06-18"
                                << "2025-06-18";
    QTest::newRow("2025-03-26") << "2025-03-26"
                                << "2025-03-26";
    QTest::newRow("2024-11-05") << "2024-11-05"
                                << "2024-11-05";
    QTest::newRow("unknown") << "2099-01-01"
                             << "2025-11-25";
    QTest::newRow("old") << "2024-10-07"
                         << "2025-11-25";
}

void TestMcpSession::initializeEchoesSupportedVersions()
{
    QFETCH(QString, requested);
    QFETCH(QString, expected);
    Fixture f;
    const QJsonObject r = f.initialize(requested);
    QCOMPARE(r.value("result").toObject().value("protocolVersion").toString(), expected);
    QCOMPARE(f.session->clientInfo().protocolVersion, expected);
}

void TestMcpSession::initializeResultShape()
{
    Fixture f;
    QSignalSpy initialized(f.server.get(), &McpServer::sessionInitialized);
    const QJsonObject r = f.initialize("2025-06-18", QJsonObject{{"elicitation", QJsonObject()}});
    QCOMPARE(r.value("jsonrpc").toString(), QString("2.0"));
    const QJsonObject result = r.value("result").toObject();
    const QJsonObject info = result.value("serverInfo").toObject();
    QCOMPARE(info.value("name").toString(), QString("fabric-broker"));
    QCOMPARE(info.value("title").toString(), QString("Fabric Broker"));
    QCOMPARE(info.value("version").toString(), QString("9.9.9"));
    QCOMPARE(result.value("instructions").toString(), QString("Use the read tools first."));
    const QJsonObject caps = result.value("capabilities").toObject();
    QCOMPARE(caps.value("tools").toObject().value("listChanged").toBool(), true);
    QVERIFY(caps.value("logging").isObject());
    QTRY_COMPARE(initialized.count(), 1);
    const ClientInfo ci = f.session->clientInfo();
    QCOMPARE(ci.name, QString("test-client"));
    QCOMPARE(ci.transport, QString("stdio"));
    QVERIFY(ci.initialized);
    QVERIFY(ci.supportsFormElicitation());
    QVERIFY(!f.client.badLine);
}

namespace {
QStringList g_sessionLog;
QtMessageHandler g_previousHandler = nullptr;
void captureSessionLog(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (context.category && QByteArray(context.category) == "fabricbroker.mcp.session")
        g_sessionLog.append(message);
    else if (g_previousHandler)
        g_previousHandler(type, context, message);
}
} // namespace

// The info line names the session's number, not the JSON-RPC id of the initialize request.
void TestMcpSession::initializeLogNamesTheSession()
{
    QLoggingCategory::setFilterRules(QStringLiteral("fabricbroker.mcp.session.info=true"));
    g_sessionLog.clear();
    g_previousHandler = qInstallMessageHandler(captureSessionLog);
    Fixture f;
    f.client.request(
        4242, "initialize",
        QJsonObject{{"protocolVersion", "2025-11-25"},
                    {"capabilities", QJsonObject()},
                    {"clientInfo", QJsonObject{{"name", "log-client"}, {"version", "2.0"}}}});
    const QJsonObject r = f.client.response(4242);
    qInstallMessageHandler(g_previousHandler);
    QLoggingCategory::setFilterRules(QString());
    QVERIFY(r.value("result").isObject());
    const QString expected =
        // The client's name and version stay quoted: they are the client's words (escaped).
        QStringLiteral("session %1 initialize from \"log-client\" \"2.0\"").arg(f.session->id());
    QStringList lines;
    for (const QString &line : std::as_const(g_sessionLog)) {
        if (line.contains(QStringLiteral("initialize from")))
            lines.append(line);
    }
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().startsWith(expected), qPrintable(lines.first()));
    QVERIFY2(!lines.first().contains(QStringLiteral("4242")), qPrintable(lines.first()));
    QVERIFY2(!lines.first().contains(QStringLiteral("QJsonValue")), qPrintable(lines.first()));
}

void TestMcpSession::requestsBeforeInitialize()
{
    Fixture f;
    f.client.request(1, "ping");
    QCOMPARE(f.client.response(1).value("result").toObject(), QJsonObject());
    f.client.request(2, "tools/list");
    QCOMPARE(TestClient::errorCode(f.client.response(2)), -32600);
    f.client.request(3, "tools/call", call("echo"));
    QCOMPARE(TestClient::errorCode(f.client.response(3)), -32600);
    f.client.request(4, "logging/setLevel", QJsonObject{{"level", "debug"}});
    QCOMPARE(TestClient::errorCode(f.client.response(4)), -32600);
    QCOMPARE(f.echoCalls, 0);
    // After initialize (even before notifications/initialized) requests are served.
    f.initialize("2025-11-25", {}, false);
    f.client.request(5, "tools/list");
    QVERIFY(f.client.response(5).contains("result"));
}

void TestMcpSession::serverDiscoverIsAnswered()
{
    // 2026-07-28 specifies server/discover; a 2025 session answers it too (tst_modernera).
    Fixture f;
    f.client.request(1, "server/discover");
    QVERIFY(f.client.response(1).value("result").toObject().contains("supportedVersions"));
    f.initialize();
    f.client.request(2, "server/discover");
    QVERIFY(f.client.response(2).value("result").toObject().contains("supportedVersions"));
}

void TestMcpSession::errorCodes_data()
{
    QTest::addColumn<QByteArray>("frame");
    QTest::addColumn<int>("code");
    QTest::addColumn<QJsonValue>("id"); // expected id of the error response
    const QJsonValue null(QJsonValue::Null);
    QTest::newRow("parse") << QByteArray("{\"jsonrpc\":\"2.0\",") << -32700 << null;
    QTest::newRow("garbage") << QByteArray("hello world") << -32700 << null;
    QTest::newRow("trailing") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} x")
                              << -32700 << null;
    QTest::newRow("scalar") << QByteArray("42") << -32600 << null;
    QTest::newRow("string") << QByteArray("\"ping\"") << -32600 << null;
    QTest::newRow("no jsonrpc") << QByteArray("{\"id\":7,\"method\":\"ping\"}") << -32600
                                << QJsonValue(7);
    QTest::newRow("jsonrpc 1.0") << QByteArray("{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}")
                                 << -32600 << QJsonValue(7);
    QTest::newRow("no method") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7}") << -32600
                               << QJsonValue(7);
    QTest::newRow("method number")
        << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}") << -32600 << QJsonValue(7);
    QTest::newRow("id null") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}")
                             << -32600 << null;
    QTest::newRow("id bool") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}")
                             << -32600 << null;
    QTest::newRow("id object") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}")
                               << -32600 << null;
    QTest::newRow("id array") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}")
                              << -32600 << null;
    QTest::newRow("unknown method")
        << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/list\"}") << -32601
        << QJsonValue(7);
    QTest::newRow("params array")
        << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":[]}")
        << -32602 << QJsonValue(7);
    QTest::newRow("call no name")
        << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{}}")
        << -32602 << QJsonValue(7);
    QTest::newRow("call name number") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
                                                    "\"tools/call\",\"params\":{\"name\":3}}")
                                      << -32602 << QJsonValue(7);
    QTest::newRow("call args array")
        << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
                      "\"name\":\"echo\",\"arguments\":[]}}")
        << -32602 << QJsonValue(7);
    QTest::newRow("unknown tool")
        << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
                      "\"name\":\"nope\"}}")
        << -32602 << QJsonValue(7);
    QTest::newRow("gated tool")
        << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
                      "\"name\":\"create_thing\"}}")
        << -32602 << QJsonValue(7);
    QTest::newRow("bad level")
        << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{"
                      "\"level\":\"verbose\"}}")
        << -32602 << QJsonValue(7);
    QTest::newRow("batch not negotiated") << QByteArray("[{\"jsonrpc\":\"2.0\",\"id\":7,"
                                                        "\"method\":\"ping\"}]")
                                          << -32600 << null;
}

void TestMcpSession::errorCodes()
{
    QFETCH(QByteArray, frame);
    QFETCH(int, code);
    QFETCH(QJsonValue, id);
    Fixture f;
    f.initialize();
    const int before = int(f.client.messages.size());
    f.client.sendRaw(frame + '\n');
    f.client.request("after", "ping"); // the session stays usable
    QVERIFY(f.client.response("after").contains("result"));
    QCOMPARE(f.client.messages.size(), before + 2);
    const QJsonObject err = f.client.messages.at(before).toObject();
    QCOMPARE(TestClient::errorCode(err), code);
    QCOMPARE(err.value("id"), id);
    QVERIFY(!err.value("error").toObject().value("message").toString().isEmpty());
    QCOMPARE(f.echoCalls, 0);
    if (QTest::currentDataTag() == QByteArray("unknown tool"))
        QCOMPARE(err.value("error").toObject().value("message").toString(),
                 QString("Unknown tool: nope"));
    QVERIFY(!f.client.badLine);
}

void TestMcpSession::doubleInitialize()
{
    Fixture f;
    f.initialize();
    f.client.request(9, "initialize", QJsonObject{{"protocolVersion", "2025-06-18"}});
    QCOMPARE(TestClient::errorCode(f.client.response(9)), -32600);
    QCOMPARE(f.session->clientInfo().protocolVersion, QString("2025-11-25"));
    // initialize without a protocolVersion string: invalid params.
    Fixture g;
    g.client.request(1, "initialize", QJsonObject{{"protocolVersion", 20250618}});
    QCOMPARE(TestClient::errorCode(g.client.response(1)), -32602);
}

void TestMcpSession::idsOfEveryType_data()
{
    QTest::addColumn<QByteArray>("idJson");
    QTest::newRow("string") << QByteArray("\"abc\"");
    QTest::newRow("empty string") << QByteArray("\"\"");
    QTest::newRow("unicode string") << QByteArray("\"\\u00e9\\\"q\"");
    QTest::newRow("zero") << QByteArray("0");
    QTest::newRow("integer") << QByteArray("42");
    QTest::newRow("negative") << QByteArray("-7");
    QTest::newRow("large") << QByteArray("9007199254740993");
    QTest::newRow("fractional") << QByteArray("1.5");
}

void TestMcpSession::idsOfEveryType()
{
    QFETCH(QByteArray, idJson);
    Fixture f;
    f.initialize();
    f.client.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"method\":\"ping\"}\n");
    f.client.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":" + idJson +
                     ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}\n");
    QTRY_COMPARE(f.client.lines.size(), 3);
    const QJsonValue expected = QJsonDocument::fromJson("[" + idJson + "]").array().at(0);
    QCOMPARE(f.client.messages.at(1).toObject().value("id"), expected);
    QCOMPARE(f.client.messages.at(2).toObject().value("id"), expected);
    // The id is echoed with its JSON type: textual check on the raw line.
    QVERIFY2(
        f.client.lines.at(1).contains(QByteArray(
            "\"id\":" +
            QJsonDocument(QJsonArray{expected}).toJson(QJsonDocument::Compact).mid(1).chopped(1))),
        f.client.lines.at(1).constData());
}

// A frame in scanFlatRequest's subset skips the JSON document; the same request with
// "params":{} takes the document. Both must be answered with the same bytes, before and after
// initialize, for every method kind (answered, refused, unknown, removed, modern).
void TestMcpSession::flatFramesAnswerAsTheDocumentWould_data()
{
    QTest::addColumn<QByteArray>("flat");
    QTest::addColumn<bool>("initialized");
    const QList<QByteArray> frames = {
        R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
        R"({"method":"ping","jsonrpc":"2.0","id":0})",
        R"( { "id" : -42 , "method" : "ping" , "jsonrpc" : "2.0" } )",
        R"({"jsonrpc":"2.0","id":999999999999999,"method":"ping"})",
        R"({"jsonrpc":"2.0","id":"abc def","method":"ping"})",
        R"({"jsonrpc":"2.0","id":"","method":"ping"})",
        R"({"jsonrpc":"2.0","id":7,"method":"tools/list"})",
        R"({"jsonrpc":"2.0","id":8,"method":"tools/call"})",
        R"({"jsonrpc":"2.0","id":9,"method":"initialize"})",
        R"({"jsonrpc":"2.0","id":10,"method":"logging/setLevel"})",
        R"({"jsonrpc":"2.0","id":11,"method":"server/discover"})",
        R"({"jsonrpc":"2.0","id":12,"method":"no/such method"})",
        R"({"jsonrpc":"2.0","id":13,"method":""})",
    };
    for (const bool initialized : {false, true}) {
        for (const QByteArray &frame : frames) {
            QTest::addRow("%s%s", initialized ? "initialized " : "", frame.constData())
                << frame << initialized;
        }
    }
}

void TestMcpSession::flatFramesAnswerAsTheDocumentWould()
{
    QFETCH(QByteArray, flat);
    QFETCH(bool, initialized);
    protocol::FlatRequest scanned;
    QVERIFY(protocol::scanFlatRequest(flat, &scanned));
    QByteArray withParams = flat.trimmed();
    withParams.insert(withParams.size() - 1, ",\"params\":{}");
    QVERIFY(!protocol::scanFlatRequest(withParams, &scanned));
    QList<QByteArray> answers;
    for (const QByteArray &frame : {flat, withParams}) {
        Fixture f;
        if (initialized)
            f.initialize();
        const qsizetype before = f.client.lines.size();
        f.client.sendRaw(frame + '\n');
        QTRY_COMPARE(f.client.lines.size(), before + 1);
        answers.append(f.client.lines.constLast());
    }
    QCOMPARE(answers.at(0), answers.at(1));
}

void TestMcpSession::framingPartialLinesCrlfEmptyLines()
{
    Fixture f;
    f.initialize();
    const QByteArray ping = TestClient::frame(1, "ping");
    f.client.sendRaw(ping.left(5));
    QTest::qWait(20);
    f.client.sendRaw(ping.mid(5, 10));
    QTest::qWait(20);
    QCOMPARE(f.client.countResponses(1), 0);
    f.client.sendRaw(ping.mid(15));
    QVERIFY(f.client.response(1).contains("result"));
    // CRLF, empty lines, whitespace-only lines.
    QByteArray crlf = TestClient::frame(2, "ping");
    crlf.chop(1);
    f.client.sendRaw("\n\r\n  \n" + crlf + "\r\n\n");
    QVERIFY(f.client.response(2).contains("result"));
    // Several frames in one write, the last one split.
    const QByteArray three =
        TestClient::frame(3, "ping") + TestClient::frame(4, "ping") + TestClient::frame(5, "ping");
    f.client.sendRaw(three.chopped(7));
    QVERIFY(f.client.response(4).contains("result"));
    QCOMPARE(f.client.countResponses(5), 0);
    f.client.sendRaw(three.right(7));
    QVERIFY(f.client.response(5).contains("result"));
    QCOMPARE(f.client.messages.size(), 6); // initialize + 5 pings, no error for blank lines
    QVERIFY(!f.client.badLine);
}

void TestMcpSession::invalidUtf8IsParseError()
{
    Fixture f;
    f.initialize();
    f.client.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}\n");
    f.client.sendRaw(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\"}}\n");
    f.client.request(2, "ping");
    QVERIFY(f.client.response(2).contains("result"));
    QCOMPARE(f.client.messages.size(), 4);
    QCOMPARE(TestClient::errorCode(f.client.messages.at(1).toObject()), -32700);
    QCOMPARE(f.client.messages.at(1).toObject().value("id"), QJsonValue(QJsonValue::Null));
    QCOMPARE(TestClient::errorCode(f.client.messages.at(2).toObject()), -32700);
}

void TestMcpSession::oversizedFrameThenValidFrame()
{
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression("discarding a frame larger than"));
    ServerOptions o;
    o.maxFrameBytes = 1024;
    Fixture f(o);
    f.initialize();
    QJsonObject big = call("echo", QJsonObject{{"blob", QString(4000, 'x')}});
    f.client.sendRaw(TestClient::frame(1, "tools/call", big) + TestClient::frame(2, "ping"));
    QVERIFY(f.client.response(2).contains("result"));
    const QJsonObject err = f.client.response(QJsonValue::Null);
    QCOMPARE(TestClient::errorCode(err), -32600);
    QCOMPARE(f.client.countResponses(1), 0);
    QCOMPARE(f.echoCalls, 0);
    // Exactly at the limit is fine.
    QByteArray exact = TestClient::frame(3, "ping");
    exact.chop(1);
    exact.insert(exact.size() - 1, QByteArray(1024 - exact.size(), ' '));
    QCOMPARE(exact.size(), 1024);
    f.client.sendRaw(exact + "\r\n");
    QVERIFY(f.client.response(3).contains("result"));
}

void TestMcpSession::oversizedFrameStreamedInPieces()
{
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression("discarding a frame larger than"));
    ServerOptions o;
    o.maxFrameBytes = 1024;
    Fixture f(o);
    f.initialize();
    f.client.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"p\":\"");
    for (int i = 0; i < 50; ++i) {
        f.client.sendRaw(QByteArray(1000, 'y'));
        QTest::qWait(1);
    }
    QTRY_COMPARE(f.client.countResponses(QJsonValue::Null), 1); // reported once, early
    f.client.sendRaw("\"}}\n" + TestClient::frame(2, "ping"));
    QVERIFY(f.client.response(2).contains("result"));
    QCOMPARE(f.client.countResponses(1), 0);
    QCOMPARE(f.client.countResponses(QJsonValue::Null), 1);
}

void TestMcpSession::batchesOnlyAt20250326()
{
    const QByteArray batch =
        "[" + TestClient::frame(1, "ping").trimmed() + "," +
        TestClient::frame(2, "tools/list").trimmed() + "," +
        TestClient::frame(QJsonValue::Undefined, "notifications/foo").trimmed() + "," +
        TestClient::frame(3, "nope").trimmed() + ",5]\n";
    for (const QString &version :
         {QString("2025-11-25"), QString("2025-06-18"), QString("2024-11-05")}) {
        Fixture f;
        f.initialize(version);
        f.client.sendRaw(batch);
        const QJsonObject err = f.client.response(QJsonValue::Null);
        QCOMPARE(TestClient::errorCode(err), -32600);
        QCOMPARE(f.client.messages.size(), 2);
    }
    Fixture f;
    f.initialize("2025-03-26");
    f.client.sendRaw(batch);
    QTRY_COMPARE(f.client.messages.size(), 2);
    const QJsonArray responses = f.client.messages.at(1).toArray();
    QCOMPARE(responses.size(), 4); // ping, tools/list, unknown method, invalid element
    QCOMPARE(responses.at(0).toObject().value("id"), QJsonValue(1));
    QVERIFY(responses.at(1).toObject().value("result").toObject().value("tools").isArray());
    QCOMPARE(TestClient::errorCode(responses.at(2).toObject()), -32601);
    QCOMPARE(TestClient::errorCode(responses.at(3).toObject()), -32600);
    // Empty batch and notification-only batch.
    f.client.sendRaw("[]\n");
    QCOMPARE(TestClient::errorCode(f.client.response(QJsonValue::Null)), -32600);
    f.client.sendRaw("[" + TestClient::frame(QJsonValue::Undefined, "notifications/foo").trimmed() +
                     "]\n");
    f.client.request(9, "ping");
    QVERIFY(f.client.response(9).contains("result"));
    QCOMPARE(f.client.messages.size(), 4);
}

void TestMcpSession::batchWithAsyncToolCall()
{
    Fixture f;
    f.initialize("2025-03-26");
    f.client.sendRaw("[" + TestClient::frame(1, "tools/call", call("slow")).trimmed() + "," +
                     TestClient::frame(2, "ping").trimmed() + "]\n");
    QTRY_VERIFY(f.slow);
    QTest::qWait(20);
    QCOMPARE(f.client.messages.size(), 1); // the batch answer waits for the call
    f.slow->finishStructured(QJsonObject{{"done", true}}, "done");
    QTRY_COMPARE(f.client.messages.size(), 2);
    const QJsonArray responses = f.client.messages.at(1).toArray();
    QCOMPARE(responses.size(), 2);
}

void TestMcpSession::toolsListFromCacheAndGating()
{
    Fixture f;
    f.initialize();
    f.client.request(1, "tools/list", QJsonObject{{"cursor", "abc"}});
    const QJsonObject result = f.client.response(1).value("result").toObject();
    QVERIFY(!result.contains("nextCursor"));
    const QJsonArray tools = result.value("tools").toArray();
    QCOMPARE(tools.size(), 3); // echo, slow, ask (create_thing is gated)
    QCOMPARE(tools.at(0).toObject().value("name").toString(), QString("echo"));
    QCOMPARE(tools.at(1).toObject().value("name").toString(), QString("slow"));
    const QJsonObject echo = tools.at(0).toObject();
    QCOMPARE(echo.value("title").toString(), QString("Echo"));
    QVERIFY(echo.value("inputSchema").isObject());
    QVERIFY(echo.value("outputSchema").isObject());
    QVERIFY(!tools.at(1).toObject().contains("outputSchema"));
    QCOMPARE(echo.value("annotations").toObject().value("readOnlyHint").toBool(), true);
    // The wire bytes are the registry's cached bytes.
    QVERIFY(f.client.lines.at(1).contains(f.registry.toolsListJson()));

    f.registry.setServedToolsets({"read", "mutate"});
    f.client.request(2, "tools/list");
    QCOMPARE(f.client.response(2).value("result").toObject().value("tools").toArray().size(), 4);
    f.client.request(3, "tools/call", call("create_thing"));
    QCOMPARE(f.client.response(3).value("result").toObject().value("isError").toBool(), true);
    f.registry.setServedToolsets({"mutate"});
    f.client.request(4, "tools/call", call("echo"));
    QCOMPARE(TestClient::errorCode(f.client.response(4)), -32602);
}

// ToolCall::finishStructuredJson assembles the result's JSON from the bytes the tool made: the
// frame must be byte for byte the one finishStructured gives for the same result.
void TestMcpSession::preSerializedResultIsTheSameBytes()
{
    Fixture f;
    const QJsonObject structured{
        {"s", QString::fromUtf8("quote \" backslash \\ slash / nl \n tab \t cr \r bell \x07 "
                                "del \x7f latin \xc3\xa9 astral \xf0\x9f\x98\x80 ctl \x1f")},
        {"lone", QString(QString(QChar(0xd800)) + "x" + QString(QChar(0xdc00)))},
        {"n", 1.5},
        {"i", 42},
        {"big", 1e300},
        {"tiny", 5e-324},
        {"arr", QJsonArray{true, false, QJsonValue(), -0.0, "</script>"}},
        {"nested", QJsonObject{{"k", "v\u2028w"}, {"empty", QJsonObject()}}}};
    const QByteArray json = QJsonDocument(structured).toJson(QJsonDocument::Compact);
    const QString lead = QString::fromUtf8("Summary \"q\" \\ \xc3\xbc\t") + QChar(0xd83d) + "\n";
    bool isError = false;
    f.registry.registerTool(
        {"pre", "Pre", "", QJsonObject{{"type", "object"}}, {}, {}, "read", [&](ToolCall *c) {
             c->finishStructuredJson(structured, lead, json, isError);
         }});
    f.registry.registerTool(
        {"plain", "Plain", "", QJsonObject{{"type", "object"}}, {}, {}, "read", [&](ToolCall *c) {
             c->finishStructured(structured, lead + QString::fromUtf8(json), isError);
         }});
    f.initialize();
    for (const bool error : {false, true}) {
        isError = error;
        const int base = isError ? 20 : 10;
        f.client.request(base + 1, "tools/call", call("pre"));
        f.client.request(base + 2, "tools/call", call("plain"));
        QVERIFY(!f.client.response(base + 1).isEmpty());
        QVERIFY(!f.client.response(base + 2).isEmpty());
        QByteArray pre, plain;
        for (const QByteArray &line : std::as_const(f.client.lines)) {
            const QByteArray head = line.left(line.indexOf(",\"jsonrpc\""));
            if (head == "{\"id\":" + QByteArray::number(base + 1))
                pre = line.mid(head.size());
            if (head == "{\"id\":" + QByteArray::number(base + 2))
                plain = line.mid(head.size());
        }
        QVERIFY(!pre.isEmpty());
        QCOMPARE(pre, plain);
        QCOMPARE(f.client.response(base + 1).value("result").toObject().value("isError").toBool(),
                 isError);
    }
    QVERIFY(!f.client.badLine);
}

void TestMcpSession::toolsListChangedOnlyToInitialized()
{
    Fixture a;
    a.initialize();
    Fixture b;
    b.initialize("2025-11-25", {}, false); // initialize answered, no notifications/initialized
    a.registry.setServedToolsets({"read", "mutate"});
    b.registry.setServedToolsets({"read", "mutate"});
    QVERIFY(!a.client.waitMethod("notifications/tools/list_changed").isEmpty());
    QTest::qWait(50);
    QCOMPARE(b.client.withMethod("notifications/tools/list_changed").size(), 0);
    // No change, no notification.
    a.registry.setServedToolsets({"read", "mutate"});
    QTest::qWait(50);
    QCOMPARE(a.client.withMethod("notifications/tools/list_changed").size(), 1);
}

void TestMcpSession::toolsCallResultShape()
{
    Fixture f;
    f.initialize();
    f.client.request(1, "tools/call", QJsonObject{{"name", "echo"}}); // no arguments = {}
    const QJsonObject result = f.client.response(1).value("result").toObject();
    QCOMPARE(result.value("structuredContent").toObject(), QJsonObject({{"args", QJsonObject()}}));
    const QJsonArray content = result.value("content").toArray();
    QCOMPARE(content.size(), 1);
    QCOMPARE(content.at(0).toObject().value("type").toString(), QString("text"));
    QCOMPARE(content.at(0).toObject().value("text").toString(), QString("{\"args\":{}}"));
    QVERIFY(!result.contains("isError"));
    const QJsonObject err = ToolCall::makeResult(QJsonObject{{"a", 1}}, "bad", true);
    QCOMPARE(err.value("isError").toBool(), true);
    QCOMPARE(err.value("content").toArray().at(0).toObject().value("text").toString(),
             QString("bad"));
}

void TestMcpSession::cancelInSameReadNeverStarts()
{
    Fixture f;
    f.initialize();
    const QByteArray both =
        TestClient::frame(1, "tools/call", call("echo")) +
        TestClient::frame(QJsonValue::Undefined, "notifications/cancelled",
                          QJsonObject{{"requestId", 1}, {"reason", "changed my mind"}}) +
        TestClient::frame(2, "tools/call", call("slow")) +
        TestClient::frame(QJsonValue::Undefined, "notifications/cancelled",
                          QJsonObject{{"requestId", 2}});
    f.client.sendRaw(both);
    f.client.request(3, "ping");
    QVERIFY(f.client.response(3).contains("result"));
    QTest::qWait(50);
    QCOMPARE(f.echoCalls, 0);
    QCOMPARE(f.slowStarts, 0);
    QCOMPARE(f.client.countResponses(1), 0);
    QCOMPARE(f.client.countResponses(2), 0);
    QCOMPARE(f.session->inFlightCalls(), 0);
    // The same id can be used again afterwards.
    f.client.request(1, "tools/call", call("echo"));
    QVERIFY(f.client.response(1).contains("result"));
    QCOMPARE(f.echoCalls, 1);
}

void TestMcpSession::clientCancelsInFlightCall()
{
    Fixture f;
    f.initialize();
    f.client.request("c1", "tools/call", call("slow"));
    QTRY_VERIFY(f.slow);
    QPointer<ToolCall> c = f.slow;
    QVERIFY(!c->isCancelled());
    f.client.notify("notifications/cancelled",
                    QJsonObject{{"requestId", "c1"}, {"reason", "user"}});
    QTRY_VERIFY(c->isCancelled());
    QCOMPARE(c->cancelReason(), QString("user"));
    QCOMPARE(f.cancelledReasons, QStringList{"user"});
    c->finishStructured(QJsonObject{{"x", 1}}, "late");
    f.client.request(2, "ping");
    QVERIFY(f.client.response(2).contains("result"));
    QTest::qWait(20);
    QCOMPARE(f.client.countResponses("c1"), 0);
    QTRY_VERIFY(!c); // deleted after finish
}

void TestMcpSession::clientCancelReportEvenIfCancelled()
{
    Fixture f;
    f.initialize();
    f.client.request(1, "tools/call", call("slow"));
    QTRY_VERIFY(f.slow);
    f.slow->setReportEvenIfCancelled(true);
    f.client.notify("notifications/cancelled", QJsonObject{{"requestId", 1}});
    QTRY_VERIFY(f.slow->isCancelled());
    f.slow->finishStructured(QJsonObject{{"created", "abc"}}, "created abc");
    const QJsonObject r = f.client.response(1);
    QCOMPARE(r.value("result").toObject().value("structuredContent").toObject().value("created"),
             QJsonValue("abc"));
}

void TestMcpSession::cancelUnknownOrInitializeIgnored()
{
    Fixture f;
    f.client.request(0, "initialize", QJsonObject{{"protocolVersion", "2025-11-25"}});
    f.client.notify("notifications/cancelled", QJsonObject{{"requestId", 0}});
    QVERIFY(f.client.response(0).contains("result"));
    f.client.notify("notifications/initialized");
    f.client.notify("notifications/cancelled", QJsonObject{{"requestId", 12345}});
    f.client.notify("notifications/cancelled", QJsonObject{{"requestId", QJsonObject()}});
    f.client.notify("notifications/cancelled");
    f.client.request(1, "ping");
    QVERIFY(f.client.response(1).contains("result"));
    QCOMPARE(f.client.messages.size(), 2);
    QVERIFY(f.session->clientInfo().initialized);
}

void TestMcpSession::progressIsMonotonic()
{
    Fixture f;
    f.initialize();
    f.client.request(1, "tools/call", call("slow", {}, "tok-1"));
    QTRY_VERIFY(f.slow);
    QVERIFY(f.slow->hasProgressToken());
    f.slow->progress(1, 10, "one");
    f.slow->progress(1, 10);   // not greater: dropped
    f.slow->progress(0.5, 10); // going back: dropped
    f.slow->progress(2);
    QPointer<ToolCall> c = f.slow;
    c->finishStructured({}, "ok");
    f.slow->progress(3); // after finish: nothing (object still alive until deleteLater)
    QVERIFY(f.client.response(1).contains("result"));
    QTest::qWait(20);
    const auto progress = f.client.withMethod("notifications/progress");
    QCOMPARE(progress.size(), 2);
    const QJsonObject p0 = progress.at(0).value("params").toObject();
    QCOMPARE(p0.value("progressToken").toString(), QString("tok-1"));
    QCOMPARE(p0.value("progress").toDouble(), 1.0);
    QCOMPARE(p0.value("total").toDouble(), 10.0);
    QCOMPARE(p0.value("message").toString(), QString("one"));
    const QJsonObject p1 = progress.at(1).value("params").toObject();
    QCOMPARE(p1.value("progress").toDouble(), 2.0);
    QVERIFY(!p1.contains("total"));
    // Integer token, echoed as an integer.
    f.client.request(2, "tools/call", call("slow", {}, 77));
    QTRY_VERIFY(f.slow && f.slow->requestId() == QJsonValue(2));
    f.slow->progress(0);
    const QJsonObject p2 = f.client.waitMethod("notifications/progress", 2);
    QCOMPARE(p2.value("params").toObject().value("progressToken"), QJsonValue(77));
    QVERIFY(f.client.lines.last().contains("\"progressToken\":77"));
    f.slow->finishStructured({}, "ok");
}

void TestMcpSession::progressWithoutTokenSendsNothing()
{
    Fixture f;
    f.initialize();
    f.client.request(1, "tools/call", call("slow"));
    QTRY_VERIFY(f.slow);
    QVERIFY(!f.slow->hasProgressToken());
    f.slow->progress(1, 2);
    f.slow->finishStructured({}, "ok");
    QVERIFY(f.client.response(1).contains("result"));
    QCOMPARE(f.client.withMethod("notifications/progress").size(), 0);
}

void TestMcpSession::loggingSetLevelAndBroadcast()
{
    Fixture f;
    f.server->broadcastLog("error", "early", "before initialize"); // not sent
    f.initialize();
    f.server->broadcastLog("debug", "x", "dropped at the default level (info)");
    f.server->broadcastLog("info", "broker", QJsonObject{{"msg", "hello"}});
    const QJsonObject m = f.client.waitMethod("notifications/message");
    const QJsonObject params = m.value("params").toObject();
    QCOMPARE(params.value("level").toString(), QString("info"));
    QCOMPARE(params.value("logger").toString(), QString("broker"));
    QCOMPARE(params.value("data").toObject().value("msg").toString(), QString("hello"));

    f.client.request(1, "logging/setLevel", QJsonObject{{"level", "error"}});
    QCOMPARE(f.client.response(1).value("result").toObject(), QJsonObject());
    QCOMPARE(f.session->logLevel(), QString("error"));
    f.server->broadcastLog("warning", "x", "dropped");
    f.server->broadcastLog("critical", "x", "kept");
    f.client.request(2, "logging/setLevel", QJsonObject{{"level", "debug"}});
    QVERIFY(f.client.response(2).contains("result"));
    f.server->broadcastLog("debug", "x", "kept too");
    QTest::ignoreMessage(QtWarningMsg, "not a log level: \"loud\"");
    f.server->broadcastLog("loud", "x", "not a level");
    QVERIFY(!f.client.waitMethod("notifications/message", 2).isEmpty());
    QTest::qWait(20);
    const auto all = f.client.withMethod("notifications/message");
    QCOMPARE(all.size(), 3);
    QCOMPARE(all.at(1).value("params").toObject().value("data").toString(), QString("kept"));
    QCOMPARE(all.at(2).value("params").toObject().value("data").toString(), QString("kept too"));
    for (const char *level :
         {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}) {
        f.client.request(level, "logging/setLevel", QJsonObject{{"level", level}});
        QVERIFY2(f.client.response(level).contains("result"), qPrintable(level));
    }
}

void TestMcpSession::elicitationResult()
{
    Fixture f;
    f.initialize("2025-11-25", QJsonObject{{"elicitation", QJsonObject{{"form", QJsonObject()}}}});
    f.client.request(1, "tools/call", call("ask"));
    const QJsonObject req = f.client.waitMethod("elicitation/create");
    QVERIFY(req.value("id").isDouble());
    QCOMPARE(req.value("params").toObject().value("message").toString(), QString("Approve?"));
    QVERIFY(req.value("params").toObject().value("requestedSchema").isObject());
    QCOMPARE(req.value("id").toInteger(), f.lastClientRequestId);
    QCOMPARE(f.session->pendingClientRequests(), 1);
    f.client.send(QJsonObject{
        {"jsonrpc", "2.0"},
        {"id", req.value("id")},
        {"result", QJsonObject{{"action", "accept"}, {"content", QJsonObject{{"ok", true}}}}}});
    QTRY_COMPARE(f.replies.size(), 1);
    QCOMPARE(int(f.replies.at(0).status), int(ClientReply::Status::Result));
    QCOMPARE(f.replies.at(0).result.value("action").toString(), QString("accept"));
    QCOMPARE(f.session->pendingClientRequests(), 0);
    f.slow->finishStructured({}, "done");
    QVERIFY(f.client.response(1).contains("result"));
    QCOMPARE(f.client.withMethod("notifications/cancelled").size(), 0);
}

void TestMcpSession::elicitationErrorReply()
{
    Fixture f;
    f.initialize("2025-06-18", QJsonObject{{"elicitation", QJsonObject()}});
    f.client.request(1, "tools/call", call("ask"));
    const QJsonObject req = f.client.waitMethod("elicitation/create");
    f.client.send(QJsonObject{{"jsonrpc", "2.0"},
                              {"id", req.value("id")},
                              {"error", QJsonObject{{"code", -32601}, {"message", "nope"}}}});
    QTRY_COMPARE(f.replies.size(), 1);
    QCOMPARE(int(f.replies.at(0).status), int(ClientReply::Status::Error));
    QCOMPARE(f.replies.at(0).error.value("code").toInt(), -32601);
    f.slow->finishError("declined");
}

void TestMcpSession::elicitationTimeoutSendsCancelled()
{
    Fixture f;
    f.initialize("2025-06-18", QJsonObject{{"elicitation", QJsonObject()}});
    f.client.request(1, "tools/call", call("ask", QJsonObject{{"timeoutMs", 50}}));
    const QJsonObject req = f.client.waitMethod("elicitation/create");
    QTRY_COMPARE(f.replies.size(), 1);
    QCOMPARE(int(f.replies.at(0).status), int(ClientReply::Status::Timeout));
    const QJsonObject cancel = f.client.waitMethod("notifications/cancelled");
    QCOMPARE(cancel.value("params").toObject().value("requestId"), req.value("id"));
    QVERIFY(!cancel.value("params").toObject().value("reason").toString().isEmpty());
    // A late reply is ignored.
    f.client.send(
        QJsonObject{{"jsonrpc", "2.0"}, {"id", req.value("id")}, {"result", QJsonObject()}});
    f.client.request(2, "ping");
    QVERIFY(f.client.response(2).contains("result"));
    QCOMPARE(f.replies.size(), 1);
    f.slow->finishError("timed out");
}

void TestMcpSession::elicitationCancelledByServer()
{
    Fixture f;
    f.initialize("2025-06-18", QJsonObject{{"elicitation", QJsonObject()}});
    f.client.request(1, "tools/call", call("ask"));
    const QJsonObject req = f.client.waitMethod("elicitation/create");
    f.slow->cancelClientRequest(f.lastClientRequestId, "no longer needed");
    QCOMPARE(f.replies.size(), 1);
    QCOMPARE(int(f.replies.at(0).status), int(ClientReply::Status::Cancelled));
    const QJsonObject cancel = f.client.waitMethod("notifications/cancelled");
    QCOMPARE(cancel.value("params").toObject().value("requestId"), req.value("id"));
    QCOMPARE(cancel.value("params").toObject().value("reason").toString(),
             QString("no longer needed"));
    f.slow->finishError("x");
    QVERIFY(f.client.response(1).contains("result"));
}

void TestMcpSession::elicitationCancelledWhenCallCancelled()
{
    Fixture f;
    f.initialize("2025-06-18", QJsonObject{{"elicitation", QJsonObject()}});
    f.client.request(1, "tools/call", call("ask"));
    const QJsonObject req = f.client.waitMethod("elicitation/create");
    f.client.notify("notifications/cancelled", QJsonObject{{"requestId", 1}});
    QTRY_COMPARE(f.replies.size(), 1);
    QCOMPARE(int(f.replies.at(0).status), int(ClientReply::Status::Cancelled));
    QVERIFY(f.slow->isCancelled());
    const QJsonObject cancel = f.client.waitMethod("notifications/cancelled");
    QCOMPARE(cancel.value("params").toObject().value("requestId"), req.value("id"));
    f.slow->finishError("cancelled");
    // Finishing a call with an outstanding request cancels it too.
    f.client.request(2, "tools/call", call("ask"));
    f.client.waitMethod("elicitation/create", 1);
    QTRY_VERIFY(f.slow && f.slow->requestId() == QJsonValue(2));
    f.slow->finishError("gave up");
    QTRY_COMPARE(f.replies.size(), 2);
    QCOMPARE(int(f.replies.at(1).status), int(ClientReply::Status::Cancelled));
    QVERIFY(!f.client.waitMethod("notifications/cancelled", 1).isEmpty());
    QVERIFY(f.client.response(2).contains("result"));
}

void TestMcpSession::elicitationNotSent_data()
{
    QTest::addColumn<QString>("version");
    QTest::addColumn<QJsonObject>("capabilities");
    QTest::addColumn<bool>("initialized");
    QTest::newRow("no capability") << "2025-11-25" << QJsonObject() << true;
    QTest::newRow("url only") << "2025-11-25"
                              << QJsonObject{{"elicitation", QJsonObject{{"url", QJsonObject()}}}}
                              << true;
    QTest::newRow("old protocol") << "2025-03-26" << QJsonObject{{"elicitation", QJsonObject()}}
                                  << true;
    QTest::newRow("not initialized")
        << "2025-11-25" << QJsonObject{{"elicitation", QJsonObject()}} << false;
}

void TestMcpSession::elicitationNotSent()
{
    QFETCH(QString, version);
    QFETCH(QJsonObject, capabilities);
    QFETCH(bool, initialized);
    Fixture f;
    f.initialize(version, capabilities, initialized);
    f.client.request(1, "tools/call", call("ask"));
    QTRY_COMPARE(f.replies.size(), 1);
    QCOMPARE(int(f.replies.at(0).status), int(ClientReply::Status::NotSent));
    QVERIFY(!f.replies.at(0).message.isEmpty());
    QCOMPARE(f.lastClientRequestId, 0);
    QTest::qWait(20);
    QCOMPARE(f.replies.size(), 1);
    QCOMPARE(f.client.withMethod("elicitation/create").size(), 0);
    f.slow->finishError("cannot ask");
}

void TestMcpSession::replyToUnknownIdIgnored()
{
    Fixture f;
    f.initialize();
    f.client.send(QJsonObject{{"jsonrpc", "2.0"}, {"id", 999}, {"result", QJsonObject()}});
    f.client.send(QJsonObject{{"jsonrpc", "2.0"}, {"id", "srv-1"}, {"result", QJsonObject()}});
    f.client.request(1, "ping");
    QVERIFY(f.client.response(1).contains("result"));
    QCOMPARE(f.client.messages.size(), 2);
}

void TestMcpSession::serverPingsClient()
{
    QList<ClientReply> got; // outlives the session, whose close runs the callbacks
    Fixture f;
    f.initialize();
    const qint64 id = f.session->ping(1000, [&got](const ClientReply &r) { got.append(r); });
    QVERIFY(id > 0);
    const QJsonObject ping = f.client.waitMethod("ping");
    QCOMPARE(ping.value("id").toInteger(), id);
    f.client.send(
        QJsonObject{{"jsonrpc", "2.0"}, {"id", ping.value("id")}, {"result", QJsonObject()}});
    QTRY_COMPARE(got.size(), 1);
    QCOMPARE(int(got.at(0).status), int(ClientReply::Status::Result));
    // Ids increase per session.
    const qint64 id2 = f.session->ping(0, [&got](const ClientReply &r) { got.append(r); });
    QCOMPARE(id2, id + 1);
}

void TestMcpSession::endOfInputCancelsEverything()
{
    Fixture f;
    f.initialize("2025-06-18", QJsonObject{{"elicitation", QJsonObject()}});
    QSignalSpy closed(f.server.get(), &McpServer::sessionClosed);
    f.client.request(1, "tools/call", call("ask"));
    f.client.waitMethod("elicitation/create");
    QPointer<ToolCall> c = f.slow;
    // A call in the last read before EOF never starts.
    f.client.request(2, "tools/call", call("echo"));
    f.client.clientEnd.closeWriteChannel();
    QTRY_COMPARE(closed.count(), 1);
    QVERIFY(c && c->isCancelled());
    QCOMPARE(f.replies.size(), 1);
    QCOMPARE(int(f.replies.at(0).status), int(ClientReply::Status::SessionClosed));
    QCOMPARE(f.echoCalls, 0);
    QCOMPARE(f.server->sessionCount(), 0);
    c->finishError("too late"); // must not crash nor write
    QTest::qWait(20);
    QCOMPARE(f.client.countResponses(1), 0);
    QVERIFY(!c);
}

void TestMcpSession::slowReaderIsDropped()
{
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression("the client is not reading"));
    ServerOptions o;
    o.maxPendingWriteBytes = 4096;
    Fixture f(o);
    f.initialize();
    QSignalSpy closed(f.server.get(), &McpServer::sessionClosed);
    f.client.serverEnd.setStalled(true); // whatever the session writes stays pending
    for (int i = 0; i < 40; ++i)
        f.client.request(i + 1, "tools/list");
    QTRY_COMPARE(closed.count(), 1);
}

void TestMcpSession::duplicateInFlightId()
{
    Fixture f;
    f.initialize();
    f.client.request(1, "tools/call", call("slow"));
    QTRY_VERIFY(f.slow);
    f.client.request(1, "tools/call", call("echo"));
    QCOMPARE(TestClient::errorCode(f.client.response(1)), -32600);
    QCOMPARE(f.echoCalls, 0);
    f.slow->finishStructured({}, "ok");
    QTRY_COMPARE(f.client.countResponses(1), 2);
}

void TestMcpSession::devicesDestroyedFirst()
{
    ToolRegistry registry;
    McpServer server(&registry, {});
    QSignalSpy closed(&server, &McpServer::sessionClosed);
    auto *client = new TestClient;
    server.serve({"stdio", &client->serverEnd, &client->serverEnd, false});
    client->request(0, "initialize", QJsonObject{{"protocolVersion", "2025-06-18"}});
    QVERIFY(client->response(0).contains("result"));
    delete client;
    QCOMPARE(closed.count(), 1);
    server.broadcastLog("error", "x", "nobody listens"); // must not touch the dead device
    QCOMPARE(server.sessionCount(), 0);
}

QTEST_GUILESS_MAIN(TestMcpSession)
#include "tst_session.moc"
