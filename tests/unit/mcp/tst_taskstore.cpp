// TaskStore: a task's life (working → completed / failed / cancelled), its status message and
// detail, tasks/result before and after the outcome, cancel before the start and while the
// irreversible step runs, the ttl, the bound on records, and the ids.
#include "TestEnvironment.h"
#include "mcp/TaskStore.h"
#include "mcp/ToolCall.h"

#include <QCoreApplication>
#include <QPointer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace fb::mcp;

namespace {

// Every call a case made; cleanup() deletes those still there (a call that never finished, or
// one whose deleteLater the case did not wait for).
QList<QPointer<ToolCall>> &made()
{
    static QList<QPointer<ToolCall>> calls;
    return calls;
}

ToolCall *newCall(const QString &tool = QStringLiteral("t"))
{
    ToolCallRequest request;
    request.id = 1;
    request.tool = tool;
    auto *call = new ToolCall(nullptr, request);
    made().append(call);
    return call;
}

} // namespace

class TestTaskStore : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void cleanup()
    {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        for (const QPointer<ToolCall> &call : std::exchange(made(), {}))
            delete call.data();
    }

    void aTaskWorksThenCompletesWithTheCallsResult()
    {
        qint64 now = 1'000'000;
        TaskStore store(nullptr, [&now] { return now; });
        QPointer<ToolCall> started;
        ToolCall *call = newCall();
        QString error;
        const auto state = store.start(
            call, [&started](ToolCall *c) { started = c; }, 7, std::nullopt, &error);
        QVERIFY(state);
        QVERIFY(QRegularExpression("^task-[0-9a-f]{32}$").match(state->taskId).hasMatch());
        QCOMPARE(state->status, QString("working"));
        QCOMPARE(state->ttlMs, TaskStore::MaxTtlMs);
        QCOMPARE(call->taskId(), state->taskId);
        QVERIFY(call->isTask());
        QVERIFY(!started); // from the event loop, not inside start()
        QTRY_VERIFY(started);

        // The status message follows the call's progress messages, token or not.
        call->progress(1, 10, "waiting for 1 of 2 team approvals");
        QCOMPARE(store.state(state->taskId)->statusMessage,
                 QString("waiting for 1 of 2 team approvals"));
        call->setTaskDetail(QJsonObject{{"stage", "asked"}});
        const QJsonObject shown = store.state(state->taskId)->toJson();
        QCOMPARE(shown.value("_meta")
                     .toObject()
                     .value(TaskStore::DetailMetaKey)
                     .toObject()
                     .value("stage")
                     .toString(),
                 QString("asked"));
        QCOMPARE(shown.value("pollInterval").toInt(), TaskStore::PollIntervalMs);
        QCOMPARE(shown.value("createdAt").toString(), QString("1970-01-01T00:16:40.000Z"));

        // tasks/result before the outcome waits for it.
        QList<TaskOutcome> outcomes;
        QVERIFY(store.awaitOutcome(state->taskId,
                                   [&outcomes](const TaskOutcome &o) { outcomes.append(o); }));
        QCOMPARE(outcomes.size(), 0);
        now += 5000;
        call->finishStructured(QJsonObject{{"executed", true}}, "done");
        QCOMPARE(outcomes.size(), 1);
        QVERIFY(!outcomes[0].protocolError);
        QCOMPARE(outcomes[0].result.value("structuredContent").toObject().value("executed"),
                 QJsonValue(true));
        const auto done = store.state(state->taskId);
        QCOMPARE(done->status, QString("completed"));
        QCOMPARE(done->lastUpdatedAtMs, now);
        // ... and after it, at once.
        QVERIFY(store.awaitOutcome(state->taskId,
                                   [&outcomes](const TaskOutcome &o) { outcomes.append(o); }));
        QCOMPARE(outcomes.size(), 2);
        QVERIFY(!store.awaitOutcome("task-unknown", [](const TaskOutcome &) {}));
    }

    void aToolErrorCompletesAProtocolErrorFails()
    {
        TaskStore store;
        ToolCall *a = newCall();
        const auto ta = store.start(
            a, [](ToolCall *c) { c->finishError("refused"); }, 1, std::nullopt, nullptr);
        ToolCall *b = newCall();
        const auto tb = store.start(
            b, [](ToolCall *c) { c->finishWithProtocolError(-32602, "bad params"); }, 1,
            std::nullopt, nullptr);
        QTRY_COMPARE(store.state(ta->taskId)->status, QString("completed"));
        QTRY_COMPARE(store.state(tb->taskId)->status, QString("failed"));
        QCOMPARE(store.state(tb->taskId)->statusMessage, QString("bad params"));
        TaskOutcome o;
        store.awaitOutcome(tb->taskId, [&o](const TaskOutcome &x) { o = x; });
        QVERIFY(o.protocolError);
        QCOMPARE(o.code, -32602);
        store.awaitOutcome(ta->taskId, [&o](const TaskOutcome &x) { o = x; });
        QVERIFY(!o.protocolError);
        QCOMPARE(o.result.value("isError"), QJsonValue(true));
    }

    void cancelBeforeTheStartRunsNothing()
    {
        TaskStore store;
        QPointer<ToolCall> call = newCall();
        bool ran = false;
        const auto t = store.start(
            call, [&ran](ToolCall *) { ran = true; }, 1, std::nullopt, nullptr);
        QString message;
        QCOMPARE(store.cancel(t->taskId, &message), TaskStore::Cancel::Cancelled);
        QVERIFY(call->isCancelled());
        QTRY_VERIFY(!call); // deleted unstarted
        QVERIFY(!ran);
        const auto s = store.state(t->taskId);
        QCOMPARE(s->status, QString("cancelled"));
        TaskOutcome o;
        QVERIFY(store.awaitOutcome(t->taskId, [&o](const TaskOutcome &x) { o = x; }));
        QVERIFY(o.protocolError);
        // A second cancel names the state it is in.
        QCOMPARE(store.cancel(t->taskId, &message), TaskStore::Cancel::Terminal);
        QVERIFY(message.contains("cancelled"));
        QCOMPARE(store.cancel("task-nope", &message), TaskStore::Cancel::Unknown);
    }

    void cancelWhileRunningCancelsTheCallAndKeepsItsAnswer()
    {
        TaskStore store;
        ToolCall *call = newCall();
        const auto t = store.start(
            call,
            [](ToolCall *c) {
                QObject::connect(c, &ToolCall::cancelled, c, [c](const QString &reason) {
                    c->finishStructured(QJsonObject{{"executed", false}, {"why", reason}}, "no");
                });
            },
            1, std::nullopt, nullptr);
        QTest::qWait(0);
        QTRY_VERIFY(!call->isCancelled());
        QCOMPARE(store.cancel(t->taskId, nullptr), TaskStore::Cancel::Cancelled);
        const auto s = store.state(t->taskId);
        QCOMPARE(s->status, QString("cancelled")); // stays cancelled with the call's answer
        TaskOutcome o;
        QVERIFY(store.awaitOutcome(t->taskId, [&o](const TaskOutcome &x) { o = x; }));
        QVERIFY(!o.protocolError);
        QCOMPARE(o.result.value("structuredContent").toObject().value("executed"),
                 QJsonValue(false));
    }

    void noCancelOnceTheIrreversibleStepStarted()
    {
        TaskStore store;
        QPointer<ToolCall> call = newCall();
        const auto t = store.start(
            call, [](ToolCall *c) { c->setReportEvenIfCancelled(true); }, 1, std::nullopt, nullptr);
        QTRY_VERIFY(call->reportsEvenIfCancelled());
        QString message;
        QCOMPARE(store.cancel(t->taskId, &message), TaskStore::Cancel::BeingSent);
        QVERIFY(message.contains("being sent"));
        QVERIFY(!call->isCancelled());
        QCOMPARE(store.state(t->taskId)->status, QString("working"));
        call->finishStructured(QJsonObject{{"executed", true}}, "ok");
        QTRY_COMPARE(store.state(t->taskId)->status, QString("completed"));
    }

    void theTtlIsClampedAndAFinishedTaskLeavesAfterIt()
    {
        qint64 now = 0;
        TaskStore store(nullptr, [&now] { return now; });
        const auto shortTtl = store.start(
            newCall(), [](ToolCall *c) { c->finishStructured({}, "x"); }, 1, qint64(1000), nullptr);
        QCOMPARE(shortTtl->ttlMs, TaskStore::MinTtlMs);
        const auto longTtl = store.start(
            newCall(), [](ToolCall *) {}, 1, qint64(99) * 3600 * 1000, nullptr);
        QCOMPARE(longTtl->ttlMs, TaskStore::MaxTtlMs);
        QTRY_COMPARE(store.state(shortTtl->taskId)->status, QString("completed"));
        now = TaskStore::MinTtlMs - 1;
        QVERIFY(store.state(shortTtl->taskId));
        now = TaskStore::MinTtlMs;
        QVERIFY(!store.state(shortTtl->taskId)); // finished and past its ttl: gone
        now = 10 * TaskStore::MaxTtlMs;
        QVERIFY(store.state(longTtl->taskId)); // still working: never dropped
    }

    void theStoreIsBounded()
    {
        TaskStore store;
        QList<QPointer<ToolCall>> calls;
        QList<QString> ids;
        for (int i = 0; i < TaskStore::MaxTasks; ++i) {
            ToolCall *c = newCall();
            calls.append(c);
            const auto t = store.start(
                c, [](ToolCall *) {}, 1, std::nullopt, nullptr);
            QVERIFY(t);
            ids.append(t->taskId);
        }
        QString error;
        ToolCall *extra = newCall();
        QVERIFY(!store.start(
            extra, [](ToolCall *) {}, 1, std::nullopt, &error));
        QVERIFY(error.contains("still working"));
        QTest::qWait(0);
        calls[3]->finishStructured({}, "done");
        calls[5]->finishStructured({}, "done");
        QVERIFY(store.start(
            extra, [](ToolCall *) {}, 1, std::nullopt, &error));
        QCOMPARE(store.size(), TaskStore::MaxTasks);
        QVERIFY(!store.state(ids[3])); // the oldest finished one made room
        QVERIFY(store.state(ids[5]));
        for (const auto &c : calls) {
            if (c && !c->isFinished())
                c->finishStructured({}, "end");
        }
    }

    void listShowsOneSessionsTasks()
    {
        TaskStore store;
        const auto a = store.start(
            newCall(), [](ToolCall *c) { c->finishStructured({}, "a"); }, 1, std::nullopt, nullptr);
        const auto b = store.start(
            newCall(), [](ToolCall *c) { c->finishStructured({}, "b"); }, 2, std::nullopt, nullptr);
        QCOMPARE(store.list(1).size(), 1);
        QCOMPARE(store.list(1).first().taskId, a->taskId);
        QCOMPARE(store.list(2).first().taskId, b->taskId);
        QVERIFY(store.list(3).isEmpty());
        QVERIFY(a->taskId != b->taskId);
    }
};

QTEST_GUILESS_MAIN(TestTaskStore)
#include "tst_taskstore.moc"
