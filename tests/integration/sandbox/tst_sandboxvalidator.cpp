// SandboxValidator over real loopback HTTP: the create requests Fabric refuses, each with its
// code and the field path named (schema violations, estate rules, an expired service token),
// and malformed JSON.
#include "SandboxSuite.h"
#include "TestEnvironment.h"

class TestSandboxValidator : public SandboxSuite {
    Q_OBJECT
private Q_SLOTS:
    void init() { fbtest::failOnWarnings(); }

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

    void connectionWithExpiredTokenIsRejected()
    {
        QJsonObject body = fixtures::cloudConnection();
        body["aSide"] =
            QJsonObject{{"serviceToken", QJsonObject{{"uuid", s(Ids::ServiceTokenLdExpired)}}}};
        const HttpResult r = client->post("/fabric/v4/connections?dryRun=true", body);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142532"));
    }
};

QTEST_GUILESS_MAIN(TestSandboxValidator)
#include "tst_sandboxvalidator.moc"
