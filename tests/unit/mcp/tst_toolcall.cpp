// ToolCall without a session (the session's side is tst_session): one call completes exactly
// once whichever way it finishes, a cancellation is an input that counts only before the end,
// the pre-serialized result is byte for byte Qt's own JSON, and a call without a live session
// never sends a request to the client (the callback still runs exactly once).
#include "TestEnvironment.h"
#include "mcp/ToolCall.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QSignalSpy>
#include <QTest>

using namespace fb::mcp;
using namespace Qt::StringLiterals;

namespace {

ToolCall *newCall(bool modern = false)
{
    ToolCallRequest r;
    r.id = QJsonValue(7);
    r.tool = u"fabric_list_metros"_s;
    r.arguments = QJsonObject{{u"limit"_s, 5}};
    r.modern = modern;
    if (modern) {
        r.modernClient.name = u"modern-client"_s;
        r.modernClient.capabilities =
            QJsonObject{{u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject{}}}}};
    }
    return new ToolCall(nullptr, r);
}

} // namespace

class TestToolCall : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void finishesExactlyOnce()
    {
        QPointer<ToolCall> call = newCall();
        QCOMPARE(call->toolName(), u"fabric_list_metros"_s);
        QCOMPARE(call->requestId(), QJsonValue(7));
        QCOMPARE(call->arguments().value(u"limit"_s).toInt(), 5);
        QSignalSpy finished(call.data(), &ToolCall::finished);
        QSignalSpy failed(call.data(), &ToolCall::failed);
        call->finishStructured(QJsonObject{{u"n"_s, 1}}, u"one"_s);
        QVERIFY(call->isFinished());
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"ToolCall::finish called twice"_s));
        call->finishError(u"again"_s);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"ToolCall finished twice"_s));
        call->finishWithProtocolError(-32602, u"late"_s);
        QCOMPARE(finished.size(), 1);
        QCOMPARE(failed.size(), 0);
        const QJsonObject result = finished.at(0).at(0).toJsonObject();
        QCOMPARE(result.value(u"structuredContent"_s).toObject().value(u"n"_s).toInt(), 1);
        QCOMPARE(result.value(u"isError"_s), QJsonValue(QJsonValue::Undefined));
        QTRY_VERIFY(call.isNull()); // deleted later
    }

    void protocolErrorInsteadOfResult()
    {
        QPointer<ToolCall> call = newCall();
        QSignalSpy finished(call.data(), &ToolCall::finished);
        QSignalSpy failed(call.data(), &ToolCall::failed);
        call->finishWithProtocolError(-32602, u"forged requestState"_s);
        QCOMPARE(failed.size(), 1);
        QCOMPARE(failed.at(0).at(0).toInt(), -32602);
        QCOMPARE(finished.size(), 0);
        QTRY_VERIFY(call.isNull());
    }

    void cancellationCountsOnlyBeforeTheEnd()
    {
        ToolCall *call = newCall();
        QSignalSpy cancelled(call, &ToolCall::cancelled);
        call->markCancelled(u"client cancelled"_s);
        call->markCancelled(u"second"_s);
        QCOMPARE(cancelled.size(), 1);
        QVERIFY(call->isCancelled());
        QCOMPARE(call->cancelReason(), u"client cancelled"_s);
        QVERIFY(!call->reportsEvenIfCancelled());
        call->setReportEvenIfCancelled(true);
        QVERIFY(call->reportsEvenIfCancelled());
        call->finishError(u"stopped"_s);

        ToolCall *done = newCall();
        QSignalSpy late(done, &ToolCall::cancelled);
        done->finishError(u"over"_s);
        done->markCancelled(u"too late"_s);
        QCOMPARE(late.size(), 0);
        QVERIFY(!done->isCancelled());
    }

    void preSerializedResultIsQtsOwnJson_data()
    {
        QTest::addColumn<QString>("lead");
        QTest::addColumn<bool>("isError");
        QTest::newRow("plain") << u"Proposal ready: "_s << false;
        QTest::newRow("quotes and controls in the lead") << u"a \"b\" \\ \n\t\u0001 é "_s << true;
    }
    void preSerializedResultIsQtsOwnJson()
    {
        QFETCH(QString, lead);
        QFETCH(bool, isError);
        const QJsonObject structured{{u"text"_s, u"with \"quotes\" and \\ and \n and é"_s},
                                     {u"list"_s, QJsonArray{1, u"two"_s}}};
        const QByteArray json = QJsonDocument(structured).toJson(QJsonDocument::Compact);
        ToolCall *call = newCall();
        QSignalSpy finished(call, &ToolCall::finished);
        call->finishStructuredJson(structured, lead, json, isError);
        QCOMPARE(finished.size(), 1);
        const QJsonObject result = finished.at(0).at(0).toJsonObject();
        QCOMPARE(call->resultJson(), QJsonDocument(result).toJson(QJsonDocument::Compact));
        QCOMPARE(result.value(u"content"_s).toArray().at(0).toObject().value(u"text"_s).toString(),
                 lead + QString::fromUtf8(json));
    }

    void noSessionNoClientRequest()
    {
        ToolCall *call = newCall();
        int calls = 0;
        ClientReply got;
        call->sendClientRequest(u"elicitation/create"_s, {}, 1000, [&](const ClientReply &r) {
            ++calls;
            got = r;
        });
        QTRY_COMPARE(calls, 1);
        QCOMPARE(got.status, ClientReply::Status::NotSent);
        QVERIFY(!got.message.isEmpty());
        call->progress(0.5); // nothing to send it to: no crash, no warning
        call->finishError(u"done"_s);
    }

    void modernEraClientIsTheRequests()
    {
        ToolCall *call = newCall(true);
        QVERIFY(call->isModernEra());
        QCOMPARE(call->client().name, u"modern-client"_s);
        QVERIFY(call->clientSupportsFormElicitation());
        call->finishError(u"done"_s);
        ToolCall *old = newCall(false);
        QVERIFY(!old->isModernEra());
        QVERIFY(!old->clientSupportsFormElicitation());
        old->finishError(u"done"_s);
    }
};

QTEST_GUILESS_MAIN(TestToolCall)
#include "tst_toolcall.moc"
