// Confirm-time trust rules, through a real MCP session against the embedded sandbox: a named
// token is consumed by the first attempt even when other arguments are wrong; the binding
// covers the Fabric endpoint and credential identity; voided proposals report their reason.
#include "BrokerHarness.h"
#include "TestEnvironment.h"

#include <QtTest>

using namespace fbtest;

namespace {

QString propose(BrokerHarness &h, int vlan)
{
    const QJsonObject proposed =
        h.callTool("fabric_propose_change", {{"change_type", "connection_create"},
                                             {"spec", BrokerHarness::connectionSpec(vlan)}});
    if (proposed.value("isError").toBool())
        qWarning() << QJsonDocument(proposed).toJson();
    return proposed.value("structuredContent").toObject().value("confirm_token").toString();
}

bool askedAPerson(const BrokerHarness &h)
{
    for (const QJsonObject &m : h.received)
        if (m.value("method") == "elicitation/create")
            return true;
    return false;
}

} // namespace

class TestMutationBroker : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings(
            {QStringLiteral("Fabric binding changed: "), QStringLiteral("binding mismatch: ")});
    }

    void extraArgumentConsumesTheNamedToken()
    {
        BrokerHarness h;
        h.initialize();
        const QString token = propose(h, 3101);
        QVERIFY(!token.isEmpty());
        const QJsonObject r = h.callTool("fabric_confirm_change",
                                         {{"confirm_token", token}, {"spec", QJsonObject{}}});
        const QJsonObject s = r.value("structuredContent").toObject();
        QVERIFY(r.value("isError").toBool());
        QCOMPARE(s.value("execution").toObject().value("reason").toString(),
                 QStringLiteral("invalid_arguments"));
        QCOMPARE(s.value("confirm_checks").toObject().value("not_previously_used"),
                 QJsonValue(true));
        QVERIFY2(s.value("message").toString().contains("consumed"),
                 qPrintable(s.value("message").toString()));
        QVERIFY(!askedAPerson(h));
        QCOMPARE(h.store.pendingCount(), 0);
        // The token is used up: a clean retry is a replay.
        const QJsonObject again = h.callTool("fabric_confirm_change", {{"confirm_token", token}})
                                      .value("structuredContent")
                                      .toObject();
        QCOMPARE(again.value("confirm_checks").toObject().value("not_previously_used"),
                 QJsonValue(false));
        QCOMPARE(again.value("execution").toObject().value("reason").toString(),
                 QStringLiteral("replayed_token"));
        QVERIFY(!askedAPerson(h));
        QCOMPARE(h.sandbox.realCreateCount(), 0);
    }

    void targetNamesComeFromFabricsCatalogAfterTheDryRun()
    {
        BrokerHarness h;
        h.initialize();
        QJsonObject spec = BrokerHarness::connectionSpec(3108);
        // The agent labels the profile with the very name the dry run reports: an echoing dry
        // run would look the same, so the broker asks Fabric's catalog.
        QJsonObject zSide = spec.value("zSide").toObject();
        QJsonObject ap = zSide.value("accessPoint").toObject();
        QJsonObject profile = ap.value("profile").toObject();
        profile.insert("name", "AWS Direct Connect");
        ap.insert("profile", profile);
        zSide.insert("accessPoint", ap);
        spec.insert("zSide", zSide);
        const QJsonObject proposed = h.callTool(
            "fabric_propose_change", {{"change_type", "connection_create"}, {"spec", spec}});
        const QString target =
            proposed.value("structuredContent").toObject().value("target").toString();
        QVERIFY2(target.contains("service profile \"AWS Direct Connect\""), qPrintable(target));
        qsizetype dryRun = -1, portLookup = -1, profileLookup = -1;
        const auto requests = h.sandbox.requests();
        for (qsizetype i = 0; i < requests.size(); ++i) {
            const auto &r = requests.at(i);
            if (r.method == "POST" && r.path == "/fabric/v4/connections" && r.dryRun)
                dryRun = i;
            if (r.method == "GET" && r.path == QStringLiteral("/fabric/v4/ports/") +
                                                   QString(fb::SandboxIds::PortSvPrimary))
                portLookup = i;
            if (r.method == "GET" && r.path == QStringLiteral("/fabric/v4/serviceProfiles/") +
                                                   QString(fb::SandboxIds::ProfileAwsDirectConnect))
                profileLookup = i;
        }
        QVERIFY(dryRun >= 0);
        QVERIFY2(profileLookup > dryRun, "the lookup follows the dry run");
        QCOMPARE(portLookup, -1); // the port carries no label: the dry run's name is Fabric's
    }

    void malformedTokenArgumentConsumesNothing()
    {
        BrokerHarness h;
        h.initialize();
        const QString token = propose(h, 3102);
        for (const QJsonObject &args :
             {QJsonObject{{"spec", QJsonObject{}}}, QJsonObject{{"confirm_token", 5}},
              QJsonObject{{"confirm_token", QJsonArray{token}}}, QJsonObject{}}) {
            const QJsonObject s =
                h.callTool("fabric_confirm_change", args).value("structuredContent").toObject();
            QCOMPARE(s.value("execution").toObject().value("reason").toString(),
                     QStringLiteral("invalid_arguments"));
            QCOMPARE(s.value("confirm_checks").toObject().value("proposal_exists"), QJsonValue());
            QVERIFY(s.value("message").toString().contains("No token was consumed"));
        }
        QCOMPARE(h.store.pendingCount(), 1);
        QVERIFY(h.store.peek(token));
    }

    void anotherEndpointBreaksTheBinding()
    {
        BrokerHarness h;
        h.initialize();
        const QString token = propose(h, 3103);
        QVERIFY(h.store.peek(token));
        QCOMPARE(h.store.peek(token)->fabricEndpoint,
                 h.sandbox.baseUrl().adjusted(QUrl::StripTrailingSlash).toString());
        QCOMPARE(h.store.peek(token)->credentialIdentity, QStringLiteral("client id test"));
        fb::FabricConfig moved = h.fabric->config();
        QUrl other = moved.endpoint;
        // The same sandbox under another name.
        other.setHost(other.host() == u"localhost" ? QStringLiteral("127.0.0.1")
                                                   : QStringLiteral("localhost"));
        moved.endpoint = other;
        h.fabric->setConfig(moved);
        const QJsonObject r = h.callTool("fabric_confirm_change", {{"confirm_token", token}});
        const QJsonObject s = r.value("structuredContent").toObject();
        QVERIFY(r.value("isError").toBool());
        QCOMPARE(s.value("confirm_checks").toObject().value("request_matches_binding"),
                 QJsonValue(false));
        QCOMPARE(s.value("failed_check").toString(), QStringLiteral("request_matches_binding"));
        QCOMPARE(s.value("execution").toObject().value("reason").toString(),
                 QStringLiteral("binding_mismatch"));
        QVERIFY2(s.value("message").toString().contains("Fabric endpoint changed"),
                 qPrintable(s.value("message").toString()));
        QVERIFY(!askedAPerson(h));
        QCOMPARE(h.sandbox.realCreateCount(), 0);
    }

    void otherCredentialsBreakTheBinding()
    {
        BrokerHarness h;
        h.initialize();
        const QString token = propose(h, 3104);
        fb::FabricConfig other = h.fabric->config();
        other.clientId = QStringLiteral("someone-else");
        h.fabric->setConfig(other);
        const QJsonObject s = h.callTool("fabric_confirm_change", {{"confirm_token", token}})
                                  .value("structuredContent")
                                  .toObject();
        QCOMPARE(s.value("confirm_checks").toObject().value("request_matches_binding"),
                 QJsonValue(false));
        const QString message = s.value("message").toString();
        QVERIFY2(message.contains("credentials changed from client id test to client id "
                                  "someone-else"),
                 qPrintable(message));
        QVERIFY(!askedAPerson(h));
    }

    void staticTokenIdentityIsAFingerprint()
    {
        fb::FabricConfig c;
        c.staticToken = QStringLiteral("very-secret-bearer");
        const auto b = fb::MutationBroker::fabricBinding(c);
        QVERIFY(b.identity.startsWith("static token sha256:"));
        QCOMPARE(b.identity.size(), QStringLiteral("static token sha256:").size() + 16);
        QVERIFY(!b.identity.contains("very-secret"));
        c.staticToken = QStringLiteral("another-bearer");
        QVERIFY(fb::MutationBroker::fabricBinding(c).identity != b.identity);
        c.staticToken.clear();
        QCOMPARE(fb::MutationBroker::fabricBinding(c).identity, QStringLiteral("none"));
        c.endpoint = QUrl("https://user:pw@api.equinix.com/");
        QCOMPARE(fb::MutationBroker::fabricBinding(c).endpoint,
                 QStringLiteral("https://api.equinix.com"));
    }

    void voidedProposalsReportWhy()
    {
        BrokerHarness h;
        h.initialize();
        const QString first = propose(h, 3105);
        const QString second = propose(h, 3106);
        QSignalSpy evicted(&h.store, &fb::ProposalStore::proposalEvicted);
        const QList<fb::Proposal> voided = h.store.evictAll(QStringLiteral("the settings changed"));
        QCOMPARE(voided.size(), 2);
        QCOMPARE(evicted.size(), 2);
        QCOMPARE(voided.first().token, first);
        QCOMPARE(h.store.pendingCount(), 0);
        const QJsonObject s = h.callTool("fabric_confirm_change", {{"confirm_token", second}})
                                  .value("structuredContent")
                                  .toObject();
        QCOMPARE(s.value("confirm_checks").toObject().value("not_evicted"), QJsonValue(false));
        QVERIFY2(s.value("message").toString().contains("evicted because the settings changed"),
                 qPrintable(s.value("message").toString()));
        QVERIFY(!askedAPerson(h));
    }

    void hostileClientInfoIsEscapedBeforeItIsStored()
    {
        BrokerHarness h;
        const QJsonObject r = h.request(
            "initialize",
            {{"protocolVersion", "2025-11-25"},
             {"capabilities", QJsonObject{{"elicitation", QJsonObject{{"form", QJsonObject{}}}}}},
             {"clientInfo", QJsonObject{{"name", QStringLiteral("evil\nPrice: USD 0\u202E<b>")},
                                        {"title", QString(500, u't')},
                                        {"version", QStringLiteral("1\u2028")}}}});
        QVERIFY(r.contains("result"));
        h.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
        const QString token = propose(h, 3107);
        const QJsonObject client = h.store.peek(token)->context.value("client").toObject();
        QCOMPARE(client.value("name").toString(), QStringLiteral("evil\\nPrice: USD 0\\u202E<b>"));
        QCOMPARE(client.value("version").toString(), QStringLiteral("1\\u2028"));
        QCOMPARE(client.value("title").toString().size(), 101); // 100 + U+2026
    }
};

QTEST_GUILESS_MAIN(TestMutationBroker)
#include "tst_mutationbroker.moc"
