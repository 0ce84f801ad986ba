// FabricConfig::withSaved: the environment over the desktop app's saved configuration, field by
// field (flag > environment > saved): saved credentials only when the environment has none, and
// the environment's endpoint and timeout winning over the saved ones even then.
#include "TestEnvironment.h"
#include "fabric/FabricConfig.h"

#include <QProcessEnvironment>
#include <QTest>

using fb::FabricConfig;

class TestFabricConfig : public QObject {
    Q_OBJECT

    static FabricConfig saved()
    {
        FabricConfig c;
        c.endpoint = QUrl(QStringLiteral("https://saved.example.com"));
        c.clientId = QStringLiteral("saved-id");
        c.clientSecret = QStringLiteral("saved-secret");
        c.timeoutMs = 12000;
        return c;
    }

private slots:
    void init() { fbtest::failOnWarnings(); }

    void environmentEndpointWinsOverTheSavedOne()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("EQUINIX_API_ENDPOINT"), QStringLiteral("http://127.0.0.1:4010"));
        env.insert(QStringLiteral("EQUINIX_API_TIMEOUT_MS"), QStringLiteral("5000"));
        const FabricConfig c = FabricConfig::withSaved(env, saved());
        QCOMPARE(c.clientId, QStringLiteral("saved-id"));
        QCOMPARE(c.clientSecret, QStringLiteral("saved-secret"));
        QCOMPARE(c.endpoint, QUrl(QStringLiteral("http://127.0.0.1:4010")));
        QCOMPARE(c.timeoutMs, 5000);
    }

    void savedValuesWhereTheEnvironmentSaysNothing()
    {
        const FabricConfig c = FabricConfig::withSaved(QProcessEnvironment(), saved());
        QCOMPARE(c.endpoint, QUrl(QStringLiteral("https://saved.example.com")));
        QCOMPARE(c.timeoutMs, 12000);
        QCOMPARE(c.clientId, QStringLiteral("saved-id"));
    }

    void environmentCredentialsWinWholly()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("EQUINIX_API_CLIENTID"), QStringLiteral("env-id"));
        env.insert(QStringLiteral("EQUINIX_API_CLIENTSECRET"), QStringLiteral("env-secret"));
        const FabricConfig c = FabricConfig::withSaved(env, saved());
        QCOMPARE(c.clientId, QStringLiteral("env-id"));
        QCOMPARE(c.endpoint, FabricConfig{}.endpoint); // not the saved endpoint
        // Nothing saved: the environment alone.
        QCOMPARE(FabricConfig::withSaved(env, std::nullopt).clientId, QStringLiteral("env-id"));
    }

    // The policy's fabric.endpoint against the configured endpoint (FabricClient refuses every
    // call, the token request included, while lockProblem() says why).
    void endpointLock()
    {
        FabricConfig c;
        c.endpoint = QUrl(QStringLiteral("https://api.equinix.com/"));
        const QString locked = QStringLiteral("https://api.equinix.com");
        QCOMPARE(c.bindingEndpoint(), locked);
        QCOMPARE(c.lockProblem(QString(), QString()), QString());
        QCOMPARE(c.lockProblem(locked, QStringLiteral("/etc/p.json")), QString());
        c.endpoint = QUrl(QStringLiteral("https://user:pw@api.equinix.com"));
        QCOMPARE(c.lockProblem(locked, QStringLiteral("/etc/p.json")), QString());

        c.endpoint = QUrl(QStringLiteral("https://collector.example/"));
        const QString why = c.lockProblem(locked, QStringLiteral("/etc/p.json"));
        QVERIFY(
            why.startsWith(QStringLiteral("fabric.endpoint (/etc/p.json) locks the Fabric "
                                          "endpoint to https://api.equinix.com, but this "
                                          "broker is configured for https://collector.example")));
        c.endpoint = QUrl(QStringLiteral("https://api.equinix.com.collector.example"));
        QVERIFY(!c.lockProblem(locked, {}).isEmpty());
        c.endpoint = QUrl(QStringLiteral("http://api.equinix.com"));
        QVERIFY(!c.lockProblem(locked, {}).isEmpty());

        // The embedded sandbox on loopback holds no account: always allowed. A sandbox flag on
        // another host is not the embedded sandbox.
        c.sandbox = true;
        c.endpoint = QUrl(QStringLiteral("http://127.0.0.1:4799"));
        QCOMPARE(c.lockProblem(locked, {}), QString());
        c.endpoint = QUrl(QStringLiteral("https://collector.example"));
        QVERIFY(!c.lockProblem(locked, {}).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestFabricConfig)
#include "tst_fabricconfig.moc"
