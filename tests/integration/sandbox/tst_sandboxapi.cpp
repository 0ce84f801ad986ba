// SandboxApi over real loopback HTTP: creates (dry run and real, provisioning over time, dry runs
// declared unsupported), the reads of ports, VLANs, profiles, networks, routers and tokens,
// prices from the rate card, the other read operations (SandboxReadOps) over HTTP, and the
// methods the API does not have (405).
#include "SandboxSuite.h"
#include "TestEnvironment.h"
#include <QSet>

class TestSandboxApi : public SandboxSuite {
    Q_OBJECT
private Q_SLOTS:
    void init() { fbtest::failOnWarnings(); }

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

    // The read operations SandboxReadOps serves, over HTTP: hrefs on the sandbox's real base
    // URL, every request in the log with its status, and the token required like elsewhere.
    void readOperationsOverHttp()
    {
        const QString rules = "/fabric/v4/routeFilters/f1000000-0000-4000-8000-000000000001/"
                              "routeFilterRules";
        HttpResult r = client->get(rules + "?limit=1");
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object()["pagination"].toObject()["total"].toInt(), 2);
        QCOMPARE(r.object()["data"][0]["href"].toString(),
                 sandbox->baseUrl().toString() + rules + "/f2000000-0000-4000-8000-000000000001");
        r = client->post("/fabric/v4/streams/search", QJsonObject{{"bogus", 1}});
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142501"));
        const auto log = sandbox->requests();
        QVERIFY(log.size() >= 2);
        QCOMPARE(log[log.size() - 2].path, rules);
        QCOMPARE(log[log.size() - 2].query.toString(), QStringLiteral("limit=1"));
        QCOMPARE(log[log.size() - 2].status, 200);
        QCOMPARE(log.last().path, QStringLiteral("/fabric/v4/streams/search"));
        QCOMPARE(log.last().status, 400);
        client->setToken("not-a-token");
        QCOMPARE(client->get("/fabric/v4/health").status, 401);
        QVERIFY(!client->login().isEmpty());
        QCOMPARE(client->get("/fabric/v4/health").status, 200);
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
};

QTEST_GUILESS_MAIN(TestSandboxApi)
#include "tst_sandboxapi.moc"
