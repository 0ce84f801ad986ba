// The 2026-07-28 era of one MCP session: server/discover, the per-request _meta envelope and
// its error codes, resultType, cache hints, and no server-to-client request ever.
#include "TestEnvironment.h"
#include "TestPipe.h"
#include "mcp/McpServer.h"
#include "mcp/ModernEra.h"
#include "mcp/Session.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QPointer>
#include <QTest>
#include <memory>

using namespace fb::mcp;
using namespace Qt::StringLiterals;
using fbtest::TestClient;

namespace {

const QString Modern = u"2026-07-28"_s;

QJsonObject envelope(const QJsonObject &capabilities = {}, const QJsonObject &clientInfo = {},
                     const QString &version = Modern)
{
    QJsonObject meta{{QLatin1StringView(modern::ProtocolVersionKey), version},
                     {QLatin1StringView(modern::ClientCapabilitiesKey), capabilities}};
    if (!clientInfo.isEmpty())
        meta.insert(QLatin1StringView(modern::ClientInfoKey), clientInfo);
    return meta;
}

struct Fixture {
    ToolRegistry registry;
    std::unique_ptr<McpServer> server;
    TestClient client;
    Session *session = nullptr;
    QPointer<ToolCall> last;
    ClientInfo lastClient;
    bool lastModern = false;
    bool lastElicitation = false;
    QJsonObject lastParams;
    QList<ClientReply> replies;
    QJsonObject nextResult; // "custom" finishes with it

    Fixture()
    {
        ServerOptions options;
        options.version = u"9.9.9"_s;
        options.instructions = u"Use the read tools first."_s;
        const auto observe = [this](ToolCall *c) {
            last = c;
            lastClient = c->clientInfo();
            lastModern = c->isModernEra();
            lastElicitation = c->clientSupportsFormElicitation();
            lastParams = c->requestParams();
        };
        registry.registerTool(
            {u"echo"_s, u"Echo"_s, u"Echoes"_s, QJsonObject{{u"type"_s, u"object"_s}},
             QJsonObject{}, QJsonObject{}, u"read"_s, [observe](ToolCall *c) {
                 observe(c);
                 c->finishStructured(QJsonObject{{u"args"_s, c->arguments()}}, QString());
             }});
        registry.registerTool({u"custom"_s, u"Custom"_s, u"Finishes with a given result"_s,
                               QJsonObject{{u"type"_s, u"object"_s}}, QJsonObject{}, QJsonObject{},
                               u"read"_s, [this, observe](ToolCall *c) {
                                   observe(c);
                                   c->finish(nextResult);
                               }});
        registry.registerTool({u"ask"_s, u"Ask"_s, u"Elicits, logs and reports progress"_s,
                               QJsonObject{{u"type"_s, u"object"_s}}, QJsonObject{}, QJsonObject{},
                               u"read"_s, [this, observe](ToolCall *c) {
                                   observe(c);
                                   c->progress(1, 2, u"half"_s);
                                   c->log(u"warning"_s, u"ask"_s, u"careful"_s);
                                   c->log(u"debug"_s, u"ask"_s, u"noise"_s);
                                   c->sendClientRequest(
                                       u"elicitation/create"_s,
                                       QJsonObject{{u"message"_s, u"Approve?"_s}}, 1000,
                                       [this](const ClientReply &r) { replies.append(r); });
                               }});
        server = std::make_unique<McpServer>(&registry, options);
        session = server->serve({"stdio", &client.serverEnd, &client.serverEnd, false});
    }
    ~Fixture() { server.reset(); }

    bool anyServerRequest() const
    {
        for (const QJsonValue &m : client.messages) {
            const QJsonObject o = m.toObject();
            if (o.contains("method"_L1) && o.contains("id"_L1))
                return true;
        }
        return false;
    }
};

QJsonObject call(const QString &name, const QJsonObject &meta, const QJsonObject &args = {})
{
    return QJsonObject{{u"name"_s, name}, {u"arguments"_s, args}, {u"_meta"_s, meta}};
}

} // namespace

class TestMcpModern : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void discoverShape();
    void discoverBeforeAndAfterInitialize();
    void toolsListHasResultTypeAndCacheHints();
    void toolsCallWithoutInitialize();
    void resultTypeKeptWhenPresent();
    void legacyResultsUnchanged();
    void envelopeErrors_data();
    void envelopeErrors();
    void unsupportedVersion();
    void removedMethods_data();
    void removedMethods();
    void perRequestClientInfoIsBoundedAndEscaped();
    void perRequestCapabilities();
    void neverARequestToTheClient();
    void cancelledWorks();
};

void TestMcpModern::discoverShape()
{
    Fixture f;
    f.client.request(1, u"server/discover"_s, QJsonObject{{u"_meta"_s, envelope()}});
    const QJsonObject r = f.client.response(1).value("result"_L1).toObject();
    QCOMPARE(r.value("resultType"_L1).toString(), u"complete"_s);
    const QStringList versions = r.value("supportedVersions"_L1).toVariant().toStringList();
    QCOMPARE(versions, (QStringList{u"2026-07-28"_s, u"2025-11-25"_s, u"2025-06-18"_s,
                                    u"2025-03-26"_s, u"2024-11-05"_s}));
    QVERIFY(r.value("capabilities"_L1).toObject().contains("tools"_L1));
    QCOMPARE(r.value("instructions"_L1).toString(), u"Use the read tools first."_s);
    QCOMPARE(r.value("ttlMs"_L1).toInt(-1), 0);
    QCOMPARE(r.value("cacheScope"_L1).toString(), u"private"_s);
    const QJsonObject info =
        r.value("_meta"_L1).toObject().value(QLatin1StringView(modern::ServerInfoKey)).toObject();
    QCOMPARE(info.value("name"_L1).toString(), u"fabric-broker"_s);
    QCOMPARE(info.value("version"_L1).toString(), u"9.9.9"_s);
    QVERIFY(!f.client.badLine);
}

void TestMcpModern::discoverBeforeAndAfterInitialize()
{
    Fixture f;
    f.client.request(1, u"server/discover"_s);
    QVERIFY(f.client.response(1).value("result"_L1).toObject().contains("supportedVersions"_L1));
    f.client.request(0, u"initialize"_s,
                     QJsonObject{{u"protocolVersion"_s, u"2025-11-25"_s},
                                 {u"capabilities"_s, QJsonObject()},
                                 {u"clientInfo"_s, QJsonObject{{u"name"_s, u"c"_s}}}});
    QCOMPARE(f.client.response(0).value("result"_L1).toObject().value("protocolVersion"_L1),
             u"2025-11-25"_s);
    f.client.request(2, u"server/discover"_s, QJsonObject());
    QVERIFY(f.client.response(2).value("result"_L1).toObject().contains("supportedVersions"_L1));
}

void TestMcpModern::toolsListHasResultTypeAndCacheHints()
{
    Fixture f;
    f.client.request(1, u"tools/list"_s, QJsonObject{{u"_meta"_s, envelope()}});
    const QJsonObject r = f.client.response(1).value("result"_L1).toObject();
    QCOMPARE(r.value("resultType"_L1).toString(), u"complete"_s);
    QCOMPARE(r.value("ttlMs"_L1).toInt(-1), 0);
    QCOMPARE(r.value("cacheScope"_L1).toString(), u"private"_s);
    QCOMPARE(r.value("tools"_L1).toArray().size(), 3);
    QVERIFY(!f.client.badLine);
}

void TestMcpModern::toolsCallWithoutInitialize()
{
    Fixture f;
    f.client.request(1, u"tools/call"_s, call(u"echo"_s, envelope(), QJsonObject{{u"x"_s, 1}}));
    const QJsonObject r = f.client.response(1).value("result"_L1).toObject();
    QCOMPARE(r.value("resultType"_L1).toString(), u"complete"_s);
    QCOMPARE(r.value("structuredContent"_L1).toObject().value("args"_L1).toObject().value("x"_L1),
             1);
    QVERIFY(f.lastModern);
    QCOMPARE(f.lastParams.value("name"_L1).toString(), u"echo"_s);
    QVERIFY(f.lastParams.value("_meta"_L1)
                .toObject()
                .contains(QLatin1StringView(modern::ProtocolVersionKey)));
    QCOMPARE(f.lastClient.protocolVersion, Modern);
    QVERIFY(!f.session->clientInfo().initialized);
}

void TestMcpModern::resultTypeKeptWhenPresent()
{
    Fixture f;
    f.nextResult = QJsonObject{{u"resultType"_s, u"input_required"_s},
                               {u"inputRequests"_s, QJsonObject{{u"a"_s, QJsonObject()}}},
                               {u"requestState"_s, u"opaque"_s}};
    QJsonObject params = call(u"custom"_s, envelope());
    params.insert(u"requestState"_s, u"s1"_s);
    params.insert(u"inputResponses"_s, QJsonObject{{u"a"_s, QJsonObject()}});
    f.client.request(1, u"tools/call"_s, params);
    const QJsonObject r = f.client.response(1).value("result"_L1).toObject();
    QCOMPARE(r, f.nextResult);
    QCOMPARE(f.lastParams.value("requestState"_L1).toString(), u"s1"_s);
    QVERIFY(f.lastParams.contains("inputResponses"_L1));
}

void TestMcpModern::legacyResultsUnchanged()
{
    Fixture f;
    f.client.request(0, u"initialize"_s,
                     QJsonObject{{u"protocolVersion"_s, u"2025-11-25"_s},
                                 {u"capabilities"_s, QJsonObject()},
                                 {u"clientInfo"_s, QJsonObject{{u"name"_s, u"c"_s}}}});
    QVERIFY(!f.client.response(0).value("result"_L1).toObject().contains("resultType"_L1));
    f.client.request(1, u"tools/list"_s);
    const QJsonObject list = f.client.response(1).value("result"_L1).toObject();
    QCOMPARE(list.keys(), QStringList{u"tools"_s});
    f.client.request(2, u"tools/call"_s,
                     QJsonObject{{u"name"_s, u"echo"_s}, {u"arguments"_s, QJsonObject()}});
    const QJsonObject r = f.client.response(2).value("result"_L1).toObject();
    QVERIFY(!r.contains("resultType"_L1));
    QVERIFY(!f.lastModern);
    QCOMPARE(f.lastClient.protocolVersion, u"2025-11-25"_s);
}

void TestMcpModern::envelopeErrors_data()
{
    QTest::addColumn<QJsonObject>("meta");
    const QLatin1StringView v(modern::ProtocolVersionKey);
    const QLatin1StringView c(modern::ClientCapabilitiesKey);
    const QLatin1StringView i(modern::ClientInfoKey);
    QTest::newRow("no version") << QJsonObject{{c, QJsonObject()}};
    QTest::newRow("no capabilities") << QJsonObject{{v, Modern}};
    QTest::newRow("only clientInfo") << QJsonObject{{i, QJsonObject{{u"name"_s, u"x"_s}}}};
    QTest::newRow("version not a string") << QJsonObject{{v, 20260728}, {c, QJsonObject()}};
    QTest::newRow("capabilities not an object") << QJsonObject{{v, Modern}, {c, u"all"_s}};
    QTest::newRow("clientInfo not an object")
        << QJsonObject{{v, Modern}, {c, QJsonObject()}, {i, QJsonArray()}};
}

void TestMcpModern::envelopeErrors()
{
    QFETCH(QJsonObject, meta);
    Fixture f;
    for (const QString &method : {u"tools/list"_s, u"tools/call"_s, u"server/discover"_s}) {
        f.client.request(method, method, call(u"echo"_s, meta));
        QCOMPARE(TestClient::errorCode(f.client.response(method)), -32602);
    }
    QVERIFY(!f.last);
}

void TestMcpModern::unsupportedVersion()
{
    Fixture f;
    f.client.request(1, u"tools/list"_s,
                     QJsonObject{{u"_meta"_s, envelope({}, {}, u"2027-01-01"_s)}});
    const QJsonObject error = f.client.response(1).value("error"_L1).toObject();
    QCOMPARE(error.value("code"_L1).toInt(), -32022);
    const QJsonObject data = error.value("data"_L1).toObject();
    QCOMPARE(data.value("requested"_L1).toString(), u"2027-01-01"_s);
    QVERIFY(data.value("supported"_L1).toArray().contains(Modern));
    // A 2025 revision is not spoken through the envelope either; hostile text is escaped.
    f.client.request(2, u"server/discover"_s,
                     QJsonObject{{u"_meta"_s, envelope({}, {}, u"2025-11-25\u202e"_s)}});
    const QJsonObject error2 = f.client.response(2).value("error"_L1).toObject();
    QCOMPARE(error2.value("code"_L1).toInt(), -32022);
    QVERIFY(!error2.value("data"_L1)
                 .toObject()
                 .value("requested"_L1)
                 .toString()
                 .contains(QChar(0x202e)));
}

void TestMcpModern::removedMethods_data()
{
    QTest::addColumn<QString>("method");
    QTest::newRow("initialize") << u"initialize"_s;
    QTest::newRow("ping") << u"ping"_s;
    QTest::newRow("logging/setLevel") << u"logging/setLevel"_s;
    QTest::newRow("resources/list") << u"resources/list"_s;
}

void TestMcpModern::removedMethods()
{
    QFETCH(QString, method);
    Fixture f;
    f.client.request(1, method,
                     QJsonObject{{u"_meta"_s, envelope()},
                                 {u"protocolVersion"_s, u"2025-11-25"_s},
                                 {u"level"_s, u"debug"_s}});
    QCOMPARE(TestClient::errorCode(f.client.response(1)), -32601);
    QVERIFY(!f.session->isInitializeAnswered());
}

void TestMcpModern::perRequestClientInfoIsBoundedAndEscaped()
{
    Fixture f;
    const QString longName(500, u'n');
    f.client.request(1, u"tools/call"_s,
                     call(u"echo"_s, envelope({}, QJsonObject{{u"name"_s, u"evil\u202e\nname"_s},
                                                              {u"title"_s, longName},
                                                              {u"version"_s, u"1.0"_s}})));
    QVERIFY(f.client.response(1).contains("result"_L1));
    ClientInfo expected;
    expected.setFromInitialize(QJsonObject{
        {u"name"_s, u"evil\u202e\nname"_s}, {u"title"_s, longName}, {u"version"_s, u"1.0"_s}});
    QCOMPARE(f.lastClient.name, expected.name);
    QCOMPARE(f.lastClient.title, expected.title);
    QVERIFY(!f.lastClient.name.contains(QChar(0x202e)));
    QVERIFY(f.lastClient.title.size() <= ClientInfo::MaxTextLength + 1);
    QCOMPARE(f.lastClient.version, u"1.0"_s);
    QCOMPARE(f.lastClient.sessionId, f.session->id());
    // The next request names another client: the call sees that one, not the first.
    f.client.request(2, u"tools/call"_s,
                     call(u"echo"_s, envelope({}, QJsonObject{{u"name"_s, u"second"_s}})));
    QVERIFY(f.client.response(2).contains("result"_L1));
    QCOMPARE(f.lastClient.name, u"second"_s);
}

void TestMcpModern::perRequestCapabilities()
{
    Fixture f;
    // An initialize that declared elicitation does not leak into modern requests.
    f.client.request(
        0, u"initialize"_s,
        QJsonObject{{u"protocolVersion"_s, u"2025-11-25"_s},
                    {u"capabilities"_s, QJsonObject{{u"elicitation"_s, QJsonObject()}}},
                    {u"clientInfo"_s, QJsonObject{{u"name"_s, u"c"_s}}}});
    QVERIFY(f.client.response(0).contains("result"_L1));
    f.client.request(1, u"tools/call"_s, call(u"echo"_s, envelope()));
    QVERIFY(f.client.response(1).contains("result"_L1));
    QVERIFY(!f.lastElicitation);
    f.client.request(
        2, u"tools/call"_s,
        call(u"echo"_s,
             envelope(QJsonObject{{u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject()}}}})));
    QVERIFY(f.client.response(2).contains("result"_L1));
    QVERIFY(f.lastElicitation);
    // And the 2025 call sees the initialize capabilities.
    f.client.request(3, u"tools/call"_s, QJsonObject{{u"name"_s, u"echo"_s}});
    QVERIFY(f.client.response(3).contains("result"_L1));
    QVERIFY(f.lastElicitation);
    QVERIFY(!f.lastModern);
}

void TestMcpModern::neverARequestToTheClient()
{
    Fixture f;
    QJsonObject meta =
        envelope(QJsonObject{{u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject()}}}});
    meta.insert(u"progressToken"_s, u"p1"_s);
    meta.insert(QLatin1StringView(modern::LogLevelKey), u"info"_s);
    f.client.request(1, u"tools/call"_s, call(u"ask"_s, meta));
    QTRY_COMPARE(f.replies.size(), 1);
    QCOMPARE(int(f.replies.at(0).status), int(ClientReply::Status::NotSent));
    // Progress and the admitted log line are notifications of this request.
    const QJsonObject progress = f.client.waitMethod(u"notifications/progress"_s);
    QCOMPARE(progress.value("params"_L1).toObject().value("progressToken"_L1), u"p1"_s);
    const QJsonObject log = f.client.waitMethod(u"notifications/message"_s);
    QCOMPARE(log.value("params"_L1).toObject().value("level"_L1), u"warning"_s);
    QCOMPARE(f.client.withMethod(u"notifications/message"_s).size(), 1); // debug < info
    // A server ping on a session that speaks only the modern era is not written either.
    QList<ClientReply> pings;
    QCOMPARE(f.session->ping(1000, [&pings](const ClientReply &r) { pings.append(r); }), 0);
    QTRY_COMPARE(pings.size(), 1);
    QCOMPARE(int(pings.at(0).status), int(ClientReply::Status::NotSent));
    QTest::qWait(50);
    QVERIFY(!f.anyServerRequest());
    if (f.last)
        f.last->finishError(u"done"_s);
    const QJsonObject r = f.client.response(1).value("result"_L1).toObject();
    QCOMPARE(r.value("resultType"_L1).toString(), u"complete"_s);
    QVERIFY(!f.anyServerRequest());
}

void TestMcpModern::cancelledWorks()
{
    Fixture f;
    QStringList reasons;
    f.client.request(7, u"tools/call"_s, call(u"ask"_s, envelope()));
    QTRY_VERIFY(f.last);
    QObject::connect(f.last, &ToolCall::cancelled, f.last,
                     [&reasons](const QString &reason) { reasons.append(reason); });
    f.client.notify(u"notifications/cancelled"_s,
                    QJsonObject{{u"requestId"_s, 7}, {u"reason"_s, u"user"_s}});
    QTRY_COMPARE(reasons, QStringList{u"user"_s});
    f.last->finishError(u"cancelled"_s);
    QTest::qWait(50);
    QCOMPARE(f.client.countResponses(7), 0); // a cancelled request gets no response
}

QTEST_GUILESS_MAIN(TestMcpModern)
#include "tst_modernera.moc"
