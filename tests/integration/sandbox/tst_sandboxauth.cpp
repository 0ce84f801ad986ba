// SandboxAuth over real loopback HTTP: the OAuth2 token endpoint's answer (the accesstokenv1
// spec), credentials required, and bearer tokens that really expire, by the wall clock or an
// injected one.
#include "SandboxSuite.h"
#include "TestEnvironment.h"
#include "core/Clock.h"

class TestSandboxAuth : public SandboxSuite {
    Q_OBJECT
private Q_SLOTS:
    void init() { fbtest::failOnWarnings(); }

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
};

QTEST_GUILESS_MAIN(TestSandboxAuth)
#include "tst_sandboxauth.moc"
