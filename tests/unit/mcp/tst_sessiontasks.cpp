// Task-augmented tools/call over a real Session (MCP 2025-11-25 tasks; TaskStore): the
// capability and the tool's execution.taskSupport, the immediate CreateTaskResult, tasks/get,
// tasks/result (waiting, and from another session after the first one ended), tasks/list,
// tasks/cancel, notifications/tasks/status, and what stays as before (other protocol
// versions, tools without taskSupport, hostile params).
#include "TestEnvironment.h"
#include "TestPipe.h"
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"
#include "mcp/Session.h"
#include "mcp/TaskStore.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QPointer>
#include <QSignalSpy>
#include <QTest>
#include <memory>

using namespace fb::mcp;
using fbtest::TestClient;

namespace {

struct Fixture {
    ToolRegistry registry;
    std::unique_ptr<McpServer> server;
    std::unique_ptr<TestClient> client = std::make_unique<TestClient>();
    std::unique_ptr<TestClient> second = std::make_unique<TestClient>();
    Session *session = nullptr;
    QPointer<ToolCall> slow;
    int slowStarts = 0;
    bool becameTask = false;
    QStringList cancelledReasons;

    Fixture()
    {
        ToolDefinition slowTool{
            "slow",
            "Slow",
            "Finishes when the test says so",
            QJsonObject{{"type", "object"}},
            {},
            {},
            "read",
            [this](ToolCall *c) {
                ++slowStarts;
                slow = c;
                QObject::connect(c, &ToolCall::cancelled, c, [this, c](const QString &reason) {
                    cancelledReasons.append(reason);
                    c->finishStructured(QJsonObject{{"executed", false}}, "cancelled");
                });
            }};
        slowTool.taskSupport = "optional";
        registry.registerTool(slowTool);
        // Waits for a person: becomes a task when the request allows it (2026-07-28).
        ToolDefinition waitTool{"wait",
                                "Wait",
                                "Waits for a person",
                                QJsonObject{{"type", "object"}},
                                {},
                                {},
                                "read",
                                [this](ToolCall *c) {
                                    slow = c;
                                    c->progress(0, 1, "waiting for a person");
                                    becameTask = c->becomeTask();
                                }};
        waitTool.taskSupport = "optional";
        registry.registerTool(waitTool);
        registry.registerTool({"echo",
                               "Echo",
                               "Echoes",
                               QJsonObject{{"type", "object"}},
                               QJsonObject{{"type", "object"}},
                               {},
                               "read",
                               [](ToolCall *c) {
                                   c->finishStructured(QJsonObject{{"args", c->arguments()}}, {});
                               }});
        server = std::make_unique<McpServer>(&registry, ServerOptions{});
        session = server->serve({"socket", &client->serverEnd, &client->serverEnd, true});
    }
    ~Fixture() { server.reset(); }

    static QJsonObject initialize(TestClient &c, const QString &version = "2025-11-25")
    {
        c.request(0, "initialize",
                  QJsonObject{{"protocolVersion", version},
                              {"capabilities", QJsonObject()},
                              {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}});
        const QJsonObject r = c.response(0);
        c.notify("notifications/initialized");
        return r;
    }
};

QJsonObject taskCall(const QString &name, const QJsonObject &task = QJsonObject{{"ttl", 60000}})
{
    return QJsonObject{{"name", name}, {"arguments", QJsonObject()}, {"task", task}};
}

QJsonObject modernMeta(bool tasks)
{
    QJsonObject caps;
    if (tasks)
        caps.insert("extensions", QJsonObject{{"io.modelcontextprotocol/tasks", QJsonObject()}});
    return QJsonObject{
        {"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientCapabilities", caps},
        {"io.modelcontextprotocol/clientInfo", QJsonObject{{"name", "m"}, {"version", "1"}}}};
}

} // namespace

class TestSessionTasks : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void capabilityAndTaskSupportAreDeclared()
    {
        Fixture f;
        const QJsonObject r = Fixture::initialize(*f.client);
        const QJsonObject tasks =
            r.value("result").toObject().value("capabilities").toObject().value("tasks").toObject();
        QVERIFY(tasks.value("list").isObject());
        QVERIFY(tasks.value("cancel").isObject());
        QVERIFY(
            tasks.value("requests").toObject().value("tools").toObject().value("call").isObject());
        f.client->request(1, "tools/list");
        const QJsonArray tools =
            f.client->response(1).value("result").toObject().value("tools").toArray();
        QCOMPARE(tools.size(), 3);
        QCOMPARE(tools[0].toObject().value("execution").toObject().value("taskSupport").toString(),
                 QString("optional"));
        QVERIFY(!tools[2].toObject().contains("execution"));
    }

    void olderVersionsSeeNoTasksAndRunTheCallAsBefore()
    {
        Fixture f;
        const QJsonObject r = Fixture::initialize(*f.client, "2025-06-18");
        QVERIFY(!r.value("result").toObject().value("capabilities").toObject().contains("tasks"));
        f.client->request(1, "tools/call", taskCall("echo"));
        const QJsonObject result = f.client->response(1).value("result").toObject();
        QVERIFY(!result.contains("task"));
        QVERIFY(result.contains("structuredContent"));
        f.client->request(2, "tasks/get", QJsonObject{{"taskId", "task-x"}});
        QCOMPARE(TestClient::errorCode(f.client->response(2)), int(protocol::MethodNotFound));
    }

    void aTaskOutlivesItsSessionAndAnotherSessionCollectsIt()
    {
        Fixture f;
        Fixture::initialize(*f.client);
        f.client->request(1, "tools/call", taskCall("slow"));
        const QJsonObject created = f.client->response(1).value("result").toObject();
        const QJsonObject task = created.value("task").toObject();
        const QString taskId = task.value("taskId").toString();
        QVERIFY(taskId.startsWith("task-"));
        QCOMPARE(task.value("status").toString(), QString("working"));
        QCOMPARE(task.value("ttl").toInteger(), TaskStore::MinTtlMs); // 60 s asked: clamped up
        QTRY_COMPARE(f.slowStarts, 1);

        // tasks/result waits; the first client goes away (its request times out, it dies).
        f.client->request(2, "tasks/result", QJsonObject{{"taskId", taskId}});
        f.slow->progress(1, 2, "waiting for a person");
        QTRY_COMPARE(f.client->withMethod("notifications/tasks/status").size(), 1);
        QCOMPARE(f.client->withMethod("notifications/tasks/status")
                     .first()
                     .value("params")
                     .toObject()
                     .value("statusMessage")
                     .toString(),
                 QString("waiting for a person"));
        QCOMPARE(f.client->countResponses(2), 0);
        f.client->clientEnd.closeWriteChannel();
        QTRY_VERIFY(f.server->sessionCount() == 0);
        QVERIFY(f.slow);
        QVERIFY(!f.slow->isCancelled()); // the session's end does not cancel a task

        // A new session (a respawned relay) reads the task and its result by id.
        Session *s2 = f.server->serve({"socket", &f.second->serverEnd, &f.second->serverEnd, true});
        QVERIFY(s2);
        Fixture::initialize(*f.second);
        f.second->request(3, "tasks/get", QJsonObject{{"taskId", taskId}});
        const QJsonObject got = f.second->response(3).value("result").toObject();
        QCOMPARE(got.value("status").toString(), QString("working"));
        QCOMPARE(got.value("statusMessage").toString(), QString("waiting for a person"));
        f.second->request(4, "tasks/list");
        QVERIFY(
            f.second->response(4).value("result").toObject().value("tasks").toArray().isEmpty());
        f.second->request(5, "tasks/result", QJsonObject{{"taskId", taskId}});
        QTest::qWait(20);
        QCOMPARE(f.second->countResponses(5), 0);
        f.slow->finishStructured(QJsonObject{{"executed", true}}, "done");
        const QJsonObject result = f.second->response(5).value("result").toObject();
        QCOMPARE(result.value("structuredContent").toObject().value("executed"), QJsonValue(true));
        QCOMPARE(result.value("_meta")
                     .toObject()
                     .value("io.modelcontextprotocol/related-task")
                     .toObject()
                     .value("taskId")
                     .toString(),
                 taskId);
        f.second->request(6, "tasks/get", QJsonObject{{"taskId", taskId}});
        QCOMPARE(f.second->response(6).value("result").toObject().value("status").toString(),
                 QString("completed"));
        QVERIFY(!f.second->badLine);
    }

    void cancelWithdrawsAndAnswersTheTask()
    {
        Fixture f;
        Fixture::initialize(*f.client);
        f.client->request(1, "tools/call", taskCall("slow"));
        const QString taskId = f.client->response(1)
                                   .value("result")
                                   .toObject()
                                   .value("task")
                                   .toObject()
                                   .value("taskId")
                                   .toString();
        QTRY_COMPARE(f.slowStarts, 1);
        f.client->request(2, "tasks/list");
        QCOMPARE(f.client->response(2).value("result").toObject().value("tasks").toArray().size(),
                 1);
        f.client->request(3, "tasks/cancel", QJsonObject{{"taskId", taskId}});
        const QJsonObject cancelled = f.client->response(3).value("result").toObject();
        QCOMPARE(cancelled.value("status").toString(), QString("cancelled"));
        QCOMPARE(f.cancelledReasons.size(), 1);
        f.client->request(4, "tasks/result", QJsonObject{{"taskId", taskId}});
        QCOMPARE(f.client->response(4)
                     .value("result")
                     .toObject()
                     .value("structuredContent")
                     .toObject()
                     .value("executed"),
                 QJsonValue(false));
        f.client->request(5, "tasks/cancel", QJsonObject{{"taskId", taskId}});
        QCOMPARE(TestClient::errorCode(f.client->response(5)), int(protocol::InvalidParams));
    }

    void hostileParamsAreRefused()
    {
        Fixture f;
        Fixture::initialize(*f.client);
        f.client->request(1, "tools/call", taskCall("echo"));
        QCOMPARE(TestClient::errorCode(f.client->response(1)), int(protocol::MethodNotFound));
        f.client->request(2, "tools/call", QJsonObject{{"name", "slow"}, {"task", "now"}});
        QCOMPARE(TestClient::errorCode(f.client->response(2)), int(protocol::InvalidParams));
        f.client->request(3, "tools/call", taskCall("slow", QJsonObject{{"ttl", -5}}));
        QCOMPARE(TestClient::errorCode(f.client->response(3)), int(protocol::InvalidParams));
        f.client->request(4, "tools/call", taskCall("slow", QJsonObject{{"ttl", 1.5}}));
        QCOMPARE(TestClient::errorCode(f.client->response(4)), int(protocol::InvalidParams));
        f.client->request(5, "tasks/get", QJsonObject{{"taskId", 12}});
        QCOMPARE(TestClient::errorCode(f.client->response(5)), int(protocol::InvalidParams));
        f.client->request(6, "tasks/get", QJsonObject{{"taskId", QString(500, 'a')}});
        QCOMPARE(TestClient::errorCode(f.client->response(6)), int(protocol::InvalidParams));
        f.client->request(7, "tasks/result", QJsonObject{{"taskId", "task-0"}});
        QCOMPARE(TestClient::errorCode(f.client->response(7)), int(protocol::InvalidParams));
        f.client->request(8, "tasks/cancel", QJsonObject());
        QCOMPARE(TestClient::errorCode(f.client->response(8)), int(protocol::InvalidParams));
        QCOMPARE(f.slowStarts, 0);
        QCOMPARE(f.server->tasks()->size(), 0);
    }

    void modernEraACallBecomesATaskWhenTheRequestDeclaresTheExtension()
    {
        Fixture f;
        f.client->request("d", "server/discover");
        QVERIFY(f.client->response("d")
                    .value("result")
                    .toObject()
                    .value("capabilities")
                    .toObject()
                    .value("extensions")
                    .toObject()
                    .value("io.modelcontextprotocol/tasks")
                    .isObject());
        f.client->request(1, "tools/call",
                          QJsonObject{{"name", "wait"}, {"_meta", modernMeta(true)}});
        const QJsonObject created = f.client->response(1).value("result").toObject();
        QVERIFY(f.becameTask);
        QCOMPARE(created.value("resultType").toString(), QString("task"));
        QVERIFY(!created.contains("task")); // flat, no wrapper
        QVERIFY(!created.contains("ttl"));
        QCOMPARE(created.value("ttlMs").toInteger(), TaskStore::MaxTtlMs);
        QCOMPARE(created.value("pollIntervalMs").toInt(), TaskStore::PollIntervalMs);
        QCOMPARE(created.value("statusMessage").toString(), QString("waiting for a person"));
        const QString taskId = created.value("taskId").toString();
        QVERIFY(taskId.startsWith("task-"));

        // Without the extension the task methods are refused with -32021 and its data.
        f.client->request(2, "tasks/get",
                          QJsonObject{{"taskId", taskId}, {"_meta", modernMeta(false)}});
        const QJsonObject refused = f.client->response(2);
        QCOMPARE(TestClient::errorCode(refused), int(protocol::MissingRequiredClientCapability));
        QVERIFY(refused.value("error")
                    .toObject()
                    .value("data")
                    .toObject()
                    .value("requiredCapabilities")
                    .toObject()
                    .value("extensions")
                    .toObject()
                    .contains("io.modelcontextprotocol/tasks"));

        f.client->request(3, "tasks/get",
                          QJsonObject{{"taskId", taskId}, {"_meta", modernMeta(true)}});
        const QJsonObject working = f.client->response(3).value("result").toObject();
        QCOMPARE(working.value("status").toString(), QString("working"));
        QCOMPARE(working.value("resultType").toString(), QString("complete"));
        QVERIFY(!working.contains("result"));

        // The session that made it goes; the call goes on; another session reads the result.
        f.client->clientEnd.closeWriteChannel();
        QTRY_COMPARE(f.server->sessionCount(), 0);
        QVERIFY(f.slow && !f.slow->isCancelled());
        f.slow->finishStructured(QJsonObject{{"executed", true}}, "done");
        f.server->serve({"socket", &f.second->serverEnd, &f.second->serverEnd, true});
        f.second->request(4, "tasks/get",
                          QJsonObject{{"taskId", taskId}, {"_meta", modernMeta(true)}});
        const QJsonObject done = f.second->response(4).value("result").toObject();
        QCOMPARE(done.value("status").toString(), QString("completed"));
        QCOMPARE(
            done.value("result").toObject().value("structuredContent").toObject().value("executed"),
            QJsonValue(true));
        QVERIFY(!done.value("result").toObject().value("_meta").toObject().contains(
            "io.modelcontextprotocol/related-task"));
        // tasks/cancel of a finished task: the same empty acknowledgement.
        f.second->request(5, "tasks/cancel",
                          QJsonObject{{"taskId", taskId}, {"_meta", modernMeta(true)}});
        QCOMPARE(f.second->response(5).value("result").toObject(),
                 QJsonObject({{"resultType", "complete"}}));
        f.second->request(6, "tasks/get",
                          QJsonObject{{"taskId", "task-none"}, {"_meta", modernMeta(true)}});
        QCOMPARE(TestClient::errorCode(f.second->response(6)), int(protocol::InvalidParams));
    }

    void modernEraWithoutTheExtensionTheCallStaysACall()
    {
        Fixture f;
        f.client->request(1, "tools/call",
                          QJsonObject{{"name", "wait"}, {"_meta", modernMeta(false)}});
        QTRY_VERIFY(f.slow);
        QVERIFY(!f.becameTask);
        QCOMPARE(f.client->countResponses(1), 0);
        f.slow->finishStructured(QJsonObject{{"executed", false}}, "done");
        const QJsonObject result = f.client->response(1).value("result").toObject();
        QCOMPARE(result.value("resultType").toString(), QString("complete"));
        QCOMPARE(f.server->tasks()->size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSessionTasks)
#include "tst_sessiontasks.moc"
