// End-to-end tests of fb::FabricSandbox over real loopback HTTP (QNetworkAccessManager and raw
// QTcpSocket): OAuth and expiry, creates (dry run and real), validation codes, searches,
// prices, 405s, fault injection and the admin endpoints.
#include "SandboxFixtures.h"
#include "SandboxTestClient.h"
#include "TestEnvironment.h"
#include "core/Clock.h"
#include "sandbox/FabricSandbox.h"
#include "sandbox/SandboxIds.h"

#include <QSet>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>
#include <memory>

using fb::FabricSandbox;
namespace Ids = fb::SandboxIds;

namespace {
QString s(QLatin1String v)
{
    return QString(v);
}
QJsonObject byUuid(const QString &uuid)
{
    return QJsonObject{
        {"filter",
         QJsonObject{{"property", "/uuid"}, {"operator", "="}, {"values", QJsonArray{uuid}}}}};
}
} // namespace

class TestFabricSandbox : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<FabricSandbox> sandbox;
    std::unique_ptr<SandboxTestClient> client;

    int connectionTotal()
    {
        const HttpResult r = client->post("/fabric/v4/connections/search", QJsonObject{});
        return r.object()["pagination"].toObject()["total"].toInt();
    }

private Q_SLOTS:
    void initTestCase()
    {
        sandbox = std::make_unique<FabricSandbox>();
        QVERIFY(sandbox->listen());
        QVERIFY(sandbox->port() != 0);
        QCOMPARE(sandbox->baseUrl().host(), QStringLiteral("127.0.0.1"));
        client = std::make_unique<SandboxTestClient>(sandbox->baseUrl());
        QVERIFY(!client->login().isEmpty());
    }

    void init()
    {
        fbtest::failOnWarnings({QStringLiteral("admin request refused: ")});
        sandbox->reset();
        sandbox->setProvisioning(60000, 1);
    }

    // ---- OAuth ---------------------------------------------------------------------------

    void tokenResponseFollowsAccessTokenSpec()
    {
        SandboxTestClient c(sandbox->baseUrl());
        const QJsonObject body{
            {"grant_type", "client_credentials"}, {"client_id", "abc"}, {"client_secret", "xyz"}};
        const HttpResult r =
            c.send("POST", "/oauth2/v1/token", QJsonDocument(body).toJson(), {}, false);
        QCOMPARE(r.status, 200);
        const QJsonObject o = r.object();
        QVERIFY(!o["access_token"].toString().isEmpty());
        QVERIFY(o["token_timeout"].isString());
        QCOMPARE(o["token_timeout"].toString(), QStringLiteral("3599"));
        QCOMPARE(o["user_name"].toString(), QStringLiteral("abc"));
        QCOMPARE(o["token_type"].toString(), QStringLiteral("Bearer"));
    }

    void tokenRequiresCredentials()
    {
        SandboxTestClient c(sandbox->baseUrl());
        const QJsonObject body{{"grant_type", "client_credentials"}, {"client_id", "abc"}};
        const HttpResult r =
            c.send("POST", "/oauth2/v1/token", QJsonDocument(body).toJson(), {}, false);
        QCOMPARE(r.status, 400);
        QVERIFY(r.object().contains("error_message"));
    }

    void missingOrUnknownBearerIs401()
    {
        SandboxTestClient anonymous(sandbox->baseUrl());
        HttpResult r =
            anonymous.send("GET", "/fabric/v4/ports", {}, {{"X-CORRELATION-ID", "corr-401"}});
        QCOMPARE(r.status, 401);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3000039"));
        QCOMPARE(r.array().first()["correlationId"].toString(), QStringLiteral("corr-401"));
        QVERIFY(!r.array().first()["errorMessage"].toString().isEmpty());
        anonymous.setToken("not-a-token");
        r = anonymous.get("/fabric/v4/ports");
        QCOMPARE(r.status, 401);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3000039"));
    }

    void tokenReallyExpires()
    {
        sandbox->setTokenLifetimeSeconds(1);
        SandboxTestClient c(sandbox->baseUrl());
        c.login();
        QCOMPARE(c.get("/fabric/v4/metros").status, 200);
        QTest::qWait(1200);
        const HttpResult r = c.get("/fabric/v4/metros");
        QCOMPARE(r.status, 401);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3000039"));
    }

    void tokenExpiryFollowsInjectedClock()
    {
        fb::ManualClock clock;
        sandbox->setClock(&clock);
        sandbox->setTokenLifetimeSeconds(60);
        SandboxTestClient c(sandbox->baseUrl());
        c.login();
        clock.advanceMs(59000);
        QCOMPARE(c.get("/fabric/v4/metros").status, 200);
        clock.advanceMs(2000);
        QCOMPARE(c.get("/fabric/v4/metros").status, 401);
        sandbox->setClock(nullptr);
    }

    // ---- creates -------------------------------------------------------------------------

    void connectionDryRunChangesNothing()
    {
        const int before = connectionTotal();
        const HttpResult r = client->send("POST", "/fabric/v4/connections?dryRun=true",
                                          QJsonDocument(fixtures::cloudConnection()).toJson(),
                                          {{"X-CORRELATION-ID", "corr-dry"}});
        QCOMPARE(r.status, 200);
        const QJsonObject c = r.object();
        QVERIFY(!c.contains("uuid"));
        QVERIFY(!c.contains("href"));
        QCOMPARE(c["name"].toString(), QStringLiteral("test-aws-sv"));
        const QJsonObject port = c["aSide"]["accessPoint"]["port"].toObject();
        QVERIFY(port["href"].toString().endsWith(s(Ids::PortSvPrimary)));
        QCOMPARE(port["name"].toString(), QStringLiteral("SV-DOT1Q-PRI"));
        QCOMPARE(c["zSide"]["accessPoint"]["profile"]["name"].toString(),
                 QStringLiteral("AWS Direct Connect"));
        QCOMPARE(connectionTotal(), before);
        QCOMPARE(sandbox->realCreateCount(), 0);
        const auto log = sandbox->requests();
        const auto dry = std::find_if(log.begin(), log.end(), [](const auto &req) {
            return req.path == "/fabric/v4/connections";
        });
        QVERIFY(dry != log.end());
        QVERIFY(dry->dryRun);
        QCOMPARE(dry->correlationId, QStringLiteral("corr-dry"));
        QCOMPARE(dry->method, QStringLiteral("POST"));
        QCOMPARE(QJsonDocument::fromJson(dry->body).object(), fixtures::cloudConnection());
        // The VLAN is still free: a second dry run passes too.
        QCOMPARE(
            client->post("/fabric/v4/connections?dryRun=true", fixtures::cloudConnection()).status,
            200);
    }

    void connectionRealCreateProvisionsAndIsSearchable()
    {
        const int before = connectionTotal();
        const HttpResult r = client->post("/fabric/v4/connections", fixtures::cloudConnection());
        QCOMPARE(r.status, 201);
        const QJsonObject c = r.object();
        const QString uuid = c["uuid"].toString();
        QVERIFY(!uuid.isEmpty());
        QCOMPARE(c["state"].toString(), QStringLiteral("PROVISIONING"));
        QCOMPARE(c["operation"]["equinixStatus"].toString(), QStringLiteral("PROVISIONING"));
        QVERIFY(c["href"].toString().endsWith("/fabric/v4/connections/" + uuid));
        QCOMPARE(sandbox->realCreateCount(), 1);

        HttpResult g = client->get("/fabric/v4/connections/" + uuid);
        QCOMPARE(g.status, 200);
        QCOMPARE(g.object()["state"].toString(), QStringLiteral("PROVISIONING"));
        g = client->get("/fabric/v4/connections/" + uuid);
        QCOMPARE(g.object()["state"].toString(), QStringLiteral("ACTIVE"));
        QCOMPARE(g.object()["operation"]["equinixStatus"].toString(),
                 QStringLiteral("PROVISIONED"));

        QCOMPARE(connectionTotal(), before + 1);
        const HttpResult found = client->post("/fabric/v4/connections/search", byUuid(uuid));
        QCOMPARE(found.object()["pagination"]["total"].toInt(), 1);
        QCOMPARE(found.object()["data"][0]["name"].toString(), QStringLiteral("test-aws-sv"));

        // The VLAN is now taken on the port.
        const HttpResult vlans =
            client->get("/fabric/v4/ports/" + s(Ids::PortSvPrimary) + "/linkProtocols");
        QVERIFY(QString::fromUtf8(vlans.body).contains("777"));
        const HttpResult again =
            client->post("/fabric/v4/connections", fixtures::cloudConnection());
        QCOMPARE(again.status, 400);
        QCOMPARE(again.firstErrorCode(), QStringLiteral("EQ-3142102"));
    }

    void provisioningCompletesOverTime()
    {
        sandbox->setProvisioning(200, 1000);
        const HttpResult r = client->post("/fabric/v4/connections", fixtures::cloudConnection());
        const QString uuid = r.object()["uuid"].toString();
        QCOMPARE(client->get("/fabric/v4/connections/" + uuid).object()["state"].toString(),
                 QStringLiteral("PROVISIONING"));
        QTest::qWait(300);
        QCOMPARE(client->get("/fabric/v4/connections/" + uuid).object()["state"].toString(),
                 QStringLiteral("ACTIVE"));
    }

    void networkDryRunAndCreate()
    {
        const auto total = [&] {
            return client->post("/fabric/v4/networks/search", QJsonObject{})
                .object()["pagination"]["total"]
                .toInt();
        };
        const int before = total();
        HttpResult r = client->post("/fabric/v4/networks?dryRun=true", fixtures::network());
        QCOMPARE(r.status, 202);
        QVERIFY(!r.object().contains("uuid"));
        QCOMPARE(r.object()["name"].toString(), QStringLiteral("test-net"));
        QCOMPARE(total(), before);
        r = client->post("/fabric/v4/networks", fixtures::network());
        QCOMPARE(r.status, 201);
        const QString uuid = r.object()["uuid"].toString();
        QVERIFY(!uuid.isEmpty());
        QCOMPARE(r.object()["state"].toString(), QStringLiteral("INACTIVE"));
        QCOMPARE(r.object()["operation"]["equinixStatus"].toString(),
                 QStringLiteral("PROVISIONING"));
        QCOMPARE(r.object()["change"]["type"].toString(), QStringLiteral("NETWORK_CREATION"));
        QCOMPARE(total(), before + 1);
        const HttpResult g = client->get("/fabric/v4/networks/" + uuid);
        QCOMPARE(g.status, 200);
        QCOMPARE(client->get("/fabric/v4/networks/" + uuid).object()["state"].toString(),
                 QStringLiteral("ACTIVE"));
        QCOMPARE(sandbox->realCreateCount(), 1);
    }

    void serviceTokenDryRunAndCreate()
    {
        HttpResult r =
            client->post("/fabric/v4/serviceTokens?dryRun=true", fixtures::serviceToken());
        QCOMPARE(r.status, 200);
        QVERIFY(!r.object().contains("uuid"));
        QCOMPARE(r.object()["connection"]["aSide"]["accessPointSelectors"][0]["port"]["portName"]
                     .toString(),
                 QStringLiteral("DC-DOT1Q-1"));
        QCOMPARE(client->get("/fabric/v4/serviceTokens").object()["pagination"]["total"].toInt(),
                 2);
        r = client->post("/fabric/v4/serviceTokens", fixtures::serviceToken());
        QCOMPARE(r.status, 201);
        const QString uuid = r.object()["uuid"].toString();
        QVERIFY(!uuid.isEmpty());
        QCOMPARE(r.object()["state"].toString(), QStringLiteral("INACTIVE"));
        const QJsonObject search{{"filter", QJsonObject{{"property", "/name"},
                                                        {"operator", "="},
                                                        {"values", QJsonArray{"test-token"}}}}};
        const HttpResult found = client->post("/fabric/v4/serviceTokens/search", search);
        QCOMPARE(found.status, 200);
        QCOMPARE(found.object()["pagination"]["total"].toInt(), 1);
        QCOMPARE(client->get("/fabric/v4/serviceTokens/" + uuid).object()["state"].toString(),
                 QStringLiteral("ACTIVE"));
        // Its VLAN is reserved on the port now.
        QCOMPARE(
            client->post("/fabric/v4/serviceTokens", fixtures::serviceToken()).firstErrorCode(),
            QStringLiteral("EQ-3142102"));
    }

    // ---- validation ----------------------------------------------------------------------

    void connectionErrors_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("property");
        const QJsonValue gone(QJsonValue::Undefined);
        QTest::newRow("unknown port")
            << "aSide.accessPoint.port.uuid" << QJsonValue("50000000-0000-4000-8000-0000000000ff")
            << "EQ-3142501"
            << "aSide.accessPoint.port.uuid";
        QTest::newRow("unknown profile")
            << "zSide.accessPoint.profile.uuid"
            << QJsonValue("5e000000-0000-4000-8000-0000000000ff") << "EQ-3142301"
            << "zSide.accessPoint.profile.uuid";
        QTest::newRow("profile not in metro")
            << "zSide.accessPoint.location.metroCode" << QJsonValue("SG") << "EQ-3142302"
            << "zSide.accessPoint.location.metroCode";
        QTest::newRow("bandwidth not offered") << "bandwidth" << QJsonValue(150) << "EQ-3142306"
                                               << "bandwidth";
        QTest::newRow("missing auth key")
            << "zSide.accessPoint.authenticationKey" << gone << "EQ-3142308"
            << "zSide.accessPoint.authenticationKey";
        QTest::newRow("vlan in use")
            << "aSide.accessPoint.linkProtocol.vlanTag" << QJsonValue(100) << "EQ-3142102"
            << "aSide.accessPoint.linkProtocol.vlanTag";
        QTest::newRow("schema: name missing") << "name" << gone << "EQ-3142501"
                                              << "name";
        QTest::newRow("schema: bandwidth type") << "bandwidth" << QJsonValue("fast") << "EQ-3142501"
                                                << "bandwidth";
        QTest::newRow("schema: bad type") << "type" << QJsonValue("XX_VC") << "EQ-3142501"
                                          << "type";
        QTest::newRow("schema: vlan out of range")
            << "aSide.accessPoint.linkProtocol.vlanTag" << QJsonValue(4093) << "EQ-3142501"
            << "aSide.accessPoint.linkProtocol.vlanTag";
        QTest::newRow("bad seller region")
            << "zSide.accessPoint.sellerRegion" << QJsonValue("mars-1") << "EQ-3142501"
            << "zSide.accessPoint.sellerRegion";
    }

    void connectionErrors()
    {
        QFETCH(QString, path);
        QFETCH(QJsonValue, value);
        QFETCH(QString, code);
        QFETCH(QString, property);
        QJsonObject body = fixtures::cloudConnection();
        fixtures::setAt(body, path, value);
        for (const QString &query : {QStringLiteral("?dryRun=true"), QString()}) {
            const HttpResult r =
                client->send("POST", "/fabric/v4/connections" + query, QJsonDocument(body).toJson(),
                             {{"X-CORRELATION-ID", "corr-err"}});
            QCOMPARE(r.status, 400);
            const QJsonArray errors = r.array();
            QVERIFY2(!errors.isEmpty(), r.body.constData());
            const QJsonObject e = errors.first().toObject();
            QCOMPARE(e["errorCode"].toString(), code);
            QVERIFY(!e["errorMessage"].toString().isEmpty());
            QCOMPARE(e["correlationId"].toString(), QStringLiteral("corr-err"));
            QCOMPARE(e["additionalInfo"][0]["property"].toString(), property);
        }
        QCOMPARE(sandbox->realCreateCount(), 0);
    }

    void malformedJsonIsRejected()
    {
        const HttpResult r = client->send("POST", "/fabric/v4/connections", "{not json");
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142501"));
    }

    void networkAndTokenSchemaErrors()
    {
        QJsonObject net = fixtures::network();
        net["scope"] = "PLANETARY";
        HttpResult r = client->post("/fabric/v4/networks", net);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142501"));
        QCOMPARE(r.array()[0]["additionalInfo"][0]["property"].toString(), QStringLiteral("scope"));

        // Issue 15: the spec's NetworkPostRequest does not require location, for any scope
        // (its own Create-Local-EVPLAN-Network example has none).
        QJsonObject local = fixtures::network();
        local["scope"] = "LOCAL";
        local.remove("location");
        QCOMPARE(client->post("/fabric/v4/networks?dryRun=true", local).status, 202);
        QJsonObject regional = local;
        regional["scope"] = "REGIONAL";
        QCOMPARE(client->post("/fabric/v4/networks?dryRun=true", regional).status, 202);

        QJsonObject token = fixtures::serviceToken();
        token["expirationDateTime"] = "next tuesday";
        r = client->post("/fabric/v4/serviceTokens?dryRun=true", token);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.array()[0]["additionalInfo"][0]["property"].toString(),
                 QStringLiteral("expirationDateTime"));
        // The spec's ServiceToken requires no expiry (its Z-side examples have none).
        token.remove("expirationDateTime");
        QCOMPARE(client->post("/fabric/v4/serviceTokens?dryRun=true", token).status, 200);

        token = fixtures::serviceToken();
        QJsonObject bad = token;
        fixtures::setAt(bad, "connection.type", "NOPE");
        QCOMPARE(client->post("/fabric/v4/serviceTokens", bad).firstErrorCode(),
                 QStringLiteral("EQ-3142501"));
    }

    void dryRunCanBeDeclaredUnsupported()
    {
        sandbox->setDryRunUnsupported("service_token_create", true);
        HttpResult r =
            client->post("/fabric/v4/serviceTokens?dryRun=true", fixtures::serviceToken());
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142411"));
        QCOMPARE(r.array()[0]["errorMessage"].toString(),
                 QStringLiteral("Dry run is not supported for this connection type"));
        QCOMPARE(r.array()[0]["additionalInfo"][0]["reason"].toString(),
                 QStringLiteral("queryParam:dryRun"));
        // Connections still dry-run until their type is declared too.
        QCOMPARE(
            client->post("/fabric/v4/connections?dryRun=true", fixtures::cloudConnection()).status,
            200);
        sandbox->setDryRunUnsupported("EVPL_VC", true);
        r = client->post("/fabric/v4/connections?dryRun=true", fixtures::cloudConnection());
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142411"));
        // A real create is not affected.
        QCOMPARE(client->post("/fabric/v4/connections", fixtures::cloudConnection()).status, 201);
        sandbox->setDryRunUnsupported("/fabric/v4/networks", true);
        QCOMPARE(
            client->post("/fabric/v4/networks?dryRun=true", fixtures::network()).firstErrorCode(),
            QStringLiteral("EQ-3142411"));
        sandbox->setDryRunUnsupported("EVPL_VC", false);
        QCOMPARE(client->post("/fabric/v4/connections?dryRun=true", fixtures::network()).status,
                 400);
    }

    // ---- reads ---------------------------------------------------------------------------

    void connectionSearchFilterSortAndPagination()
    {
        QJsonObject search{
            {"filter", QJsonObject{{"and", QJsonArray{QJsonObject{
                                               {"property", "/aSide/accessPoint/port/uuid"},
                                               {"operator", "="},
                                               {"values", QJsonArray{s(Ids::PortSvPrimary)}}}}}}},
            {"pagination", QJsonObject{{"offset", 0}, {"limit", 1}}},
            {"sort", QJsonArray{QJsonObject{{"property", "/name"}, {"direction", "ASC"}}}}};
        HttpResult r = client->post("/fabric/v4/connections/search", search);
        QCOMPARE(r.status, 200);
        QJsonObject page = r.object()["pagination"].toObject();
        QCOMPARE(page["total"].toInt(), 2);
        QCOMPARE(page["limit"].toInt(), 1);
        QVERIFY(page.contains("next"));
        QVERIFY(!page.contains("previous"));
        QCOMPARE(r.object()["data"].toArray().size(), 1);
        QCOMPARE(r.object()["data"][0]["name"].toString(), QStringLiteral("sv-aws-primary"));
        QCOMPARE(r.object()["sort"][0]["property"].toString(), QStringLiteral("/name"));

        search["pagination"] = QJsonObject{{"offset", 1}, {"limit", 1}};
        r = client->post("/fabric/v4/connections/search", search);
        QCOMPARE(r.object()["data"][0]["name"].toString(), QStringLiteral("sv-dc-evpl"));
        QVERIFY(r.object()["pagination"].toObject().contains("previous"));

        const QJsonObject orSearch{
            {"filter",
             QJsonObject{{"or", QJsonArray{QJsonObject{{"property", "/name"},
                                                       {"operator", "LIKE"},
                                                       {"values", QJsonArray{"ny-%"}}},
                                           QJsonObject{{"property", "/bandwidth"},
                                                       {"operator", ">="},
                                                       {"values", QJsonArray{"1000"}}}}}}}};
        r = client->post("/fabric/v4/connections/search", orSearch);
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 3);

        const QJsonObject badOp{
            {"filter",
             QJsonObject{{"property", "/name"}, {"operator", "~~"}, {"values", QJsonArray{"x"}}}}};
        r = client->post("/fabric/v4/connections/search", badOp);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142501"));
        QCOMPARE(r.array()[0]["additionalInfo"][0]["property"].toString(),
                 QStringLiteral("filter.operator"));
        r = client->post("/fabric/v4/connections/search",
                         QJsonObject{{"pagination", QJsonObject{{"limit", 0}}}});
        QCOMPARE(r.status, 400);
    }

    void connectionGetUnknownIs404()
    {
        const HttpResult r =
            client->get("/fabric/v4/connections/c0000000-0000-4000-8000-0000000000ff");
        QCOMPARE(r.status, 404);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142519"));
        QCOMPARE(client->get("/fabric/v4/networks/nope").status, 404);
        QCOMPARE(client->get("/fabric/v4/serviceTokens/nope").status, 404);
        QCOMPARE(client->get("/fabric/v4/ports/nope").status, 404);
        QCOMPARE(client->get("/fabric/v4/serviceProfiles/nope").status, 404);
        QCOMPARE(client->get("/fabric/v4/nothing-here").status, 404);
        QVERIFY(!client->get("/fabric/v4/nothing-here").firstErrorCode().isEmpty());
    }

    void portsAndVlans()
    {
        HttpResult r = client->get("/fabric/v4/ports");
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 7);
        QCOMPARE(r.object()["data"].toArray().size(), 7);
        r = client->get("/fabric/v4/ports?name=NY-QINQ-1");
        QCOMPARE(r.object()["data"].toArray().size(), 1);
        QCOMPARE(r.object()["data"][0]["uuid"].toString(), s(Ids::PortNyQinq));
        r = client->get("/fabric/v4/ports/" + s(Ids::PortSvPrimary));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object()["location"]["metroCode"].toString(), QStringLiteral("SV"));
        QCOMPARE(r.object()["encapsulation"]["type"].toString(), QStringLiteral("DOT1Q"));
        r = client->get("/fabric/v4/ports/" + s(Ids::PortSvPrimary) + "/linkProtocols");
        QCOMPARE(r.status, 200);
        QList<int> tags;
        const QJsonArray data = r.object()["data"].toArray();
        for (const QJsonValue &v : data) {
            tags << v["vlanTag"].toInt();
            QCOMPARE(v["state"].toString(), QStringLiteral("RESERVED"));
        }
        std::sort(tags.begin(), tags.end());
        QCOMPARE(tags, (QList<int>{100, 101, 150}));
    }

    void metrosWithPagination()
    {
        HttpResult r = client->get("/fabric/v4/metros");
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 6);
        r = client->get("/fabric/v4/metros?offset=2&limit=2");
        QCOMPARE(r.object()["data"].toArray().size(), 2);
        QCOMPARE(r.object()["data"][0]["code"].toString(), QStringLiteral("NY"));
        QCOMPARE(r.object()["pagination"]["next"].toString(),
                 QStringLiteral("/fabric/v4/metros?offset=4&limit=2"));
        QCOMPARE(client->get("/fabric/v4/metros?limit=1000").status, 400);
        QCOMPARE(client->get("/fabric/v4/metros?presence=EVERYWHERE").status, 400);
        QCOMPARE(client->get("/fabric/v4/metros/LD").object()["name"].toString(),
                 QStringLiteral("London"));
    }

    void serviceProfiles()
    {
        HttpResult r = client->get("/fabric/v4/serviceProfiles?limit=2");
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 3);
        QCOMPARE(r.object()["data"].toArray().size(), 2);
        r = client->get("/fabric/v4/serviceProfiles/" + s(Ids::ProfileAwsDirectConnect));
        const QJsonObject aws = r.object();
        QCOMPARE(aws["name"].toString(), QStringLiteral("AWS Direct Connect"));
        const QJsonObject config = aws["accessPointTypeConfigs"][0].toObject();
        QVERIFY(config["supportedBandwidths"].toArray().contains(1000));
        QVERIFY(config["authenticationKey"]["required"].toBool());
        QCOMPARE(aws["metros"][0]["sellerRegions"].toObject().keys(), QStringList{"us-west-1"});

        const QJsonObject inSg{
            {"filter",
             QJsonObject{{"and", QJsonArray{QJsonObject{{"property", "/metros/code"},
                                                        {"operator", "="},
                                                        {"values", QJsonArray{"SG"}}}}}}}};
        r = client->post("/fabric/v4/serviceProfiles/search", inSg);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 2);
        const QJsonObject byName{{"filter", QJsonObject{{"property", "/name"},
                                                        {"operator", "ILIKE"},
                                                        {"values", QJsonArray{"%direct%"}}}}};
        r = client->post("/fabric/v4/serviceProfiles/search", byName);
        QCOMPARE(r.object()["data"][0]["uuid"].toString(), s(Ids::ProfileAwsDirectConnect));
    }

    void networksRoutersAndTokens()
    {
        HttpResult r =
            client->post("/fabric/v4/networks/search",
                         QJsonObject{{"filter", QJsonObject{{"property", "/scope"},
                                                            {"operator", "="},
                                                            {"values", QJsonArray{"GLOBAL"}}}}});
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 1);
        QCOMPARE(r.object()["data"][0]["uuid"].toString(), s(Ids::NetworkGlobalEvplan));
        QCOMPARE(client->get("/fabric/v4/networks/" + s(Ids::NetworkAmerEplan))
                     .object()["type"]
                     .toString(),
                 QStringLiteral("EPLAN"));

        r = client->post(
            "/fabric/v4/routers/search",
            QJsonObject{
                {"filter",
                 QJsonObject{{"and", QJsonArray{QJsonObject{{"property", "/location/metroCode"},
                                                            {"operator", "="},
                                                            {"values", QJsonArray{"LD"}}}}}}}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object()["data"].toArray().size(), 1);
        QCOMPARE(r.object()["data"][0]["uuid"].toString(), s(Ids::RouterLdLab));

        r = client->get("/fabric/v4/serviceTokens?offset=0&limit=1");
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 2);
        QCOMPARE(r.object()["data"].toArray().size(), 1);
        r = client->get("/fabric/v4/serviceTokens/" + s(Ids::ServiceTokenSv));
        QCOMPARE(r.object()["state"].toString(), QStringLiteral("ACTIVE"));
        r = client->post(
            "/fabric/v4/serviceTokens/search",
            QJsonObject{{"filter", QJsonObject{{"and", QJsonArray{QJsonObject{
                                                           {"property", "/state"},
                                                           {"operator", "="},
                                                           {"values", QJsonArray{"EXPIRED"}}}}}}}});
        QCOMPARE(r.object()["data"][0]["uuid"].toString(), s(Ids::ServiceTokenLdExpired));
    }

    void connectionWithExpiredTokenIsRejected()
    {
        QJsonObject body = fixtures::cloudConnection();
        body["aSide"] =
            QJsonObject{{"serviceToken", QJsonObject{{"uuid", s(Ids::ServiceTokenLdExpired)}}}};
        const HttpResult r = client->post("/fabric/v4/connections?dryRun=true", body);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142532"));
    }

    void pricesFromRateCard()
    {
        HttpResult r =
            client->post("/fabric/v4/prices/search", fixtures::priceSearch("[\"100\"]", "SV"));
        QCOMPARE(r.status, 200);
        const QJsonObject price = r.object()["data"][0].toObject();
        QCOMPARE(price["type"].toString(), QStringLiteral("VIRTUAL_CONNECTION_PRODUCT"));
        QCOMPARE(price["currency"].toString(), QStringLiteral("USD"));
        QCOMPARE(price["termLength"].toInt(), 1);
        QVERIFY(!price["code"].toString().isEmpty());
        QCOMPARE(price["connection"]["bandwidth"].toInt(), 100);
        const QJsonArray charges = price["charges"].toArray();
        QCOMPARE(charges[0]["type"].toString(), QStringLiteral("MONTHLY_RECURRING"));
        QCOMPARE(charges[0]["price"].toDouble(), 200.0);
        QCOMPARE(charges[1]["type"].toString(), QStringLiteral("NON_RECURRING"));
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 1);

        r = client->post("/fabric/v4/prices/search",
                         fixtures::priceSearch("[\"100\", \"1000\"]", "LD"));
        QCOMPARE(r.object()["data"].toArray().size(), 2);
        QCOMPARE(r.object()["data"][0]["charges"][0]["price"].toDouble(), 300.0); // remote x1.5
        QCOMPARE(r.object()["data"][1]["charges"][0]["price"].toDouble(), 900.0);

        r = client->post("/fabric/v4/prices/search", fixtures::priceSearch("[\"123\"]", "SV"));
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3038022"));
        r = client->post("/fabric/v4/prices/search", QJsonObject{{"filter", QJsonObject{}}});
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3038010"));
    }

    void noDeletePatchOrPut_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("path");
        QTest::newRow("DELETE connection")
            << QByteArray("DELETE") << "/fabric/v4/connections/" + s(Ids::ConnectionSvDcEvpl);
        QTest::newRow("PATCH connection")
            << QByteArray("PATCH") << "/fabric/v4/connections/" + s(Ids::ConnectionSvDcEvpl);
        QTest::newRow("PUT profile")
            << QByteArray("PUT") << "/fabric/v4/serviceProfiles/" + s(Ids::ProfileGenericL2);
        QTest::newRow("DELETE network")
            << QByteArray("DELETE") << "/fabric/v4/networks/" + s(Ids::NetworkGlobalEvplan);
        QTest::newRow("DELETE token")
            << QByteArray("DELETE") << "/fabric/v4/serviceTokens/" + s(Ids::ServiceTokenSv);
        QTest::newRow("GET on create-only") << QByteArray("GET") << "/fabric/v4/connections";
        QTest::newRow("DELETE admin") << QByteArray("DELETE") << "/sandbox/v1/requests";
    }

    void noDeletePatchOrPut()
    {
        QFETCH(QByteArray, method);
        QFETCH(QString, path);
        const HttpResult r = client->send(method, path, "{\"name\":\"x\"}");
        QCOMPARE(r.status, 405);
        if (path.startsWith("/fabric"))
            QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142569"));
        QCOMPARE(client->get("/fabric/v4/connections/" + s(Ids::ConnectionSvDcEvpl))
                     .object()["state"]
                     .toString(),
                 QStringLiteral("ACTIVE"));
        QCOMPARE(client->get("/fabric/v4/networks/" + s(Ids::NetworkGlobalEvplan)).status, 200);
    }

    // ---- faults --------------------------------------------------------------------------

    void latency()
    {
        const HttpResult fast = client->get("/fabric/v4/metros");
        sandbox->setLatencyMs(400);
        const HttpResult slow = client->get("/fabric/v4/metros");
        QCOMPARE(slow.status, 200);
        QVERIFY2(slow.elapsedMs >= 390, QByteArray::number(slow.elapsedMs).constData());
        QVERIFY(fast.elapsedMs < 390);
    }

    void failNextRequests()
    {
        sandbox->failNext(2, 503);
        HttpResult r = client->get("/fabric/v4/metros");
        QCOMPARE(r.status, 503);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3041012"));
        QCOMPARE(client->post("/fabric/v4/connections", fixtures::cloudConnection()).status, 503);
        QCOMPARE(sandbox->realCreateCount(), 0);
        QCOMPARE(client->get("/fabric/v4/metros").status, 200);
    }

    void unauthorizeNextCall()
    {
        sandbox->unauthorizeNext();
        const HttpResult r = client->get("/fabric/v4/metros");
        QCOMPARE(r.status, 401);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3000039"));
        QCOMPARE(client->get("/fabric/v4/metros").status, 200);
    }

    void dropClosesTcpWithoutResponse()
    {
        sandbox->dropNext(1);
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, sandbox->port());
        QVERIFY(socket.waitForConnected(5000));
        socket.write("GET /fabric/v4/metros HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                     client->token() + "\r\n\r\n");
        QSignalSpy disconnected(&socket, &QTcpSocket::disconnected);
        QVERIFY(disconnected.wait(5000));
        QCOMPARE(socket.readAll(), QByteArray());
        QCOMPARE(sandbox->requests().last().dropped, true);
        // The next request on a fresh connection is served normally.
        QTcpSocket second;
        second.connectToHost(QHostAddress::LocalHost, sandbox->port());
        QVERIFY(second.waitForConnected(5000));
        second.write("GET /fabric/v4/metros HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                     client->token() + "\r\n\r\n");
        // No blocking waits: the sandbox runs on this thread's event loop.
        QTRY_VERIFY_WITH_TIMEOUT(second.bytesAvailable() > 0, 5000);
        QVERIFY(second.readAll().startsWith("HTTP/1.1 200"));
    }

    void dropOnlyRealCreates()
    {
        // QNetworkAccessManager resends a request whose connection closed before any answer
        // (up to twice, even a POST), so drop enough attempts for the client to see the error.
        sandbox->dropNext(5, "POST", "/fabric/v4/connections", true);
        // Dry runs and searches on the same prefix pass.
        QCOMPARE(
            client->post("/fabric/v4/connections?dryRun=true", fixtures::cloudConnection()).status,
            200);
        QCOMPARE(client->post("/fabric/v4/connections/search", QJsonObject{}).status, 200);
        const int before = connectionTotal();
        const HttpResult r = client->post("/fabric/v4/connections", fixtures::cloudConnection());
        QCOMPARE(r.status, 0);
        QCOMPARE(r.error, QNetworkReply::RemoteHostClosedError);
        sandbox->clearFaults();
        // Applied by default: the first attempt created the connection, only its answer was lost.
        QCOMPARE(sandbox->realCreateCount(), 1);
        QCOMPARE(connectionTotal(), before + 1);
        int dropped = 0;
        int attempts = 0;
        for (const auto &req : sandbox->requests()) {
            dropped += req.dropped ? 1 : 0;
            attempts += (req.path == "/fabric/v4/connections" && !req.dryRun) ? 1 : 0;
        }
        QVERIFY(attempts >= 1);
        QCOMPARE(dropped, attempts);
        QVERIFY(!sandbox->requests().last().dropped);
    }

    void qnamResendsAfterDrop()
    {
        // Documents a client-side hazard the broker must know about: after a drop, QNAM
        // silently resends the POST on a new connection. With the drop applied before the
        // estate changes, the resend succeeds and the caller sees a plain 201.
        sandbox->dropNext(1, "POST", {}, true);
        sandbox->setDropAppliesRequest(false);
        const HttpResult r = client->post("/fabric/v4/networks", fixtures::network());
        QCOMPARE(r.status, 201);
        QCOMPARE(sandbox->realCreateCount(), 1);
        const auto log = sandbox->requests();
        QCOMPARE(log.size(), 2);
        QVERIFY(log[0].dropped);
        QCOMPARE(log[0].body, log[1].body);
        QCOMPARE(log[1].status, 201);
    }

    void dropBeforeApplyingChangesNothing()
    {
        sandbox->dropNext(5, "POST", {}, true);
        sandbox->setDropAppliesRequest(false);
        const int before = connectionTotal();
        const HttpResult r = client->post("/fabric/v4/connections", fixtures::cloudConnection());
        QCOMPARE(r.error, QNetworkReply::RemoteHostClosedError);
        QCOMPARE(sandbox->realCreateCount(), 0);
        QCOMPARE(connectionTotal(), before);
        sandbox->clearFaults();
        QCOMPARE(client->post("/fabric/v4/connections", fixtures::cloudConnection()).status, 201);
    }

    void dropMatchesMethodAndPath()
    {
        sandbox->dropNext(5, "GET", "/fabric/v4/ports");
        QCOMPARE(client->get("/fabric/v4/metros").status, 200);
        QCOMPARE(client->post("/fabric/v4/connections/search", QJsonObject{}).status, 200);
        QCOMPARE(client->get("/fabric/v4/ports").error, QNetworkReply::RemoteHostClosedError);
    }

    // ---- admin endpoints -----------------------------------------------------------------

    void adminFaultsRequestsAndReset()
    {
        SandboxTestClient admin(sandbox->baseUrl());
        HttpResult r = admin.send("POST", "/sandbox/v1/faults",
                                  "{\"fail\":{\"count\":1,\"status\":502},\"latencyMs\":0,"
                                  "\"dryRunUnsupported\":{\"network_create\":true}}",
                                  {}, false);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object()["fail"]["count"].toInt(), 1);
        QVERIFY(r.object()["dryRunUnsupported"].toObject().contains("/fabric/v4/networks"));
        QCOMPARE(client->get("/fabric/v4/metros").status, 502);
        QCOMPARE(
            client->post("/fabric/v4/networks?dryRun=true", fixtures::network()).firstErrorCode(),
            QStringLiteral("EQ-3142411"));

        r = admin.send("POST", "/sandbox/v1/faults", "{\"unauthorizeNext\":true}", {}, false);
        QCOMPARE(client->get("/fabric/v4/metros").status, 401);

        r = admin.send("POST", "/sandbox/v1/faults",
                       "{\"drop\":{\"count\":5,\"method\":\"POST\",\"onlyRealCreates\":true,"
                       "\"applyRequest\":false}}",
                       {}, false);
        QCOMPARE(r.object()["drop"]["count"].toInt(), 5);
        QCOMPARE(r.object()["drop"]["applyRequest"].toBool(), false);
        QCOMPARE(client->post("/fabric/v4/connections", fixtures::cloudConnection()).error,
                 QNetworkReply::RemoteHostClosedError);
        admin.send("POST", "/sandbox/v1/faults", "{\"clear\":true}", {}, false);

        QCOMPARE(client->send("GET", "/fabric/v4/ports", {}, {{"X-CORRELATION-ID", "corr-admin"}})
                     .status,
                 200);
        r = admin.send("GET", "/sandbox/v1/requests", {}, {}, false);
        QCOMPARE(r.status, 200);
        const QJsonArray log = r.object()["data"].toArray();
        QCOMPARE(r.object()["realCreateCount"].toInt(), 0);
        QCOMPARE(log.last()["correlationId"].toString(), QStringLiteral("corr-admin"));
        QCOMPARE(log.last()["path"].toString(), QStringLiteral("/fabric/v4/ports"));
        QCOMPARE(log.last()["status"].toInt(), 200);
        bool sawDropped = false;
        for (const QJsonValue &entry : log)
            sawDropped = sawDropped || entry["dropped"].toBool();
        QVERIFY(sawDropped);
        for (const QJsonValue &entry : log)
            QVERIFY(!entry["path"].toString().startsWith("/sandbox/"));

        r = admin.send("POST", "/sandbox/v1/faults", "{\"latencyMs\":\"slow\"}", {}, false);
        QCOMPARE(r.status, 400);
        r = admin.send("GET", "/sandbox/v1/faults", {}, {}, false);
        QCOMPARE(r.object()["latencyMs"].toInt(), 0);

        r = admin.send("POST", "/sandbox/v1/reset", "{}", {}, false);
        QCOMPARE(r.status, 200);
        QCOMPARE(sandbox->requests().size(), 0);
        QCOMPARE(sandbox->realCreateCount(), 0);
        QCOMPARE(connectionTotal(), 4); // the seeded ones; the token survived the reset
        QCOMPARE(client->post("/fabric/v4/networks?dryRun=true", fixtures::network()).status, 202);

        r = admin.send("GET", "/sandbox/v1/estate/description", {}, {}, false);
        QCOMPARE(r.status, 200);
        QVERIFY(QString::fromUtf8(r.body).contains(s(Ids::PortSvPrimary)));
        r = admin.send("GET", "/sandbox/v1/estate", {}, {}, false);
        QCOMPARE(r.object()["ports"].toArray().size(), 7);
        QCOMPARE(admin.send("GET", "/sandbox/v1/nope", {}, {}, false).status, 404);
    }

    // Issue 14: the admin API never records nor returns a credential.
    void adminRequestLogRedactsSecrets()
    {
        const QByteArray secret = "FB-ADMIN-SECRET-4711";
        SandboxTestClient c(sandbox->baseUrl());
        const QJsonObject body{{"grant_type", "client_credentials"},
                               {"client_id", "redaction-client"},
                               {"client_secret", QString::fromLatin1(secret)}};
        const HttpResult token =
            c.send("POST", "/oauth2/v1/token", QJsonDocument(body).toJson(), {}, false);
        QCOMPARE(token.status, 200);
        const QByteArray issued = token.object()["access_token"].toString().toLatin1();
        QVERIFY(!issued.isEmpty());
        // A form-encoded token request and a secret in the query are redacted as well.
        c.send("POST", "/oauth2/v1/token?client_secret=" + QString::fromLatin1(secret),
               "grant_type=client_credentials&client_id=form-client&client_secret=" + secret,
               {{"Content-Type", "application/x-www-form-urlencoded"}}, false);
        // A Fabric call carrying the issued token (in a header the log never keeps).
        c.setToken(issued);
        QCOMPARE(c.get("/fabric/v4/metros").status, 200);

        SandboxTestClient admin(sandbox->baseUrl());
        const HttpResult r = admin.send("GET", "/sandbox/v1/requests", {}, {}, false);
        QCOMPARE(r.status, 200);
        QVERIFY2(!r.body.contains(secret), r.body.constData());
        QVERIFY2(!r.body.contains(issued), r.body.constData());
        const QJsonArray log = r.object()["data"].toArray();
        QVERIFY(log.size() >= 3);
        const QJsonObject first =
            QJsonDocument::fromJson(log.at(0)["body"].toString().toUtf8()).object();
        QCOMPARE(first["client_secret"].toString(), QStringLiteral("[REDACTED]"));
        QCOMPARE(first["client_id"].toString(), QStringLiteral("redaction-client"));
        QVERIFY(log.at(1)["body"].toString().contains("client_id=form-client"));
        QVERIFY(log.at(1)["body"].toString().contains("REDACTED"));
        QVERIFY(log.at(1)["query"].toString().contains("REDACTED"));
        // Nor does the in-process log keep them.
        for (const auto &rec : sandbox->requests()) {
            QVERIFY(!rec.body.contains(secret));
            QVERIFY(!rec.query.toString().toUtf8().contains(secret));
        }
        // A body without credentials is kept byte for byte.
        const QByteArray plain = "{\"name\":\"x\",  \"bandwidth\":50}";
        c.send("POST", "/fabric/v4/connections/search", plain);
        QCOMPARE(sandbox->requests().last().body, plain);
    }

    void adminRefusesNonLoopbackHost()
    {
        const auto rawGet = [&](const QByteArray &hostLine) {
            // The sandbox runs on this thread: wait with the event loop running (QSignalSpy).
            QTcpSocket socket;
            QSignalSpy connected(&socket, &QTcpSocket::connected);
            socket.connectToHost(QHostAddress::LocalHost, sandbox->port());
            if (!connected.wait(3000))
                return QByteArray("no connection");
            QSignalSpy disconnected(&socket, &QTcpSocket::disconnected);
            socket.write("GET /sandbox/v1/requests HTTP/1.1\r\n" + hostLine +
                         "Connection: close\r\n\r\n");
            if (!disconnected.wait(5000))
                return QByteArray("no answer");
            const QByteArray answer = socket.readAll();
            return answer.left(answer.indexOf("\r\n"));
        };
        QCOMPARE(rawGet("Host: evil.example:8080\r\n"), QByteArray("HTTP/1.1 403 Forbidden"));
        QCOMPARE(rawGet("Host: 127.0.0.1.evil.example\r\n"), QByteArray("HTTP/1.1 403 Forbidden"));
        QCOMPARE(rawGet("Host: 10.0.0.5\r\n"), QByteArray("HTTP/1.1 403 Forbidden"));
        QCOMPARE(rawGet(QByteArray()), QByteArray("HTTP/1.1 403 Forbidden"));
        const QByteArray port = QByteArray::number(sandbox->port());
        QCOMPARE(rawGet("Host: 127.0.0.1:" + port + "\r\n"), QByteArray("HTTP/1.1 200 OK"));
        QCOMPARE(rawGet("Host: localhost:" + port + "\r\n"), QByteArray("HTTP/1.1 200 OK"));
        QCOMPARE(rawGet("Host: [::1]:" + port + "\r\n"), QByteArray("HTTP/1.1 200 OK"));
        QCOMPARE(rawGet("Host: 127.0.0.1\r\n"), QByteArray("HTTP/1.1 200 OK"));
    }

    // Issue 15: every bandwidth a seeded profile, service token or port offers is priced by the
    // rate card in every seeded metro (as A side and as Z side), so no seeded choice is unpriced.
    void rateCardPricesTheWholeEstate()
    {
        const QJsonObject estate = sandbox->estateJson();
        QSet<int> bandwidths;
        const auto addAll = [&](const QJsonArray &list) {
            for (const QJsonValue &b : list)
                bandwidths.insert(b.toInt());
        };
        for (const QJsonValue &p : estate["serviceProfiles"].toArray())
            for (const QJsonValue &cfg : p["accessPointTypeConfigs"].toArray())
                addAll(cfg["supportedBandwidths"].toArray());
        for (const QJsonValue &t : estate["serviceTokens"].toArray()) {
            addAll(t["connection"]["supportedBandwidths"].toArray());
            bandwidths.insert(t["connection"]["bandwidthLimit"].toInt());
        }
        for (const QJsonValue &p : estate["ports"].toArray())
            bandwidths.insert(p["bandwidth"].toInt());
        bandwidths.remove(0);
        QVERIFY(bandwidths.contains(10)); // the managed-services profile's smallest
        QStringList metros;
        for (const QJsonValue &m : estate["metros"].toArray())
            metros << m["code"].toString();
        QCOMPARE(metros.size(), 6);
        QStringList missing;
        for (const QString &a : std::as_const(metros)) {
            for (const QString &z : std::as_const(metros)) {
                for (const int bw : std::as_const(bandwidths)) {
                    const QJsonObject search{
                        {"filter",
                         QJsonObject{
                             {"and",
                              QJsonArray{
                                  QJsonObject{{"property", "/type"},
                                              {"operator", "="},
                                              {"values", QJsonArray{"VIRTUAL_CONNECTION_PRODUCT"}}},
                                  QJsonObject{{"property", "/connection/type"},
                                              {"operator", "="},
                                              {"values", QJsonArray{"EVPL_VC"}}},
                                  QJsonObject{{"property", "/connection/bandwidth"},
                                              {"operator", "IN"},
                                              {"values", QJsonArray{bw}}},
                                  QJsonObject{{"property",
                                               "/connection/aSide/accessPoint/location/metroCode"},
                                              {"operator", "="},
                                              {"values", QJsonArray{a}}},
                                  QJsonObject{{"property",
                                               "/connection/zSide/accessPoint/location/metroCode"},
                                              {"operator", "="},
                                              {"values", QJsonArray{z}}}}}}}};
                    const HttpResult r = client->post("/fabric/v4/prices/search", search);
                    const QJsonArray data = r.object()["data"].toArray();
                    if (r.status != 200 || data.isEmpty() ||
                        data.first()["charges"].toArray().isEmpty())
                        missing << QStringLiteral("%1 Mbps %2->%3 (HTTP %4)")
                                       .arg(bw)
                                       .arg(a, z)
                                       .arg(r.status);
                }
            }
        }
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral("; "))));
        // And --print-estate lists every one of them on the rate card.
        const QString text = FabricSandbox::estateDescription();
        for (const int bw : std::as_const(bandwidths))
            QVERIFY2(text.contains(QStringLiteral(" %1M=").arg(bw)),
                     qPrintable(QString::number(bw)));
    }

    void estateDescriptionNamesFixtures()
    {
        const QString text = FabricSandbox::estateDescription();
        for (const QLatin1String id :
             {Ids::PortSvPrimary, Ids::PortNyQinq, Ids::ProfileAwsDirectConnect,
              Ids::ProfileGenericL2, Ids::NetworkGlobalEvplan, Ids::ServiceTokenSv,
              Ids::RouterSvStandard})
            QVERIFY2(text.contains(QString(id)), qPrintable(QString(id)));
        QVERIFY(text.contains("VLANs in use: 100, 101, 150"));
        QVERIFY(text.contains("us-west-1"));
        QVERIFY(text.contains("auth key required"));
        QCOMPARE(sandbox->estateJson()["serviceProfiles"].toArray().size(), 3);
    }

    void listensOnLoopbackOnly()
    {
        FabricSandbox other;
        QVERIFY(other.listen());
        QVERIFY(other.port() != sandbox->port());
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, other.port());
        QVERIFY(socket.waitForConnected(3000));
    }
};

QTEST_GUILESS_MAIN(TestFabricSandbox)
#include "tst_fabric_sandbox.moc"
