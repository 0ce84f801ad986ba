// RelayHello: what a relayed --stdio asks for (from its own command line and environment), the
// hello's JSON round trip with hostile input, and the instance's decision: narrowings honoured,
// every widening or switch refused with the conflict and its fix, secrets never in the hello.
#include "TestEnvironment.h"
#include "broker/RelayHello.h"
#include "fabric/FabricClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace fb;

namespace {

RelayInstanceFacts readMutateSandbox()
{
    RelayInstanceFacts f;
    f.toolsets = {"read", "mutate"};
    f.sandbox = true;
    f.endpoint = "http://127.0.0.1:4000";
    f.approvalChannel = "desktop";
    f.pid = 42;
    return f;
}

RelayRequest ask(const QString &toolsets, bool sandbox, const QProcessEnvironment &env)
{
    RelayRequest r;
    QString error;
    const bool ok = RelayRequest::fromCommandLine(toolsets, sandbox, env, &r, &error);
    if (!ok)
        qWarning() << error;
    return RelayRequest::fromJson(r.toJson()); // as the instance receives it
}

} // namespace

class TestRelayHello : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void nothingAskedIsServedAsTheInstanceIs()
    {
        const mcp::SessionPolicy p = decideRelayedSession(ask({}, false, {}), readMutateSandbox());
        QVERIFY(p.refusal.isEmpty());
        QVERIFY(p.toolsets.isEmpty());
        QCOMPARE(p.welcome.value("toolsets").toArray(), QJsonArray({"read", "mutate"}));
    }

    void narrowingIsHonoured()
    {
        const mcp::SessionPolicy p =
            decideRelayedSession(ask("read", false, {}), readMutateSandbox());
        QVERIFY(p.refusal.isEmpty());
        QCOMPARE(p.toolsets, QStringList({"read"}));
        QProcessEnvironment env;
        env.insert("EQUINIX_MCP_TOOLSETS", "read");
        env.insert("EQUINIX_MCP_APPROVAL", "desktop");
        const mcp::SessionPolicy q = decideRelayedSession(ask({}, true, env), readMutateSandbox());
        QVERIFY2(q.refusal.isEmpty(), qPrintable(q.refusal));
        QCOMPARE(q.toolsets, QStringList({"read"}));
    }

    void everyConflictIsNamedWithItsFix()
    {
        RelayInstanceFacts real;
        real.toolsets = {"read"};
        real.endpoint = "https://api.equinix.com";
        FabricConfig mine;
        mine.clientId = "id";
        mine.clientSecret = "the-instance-secret";
        real.credentialsFingerprint = credentialsFingerprint(mine);
        real.approvalChannel = "client";
        real.pid = 7;
        QProcessEnvironment env;
        env.insert("EQUINIX_API_CLIENTID", "id");
        env.insert("EQUINIX_API_CLIENTSECRET", "another-secret");
        env.insert("EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS", "true");
        env.insert("EQUINIX_MCP_APPROVAL", "desktop");
        env.insert("EQUINIX_MCP_MAX_PENDING", "3");
        const RelayRequest request = ask("read,mutate", true, env);
        const QByteArray hello = QJsonDocument(request.toJson()).toJson();
        QVERIFY(!hello.contains("another-secret")); // a fingerprint, never the secret
        QVERIFY(hello.contains(credentialsFingerprint([] {
                                   FabricConfig c;
                                   c.clientId = "id";
                                   c.clientSecret = "another-secret";
                                   return c;
                               }())
                                   .toLatin1()));
        const mcp::SessionPolicy p = decideRelayedSession(request, real);
        const QJsonArray conflicts = p.refusalData.value("conflicts").toArray();
        QStringList settings;
        for (const QJsonValue &c : conflicts) {
            settings << c.toObject().value("setting").toString();
            QVERIFY(!c.toObject().value("fix").toString().isEmpty());
        }
        QCOMPARE(settings, QStringList({"--toolsets", "--sandbox", "credentials",
                                        "EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS",
                                        "EQUINIX_MCP_APPROVAL", "EQUINIX_MCP_MAX_PENDING"}));
        QVERIFY(p.refusal.contains("the running Fabric Broker (pid 7)"));
        QVERIFY(!p.refusal.contains("secret"));
        QCOMPARE(p.welcome.value("refused").toString(), p.refusal);
        QVERIFY(p.toolsets.isEmpty());
    }

    void sameCredentialsAndEndpointAreNoConflict()
    {
        FabricConfig mine;
        mine.clientId = "id";
        mine.clientSecret = "s";
        RelayInstanceFacts real;
        real.toolsets = {"read"};
        real.endpoint = normalizedEndpoint("https://api.equinix.com/");
        real.credentialsFingerprint = credentialsFingerprint(mine);
        real.approvalChannel = "desktop";
        QProcessEnvironment env;
        env.insert("EQUINIX_API_CLIENTID", "id");
        env.insert("EQUINIX_API_CLIENTSECRET", "s");
        env.insert("EQUINIX_API_ENDPOINT", "https://api.equinix.com");
        const mcp::SessionPolicy p = decideRelayedSession(ask({}, false, env), real);
        QVERIFY2(p.refusal.isEmpty(), qPrintable(p.refusal));
    }

    void invalidValuesAreErrorsInTheRelay()
    {
        RelayRequest r;
        QString error;
        QVERIFY(!RelayRequest::fromCommandLine("read,write", false, {}, &r, &error));
        QVERIFY2(error.contains("--toolsets"), qPrintable(error));
        QProcessEnvironment env;
        env.insert("EQUINIX_MCP_APPROVAL", "sometimes");
        QVERIFY(!RelayRequest::fromCommandLine({}, false, env, &r, &error));
        QVERIFY2(error.contains("EQUINIX_MCP_APPROVAL"), qPrintable(error));
    }

    void hostileHelloIsBounded()
    {
        QJsonArray many;
        for (int i = 0; i < 1000; ++i)
            many.append(QString(10000, 'x'));
        const RelayRequest r = RelayRequest::fromJson(
            QJsonObject{{"toolsets", many},
                        {"endpoint", QString(100000, 'e')},
                        {"credentialsFingerprint", QJsonArray{1, 2}},
                        {"limits", QJsonObject{{"EQUINIX_MCP_MAX_PENDING", QString(1000, '9')},
                                               {"OTHER", "x"}}}});
        QVERIFY(r.toolsets);
        QCOMPARE(r.toolsets->size(), 8);
        QCOMPARE(r.toolsets->first().size(), 32);
        QCOMPARE(r.endpoint.size(), 512);
        QVERIFY(r.credentialsFingerprint.isEmpty());
        QCOMPARE(r.limits.keys(), QStringList({"EQUINIX_MCP_MAX_PENDING"}));
        QCOMPARE(r.limits.value("EQUINIX_MCP_MAX_PENDING").size(), 24);
        const mcp::SessionPolicy p = decideRelayedSession(r, readMutateSandbox());
        QVERIFY(!p.refusal.isEmpty()); // unknown toolsets widen: refused
        QVERIFY(p.refusal.size() < 4000);
    }
};

QTEST_GUILESS_MAIN(TestRelayHello)
#include "tst_relayhello.moc"
