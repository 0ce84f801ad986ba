// What a session records when the server has a Telemetry (src/mcp/SessionTelemetry.cpp): one
// server span per request named and attributed as the OpenTelemetry MCP conventions say,
// continuing the client's traceparent; one mcp.server.operation.duration point per request;
// child spans of a tool's steps; the session's duration; and never a string the client chose
// (argument values, made-up tool or method names) in a span or a metric.
#include "TestEnvironment.h"
#include "TestPipe.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"
#include "telemetry/Telemetry.h"

#include <QJsonDocument>
#include <QPointer>
#include <QTest>
#include <memory>

using namespace fb::mcp;
using fb::telemetry::SpanKind;
using fb::telemetry::SpanRecord;
using fbtest::TestClient;

namespace {

constexpr char ParentTraceId[] = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr char ParentSpanId[] = "00f067aa0ba902b7";
constexpr char SecretValue[] = "VALUE-the-agent-wrote-7f3a";

struct Fixture {
    ToolRegistry registry;
    fb::telemetry::Telemetry telemetry{"9.9.9"};
    std::unique_ptr<McpServer> server;
    TestClient client;
    Session *session = nullptr;
    QPointer<ToolCall> held;

    explicit Fixture(bool tracing = true)
    {
        telemetry.tracer()->setEnabled(tracing);
        registry.registerTool(
            {"echo",
             "Echo",
             "Echoes",
             QJsonObject{{"type", "object"}},
             QJsonObject{{"type", "object"}},
             {},
             "read",
             [](ToolCall *c) {
                 c->finishStructured(QJsonObject{{"args", c->arguments()}}, QString());
             }});
        registry.registerTool({"fails",
                               "Fails",
                               "Reports an error",
                               QJsonObject{{"type", "object"}},
                               {},
                               {},
                               "read",
                               [](ToolCall *c) { c->finishError("no"); }});
        // A tool with one step of its own: a child span, and a fabric_broker attribute.
        registry.registerTool({"stepper",
                               "Stepper",
                               "Has a step",
                               QJsonObject{{"type", "object"}},
                               {},
                               {},
                               "read",
                               [this](ToolCall *c) {
                                   fb::telemetry::Span step = c->startSpan("fabric_broker.step");
                                   step.setAttribute("fabric_broker.step", "one");
                                   step.end();
                                   c->setSpanAttribute("fabric_broker.outcome", "done");
                                   held = c;
                                   // A started call belongs to its handler until it finishes:
                                   // cancelled (the session ended), it finishes and goes.
                                   QObject::connect(c, &ToolCall::cancelled, c,
                                                    [c] { c->finishError("cancelled"); });
                               }});
        server = std::make_unique<McpServer>(&registry, ServerOptions{});
        server->setTelemetry(&telemetry);
        session = server->serve({"stdio", &client.serverEnd, &client.serverEnd, false});
    }
    ~Fixture() { server.reset(); }

    void initialize()
    {
        client.request(0, "initialize",
                       QJsonObject{{"protocolVersion", "2025-11-25"},
                                   {"capabilities", QJsonObject()},
                                   {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}});
        QVERIFY(!client.response(0).isEmpty());
        client.notify("notifications/initialized");
    }

    QList<SpanRecord> spans() { return telemetry.tracer()->takeBatch(1000); }
};

QString hex(const QByteArray &bytes)
{
    return QString::fromLatin1(bytes.toHex());
}

QString attribute(const SpanRecord &span, const QString &key)
{
    for (const auto &a : span.attributes) {
        if (a.key == key) {
            if (const auto *s = std::get_if<QString>(&a.value))
                return *s;
            if (const auto *i = std::get_if<qint64>(&a.value))
                return QString::number(*i);
            if (const auto *b = std::get_if<bool>(&a.value))
                return *b ? "true" : "false";
        }
    }
    return {};
}

const SpanRecord *named(const QList<SpanRecord> &spans, const QString &name)
{
    for (const SpanRecord &s : spans) {
        if (s.name == name)
            return &s;
    }
    return nullptr;
}

} // namespace

class TestSessionTelemetry : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void toolCallContinuesTheClientsTrace()
    {
        Fixture f;
        f.initialize();
        (void)f.spans();
        f.client.request(
            7, "tools/call",
            QJsonObject{
                {"name", "echo"},
                {"arguments", QJsonObject{{"note", SecretValue}}},
                {"_meta", QJsonObject{{"traceparent",
                                       QString("00-%1-%2-01").arg(ParentTraceId, ParentSpanId)}}}});
        QVERIFY(!f.client.response(7).isEmpty());
        const QList<SpanRecord> spans = f.spans();
        QCOMPARE(spans.size(), 1);
        const SpanRecord &s = spans.first();
        QCOMPARE(s.name, "tools/call echo");
        QCOMPARE(s.kind, SpanKind::Server);
        QCOMPARE(hex(s.context.traceId), ParentTraceId);
        QCOMPARE(hex(s.parentSpanId), ParentSpanId);
        QVERIFY(s.parentRemote);
        QVERIFY(!s.error);
        QCOMPARE(attribute(s, "mcp.method.name"), "tools/call");
        QCOMPARE(attribute(s, "gen_ai.tool.name"), "echo");
        QCOMPARE(attribute(s, "gen_ai.operation.name"), "execute_tool");
        QCOMPARE(attribute(s, "jsonrpc.request.id"), "7");
        QCOMPARE(attribute(s, "mcp.protocol.version"), "2025-11-25");
        QCOMPARE(attribute(s, "network.transport"), "pipe");
        QCOMPARE(attribute(s, "mcp.session.id"), QString::number(f.session->id()));
        QVERIFY(s.endUnixNano >= s.startUnixNano);
        // The argument's value is in the answer, never in the span.
        const QByteArray json = QJsonDocument(fb::telemetry::Tracer::otlpJson(spans, {}, "1"))
                                    .toJson(QJsonDocument::Compact);
        QVERIFY(!json.contains(SecretValue));
        QVERIFY(f.client.lines.last().contains(SecretValue));
    }

    void invalidTraceparentStartsANewTrace_data()
    {
        QTest::addColumn<QString>("traceparent");
        QTest::newRow("uppercase")
            << QString("00-%1-%2-01").arg(ParentTraceId, ParentSpanId).toUpper();
        QTest::newRow("zero trace") << QString("00-%1-%2-01").arg(QString(32, '0'), ParentSpanId);
        QTest::newRow("short") << QString("00-%1-01").arg(ParentTraceId);
        QTest::newRow("version ff") << QString("ff-%1-%2-01").arg(ParentTraceId, ParentSpanId);
    }
    void invalidTraceparentStartsANewTrace()
    {
        QFETCH(QString, traceparent);
        Fixture f;
        f.initialize();
        (void)f.spans();
        f.client.request(
            3, "tools/call",
            QJsonObject{{"name", "echo"}, {"_meta", QJsonObject{{"traceparent", traceparent}}}});
        QVERIFY(!f.client.response(3).isEmpty());
        const QList<SpanRecord> spans = f.spans();
        QCOMPARE(spans.size(), 1);
        QVERIFY(spans.first().parentSpanId.isEmpty());
        QVERIFY(hex(spans.first().context.traceId) != ParentTraceId);
        QCOMPARE(spans.first().context.traceId.size(), 16);
    }

    // A name the client made up becomes _OTHER; the error is the code, its description the
    // code's name, never the message that quotes the client.
    void namesTheClientChoseAreNotRecorded()
    {
        Fixture f;
        f.initialize();
        (void)f.spans();
        f.client.request(4, "tools/call",
                         QJsonObject{{"name", QString("evil-%1").arg(SecretValue)}});
        f.client.request(5, QString("x/%1").arg(SecretValue));
        QCOMPARE(f.client.response(4).value("error").toObject().value("code").toInt(), -32602);
        QCOMPARE(f.client.response(5).value("error").toObject().value("code").toInt(), -32601);
        const QList<SpanRecord> spans = f.spans();
        QCOMPARE(spans.size(), 2);
        const SpanRecord *tool = named(spans, "tools/call _OTHER");
        QVERIFY(tool);
        QVERIFY(tool->error);
        QCOMPARE(attribute(*tool, "error.type"), "-32602");
        QCOMPARE(attribute(*tool, "rpc.response.status_code"), "-32602");
        QCOMPARE(tool->statusMessage, "Invalid params");
        const SpanRecord *method = named(spans, "_OTHER");
        QVERIFY(method);
        QCOMPARE(attribute(*method, "error.type"), "-32601");
        const QByteArray json = QJsonDocument(fb::telemetry::Tracer::otlpJson(spans, {}, "1"))
                                    .toJson(QJsonDocument::Compact);
        QVERIFY(!json.contains(SecretValue));
        const QByteArray text = f.telemetry.metrics()->prometheusText();
        QVERIFY(!text.contains(SecretValue));
        QVERIFY2(text.contains("mcp_server_operation_duration_seconds_count{error_type=\"-32601\","
                               "mcp_method_name=\"_OTHER\""),
                 text.constData());
    }

    void operationDurationPerRequest()
    {
        Fixture f(false); // metrics without tracing
        f.initialize();
        for (int i = 0; i < 3; ++i)
            f.client.request(100 + i, "ping");
        f.client.request(200, "tools/call", QJsonObject{{"name", "fails"}});
        f.client.request(201, "tools/call", QJsonObject{{"name", "echo"}});
        QVERIFY(!f.client.response(102).isEmpty());
        QVERIFY(!f.client.response(200).isEmpty());
        QVERIFY(!f.client.response(201).isEmpty());
        QVERIFY(f.spans().isEmpty()); // tracing is off: no span at all
        const QByteArray text = f.telemetry.metrics()->prometheusText();
        const auto count = [&](const QByteArray &labels) {
            const QByteArray prefix =
                "mcp_server_operation_duration_seconds_count{" + labels + "} ";
            const qsizetype at = text.indexOf(prefix);
            if (at < 0)
                return -1;
            const qsizetype end = text.indexOf('\n', at);
            return text.mid(at + prefix.size(), end - at - prefix.size()).toInt();
        };
        QCOMPARE(count("mcp_method_name=\"ping\",mcp_protocol_version=\"2025-11-25\","
                       "network_transport=\"pipe\""),
                 3);
        QCOMPARE(count("error_type=\"tool_error\",gen_ai_operation_name=\"execute_tool\","
                       "gen_ai_tool_name=\"fails\",mcp_method_name=\"tools/call\","
                       "mcp_protocol_version=\"2025-11-25\",network_transport=\"pipe\""),
                 1);
        QCOMPARE(count("gen_ai_operation_name=\"execute_tool\",gen_ai_tool_name=\"echo\","
                       "mcp_method_name=\"tools/call\",mcp_protocol_version=\"2025-11-25\","
                       "network_transport=\"pipe\""),
                 1);
        // initialize is counted with the version it negotiated.
        QCOMPARE(count("mcp_method_name=\"initialize\",mcp_protocol_version=\"2025-11-25\","
                       "network_transport=\"pipe\""),
                 1);
    }

    void flatPingIsCountedWhenObserved()
    {
        Fixture f(false);
        f.initialize();
        f.client.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"ping\"}\n"
                         "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\n");
        QVERIFY(!f.client.response("p").isEmpty());
        QVERIFY(f.telemetry.metrics()->prometheusText().contains(
            "mcp_server_operation_duration_seconds_count{mcp_method_name=\"ping\","
            "mcp_protocol_version=\"2025-11-25\",network_transport=\"pipe\"} 2\n"));
    }

    void toolStepsAreChildSpans()
    {
        Fixture f;
        f.initialize();
        (void)f.spans();
        f.client.request(9, "tools/call", QJsonObject{{"name", "stepper"}});
        QTRY_VERIFY(f.held);
        f.held->finishStructured(QJsonObject{{"ok", true}}, "ok");
        QVERIFY(!f.client.response(9).isEmpty());
        const QList<SpanRecord> spans = f.spans();
        QCOMPARE(spans.size(), 2);
        const SpanRecord *server = named(spans, "tools/call stepper");
        const SpanRecord *step = named(spans, "fabric_broker.step");
        QVERIFY(server && step);
        QCOMPARE(step->kind, SpanKind::Internal);
        QCOMPARE(step->context.traceId, server->context.traceId);
        QCOMPARE(step->parentSpanId, server->context.spanId);
        QVERIFY(!step->parentRemote);
        QVERIFY(server->parentSpanId.isEmpty());
        QCOMPARE(attribute(*server, "fabric_broker.outcome"), "done");
        QCOMPARE(attribute(*step, "fabric_broker.step"), "one");
        // After the answer, a step records nothing.
        QVERIFY(!f.held || !f.held->startSpan("late").isRecording());
    }

    void sessionDurationAtTheEnd()
    {
        Fixture f(false);
        f.initialize();
        QVERIFY(!f.telemetry.metrics()->prometheusText().contains(
            "mcp_server_session_duration_seconds_count"));
        f.client.clientEnd.closeWriteChannel();
        QTRY_VERIFY(f.session == nullptr || f.server->sessionCount() == 0);
        QVERIFY(f.telemetry.metrics()->prometheusText().contains(
            "mcp_server_session_duration_seconds_count{mcp_protocol_version=\"2025-11-25\","
            "network_transport=\"pipe\"} 1\n"));
    }

    // A call still running when the session ends: its span ends as an error, once.
    void openRequestsEndWithTheSession()
    {
        Fixture f;
        f.initialize();
        (void)f.spans();
        f.client.request(11, "tools/call", QJsonObject{{"name", "stepper"}});
        QTRY_VERIFY(f.held);
        (void)f.spans(); // the step
        f.client.clientEnd.closeWriteChannel();
        QTRY_COMPARE(f.server->sessionCount(), 0);
        const QList<SpanRecord> spans = f.spans();
        QCOMPARE(spans.size(), 1);
        QVERIFY(spans.first().error);
        QCOMPARE(spans.first().name, "tools/call stepper");
    }

    // A request that reuses the id of one still running (a ping, a refused duplicate, invalid
    // params) ends neither its span nor its duration (found by the non-author review).
    void aReusedIdDoesNotEndTheRunningCall()
    {
        Fixture f;
        f.initialize();
        (void)f.spans();
        f.client.request(9, "tools/call", QJsonObject{{"name", "stepper"}});
        QTRY_VERIFY(f.held);
        (void)f.spans(); // the step
        const qsizetype before = f.client.lines.size();
        f.client.request(9, "ping");
        f.client.request(9, "tools/call", QJsonObject{{"name", "echo"}}); // -32600, in flight
        f.client.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":5}\n");
        QTRY_COMPARE(f.client.lines.size(), before + 3);
        for (const SpanRecord &s : f.spans())
            QVERIFY2(s.name != "tools/call stepper", "the running call's span ended early");
        f.held->finishStructured(QJsonObject{{"ok", true}}, "ok");
        QTRY_COMPARE(f.client.lines.size(), before + 4);
        const QList<SpanRecord> spans = f.spans();
        const SpanRecord *server = named(spans, "tools/call stepper");
        QVERIFY(server);
        QVERIFY(!server->error);
        QCOMPARE(attribute(*server, "fabric_broker.outcome"), "done");
        QVERIFY(f.telemetry.metrics()->prometheusText().contains(
            "mcp_server_operation_duration_seconds_count{gen_ai_operation_name=\"execute_tool\","
            "gen_ai_tool_name=\"stepper\",mcp_method_name=\"tools/call\","
            "mcp_protocol_version=\"2025-11-25\",network_transport=\"pipe\"} 1\n"));
    }

    // The client cannot turn the operator's tracing off with an unsampled traceparent.
    void anUnsampledParentIsStillTraced()
    {
        Fixture f;
        f.initialize();
        (void)f.spans();
        f.client.request(
            12, "tools/call",
            QJsonObject{
                {"name", "echo"},
                {"_meta", QJsonObject{{"traceparent",
                                       QString("00-%1-%2-00").arg(ParentTraceId, ParentSpanId)}}}});
        QVERIFY(!f.client.response(12).isEmpty());
        const QList<SpanRecord> spans = f.spans();
        QCOMPARE(spans.size(), 1);
        QCOMPARE(hex(spans.first().context.traceId), ParentTraceId);
        QCOMPARE(spans.first().context.flags, quint8(0x01));
    }

    void requestIdsTheClientChose_data()
    {
        QTest::addColumn<QJsonValue>("id");
        QTest::addColumn<QString>("recorded");
        QTest::newRow("integer") << QJsonValue(42) << "42";
        QTest::newRow("plain string") << QJsonValue("req-7.a:b_c") << "req-7.a:b_c";
        QTest::newRow("fraction") << QJsonValue(1.5) << "_OTHER";
        QTest::newRow("space") << QJsonValue("a b") << "_OTHER";
        QTest::newRow("value") << QJsonValue(QString(SecretValue) + "!") << "_OTHER";
        QTest::newRow("too long") << QJsonValue(QString(65, 'a')) << "_OTHER";
        QTest::newRow("token") << QJsonValue("chg-0123456789abcdef0123456789abcdef") << "_OTHER";
    }
    void requestIdsTheClientChose()
    {
        QFETCH(QJsonValue, id);
        QFETCH(QString, recorded);
        Fixture f;
        f.initialize();
        (void)f.spans();
        f.client.request(id, "ping");
        QVERIFY(!f.client.response(id).isEmpty());
        const QList<SpanRecord> spans = f.spans();
        QCOMPARE(spans.size(), 1);
        QCOMPARE(attribute(spans.first(), "jsonrpc.request.id"), recorded);
    }

    void nothingWithoutTelemetry()
    {
        Fixture f;
        f.server->setTelemetry(nullptr);
        f.initialize();
        f.client.request(1, "tools/call", QJsonObject{{"name", "echo"}});
        QVERIFY(!f.client.response(1).isEmpty());
        QVERIFY(f.spans().isEmpty());
        QVERIFY(!f.telemetry.metrics()->prometheusText().contains("mcp_server_operation"));
    }
};

QTEST_GUILESS_MAIN(TestSessionTelemetry)
#include "tst_sessiontelemetry.moc"
