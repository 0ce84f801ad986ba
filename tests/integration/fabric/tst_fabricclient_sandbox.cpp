// FabricClient against the embedded sandbox (fb::FabricSandbox): every read endpoint of the
// catalog, the price search, the 401 refresh-and-retry, and a dropped real create observed once.
#include "TestEnvironment.h"
#include "fabric/FabricClient.h"
#include "sandbox/FabricSandbox.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QtTest>

using namespace fb;
using Kind = FabricResult::Kind;

namespace {

FabricResult waitFor(FabricCall *call)
{
    auto emitted = std::make_shared<int>(0);
    auto result = std::make_shared<FabricResult>();
    QPointer<FabricCall> guard(call);
    QObject::connect(call, &FabricCall::finished, [emitted, result](const FabricResult &r) {
        ++*emitted;
        *result = r;
    });
    QElapsedTimer t;
    t.start();
    while (*emitted == 0 && t.elapsed() < 10000)
        QTest::qWait(5);
    QTest::qWait(10);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    if (*emitted != 1 || guard)
        qWarning() << "finished emitted" << *emitted << "times; deleted:" << guard.isNull();
    return *result;
}

QString firstString(const QJsonObject &estate, const QString &list, const QString &key,
                    const std::function<bool(const QJsonObject &)> &pred = {})
{
    const QJsonArray items = estate.value(list).toArray();
    for (const QJsonValue &v : items) {
        const QJsonObject o = v.toObject();
        if (!pred || pred(o))
            return o.value(key).toString();
    }
    return {};
}

QJsonObject page(int limit = 5)
{
    return {{QStringLiteral("pagination"),
             QJsonObject{{QStringLiteral("offset"), 0}, {QStringLiteral("limit"), limit}}}};
}

} // namespace

class TestFabricClientSandbox : public QObject {
    Q_OBJECT

    FabricSandbox *m_sandbox = nullptr;
    FabricClient *m_client = nullptr;
    QJsonObject m_estate;

private slots:
    void initTestCase()
    {
        m_sandbox = new FabricSandbox(this);
        QVERIFY(m_sandbox->listen());
        FabricConfig c;
        c.endpoint = m_sandbox->baseUrl();
        c.clientId = QStringLiteral("sandbox-client");
        c.clientSecret = QStringLiteral("sandbox-secret-0123456789");
        c.sandbox = true;
        c.timeoutMs = 3000;
        m_client = new FabricClient(c, this);
        m_estate = m_sandbox->estateJson();
    }

    void init()
    {
        fbtest::failOnWarnings({QStringLiteral("outcome unknown for POST ")});
        m_sandbox->clearFaults();
        m_sandbox->clearRequests();
    }

    void readEndpoints_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expectKey"); // a key the JSON reply must carry
        const QJsonObject e = FabricSandbox().estateJson();
        const QString conn = firstString(e, QStringLiteral("connections"), QStringLiteral("uuid"));
        const QString port = firstString(e, QStringLiteral("ports"), QStringLiteral("uuid"));
        const QString metro = firstString(e, QStringLiteral("metros"), QStringLiteral("code"));
        const QString profile =
            firstString(e, QStringLiteral("serviceProfiles"), QStringLiteral("uuid"));
        const QString network = firstString(e, QStringLiteral("networks"), QStringLiteral("uuid"));
        const QString token =
            firstString(e, QStringLiteral("serviceTokens"), QStringLiteral("uuid"));
        QVERIFY(!conn.isEmpty() && !port.isEmpty() && !metro.isEmpty() && !profile.isEmpty() &&
                !network.isEmpty() && !token.isEmpty());
        const auto row = [](const char *name, const char *method, const QString &path,
                            const char *key) {
            QTest::newRow(name) << QString::fromLatin1(method) << path << QString::fromLatin1(key);
        };
        row("connections-search", "POST", QStringLiteral("/fabric/v4/connections/search"), "data");
        row("connection-get", "GET", QStringLiteral("/fabric/v4/connections/") + conn, "uuid");
        row("ports-list", "GET", QStringLiteral("/fabric/v4/ports"), "data");
        row("port-get", "GET", QStringLiteral("/fabric/v4/ports/") + port, "uuid");
        row("metros-list", "GET", QStringLiteral("/fabric/v4/metros"), "data");
        row("metro-get", "GET", QStringLiteral("/fabric/v4/metros/") + metro, "code");
        row("profiles-search", "POST", QStringLiteral("/fabric/v4/serviceProfiles/search"), "data");
        row("profile-get", "GET", QStringLiteral("/fabric/v4/serviceProfiles/") + profile, "uuid");
        row("networks-search", "POST", QStringLiteral("/fabric/v4/networks/search"), "data");
        row("network-get", "GET", QStringLiteral("/fabric/v4/networks/") + network, "uuid");
        row("tokens-search", "POST", QStringLiteral("/fabric/v4/serviceTokens/search"), "data");
        row("token-get", "GET", QStringLiteral("/fabric/v4/serviceTokens/") + token, "uuid");
        row("routers-search", "POST", QStringLiteral("/fabric/v4/routers/search"), "data");
    }
    void readEndpoints()
    {
        QFETCH(QString, method);
        QFETCH(QString, path);
        QFETCH(QString, expectKey);
        FabricCall *call = nullptr;
        if (method == QLatin1String("GET")) {
            QUrlQuery q;
            if (expectKey == QLatin1String("data") && !path.contains(QLatin1String("metros"))) {
                q.addQueryItem(QStringLiteral("offset"), QStringLiteral("0"));
                q.addQueryItem(QStringLiteral("limit"), QStringLiteral("5"));
            }
            call = m_client->get(path, q);
        } else {
            call = m_client->search(path, page());
        }
        const FabricResult r = waitFor(call);
        QVERIFY2(r.kind == Kind::Ok, qPrintable(r.message));
        QVERIFY2(r.body.toObject().contains(expectKey),
                 QJsonDocument(r.body.toObject()).toJson().left(400).constData());
        const auto reqs = m_sandbox->requests();
        QVERIFY(!reqs.isEmpty());
        QCOMPARE(reqs.last().path, path);
        QCOMPARE(reqs.last().correlationId, r.correlationId);
        QCOMPARE(m_sandbox->realCreateCount(), 0);
    }

    void unknownResourceIsFabricError()
    {
        const FabricResult r = waitFor(m_client->get(
            QStringLiteral("/fabric/v4/connections/00000000-0000-0000-0000-000000000000")));
        QCOMPARE(r.kind, Kind::FabricError);
        QCOMPARE(r.httpStatus, 404);
        QVERIFY(!r.errors.isEmpty());
        QVERIFY(r.errors.first().errorCode.startsWith(QLatin1String("EQ-")));
    }

    void readRetriedAfterSandbox401()
    {
        m_sandbox->unauthorizeNext();
        const FabricResult r = waitFor(m_client->get(QStringLiteral("/fabric/v4/metros")));
        QVERIFY2(r.kind == Kind::Ok, qPrintable(r.message));
        int metroGets = 0;
        for (const auto &req : m_sandbox->requests())
            metroGets += req.path == QLatin1String("/fabric/v4/metros") ? 1 : 0;
        QCOMPARE(metroGets, 2);
    }

    void priceContextFromSandboxRateCard()
    {
        const QString port = firstString(m_estate, QStringLiteral("ports"), QStringLiteral("uuid"));
        const int bandwidth = m_estate.value(QStringLiteral("rateCard"))
                                  .toObject()
                                  .value(QStringLiteral("rates"))
                                  .toArray()
                                  .first()
                                  .toObject()
                                  .value(QStringLiteral("bandwidth"))
                                  .toInt(50);
        CompiledRequest req;
        req.changeType = ChangeType::ConnectionCreate;
        req.path = QStringLiteral("/fabric/v4/connections");
        req.body =
            QJsonDocument(
                QJsonObject{
                    {QStringLiteral("type"), QStringLiteral("EVPL_VC")},
                    {QStringLiteral("name"), QStringLiteral("price-probe")},
                    {QStringLiteral("bandwidth"), bandwidth},
                    {QStringLiteral("aSide"),
                     QJsonObject{{QStringLiteral("accessPoint"),
                                  QJsonObject{{QStringLiteral("type"), QStringLiteral("COLO")},
                                              {QStringLiteral("port"),
                                               QJsonObject{{QStringLiteral("uuid"), port}}}}}}},
                    {QStringLiteral("zSide"),
                     QJsonObject{{QStringLiteral("accessPoint"),
                                  QJsonObject{{QStringLiteral("type"), QStringLiteral("COLO")}}}}}})
                .toJson(QJsonDocument::Compact);
        const FabricResult r = waitFor(m_client->priceContext(req));
        QCOMPARE(r.kind, Kind::Ok);
        const QJsonObject ctx = r.body.toObject();
        QVERIFY2(ctx.value(QStringLiteral("priced")).toBool(),
                 QJsonDocument(ctx).toJson().constData());
        QVERIFY(ctx.value(QStringLiteral("monthly_recurring")).toDouble() > 0);
        QCOMPARE(ctx.value(QStringLiteral("currency")).toString(), QStringLiteral("USD"));
    }

    void droppedCreateIsOutcomeUnknownAndSentOnce()
    {
        m_sandbox->setDropAppliesRequest(false);
        m_sandbox->dropNext(1, QStringLiteral("POST"), QStringLiteral("/fabric/v4/connections"),
                            true);
        CompiledRequest req;
        req.changeType = ChangeType::ConnectionCreate;
        req.path = QStringLiteral("/fabric/v4/connections");
        req.body = "{\"bandwidth\":50,\"name\":\"dropped-create\",\"type\":\"EVPL_VC\"}";
        const FabricResult r = waitFor(m_client->create(req));
        QCOMPARE(r.kind, Kind::OutcomeUnknown);
        QVERIFY(r.requestSent);
        QTest::qWait(500);
        int posts = 0;
        for (const auto &rec : m_sandbox->requests()) {
            if (rec.method == QLatin1String("POST") &&
                rec.path == QLatin1String("/fabric/v4/connections")) {
                ++posts;
                QCOMPARE(rec.body, req.body);
                QVERIFY(!rec.dryRun);
            }
        }
        QCOMPARE(posts, 1);
        QCOMPARE(m_sandbox->realCreateCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFabricClientSandbox)
#include "tst_fabricclient_sandbox.moc"
