// ToolOperation (src/broker/ToolOperation), the base of the broker's two operations, driven
// through a real MCP session: a call finishes exactly once (a result or a protocol error, a
// later attempt changes nothing and says so), the client's cancellation reaches the operation,
// the context is guarded (the operation outlives neither its call nor a context it may lose),
// and the operation ends with its call.
#include "BrokerHarness.h"
#include "TestEnvironment.h"
#include "broker/BrokerContext.h"
#include "broker/ToolOperation.h"
#include "mcp/ToolCall.h"

#include <QPointer>

using namespace Qt::StringLiterals;

namespace {

class ProbeOperation : public fb::ToolOperation {
public:
    ProbeOperation(fb::BrokerContext *context, fb::mcp::ToolCall *call)
        : ToolOperation(context, call)
    {
    }
    void start() override {}
    using ToolOperation::call;
    using ToolOperation::context;
    using ToolOperation::finishError;
    using ToolOperation::finishOnce;
    using ToolOperation::finishProtocolError;
    using ToolOperation::finishStructured;
    QStringList cancelledWith;

protected:
    void onCancelled(const QString &reason) override { cancelledWith << reason; }
};

// A broker harness with one more tool, probe_tool, whose calls become ProbeOperations.
struct ProbeHarness {
    fbtest::BrokerHarness h;
    std::unique_ptr<fb::BrokerContext> context;
    QList<QPointer<ProbeOperation>> probes;

    ProbeHarness()
        : context(std::make_unique<fb::BrokerContext>(&h.store, h.fabric.get(),
                                                      fb::BrokerSettings{}, fb::Clock::system()))
    {
        fb::mcp::ToolDefinition tool;
        tool.name = u"probe_tool"_s;
        tool.title = u"Probe"_s;
        tool.description = u"A tool call that the test finishes."_s;
        tool.inputSchema = QJsonObject{{"type", "object"}};
        tool.toolset = u"read"_s;
        tool.handler = [this](fb::mcp::ToolCall *call) {
            probes << new ProbeOperation(context.get(), call);
        };
        h.registry.registerTool(std::move(tool));
        h.initialize();
    }

    // Starts a probe_tool call and waits for its operation.
    int start()
    {
        const qsizetype before = probes.size();
        const int id = h.startToolCall(u"probe_tool"_s, {});
        if (!QTest::qWaitFor([&] { return probes.size() > before; }))
            QTest::qFail("the probe was not called", __FILE__, __LINE__);
        return id;
    }

    int answersTo(int id) const
    {
        return int(std::count_if(h.received.begin(), h.received.end(), [id](const QJsonObject &m) {
            return fbtest::BrokerHarness::isAnswerTo(m, id);
        }));
    }
};

} // namespace

class TestToolOperation : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void finishesExactlyOnce()
    {
        ProbeHarness p;
        const int id = p.start();
        ProbeOperation *op = p.probes.last();
        QVERIFY(!op->isFinished());
        op->finishStructured(QJsonObject{{"n", 1}}, u"one"_s);
        QVERIFY(op->isFinished());
        op->finishError(u"two"_s);
        op->finishProtocolError(-32602, u"three"_s);
        const QJsonObject answer = p.h.answerTo(id);
        QCOMPARE(answer.value("result").toObject().value("structuredContent").toObject(),
                 QJsonObject({{"n", 1}}));
        QTest::qWait(0);
        QCOMPARE(p.answersTo(id), 1);
    }

    void finishOnceSaysWhetherItFinished()
    {
        ProbeHarness p;
        const int id = p.start();
        ProbeOperation *op = p.probes.last();
        QVERIFY(op->finishOnce(fb::mcp::ToolCall::makeResult({}, u"done"_s, false)));
        QVERIFY(!op->finishOnce(fb::mcp::ToolCall::makeResult({}, u"again"_s, true)));
        QVERIFY(!p.h.answerTo(id).value("result").toObject().value("isError").toBool());
    }

    void protocolErrorIsTheOneAnswer()
    {
        ProbeHarness p;
        const int id = p.start();
        ProbeOperation *op = p.probes.last();
        op->finishProtocolError(-32602, u"cannot be honoured"_s);
        QVERIFY(op->isFinished());
        QVERIFY(!op->finishOnce(fb::mcp::ToolCall::makeResult({}, u"late"_s, false)));
        const QJsonObject answer = p.h.answerTo(id);
        QCOMPARE(answer.value("error").toObject().value("code").toInt(), -32602);
        QVERIFY(!answer.contains("result"));
    }

    void cancellationReachesTheOperation()
    {
        ProbeHarness p;
        const int id = p.start();
        QPointer<ProbeOperation> op = p.probes.last();
        p.h.send({{"jsonrpc", "2.0"},
                  {"method", "notifications/cancelled"},
                  {"params", QJsonObject{{"requestId", id}, {"reason", "user pressed stop"}}}});
        QTRY_COMPARE(op->cancelledWith.size(), 1);
        QVERIFY(op->cancelledWith.first().contains("user pressed stop"));
        // A cancelled operation still finishes (the real ones do); then it ends with its call.
        op->finishError(u"stopped"_s);
        QTRY_VERIFY(op.isNull());
    }

    void contextIsGuarded()
    {
        ProbeHarness p;
        const int id = p.start();
        ProbeOperation *op = p.probes.last();
        QCOMPARE(op->context(), p.context.get());
        p.context.reset();
        QCOMPARE(op->context(), nullptr);
        op->finishError(u"the broker went away"_s); // the call is still answered
        QVERIFY(p.h.answerTo(id).value("result").toObject().value("isError").toBool());
    }

    void endsWithItsCall()
    {
        ProbeHarness p;
        const int id = p.start();
        QPointer<ProbeOperation> op = p.probes.last();
        QVERIFY(op->call());
        op->finishError(u"done"_s);
        p.h.answerTo(id);
        QTRY_VERIFY(op.isNull());
    }
};

QTEST_GUILESS_MAIN(TestToolOperation)
#include "tst_tooloperation.moc"
