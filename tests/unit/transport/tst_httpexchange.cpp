// HttpExchange: one request's one response. respond() is taken once (later answers ignored) and
// runs the daemon's hook once; a client gone before the answer makes it abandoned, once; a client
// gone after it, or a finished exchange, does not. The request's header lookups.
#include "TestEnvironment.h"
#include "transport/http/HttpExchange.h"

#include <QSignalSpy>
#include <QTest>

using namespace fb::transport;

class TestHttpExchange : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void respondOnceRunsTheHookOnce()
    {
        HttpExchange x;
        int hooked = 0;
        x.setOnAnswered([&] { ++hooked; });
        QVERIFY(!x.answered());
        HttpResponse first;
        first.status = 202;
        first.body = "first";
        x.respond(first);
        QVERIFY(x.answered());
        QCOMPARE(hooked, 1);
        HttpResponse second;
        second.status = 500;
        x.respond(second); // ignored
        QCOMPARE(x.response().status, 202);
        QCOMPARE(x.response().body, QByteArray("first"));
        QCOMPARE(hooked, 1);
    }

    void clientGoneBeforeTheAnswerAbandonsOnce()
    {
        HttpExchange x;
        int hooked = 0;
        x.setOnAnswered([&] { ++hooked; });
        QSignalSpy abandoned(&x, &HttpExchange::abandoned);
        x.finish(true);
        QVERIFY(x.finished());
        QCOMPARE(abandoned.count(), 1);
        x.finish(true); // once only
        QCOMPARE(abandoned.count(), 1);
        // A late answer still lands (it goes nowhere), and the daemon's hook is gone.
        x.respond(HttpResponse{});
        QVERIFY(x.answered());
        QCOMPARE(hooked, 0);
    }

    void finishAfterTheAnswerIsNotAbandoned()
    {
        HttpExchange answered;
        QSignalSpy spy1(&answered, &HttpExchange::abandoned);
        answered.respond(HttpResponse{});
        answered.finish(true);
        QCOMPARE(spy1.count(), 0);
        HttpExchange closedNormally;
        QSignalSpy spy2(&closedNormally, &HttpExchange::abandoned);
        closedNormally.finish(false);
        QVERIFY(closedNormally.finished());
        QCOMPARE(spy2.count(), 0);
    }

    void requestHeaders()
    {
        HttpExchange x;
        HttpRequest &r = x.mutableRequest();
        r.headers.insert("connection", "keep-alive");
        QCOMPARE(x.request().value("connection"), QByteArray("keep-alive"));
        QVERIFY(!x.request().wantsClose());
        r.headers["connection"] = "Keep-Alive, CLOSE";
        QVERIFY(x.request().wantsClose());
        QCOMPARE(x.request().value("absent"), QByteArray());
    }
};

QTEST_GUILESS_MAIN(TestHttpExchange)
#include "tst_httpexchange.moc"
