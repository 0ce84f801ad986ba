// FabricSandbox over real loopback HTTP (QNetworkAccessManager and raw QTcpSocket): fault
// injection (latency, failures, dropped connections), the admin endpoints, the rate card over
// the whole estate, and listening on loopback only. Its parts: tst_sandboxauth, tst_sandboxapi,
// tst_sandboxvalidator, tst_sandboxsearch.
#include "SandboxSuite.h"
#include "TestEnvironment.h"
#include <QSignalSpy>
#include <QTcpSocket>

class TestFabricSandbox : public SandboxSuite {
    Q_OBJECT
private Q_SLOTS:
    void init() { fbtest::failOnWarnings({QStringLiteral("admin request refused: ")}); }

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
        // No Host at all: HTTP/1.1 requires one, and libmicrohttpd refuses the request itself.
        const QByteArray noHost = rawGet(QByteArray());
        QVERIFY2(noHost == "HTTP/1.1 403 Forbidden" || noHost == "HTTP/1.1 400 Bad Request",
                 noHost.constData());
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
#include "tst_fabricsandbox.moc"
