// FabricClient against a scripted loopback server: OAuth token fetch, sharing and refresh, the
// 401 refresh-and-retry for reads and dry runs, the never-retried create under every fault,
// body bytes on the wire, the dry-run rules, error mapping, the transport rules (HTTPS, redirects,
// timeouts, size cap), secret hygiene and the price context.
#include "FakeFabricServer.h"
#include "TestEnvironment.h"
#include "fabric/FabricClient.h"
#include "fabric/FabricParsing.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QSignalSpy>
#include <QtTest>

using namespace fb;
using fbtest::FakeFabricServer;
using fbtest::Scripted;
using Kind = FabricResult::Kind;

namespace {

const QString kSecret = QStringLiteral("s3cr3t-CLIENT-secret-0123456789");
const QString kStaticToken = QStringLiteral("static-TOKEN-abcdefghijklmnop");

// Canonical-looking bytes with an escaped character, so any re-serialisation would show.
const QByteArray kConnectionBody =
    "{\"aSide\":{\"accessPoint\":{\"location\":{\"metroCode\":\"SV\"},\"port\":{\"uuid\":"
    "\"c4d9350e-783c-83cd-1ce0-306a5c00a600\"},\"type\":\"COLO\"}},\"bandwidth\":50,\"name\":"
    "\"conn-caf\\u00e9\",\"notifications\":[{\"emails\":[\"ops@example.com\"],\"type\":\"ALL\"}],"
    "\"type\":\"EVPL_VC\",\"zSide\":{\"accessPoint\":{\"location\":{\"metroCode\":\"SV\"},"
    "\"profile\":{\"uuid\":\"20d32a80-0d61-4333-bc03-707b591ae2f2\"},\"type\":\"SP\"}}}";

CompiledRequest connectionRequest()
{
    CompiledRequest r;
    r.changeType = ChangeType::ConnectionCreate;
    r.path = QStringLiteral("/fabric/v4/connections");
    r.body = kConnectionBody;
    return r;
}

FabricConfig configFor(const FakeFabricServer &server, int timeoutMs = 3000)
{
    FabricConfig c;
    c.endpoint = server.url();
    c.clientId = QStringLiteral("client-id-1");
    c.clientSecret = kSecret;
    c.timeoutMs = timeoutMs;
    return c;
}

struct Outcome {
    int emitted = 0;
    FabricResult result;
    QPointer<FabricCall> call;
};

// Waits for the call to finish; checks "finished exactly once" and "deleted later".
FabricResult waitFor(FabricCall *call, int ms = 8000, int *emittedOut = nullptr)
{
    auto out = std::make_shared<Outcome>();
    out->call = call;
    QObject::connect(call, &FabricCall::finished, [out](const FabricResult &r) {
        ++out->emitted;
        out->result = r;
    });
    QElapsedTimer t;
    t.start();
    while (out->emitted == 0 && t.elapsed() < ms)
        QTest::qWait(5);
    // Let a possible second emission or the deferred delete happen.
    QTest::qWait(20);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    if (emittedOut)
        *emittedOut = out->emitted;
    qDebug().noquote() << "result:" << FabricResult::kindName(out->result.kind) << "-"
                       << out->result.message;
    if (out->emitted != 1)
        qWarning() << "finished emitted" << out->emitted << "times";
    if (out->call)
        qWarning() << "call object was not deleted after finishing";
    return out->result;
}

#define WAIT_RESULT(var, callExpr)                                                                 \
    int var##Emitted = 0;                                                                          \
    QPointer<FabricCall> var##Ptr(callExpr);                                                       \
    const FabricResult var = waitFor(var##Ptr, 8000, &var##Emitted);                               \
    QCOMPARE(var##Emitted, 1);                                                                     \
    QVERIFY(var##Ptr.isNull())

QByteArray errorList(const QByteArray &code, const QByteArray &message,
                     const QByteArray &property = {}, const QByteArray &reason = {})
{
    QJsonObject e{{QStringLiteral("errorCode"), QString::fromUtf8(code)},
                  {QStringLiteral("errorMessage"), QString::fromUtf8(message)},
                  {QStringLiteral("correlationId"), QStringLiteral("corr-from-fabric")}};
    if (!property.isEmpty() || !reason.isEmpty())
        e.insert(QStringLiteral("additionalInfo"),
                 QJsonArray{QJsonObject{{QStringLiteral("property"), QString::fromUtf8(property)},
                                        {QStringLiteral("reason"), QString::fromUtf8(reason)}}});
    return QJsonDocument(QJsonArray{e}).toJson(QJsonDocument::Compact);
}

const QByteArray kConnectionReply = "{\"uuid\":\"11111111-2222-3333-4444-555555555555\","
                                    "\"name\":\"conn-a\",\"state\":\"PROVISIONING\"}";
const QByteArray kDryRunReply = "{\"type\":\"EVPL_VC\",\"name\":\"conn-a\",\"bandwidth\":50}";

void assertNoSecrets(const FabricResult &r, const QStringList &secrets)
{
    const QByteArray blob = QJsonDocument(r.toJson()).toJson() + r.message.toUtf8();
    for (const QString &s : secrets) {
        if (blob.contains(s.toUtf8()))
            QFAIL(qPrintable(QStringLiteral("secret leaked into the result: ") +
                             QString::fromUtf8(blob)));
    }
}

} // namespace

class TestFabricClient : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings({QStringLiteral("outcome unknown for POST ")}); }

    void configFromEnvironment()
    {
        QProcessEnvironment env;
        FabricConfig c = FabricConfig::fromEnvironment(env);
        QCOMPARE(c.endpoint, QUrl(QStringLiteral("https://api.equinix.com")));
        QVERIFY(!c.hasCredentials());
        QCOMPARE(c.credentialSource(), QStringLiteral("none"));
        QCOMPARE(c.timeoutMs, 30000);

        env.insert(QStringLiteral("EQUINIX_API_TOKEN"), kStaticToken);
        c = FabricConfig::fromEnvironment(env);
        QVERIFY(c.hasCredentials());
        QCOMPARE(c.credentialSource(), QStringLiteral("static token (EQUINIX_API_TOKEN)"));

        env.insert(QStringLiteral("EQUINIX_CLIENT_ID"), QStringLiteral("alt-id"));
        env.insert(QStringLiteral("EQUINIX_CLIENT_SECRET"), QStringLiteral("alt-secret"));
        env.insert(QStringLiteral("EQUINIX_API_ENDPOINT"),
                   QStringLiteral("https://uat.example.com"));
        env.insert(QStringLiteral("EQUINIX_API_TIMEOUT_MS"), QStringLiteral("1234"));
        c = FabricConfig::fromEnvironment(env);
        QCOMPARE(c.clientId, QStringLiteral("alt-id"));
        QCOMPARE(c.clientSecret, QStringLiteral("alt-secret"));
        QCOMPARE(c.credentialSource(), QStringLiteral("client credentials (EQUINIX_API_CLIENTID)"));
        QCOMPARE(c.endpoint.host(), QStringLiteral("uat.example.com"));
        QCOMPARE(c.timeoutMs, 1234);

        env.insert(QStringLiteral("EQUINIX_API_CLIENTID"), QStringLiteral("main-id"));
        env.insert(QStringLiteral("EQUINIX_API_CLIENTSECRET"), QStringLiteral("main-secret"));
        env.insert(QStringLiteral("EQUINIX_API_TIMEOUT_MS"), QStringLiteral("-5"));
        c = FabricConfig::fromEnvironment(env);
        QCOMPARE(c.clientId, QStringLiteral("main-id"));
        QCOMPARE(c.clientSecret, QStringLiteral("main-secret"));
        QCOMPARE(c.timeoutMs, 30000);
    }

    void endpointRules_data()
    {
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<bool>("usable");
        QTest::newRow("https") << "https://api.equinix.com" << true;
        QTest::newRow("http-127") << "http://127.0.0.1:8080" << true;
        QTest::newRow("http-localhost") << "http://localhost:8080" << true;
        QTest::newRow("http-::1") << "http://[::1]:8080" << true;
        QTest::newRow("http-remote") << "http://api.equinix.com" << false;
        QTest::newRow("http-127-lookalike") << "http://127.0.0.1.evil.example" << false;
        QTest::newRow("ftp") << "ftp://127.0.0.1" << false;
        QTest::newRow("userinfo") << "https://user:pw@api.equinix.com" << false;
        QTest::newRow("garbage") << "not a url" << false;
    }
    void endpointRules()
    {
        QFETCH(QString, endpoint);
        QFETCH(bool, usable);
        FabricConfig c;
        c.endpoint = QUrl(endpoint);
        QCOMPARE(c.endpointProblem().isEmpty(), usable);
        QVERIFY(!c.endpointProblem().contains(QStringLiteral("pw")));
    }

    void httpsRequiredForRemoteHosts()
    {
        FabricConfig c;
        c.endpoint = QUrl(QStringLiteral("http://api.example.invalid"));
        c.staticToken = kStaticToken;
        FabricClient client(c);
        WAIT_RESULT(r, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(r.kind, Kind::NetworkError);
        QVERIFY(!r.requestSent);
        QVERIFY2(r.message.contains(QStringLiteral("HTTPS")), qPrintable(r.message));
        WAIT_RESULT(c2, client.create(connectionRequest()));
        QCOMPARE(c2.kind, Kind::NetworkError);
        QVERIFY(!c2.requestSent);
    }

    void tokenFetchedOnceAndSharedByConcurrentCalls()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(200, "{\"data\":[]}", 50));
        server.enqueue("POST", "/oauth2/v1/token",
                       Scripted::json(200,
                                      "{\"access_token\":\"tok-shared\",\"token_timeout\":"
                                      "\"3600\"}",
                                      150));
        FabricClient client(configFor(server));
        QList<QPointer<FabricCall>> calls;
        QList<FabricResult> results;
        for (int i = 0; i < 4; ++i) {
            FabricCall *call = client.get(QStringLiteral("/fabric/v4/metros"));
            connect(call, &FabricCall::finished, this,
                    [&results](const FabricResult &r) { results.append(r); });
            calls.append(call);
        }
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 4, 8000);
        for (const FabricResult &r : results)
            QCOMPARE(r.kind, Kind::Ok);
        QCOMPARE(server.count("POST", "/oauth2/v1/token"), 1);
        const auto tokenReq = server.matching("POST", "/oauth2/v1/token").first();
        QVERIFY(tokenReq.header("content-type").startsWith("application/json"));
        const QJsonObject body = QJsonDocument::fromJson(tokenReq.body).object();
        QCOMPARE(body.value(QStringLiteral("grant_type")).toString(),
                 QStringLiteral("client_credentials"));
        QCOMPARE(body.value(QStringLiteral("client_id")).toString(), QStringLiteral("client-id-1"));
        QCOMPARE(body.value(QStringLiteral("client_secret")).toString(), kSecret);
        const auto gets = server.matching("GET", "/fabric/v4/metros");
        QCOMPARE(gets.size(), 4);
        QSet<QByteArray> ids;
        for (const auto &g : gets) {
            QCOMPARE(g.header("authorization"), QByteArray("Bearer tok-shared"));
            const QByteArray id = g.header("x-correlation-id");
            QVERIFY(!QUuid::fromString(QString::fromLatin1(id)).isNull());
            ids.insert(id);
        }
        QCOMPARE(ids.size(), 4);
        QSet<QString> resultIds;
        for (const FabricResult &r : results)
            resultIds.insert(r.correlationId);
        QCOMPARE(resultIds.size(), 4);
        QVERIFY(resultIds.contains(QString::fromLatin1(gets.first().header("x-correlation-id"))));
    }

    void tokenRefreshedBeforeExpiry()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.tokenTimeout = "120"; // margin min(60, 12) = 12 s -> refresh after 108 s
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(200, "{\"data\":[]}"));
        ManualClock clock;
        FabricClient client(configFor(server));
        client.setClock(&clock);
        WAIT_RESULT(a, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(a.kind, Kind::Ok);
        QCOMPARE(server.tokensIssued(), 1);
        clock.advanceMs(100 * 1000);
        WAIT_RESULT(b, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(b.kind, Kind::Ok);
        QCOMPARE(server.tokensIssued(), 1);
        clock.advanceMs(9 * 1000);
        WAIT_RESULT(c, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(c.kind, Kind::Ok);
        QCOMPARE(server.tokensIssued(), 2);
        QCOMPARE(server.requests.last().header("authorization"), QByteArray("Bearer tok-2"));
    }

    void tokenLifetimeFallsBackTo3600()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.includeTokenTimeout = false; // 3600 s, margin 60 s -> refresh after 3540 s
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(200, "{\"data\":[]}"));
        ManualClock clock;
        FabricClient client(configFor(server));
        client.setClock(&clock);
        WAIT_RESULT(a, client.get(QStringLiteral("/fabric/v4/metros")));
        clock.advanceMs(3500 * 1000);
        WAIT_RESULT(b, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(server.tokensIssued(), 1);
        clock.advanceMs(41 * 1000);
        WAIT_RESULT(c, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(server.tokensIssued(), 2);
        QCOMPARE(c.kind, Kind::Ok);
    }

    void readRetriedOnceAfter401()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/ports",
                       Scripted::json(401, errorList("EQ-3000039", "token expired")));
        server.enqueue("GET", "/fabric/v4/ports",
                       Scripted::json(200, "{\"data\":[{\"uuid\":\"p\"}]}"));
        FabricClient client(configFor(server));
        QUrlQuery q;
        q.addQueryItem(QStringLiteral("offset"), QStringLiteral("0"));
        q.addQueryItem(QStringLiteral("limit"), QStringLiteral("20"));
        WAIT_RESULT(r, client.get(QStringLiteral("/fabric/v4/ports"), q));
        QCOMPARE(r.kind, Kind::Ok);
        QCOMPARE(server.count("GET", "/fabric/v4/ports"), 2);
        QCOMPARE(server.tokensIssued(), 2);
        const auto gets = server.matching("GET", "/fabric/v4/ports");
        QCOMPARE(gets.at(0).header("authorization"), QByteArray("Bearer tok-1"));
        QCOMPARE(gets.at(1).header("authorization"), QByteArray("Bearer tok-2"));
        QCOMPARE(gets.at(1).query, QByteArray("offset=0&limit=20"));
        QVERIFY(gets.at(0).header("x-correlation-id") != gets.at(1).header("x-correlation-id"));
    }

    void readGivesUpAfterSecond401()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/ports",
                       Scripted::json(401, errorList("EQ-3000039", "no")));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.get(QStringLiteral("/fabric/v4/ports")));
        QCOMPARE(r.kind, Kind::AuthError);
        QCOMPARE(r.httpStatus, 401);
        QCOMPARE(server.count("GET", "/fabric/v4/ports"), 2);
        QCOMPARE(server.tokensIssued(), 2);
    }

    void dryRunRetriedOnceAfter401()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/connections", Scripted::json(401, "{}"));
        server.enqueue("POST", "/fabric/v4/connections", Scripted::json(201, kDryRunReply));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.dryRun(connectionRequest()));
        QCOMPARE(r.kind, Kind::Ok);
        const auto posts = server.matching("POST", "/fabric/v4/connections");
        QCOMPARE(posts.size(), 2);
        for (const auto &p : posts) {
            QCOMPARE(p.query, QByteArray("dryRun=true"));
            QCOMPARE(p.body, kConnectionBody);
        }
    }

    void createAndDryRunSendBodyBytesUnchanged()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/connections", Scripted::json(200, kDryRunReply));
        server.enqueue("POST", "/fabric/v4/connections", Scripted::json(201, kConnectionReply));
        FabricClient client(configFor(server));
        WAIT_RESULT(dry, client.dryRun(connectionRequest()));
        QCOMPARE(dry.kind, Kind::Ok);
        QVERIFY(dry.requestSent);
        QCOMPARE(dry.path, QStringLiteral("/fabric/v4/connections?dryRun=true"));
        WAIT_RESULT(made, client.create(connectionRequest()));
        QCOMPARE(made.kind, Kind::Ok);
        QCOMPARE(made.httpStatus, 201);
        QCOMPARE(made.body.toObject().value(QStringLiteral("uuid")).toString(),
                 QStringLiteral("11111111-2222-3333-4444-555555555555"));
        const auto posts = server.matching("POST", "/fabric/v4/connections");
        QCOMPARE(posts.size(), 2);
        QCOMPARE(posts.at(0).query, QByteArray("dryRun=true"));
        QCOMPARE(posts.at(1).query, QByteArray());
        for (const auto &p : posts) {
            QCOMPARE(p.body, kConnectionBody);
            QVERIFY(p.header("content-type").startsWith("application/json"));
            QCOMPARE(p.header("authorization"), QByteArray("Bearer tok-1"));
            QVERIFY(!p.header("x-correlation-id").isEmpty());
        }
        QCOMPARE(made.correlationId, QString::fromLatin1(posts.at(1).header("x-correlation-id")));
    }

    void createIsNeverRetried_data()
    {
        QTest::addColumn<int>("fault");
        QTest::addColumn<int>("expectedKind");
        QTest::addColumn<bool>("expectSent");
        QTest::newRow("401") << 0 << int(Kind::AuthError) << true;
        // Fabric may commit and then fail: a 5xx, even with an ErrorList, is not a rejection.
        QTest::newRow("500-errorlist") << 1 << int(Kind::OutcomeUnknown) << true;
        QTest::newRow("503-plain") << 2 << int(Kind::OutcomeUnknown) << true;
        QTest::newRow("502-gateway") << 3 << int(Kind::OutcomeUnknown) << true;
        QTest::newRow("timeout") << 4 << int(Kind::OutcomeUnknown) << true;
        QTest::newRow("close-after-request") << 5 << int(Kind::OutcomeUnknown) << true;
        QTest::newRow("reset-after-request") << 6 << int(Kind::OutcomeUnknown) << true;
        QTest::newRow("400-errorlist") << 7 << int(Kind::FabricError) << true;
        QTest::newRow("201-without-uuid") << 8 << int(Kind::OutcomeUnknown) << true;
        QTest::newRow("201-malformed") << 9 << int(Kind::OutcomeUnknown) << true;
        QTest::newRow("400-plain") << 10 << int(Kind::OutcomeUnknown) << true;
        QTest::newRow("307-redirect") << 11 << int(Kind::OutcomeUnknown) << true;
    }
    void createIsNeverRetried()
    {
        QFETCH(int, fault);
        QFETCH(int, expectedKind);
        QFETCH(bool, expectSent);
        FakeFabricServer server;
        QVERIFY(server.listen());
        const QList<Scripted> faults = {
            Scripted::json(401, errorList("EQ-3000039", "token expired")),
            Scripted::json(500, errorList("EQ-3142000", "Internal Server Error")),
            Scripted::json(503, "<html>unavailable</html>"),
            Scripted::json(502, "bad gateway"),
            Scripted::hang(),
            Scripted::close(),
            Scripted::reset(),
            Scripted::json(400, errorList("EQ-3142306", "bandwidth not supported by the profile",
                                          "/bandwidth")),
            Scripted::json(201, R"({"name":"conn-caf","state":"PROVISIONING"})"),
            Scripted::json(201, R"({"uuid":"c0ffee",)"),
            Scripted::json(400, "<html>bad request</html>"),
            Scripted::json(307, "{}"),
        };
        server.enqueue("POST", "/fabric/v4/connections", faults.at(fault));
        FabricClient client(configFor(server, 700));
        WAIT_RESULT(r, client.create(connectionRequest()));
        QCOMPARE(int(r.kind), expectedKind);
        QCOMPARE(r.requestSent, expectSent);
        // Give any (wrong) automatic resend the time to show up.
        QTest::qWait(600);
        QCOMPARE(server.count("POST", "/fabric/v4/connections"), 1);
        QCOMPARE(server.tokensIssued(), 1);
        QCOMPARE(server.matching("POST", "/fabric/v4/connections").first().body, kConnectionBody);
        if (r.kind == Kind::OutcomeUnknown) {
            QVERIFY2(r.message.contains(QStringLiteral("POST /fabric/v4/connections/search")),
                     qPrintable(r.message));
            QVERIFY2(r.message.contains(QStringLiteral("conn-caf")), qPrintable(r.message));
            QVERIFY2(r.message.contains(r.correlationId), qPrintable(r.message));
            QVERIFY(!r.correlationId.isEmpty());
        }
        QVERIFY(!r.message.isEmpty());
    }

    void createAfterTokenFailureIsNotSent()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/oauth2/v1/token", Scripted::close());
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.create(connectionRequest()));
        QCOMPARE(r.kind, Kind::AuthError);
        QVERIFY(!r.requestSent);
        QVERIFY2(r.message.contains(QStringLiteral("not sent")), qPrintable(r.message));
        QCOMPARE(server.count("POST", "/fabric/v4/connections"), 0);
    }

    void createRefusesForeignPathOrMethod()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        FabricClient client(configFor(server));
        CompiledRequest req = connectionRequest();
        req.path = QStringLiteral("/fabric/v4/networks");
        WAIT_RESULT(a, client.create(req));
        QCOMPARE(a.kind, Kind::NetworkError);
        QVERIFY(!a.requestSent);
        req = connectionRequest();
        req.method = "DELETE";
        WAIT_RESULT(b, client.create(req));
        QVERIFY(!b.requestSent);
        QCOMPARE(server.requests.size(), 0);
    }

    void dryRunReplyWithUuidIsRejected()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/connections", Scripted::json(200, kConnectionReply));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.dryRun(connectionRequest()));
        QCOMPARE(r.kind, Kind::InvalidResponse);
        QVERIFY2(r.message.contains(QStringLiteral("11111111-2222-3333-4444-555555555555")),
                 qPrintable(r.message));
        QCOMPARE(server.count("POST", "/fabric/v4/connections"), 1);
    }

    void dryRunUnsupportedIsItsOwnError()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/connections",
                       Scripted::json(400, "[{\"errorCode\":\"EQ-3142411\",\"errorMessage\":\"Dry "
                                           "run is not supported for this connection type\","
                                           "\"correlationId\":\"1012536-0000-108258589231-api\","
                                           "\"additionalInfo\":[{\"reason\":\"queryParam:dryRun\"}]"
                                           "}]"));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.dryRun(connectionRequest()));
        QCOMPARE(r.kind, Kind::DryRunUnsupported);
        QCOMPARE(FabricResult::kindName(r.kind), QStringLiteral("dry_run_unsupported"));
        QCOMPARE(r.errors.size(), 1);
        QCOMPARE(r.errors.first().errorCode, QStringLiteral("EQ-3142411"));
        QTest::qWait(100);
        const auto posts = server.matching("POST", "/fabric/v4/connections");
        QCOMPARE(posts.size(), 1);
        QCOMPARE(posts.first().query, QByteArray("dryRun=true"));
    }

    void errorListIsParsedAndDescribed()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue(
            "POST", "/fabric/v4/connections",
            Scripted::json(400, errorList("EQ-3142306", "bandwidth not supported by the profile",
                                          "/bandwidth")));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.dryRun(connectionRequest()));
        QCOMPARE(r.kind, Kind::FabricError);
        QCOMPARE(r.httpStatus, 400);
        QCOMPARE(r.errors.size(), 1);
        QCOMPARE(r.errors.first().correlationId, QStringLiteral("corr-from-fabric"));
        QCOMPARE(r.errors.first().additionalInfo.size(), 1);
        QCOMPARE(r.errors.first().additionalInfo.first().first, QStringLiteral("/bandwidth"));
        QVERIFY2(r.message.contains(QStringLiteral(
                     "EQ-3142306 bandwidth not supported by the profile (at /bandwidth)")),
                 qPrintable(r.message));
        const QJsonObject j = r.toJson();
        QCOMPARE(j.value(QStringLiteral("kind")).toString(), QStringLiteral("fabric_error"));
        QCOMPARE(j.value(QStringLiteral("http_status")).toInt(), 400);
        QCOMPARE(j.value(QStringLiteral("errors")).toArray().size(), 1);
        QCOMPARE(j.value(QStringLiteral("errors"))[0][QStringLiteral("error_code")].toString(),
                 QStringLiteral("EQ-3142306"));
        QVERIFY(!j.contains(QStringLiteral("body")));
    }

    void errorListParserUnit()
    {
        QVERIFY(!parseFabricErrorList("not json"));
        QVERIFY(!parseFabricErrorList("[]"));
        QVERIFY(!parseFabricErrorList("[1,2]"));
        QVERIFY(!parseFabricErrorList("{\"uuid\":\"x\"}"));
        QVERIFY(!parseStrictJson("{\"a\":1} trailing"));
        QVERIFY(!parseStrictJson("\"scalar\""));
        const auto one = parseFabricErrorList("{\"errorCode\":\"EQ-1\",\"errorMessage\":\"m\"}");
        QVERIFY(one);
        QCOMPARE(one->size(), 1);
        QList<FabricError> many(5);
        for (int i = 0; i < 5; ++i) {
            many[i].errorCode = QStringLiteral("EQ-%1").arg(i);
            many[i].errorMessage = QStringLiteral("m%1\nline").arg(i);
        }
        const QString d = describeFabricErrors(many);
        QVERIFY2(d.contains(QStringLiteral("and 2 more")), qPrintable(d));
        QVERIFY(!d.contains(u'\n'));
    }

    void oauthErrorIsAuthErrorAndNotRetried()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/oauth2/v1/token",
                       Scripted::json(400, "{\"error_domain\":\"apps-fqa\",\"error_title\":"
                                           "\"Invalid client\",\"error_code\":\"S1001\","
                                           "\"developer_message\":\"Please enter valid client id "
                                           "and secret\",\"error_message\":\"Invalid client id or "
                                           "secret\"}"));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(r.kind, Kind::AuthError);
        QVERIFY(!r.requestSent);
        QVERIFY2(r.message.contains(QStringLiteral("Invalid client id or secret")),
                 qPrintable(r.message));
        QVERIFY2(r.message.contains(QStringLiteral("S1001")), qPrintable(r.message));
        QCOMPARE(server.count("POST", "/oauth2/v1/token"), 1);
        QCOMPARE(server.count("GET", "/fabric/v4/metros"), 0);
        WAIT_RESULT(t, client.testConnection());
        QCOMPARE(t.kind, Kind::AuthError);
    }

    void testConnectionObtainsToken()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.testConnection());
        QCOMPARE(r.kind, Kind::Ok);
        QCOMPARE(server.tokensIssued(), 1);
        QVERIFY(!QJsonDocument(r.body.toObject()).toJson().contains("tok-1"));
        assertNoSecrets(r, {kSecret, QStringLiteral("tok-1")});
    }

    void noCredentialsIsAuthError()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        FabricConfig c;
        c.endpoint = server.url();
        FabricClient client(c);
        WAIT_RESULT(r, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(r.kind, Kind::AuthError);
        QVERIFY(r.message.contains(QStringLiteral("EQUINIX_API_CLIENTID")));
        QCOMPARE(server.requests.size(), 0);
    }

    void staticTokenUsedAsIsAndNotRefreshed()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(200, "{\"data\":[]}"));
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(401, "{}"));
        FabricConfig c;
        c.endpoint = server.url();
        c.staticToken = kStaticToken;
        FabricClient client(c);
        WAIT_RESULT(a, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(a.kind, Kind::Ok);
        QCOMPARE(server.requests.last().header("authorization"),
                 QByteArray("Bearer ") + kStaticToken.toUtf8());
        WAIT_RESULT(b, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(b.kind, Kind::AuthError);
        QVERIFY(b.message.contains(QStringLiteral("EQUINIX_API_TOKEN")));
        QCOMPARE(server.count("GET", "/fabric/v4/metros"), 2);
        QCOMPARE(server.count("POST", "/oauth2/v1/token"), 0);
        assertNoSecrets(b, {kStaticToken});
    }

    void credentialsTakePrecedenceOverStaticToken()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(200, "{\"data\":[]}"));
        FabricConfig c = configFor(server);
        c.staticToken = kStaticToken;
        FabricClient client(c);
        WAIT_RESULT(a, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(server.tokensIssued(), 1);
        QCOMPARE(server.requests.last().header("authorization"), QByteArray("Bearer tok-1"));
    }

    void pathsOutsideFabricV4AreRefused()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        FabricClient client(configFor(server));
        const QStringList bad = {
            QStringLiteral("/oauth2/v1/token"),     QStringLiteral("/fabric/v3/ports"),
            QStringLiteral("/fabric/v4/../../etc"), QStringLiteral("fabric/v4/ports"),
            QStringLiteral("/fabric/v4/ports?x=1"), QStringLiteral("/fabric/v4//ports"),
            QStringLiteral("/fabric/v4/")};
        for (const QString &p : bad) {
            WAIT_RESULT(r, client.get(p));
            QVERIFY2(r.kind == Kind::NetworkError && !r.requestSent, qPrintable(p));
            QVERIFY2(!r.message.isEmpty(), qPrintable(p));
        }
        // search() only posts to .../search endpoints: never to a collection that creates.
        WAIT_RESULT(s, client.search(QStringLiteral("/fabric/v4/connections"), QJsonObject()));
        QCOMPARE(s.kind, Kind::NetworkError);
        QVERIFY(s.message.contains(QStringLiteral("search")));
        QCOMPARE(server.requests.size(), 0);
    }

    void searchPostsJson()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/routers/search",
                       Scripted::json(200, "{\"data\":[],\"pagination\":{\"offset\":0,\"limit\":"
                                           "20,\"total\":0}}"));
        FabricClient client(configFor(server));
        QSignalSpy activity(&client, &FabricClient::requestFinished);
        const QJsonObject body{
            {QStringLiteral("pagination"),
             QJsonObject{{QStringLiteral("offset"), 0}, {QStringLiteral("limit"), 20}}}};
        WAIT_RESULT(r, client.search(QStringLiteral("/fabric/v4/routers/search"), body));
        QCOMPARE(r.kind, Kind::Ok);
        QCOMPARE(
            r.body.toObject().value(QStringLiteral("pagination"))[QStringLiteral("limit")].toInt(),
            20);
        const auto req = server.matching("POST", "/fabric/v4/routers/search").first();
        QCOMPARE(QJsonDocument::fromJson(req.body).object(), body);
        QVERIFY(req.header("content-type").startsWith("application/json"));
        // activity: token + search, never a secret
        QCOMPARE(activity.size(), 2);
        const QList<QVariant> last = activity.last();
        QCOMPARE(last.at(0).toString(), QStringLiteral("POST"));
        QCOMPARE(last.at(1).toString(), QStringLiteral("/fabric/v4/routers/search"));
        QCOMPARE(last.at(2).toInt(), 200);
        QCOMPARE(last.at(3).toString(), r.correlationId);
    }

    void crossOriginRedirectIsRefused()
    {
        FakeFabricServer server;
        FakeFabricServer other;
        QVERIFY(server.listen());
        QVERIFY(other.listen());
        server.enqueue(
            "GET", "/fabric/v4/metros",
            Scripted::redirect(302, other.url().toString().toUtf8() + "/fabric/v4/metros"));
        other.enqueue("GET", "/fabric/v4/metros", Scripted::json(200, "{\"data\":[]}"));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(server.count("GET", "/fabric/v4/metros"), 1);
        QCOMPARE(other.requests.size(), 0);
        QCOMPARE(r.kind, Kind::HttpError);
        QVERIFY2(r.message.contains(QStringLiteral("redirect")), qPrintable(r.message));
    }

    void sameOriginRedirectIsFollowedForReads()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros/SV",
                       Scripted::redirect(301, "/fabric/v4/metros/SV1"));
        server.enqueue("GET", "/fabric/v4/metros/SV1", Scripted::json(200, "{\"code\":\"SV\"}"));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.get(QStringLiteral("/fabric/v4/metros/SV")));
        QCOMPARE(r.kind, Kind::Ok);
        QCOMPARE(server.count("GET", "/fabric/v4/metros/SV1"), 1);
        QCOMPARE(server.matching("GET", "/fabric/v4/metros/SV1").first().header("authorization"),
                 QByteArray("Bearer tok-1"));
    }

    void redirectOfADryRunIsNotFollowed()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/connections",
                       Scripted::redirect(307, "/fabric/v4/connections"));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.dryRun(connectionRequest()));
        QCOMPARE(r.kind, Kind::HttpError);
        QCOMPARE(r.httpStatus, 307);
        QTest::qWait(100);
        QCOMPARE(server.count("POST", "/fabric/v4/connections"), 1);
    }

    void readTimesOut()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros", Scripted::hang());
        FabricClient client(configFor(server, 400));
        QElapsedTimer t;
        t.start();
        WAIT_RESULT(r, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(r.kind, Kind::Timeout);
        QVERIFY(t.elapsed() < 4000);
        QVERIFY2(r.message.contains(QStringLiteral("400 ms")), qPrintable(r.message));
        QCOMPARE(server.count("GET", "/fabric/v4/metros"), 1);
    }

    void dryRunTimesOutAsTimeout()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/connections", Scripted::hang());
        FabricClient client(configFor(server, 400));
        WAIT_RESULT(r, client.dryRun(connectionRequest()));
        QCOMPARE(r.kind, Kind::Timeout);
    }

    void connectionRefusedBeforeSendingCreate()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        FabricConfig c = configFor(server);
        c.staticToken = kStaticToken;
        c.clientId.clear();
        c.clientSecret.clear();
        quint16 deadPort = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            deadPort = probe.serverPort();
        }
        c.endpoint = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(deadPort));
        FabricClient client(c);
        WAIT_RESULT(r, client.create(connectionRequest()));
        QCOMPARE(r.kind, Kind::NetworkError);
        QVERIFY(!r.requestSent);
        QVERIFY2(r.message.contains(QStringLiteral("nothing was created")), qPrintable(r.message));
    }

    void oversizedReplyIsInvalid()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros",
                       Scripted::json(200, "{\"data\":\"" + QByteArray(8000, 'x') + "\"}"));
        FabricConfig c = configFor(server);
        c.maxResponseBytes = 1024;
        FabricClient client(c);
        WAIT_RESULT(r, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(r.kind, Kind::InvalidResponse);
        QVERIFY2(r.message.contains(QStringLiteral("1024")), qPrintable(r.message));
    }

    void aFileIsDescribedNeverParsedNorKept()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        Scripted png;
        png.status = 200;
        png.body = QByteArray("\x89PNG\r\n\x1a\n", 8) + QByteArray(100, '\0');
        png.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("image/png")));
        server.enqueue("GET", "/fabric/v4/logos/l1", png);
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.getFile(QStringLiteral("/fabric/v4/logos/l1")));
        QCOMPARE(r.kind, Kind::Ok);
        const QJsonObject file = r.body.toObject();
        QCOMPARE(file.value(QStringLiteral("content_type")).toString(),
                 QStringLiteral("image/png"));
        QCOMPARE(file.value(QStringLiteral("bytes")).toInteger(), 108);
        QCOMPARE(file.value(QStringLiteral("sha256")).toString(),
                 QString::fromLatin1(
                     QCryptographicHash::hash(png.body, QCryptographicHash::Sha256).toHex()));
        QCOMPARE(file.size(), 3);
        const auto req = server.matching("GET", "/fabric/v4/logos/l1").first();
        QCOMPARE(req.header("accept"), QByteArray("*/*"));
        // A failure is still Fabric's error list, read as JSON.
        server.enqueue("GET", "/fabric/v4/logos/l2",
                       Scripted::json(404, R"([{"errorCode":"EQ-1","errorMessage":"no logo"}])"));
        WAIT_RESULT(e, client.getFile(QStringLiteral("/fabric/v4/logos/l2")));
        QCOMPARE(e.kind, Kind::FabricError);
        QCOMPARE(e.errors.value(0).errorCode, QStringLiteral("EQ-1"));
    }

    void searchCarriesItsQuery()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/companyProfiles/search",
                       Scripted::json(200, R"({"data":[]})"));
        FabricClient client(configFor(server));
        QUrlQuery q;
        q.addQueryItem(QStringLiteral("viewPoint"), QStringLiteral("aSide"));
        WAIT_RESULT(r, client.search(QStringLiteral("/fabric/v4/companyProfiles/search"),
                                     QJsonObject(), q));
        QCOMPARE(r.kind, Kind::Ok);
        QCOMPARE(server.matching("POST", "/fabric/v4/companyProfiles/search").first().query,
                 QByteArray("viewPoint=aSide"));
    }

    void nonJsonSuccessIsInvalid()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(200, "{\"data\":[]} garbage"));
        server.enqueue("GET", "/fabric/v4/ports", Scripted::json(200, ""));
        FabricClient client(configFor(server));
        WAIT_RESULT(a, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(a.kind, Kind::InvalidResponse);
        WAIT_RESULT(b, client.get(QStringLiteral("/fabric/v4/ports")));
        QCOMPARE(b.kind, Kind::InvalidResponse);
    }

    void abortBeforeSendIsCancelled()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        FabricClient client(configFor(server));
        FabricCall *call = client.create(connectionRequest());
        int emitted = 0;
        FabricResult result;
        connect(call, &FabricCall::finished, this, [&](const FabricResult &r) {
            ++emitted;
            result = r;
        });
        QPointer<FabricCall> guard(call);
        call->abort();
        call->abort();
        QTest::qWait(200);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCOMPARE(emitted, 1);
        QVERIFY(guard.isNull());
        QCOMPARE(result.kind, Kind::Cancelled);
        QVERIFY(!result.requestSent);
        QCOMPARE(server.count("POST", "/fabric/v4/connections"), 0);
    }

    // A create held before its first byte (waiting for its access token) is stopped by
    // abortIfNotSent(); nothing reaches Fabric, even after the token arrives.
    void abortIfNotSentStopsACreateWaitingForItsToken()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue(
            "POST", "/oauth2/v1/token",
            Scripted::json(200, R"({"access_token":"tok-9","token_timeout":3600})", 1200));
        FabricClient client(configFor(server, 5000));
        FabricCall *call = client.create(connectionRequest());
        int emitted = 0;
        FabricResult result;
        connect(call, &FabricCall::finished, this, [&](const FabricResult &r) {
            ++emitted;
            result = r;
        });
        QTRY_COMPARE_WITH_TIMEOUT(server.count("POST", "/oauth2/v1/token"), 1, 5000);
        QVERIFY(call->abortIfNotSent());
        QCOMPARE(emitted, 1);
        QCOMPARE(result.kind, Kind::Cancelled);
        QVERIFY(!result.requestSent);
        QCOMPARE(createOutcome(result), CreateOutcome::NotSent);
        QTest::qWait(1800); // the token arrives meanwhile
        QCOMPARE(emitted, 1);
        QCOMPARE(server.count("POST", "/fabric/v4/connections"), 0);
    }

    // Once the create reached Fabric, abortIfNotSent() does nothing and the outcome arrives.
    void abortIfNotSentLeavesASentCreateAlone()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/connections",
                       Scripted::json(201, R"({"uuid":"c-1","name":"conn-caf"})", 600));
        FabricClient client(configFor(server, 5000));
        FabricCall *call = client.create(connectionRequest());
        int emitted = 0;
        FabricResult result;
        connect(call, &FabricCall::finished, this, [&](const FabricResult &r) {
            ++emitted;
            result = r;
        });
        QTRY_COMPARE_WITH_TIMEOUT(server.count("POST", "/fabric/v4/connections"), 1, 5000);
        QVERIFY(!call->abortIfNotSent());
        QCOMPARE(emitted, 0);
        QTRY_COMPARE_WITH_TIMEOUT(emitted, 1, 5000);
        QCOMPARE(result.kind, Kind::Ok);
        QCOMPARE(createOutcome(result), CreateOutcome::Created);
    }

    void abortOfSentCreateIsOutcomeUnknown()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("POST", "/fabric/v4/connections", Scripted::hang());
        FabricClient client(configFor(server, 5000));
        FabricCall *call = client.create(connectionRequest());
        int emitted = 0;
        FabricResult result;
        connect(call, &FabricCall::finished, this, [&](const FabricResult &r) {
            ++emitted;
            result = r;
        });
        QTRY_COMPARE_WITH_TIMEOUT(server.count("POST", "/fabric/v4/connections"), 1, 5000);
        QTest::qWait(50);
        call->abort();
        QTest::qWait(300);
        QCOMPARE(emitted, 1);
        QCOMPARE(result.kind, Kind::OutcomeUnknown);
        QVERIFY(result.requestSent);
        QCOMPARE(server.count("POST", "/fabric/v4/connections"), 1);
    }

    void abortOfReadIsCancelled()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros", Scripted::hang());
        FabricClient client(configFor(server, 5000));
        FabricCall *call = client.get(QStringLiteral("/fabric/v4/metros"));
        int emitted = 0;
        FabricResult result;
        connect(call, &FabricCall::finished, this, [&](const FabricResult &r) {
            ++emitted;
            result = r;
        });
        QTRY_COMPARE_WITH_TIMEOUT(server.count("GET", "/fabric/v4/metros"), 1, 5000);
        call->abort();
        QTest::qWait(100);
        QCOMPARE(emitted, 1);
        QCOMPARE(result.kind, Kind::Cancelled);
    }

    void destroyingTheClientFinishesPendingCalls()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros", Scripted::hang());
        auto *client = new FabricClient(configFor(server, 5000));
        FabricCall *call = client->get(QStringLiteral("/fabric/v4/metros"));
        int emitted = 0;
        connect(call, &FabricCall::finished, this, [&](const FabricResult &) { ++emitted; });
        QTRY_COMPARE_WITH_TIMEOUT(server.count("GET", "/fabric/v4/metros"), 1, 5000);
        delete client;
        QCOMPARE(emitted, 1);
    }

    void secretsNeverInResults()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        // A hostile or buggy server echoing secrets into its error texts.
        const QByteArray echo = "[{\"errorCode\":\"EQ-3000001\",\"errorMessage\":\"bad token tok-1 "
                                "for secret " +
                                kSecret.toUtf8() +
                                "\",\"details\":\"tok-1\","
                                "\"additionalInfo\":[{\"property\":\"/x\",\"reason\":\"tok-1\"}]}]";
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(400, echo));
        server.enqueue("POST", "/fabric/v4/connections", Scripted::json(500, echo));
        FabricClient client(configFor(server));
        QList<FabricResult> results;
        {
            WAIT_RESULT(a, client.get(QStringLiteral("/fabric/v4/metros")));
            QCOMPARE(a.kind, Kind::FabricError);
            results << a;
            WAIT_RESULT(b, client.create(connectionRequest()));
            results << b;
            WAIT_RESULT(c, client.dryRun(connectionRequest()));
            results << c;
            WAIT_RESULT(d, client.testConnection());
            results << d;
            WAIT_RESULT(e, client.priceContext(connectionRequest()));
            results << e;
        }
        FakeFabricServer oauth;
        QVERIFY(oauth.listen());
        oauth.enqueue("POST", "/oauth2/v1/token",
                      Scripted::json(401, "{\"error_code\":\"S1\",\"error_message\":\"secret " +
                                              kSecret.toUtf8() + " is wrong\"}"));
        FabricClient client2(configFor(oauth));
        WAIT_RESULT(f, client2.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(f.kind, Kind::AuthError);
        results << f;
        for (const FabricResult &r : results) {
            assertNoSecrets(r, {kSecret, QStringLiteral("tok-1")});
            for (const FabricError &e : r.errors) {
                QVERIFY(!e.errorMessage.contains(kSecret));
                QVERIFY(!e.details.contains(QStringLiteral("tok-1")));
            }
        }
    }

    void priceContextHappyPath()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue(
            "POST", "/fabric/v4/prices/search",
            Scripted::json(200, "{\"pagination\":{\"offset\":0,\"limit\":1,\"total\":1},\"data\":"
                                "[{\"type\":\"VIRTUAL_CONNECTION_PRODUCT\",\"code\":\"ECX00015."
                                "PROD\",\"name\":\"Equinix Fabric Virtual Connection Product\","
                                "\"charges\":[{\"type\":\"MONTHLY_RECURRING\",\"price\":500},"
                                "{\"type\":\"NON_RECURRING\",\"price\":25.5}],\"currency\":\"USD\","
                                "\"termLength\":12}]}"));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.priceContext(connectionRequest()));
        QCOMPARE(r.kind, Kind::Ok);
        const QJsonObject ctx = r.body.toObject();
        QCOMPARE(ctx.value(QStringLiteral("priced")).toBool(), true);
        QCOMPARE(ctx.value(QStringLiteral("currency")).toString(), QStringLiteral("USD"));
        QCOMPARE(ctx.value(QStringLiteral("monthly_recurring")).toDouble(), 500.0);
        QCOMPARE(ctx.value(QStringLiteral("non_recurring")).toDouble(), 25.5);
        QCOMPARE(ctx.value(QStringLiteral("term_length_months")).toInt(), 12);
        QCOMPARE(ctx.value(QStringLiteral("product_code")).toString(),
                 QStringLiteral("ECX00015.PROD"));
        QCOMPARE(ctx.value(QStringLiteral("charges")).toArray().size(), 2);
        QVERIFY(
            ctx.value(QStringLiteral("source")).toString().contains(QStringLiteral("not a quote")));

        const auto req = server.matching("POST", "/fabric/v4/prices/search").first();
        const QJsonArray terms = QJsonDocument::fromJson(req.body)
                                     .object()
                                     .value(QStringLiteral("filter"))
                                     .toObject()
                                     .value(QStringLiteral("and"))
                                     .toArray();
        QHash<QString, QString> byProperty;
        for (const QJsonValue &t : terms)
            byProperty.insert(t[QStringLiteral("property")].toString(),
                              t[QStringLiteral("values")][0].toString());
        QCOMPARE(byProperty.value(QStringLiteral("/type")),
                 QStringLiteral("VIRTUAL_CONNECTION_PRODUCT"));
        QCOMPARE(byProperty.value(QStringLiteral("/connection/type")), QStringLiteral("EVPL_VC"));
        QCOMPARE(byProperty.value(QStringLiteral("/connection/bandwidth")), QStringLiteral("50"));
        QCOMPARE(byProperty.value(QStringLiteral("/connection/aSide/accessPoint/type")),
                 QStringLiteral("COLO"));
        QCOMPARE(
            byProperty.value(QStringLiteral("/connection/aSide/accessPoint/location/metroCode")),
            QStringLiteral("SV"));
        QCOMPARE(byProperty.value(QStringLiteral("/connection/zSide/accessPoint/type")),
                 QStringLiteral("SP"));
        QCOMPARE(byProperty.value(QStringLiteral("/connection/zSide/accessPoint/profile/uuid")),
                 QStringLiteral("20d32a80-0d61-4333-bc03-707b591ae2f2"));
        QCOMPARE(server.count("POST", "/fabric/v4/connections"), 0);
    }

    void priceContextFailureIsUnpriced()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue(
            "POST", "/fabric/v4/prices/search",
            Scripted::json(400, errorList("EQ-3038010", "Validation failure",
                                          "/connection/zSide/accessPoint/location/metroCode",
                                          "has invalid format")));
        FabricClient client(configFor(server));
        WAIT_RESULT(r, client.priceContext(connectionRequest()));
        QCOMPARE(r.kind, Kind::Ok);
        const QJsonObject ctx = r.body.toObject();
        QCOMPARE(ctx.value(QStringLiteral("priced")).toBool(true), false);
        QVERIFY2(ctx.value(QStringLiteral("reason"))
                     .toString()
                     .startsWith(QStringLiteral("price lookup failed: ")),
                 qPrintable(ctx.value(QStringLiteral("reason")).toString()));
        QVERIFY(
            ctx.value(QStringLiteral("reason")).toString().contains(QStringLiteral("EQ-3038010")));
        // The person reads one short line; the raw Fabric error stays in reason (issue 15).
        QCOMPARE(ctx.value(QStringLiteral("summary")).toString(),
                 QStringLiteral("no rate-card price for 50 Mbps in SV"));

        server.clearRoutes();
        server.enqueue("POST", "/fabric/v4/prices/search", Scripted::hang());
        FabricConfig c = configFor(server, 300);
        FabricClient slow(c);
        WAIT_RESULT(t, slow.priceContext(connectionRequest()));
        QCOMPARE(t.kind, Kind::Ok);
        QCOMPARE(t.body.toObject().value(QStringLiteral("priced")).toBool(true), false);
        QCOMPARE(t.body.toObject().value(QStringLiteral("summary")).toString(),
                 QStringLiteral("no price: the rate-card lookup failed"));

        server.clearRoutes();
        server.enqueue("POST", "/fabric/v4/prices/search", Scripted::json(200, "{\"data\":[]}"));
        WAIT_RESULT(e, client.priceContext(connectionRequest()));
        QCOMPARE(e.body.toObject().value(QStringLiteral("priced")).toBool(true), false);
        QCOMPARE(e.body.toObject().value(QStringLiteral("summary")).toString(),
                 QStringLiteral("no rate-card price for 50 Mbps in SV"));
    }

    void priceContextForNetworksAndServiceTokensIsUnpriced()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        FabricClient client(configFor(server));
        CompiledRequest net;
        net.changeType = ChangeType::NetworkCreate;
        net.path = QStringLiteral("/fabric/v4/networks");
        net.body = "{\"name\":\"n\",\"scope\":\"REGIONAL\",\"type\":\"EVPLAN\"}";
        WAIT_RESULT(a, client.priceContext(net));
        QCOMPARE(a.kind, Kind::Ok);
        QCOMPARE(a.body.toObject().value(QStringLiteral("priced")).toBool(true), false);
        QVERIFY(a.body.toObject()
                    .value(QStringLiteral("reason"))
                    .toString()
                    .contains(QStringLiteral("networks")));
        QCOMPARE(a.body.toObject().value(QStringLiteral("summary")).toString(),
                 QStringLiteral("networks have no rate-card price"));
        CompiledRequest tok;
        tok.changeType = ChangeType::ServiceTokenCreate;
        tok.path = QStringLiteral("/fabric/v4/serviceTokens");
        tok.body = "{\"type\":\"VC_TOKEN\"}";
        WAIT_RESULT(b, client.priceContext(tok));
        QCOMPARE(b.body.toObject().value(QStringLiteral("priced")).toBool(true), false);
        QVERIFY(b.body.toObject()
                    .value(QStringLiteral("reason"))
                    .toString()
                    .contains(QStringLiteral("service tokens")));
        QCOMPARE(b.body.toObject().value(QStringLiteral("summary")).toString(),
                 QStringLiteral("service tokens have no rate-card price"));
        QCOMPARE(server.requests.size(), 0);
    }

    void setConfigDropsCachedToken()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(200, "{\"data\":[]}"));
        FabricClient client(configFor(server));
        WAIT_RESULT(a, client.get(QStringLiteral("/fabric/v4/metros")));
        client.setConfig(configFor(server));
        WAIT_RESULT(b, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(server.tokensIssued(), 2);
    }

    // The policy's fabric.endpoint locks another endpoint: no call sends anything, the token
    // request (which carries the secret) included; and a lock that arrives while a call waits
    // for its token stops the token request that dropToken() would otherwise start again.
    void endpointLockRefusesEveryCall()
    {
        FakeFabricServer server;
        QVERIFY(server.listen());
        FabricClient client(configFor(server));
        client.setEndpointLock(QStringLiteral("https://api.equinix.com"),
                               QStringLiteral("/etc/fabric-broker/policy.json"));
        const QList<std::function<FabricCall *()>> calls = {
            [&] { return client.get(QStringLiteral("/fabric/v4/metros")); },
            [&] { return client.search(QStringLiteral("/fabric/v4/connections/search"), {}); },
            [&] { return client.dryRun(connectionRequest()); },
            [&] { return client.create(connectionRequest()); },
            [&] { return client.testConnection(); },
        };
        for (const auto &start : calls) {
            const FabricResult r = waitFor(start());
            QCOMPARE(r.kind, Kind::NetworkError);
            QVERIFY(!r.requestSent);
            QVERIFY2(r.message.contains(QStringLiteral("fabric.endpoint "
                                                       "(/etc/fabric-broker/policy.json) locks "
                                                       "the Fabric endpoint to "
                                                       "https://api.equinix.com")),
                     qPrintable(r.message));
            QVERIFY(!r.message.contains(kSecret));
        }
        QCOMPARE(server.requests.size(), 0);

        client.setEndpointLock(server.url().toString(), QStringLiteral("p.json"));
        server.enqueue("GET", "/fabric/v4/metros", Scripted::json(200, "{\"data\":[]}"));
        WAIT_RESULT(allowed, client.get(QStringLiteral("/fabric/v4/metros")));
        QCOMPARE(server.tokensIssued(), 1);

        FabricClient waiting(configFor(server));
        server.enqueue("POST", "/oauth2/v1/token", Scripted::hang());
        FabricCall *call = waiting.get(QStringLiteral("/fabric/v4/metros"));
        QTRY_COMPARE(server.count("POST", "/oauth2/v1/token"), 2);
        waiting.setEndpointLock(QStringLiteral("https://api.equinix.com"),
                                QStringLiteral("p.json"));
        const FabricResult r = waitFor(call);
        QCOMPARE(r.kind, Kind::NetworkError);
        QVERIFY2(r.message.contains(QStringLiteral("locks the Fabric endpoint")),
                 qPrintable(r.message));
        QCOMPARE(server.count("POST", "/oauth2/v1/token"), 2);
        QCOMPARE(server.count("GET", "/fabric/v4/metros"), 1);
    }
};

QTEST_GUILESS_MAIN(TestFabricClient)
#include "tst_fabricclient.moc"
