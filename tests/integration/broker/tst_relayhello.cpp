// RelayHello: what a relayed --stdio asks for (from its own command line and environment), the
// hello's JSON round trip with hostile input, and the instance's decision: narrowings honoured,
// every widening or switch refused with the conflict and its fix, secrets never in the hello.
#include "TestEnvironment.h"
#include "broker/RelayHello.h"
#include "fabric/FabricClient.h"

#include "core/Policy.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
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

    // EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS is per session: an instance that allows it (its
    // own stdio session asked) neither refuses nor exempts a relayed session that did not ask.
    void unconfirmedExecutionIsPerSession()
    {
        RelayInstanceFacts unconfirmed = readMutateSandbox();
        unconfirmed.approvalChannel = "client";
        unconfirmed.settings.allowUnconfirmedMutations = true;
        const mcp::SessionPolicy quiet = decideRelayedSession(ask({}, false, {}), unconfirmed);
        QVERIFY2(quiet.refusal.isEmpty(), qPrintable(quiet.refusal));
        QVERIFY(!quiet.allowUnconfirmedMutations);
        QCOMPARE(quiet.welcome.value("allowUnconfirmedMutations"), QJsonValue(false));

        QProcessEnvironment asks;
        asks.insert("EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS", "true");
        const mcp::SessionPolicy asked = decideRelayedSession(ask({}, false, asks), unconfirmed);
        QVERIFY2(asked.refusal.isEmpty(), qPrintable(asked.refusal));
        QVERIFY(asked.allowUnconfirmedMutations);

        // An instance that does not allow it refuses the one that asks (never widened).
        const mcp::SessionPolicy refused =
            decideRelayedSession(ask({}, false, asks), readMutateSandbox());
        QVERIFY(refused.refusal.contains("EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS"));
        QVERIFY(!refused.allowUnconfirmedMutations);
    }

    // The hello carries the policy files the relay would apply, with their SHA-256: one the
    // instance does not apply (it could be stricter) narrows the session when it only narrows
    // toolsets.allowed, and is refused with the fix otherwise; the same bytes (under any path)
    // and absent files are no conflict.
    void policyFilesAreCompared()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString user = dir.filePath("user-policy.json");
        QFile f(user);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"toolsets": {"allowed": ["read"]}})");
        f.close();
        QProcessEnvironment env;
        env.insert("FABRIC_BROKER_POLICY", user);
        const RelayRequest request = ask({}, false, env);
        PolicyPaths paths;
        paths.system = {};
        paths.user = user;
        const QString digest = policyFileDigests(paths).value(user);
        QCOMPARE(digest.size(), 64);
        QCOMPARE(request.policyFiles.value(user), digest);

        // Stricter only in toolsets.allowed: served under it, for this session only.
        const mcp::SessionPolicy narrowed = decideRelayedSession(request, readMutateSandbox());
        QVERIFY2(narrowed.refusal.isEmpty(), qPrintable(narrowed.refusal));
        QCOMPARE(narrowed.toolsets, QStringList{"read"});
        QCOMPARE(narrowed.welcome.value("toolsets").toArray(), QJsonArray{"read"});

        // Stricter in a key only the whole instance enforces: refused with the fix.
        const QString spend = dir.filePath("spend-policy.json");
        QFile g(spend);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(
            R"({"spend": {"max_monthly_recurring_per_change": {"amount": 5, "currency": "USD"}}})");
        g.close();
        QProcessEnvironment spendEnv;
        spendEnv.insert("FABRIC_BROKER_POLICY", spend);
        const mcp::SessionPolicy refused =
            decideRelayedSession(ask({}, false, spendEnv), readMutateSandbox());
        QVERIFY2(refused.refusal.contains("policy file: this session asks for " + spend),
                 qPrintable(refused.refusal));
        QVERIFY(refused.refusal.contains(
            "it sets spend.max_monthly_recurring_per_change, which only the whole instance can "
            "enforce"));
        QVERIFY(refused.refusal.contains("uses no policy file"));
        QVERIFY(refused.refusal.contains("Fix: give the running app the same policy "
                                         "(FABRIC_BROKER_POLICY=" +
                                         spend));
        // A file that changed after the relay hashed it is not taken on trust.
        RelayRequest changed = request;
        changed.policyFiles.insert(user, QString(64, 'a'));
        QVERIFY(decideRelayedSession(changed, readMutateSandbox())
                    .refusal.contains("changed since this session read it"));

        RelayInstanceFacts same = readMutateSandbox();
        same.policyFiles.insert("/elsewhere/policy.json", digest);
        QVERIFY(decideRelayedSession(request, same).refusal.isEmpty());

        QProcessEnvironment absent;
        absent.insert("FABRIC_BROKER_POLICY", dir.filePath("none.json"));
        QVERIFY(
            decideRelayedSession(ask({}, false, absent), readMutateSandbox()).refusal.isEmpty());

        // There but unreadable: alone it would refuse mutate, so it is not ignored here either.
        QVERIFY(QDir(dir.path()).mkdir("a-directory.json"));
        QProcessEnvironment broken;
        broken.insert("FABRIC_BROKER_POLICY", dir.filePath("a-directory.json"));
        const mcp::SessionPolicy unreadable = decideRelayedSession(ask({}, false, broken), same);
        QVERIFY2(unreadable.refusal.contains("unreadable, which refuses mutate"),
                 qPrintable(unreadable.refusal));
    }

    // An audit log the relay's environment names must be the instance's; the default location
    // (clients often pass a reduced environment) is carried, not compared.
    void namedAuditLogMustMatch()
    {
        RelayInstanceFacts facts = readMutateSandbox();
        facts.auditLog = "/var/tmp/fb-test/audit.jsonl";
        QProcessEnvironment env;
        env.insert("EQUINIX_MCP_AUDIT_LOG", "/var/tmp/fb-test/other.jsonl");
        const RelayRequest request = ask({}, false, env);
        QVERIFY(request.auditLogNamed);
        const mcp::SessionPolicy p = decideRelayedSession(request, facts);
        QVERIFY2(p.refusal.contains("EQUINIX_MCP_AUDIT_LOG: this session asks for "
                                    "/var/tmp/fb-test/other.jsonl"),
                 qPrintable(p.refusal));
        QVERIFY(p.refusal.contains("Fix: remove EQUINIX_MCP_AUDIT_LOG from this client's env"));

        env.insert("EQUINIX_MCP_AUDIT_LOG", "/var/tmp/fb-test/./audit.jsonl");
        QVERIFY(decideRelayedSession(ask({}, false, env), facts).refusal.isEmpty());
        const RelayRequest byDefault = ask({}, false, {});
        QVERIFY(!byDefault.auditLogNamed);
        QVERIFY(!byDefault.auditLog.isEmpty());
        QVERIFY(decideRelayedSession(byDefault, facts).refusal.isEmpty());
        QCOMPARE(decideRelayedSession(byDefault, facts).welcome.value("auditLog").toString(),
                 facts.auditLog);
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
                        {"policyFiles",
                         QJsonArray{QJsonObject{{"path", QString(100000, 'p')}},
                                    QJsonObject{{"path", "/a"}}, "x", QJsonObject{{"path", "/b"}},
                                    QJsonObject{{"path", "/c"}}, QJsonObject{{"path", "/d"}}}},
                        {"auditLog", QJsonObject{{"path", QString(100000, 'a')}, {"named", 1}}},
                        {"limits", QJsonObject{{"EQUINIX_MCP_MAX_PENDING", QString(1000, '9')},
                                               {"OTHER", "x"}}}});
        QVERIFY(r.toolsets);
        QCOMPARE(r.toolsets->size(), 8);
        QCOMPARE(r.toolsets->first().size(), 32);
        QCOMPARE(r.endpoint.size(), 512);
        QVERIFY(r.credentialsFingerprint.isEmpty());
        QCOMPARE(r.limits.keys(), QStringList({"EQUINIX_MCP_MAX_PENDING"}));
        QCOMPARE(r.limits.value("EQUINIX_MCP_MAX_PENDING").size(), 24);
        QCOMPARE(r.policyFiles.size(), 3);
        QVERIFY(r.policyFiles.firstKey().size() <= 4096);
        QCOMPARE(r.auditLog.size(), 4096);
        QVERIFY(!r.auditLogNamed); // "named" must be a boolean true
        const mcp::SessionPolicy p = decideRelayedSession(r, readMutateSandbox());
        QVERIFY(!p.refusal.isEmpty()); // unknown toolsets widen: refused
        QVERIFY(p.refusal.size() < 4000);
    }
};

QTEST_GUILESS_MAIN(TestRelayHello)
#include "tst_relayhello.moc"
