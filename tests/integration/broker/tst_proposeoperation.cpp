// ProposeOperation (src/broker/ProposeOperation), one fabric_propose_change through a real MCP
// session against the embedded sandbox: arguments and the spec are checked before anything is
// sent (every problem at its path under $.spec); a valid proposal gets one token, bound to the
// compiled request, and one "proposed" record; a rejected dry run or a policy denial mints no
// token and is recorded once as propose_failed.
#include "BrokerHarness.h"
#include "TestEnvironment.h"
#include "core/TokenDigest.h"

using namespace Qt::StringLiterals;

namespace {

// The audit events the broker emitted, by name, with their records.
struct AuditTrail {
    QStringList types;
    QList<QJsonObject> records;
    explicit AuditTrail(fbtest::BrokerHarness &h)
    {
        QObject::connect(h.broker.get(), &fb::MutationBroker::auditEvent, h.broker.get(),
                         [this](fb::AuditEventType type, const QJsonObject &record) {
                             types << fb::auditEventNameString(type);
                             records << record;
                         });
    }
};

QStringList violationPaths(const QJsonObject &structured)
{
    QStringList paths;
    const QJsonArray violations =
        structured.value("error").toObject().value("violations").toArray();
    for (const QJsonValue &v : violations)
        paths << v.toObject().value("path").toString();
    return paths;
}

} // namespace

class TestProposeOperation : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void argumentsAreCheckedBeforeAnythingIsSent()
    {
        fbtest::BrokerHarness h;
        h.initialize();
        AuditTrail trail(h);
        const QJsonObject r = h.callTool(
            "fabric_propose_change", {{"change_type", "connection_update"}, {"spec", 5}, {"x", 1}});
        QVERIFY(r.value("isError").toBool());
        const QJsonObject s = r.value("structuredContent").toObject();
        QCOMPARE(s.value("error").toObject().value("kind").toString(), "invalid_spec");
        QCOMPARE(violationPaths(s), QStringList({"$.x", "$.change_type", "$.spec"}));
        QCOMPARE(trail.types, QStringList({"propose_failed"}));
        QCOMPARE(h.store.pendingCount(), 0);
        QCOMPARE(h.sandbox.requests().size(), 0);
    }

    void specViolationsAreUnderSpec()
    {
        fbtest::BrokerHarness h;
        h.initialize();
        QJsonObject spec = fbtest::BrokerHarness::connectionSpec(3301);
        spec.insert("bandwidth", "fast");
        spec.remove("name");
        const QJsonObject r = h.callTool("fabric_propose_change",
                                         {{"change_type", "connection_create"}, {"spec", spec}});
        QVERIFY(r.value("isError").toBool());
        const QStringList paths = violationPaths(r.value("structuredContent").toObject());
        QVERIFY2(paths.contains("$.spec.bandwidth"), qPrintable(paths.join(", ")));
        QVERIFY2(paths.contains("$.spec.name"), qPrintable(paths.join(", ")));
        QCOMPARE(h.store.pendingCount(), 0);
        QCOMPARE(h.sandbox.requests().size(), 0);
    }

    void validProposalGetsOneBoundToken()
    {
        fbtest::BrokerHarness h;
        h.initialize();
        AuditTrail trail(h);
        const QJsonObject r = h.callTool("fabric_propose_change",
                                         {{"change_type", "connection_create"},
                                          {"spec", fbtest::BrokerHarness::connectionSpec(3302)}});
        QVERIFY(!r.value("isError").toBool());
        const QJsonObject s = r.value("structuredContent").toObject();
        const QString token = s.value("confirm_token").toString();
        QVERIFY2(token.startsWith("chg-"), qPrintable(token));
        QCOMPARE(h.store.pendingCount(), 1);
        const QList<fb::Proposal> pending = h.store.pending();
        QCOMPARE(pending.size(), 1);
        QCOMPARE(s.value("request_sha256").toString(), pending.first().requestSha256);
        QCOMPARE(trail.types, QStringList({"proposed"}));
        const QJsonObject record = trail.records.first();
        QCOMPARE(record.value("token_sha256").toString(), fb::tokenDigest(token));
        QVERIFY(!QJsonDocument(record).toJson().contains(token.toUtf8())); // never the token
        QCOMPARE(record.value("request_sha256").toString(), pending.first().requestSha256);
        QCOMPARE(record.value("credential_identity").toString(), "client id test");
    }

    void rejectedDryRunMintsNothing()
    {
        fbtest::BrokerHarness h;
        h.initialize();
        AuditTrail trail(h);
        QJsonObject spec = fbtest::BrokerHarness::connectionSpec(3303);
        QJsonObject z = spec.value("zSide").toObject();
        QJsonObject ap = z.value("accessPoint").toObject();
        ap.insert("profile", QJsonObject{{"type", "L2_PROFILE"},
                                         {"uuid", "0b0e7a1c-2f7d-4c3e-9d55-0c5a0b0e7a1c"}});
        z.insert("accessPoint", ap);
        spec.insert("zSide", z);
        const QJsonObject r = h.callTool("fabric_propose_change",
                                         {{"change_type", "connection_create"}, {"spec", spec}});
        QVERIFY(r.value("isError").toBool());
        const QJsonObject s = r.value("structuredContent").toObject();
        QCOMPARE(s.value("error").toObject().value("kind").toString(), "dry_run_failed");
        QVERIFY(!s.contains("confirm_token"));
        QCOMPARE(h.store.pendingCount(), 0);
        QCOMPARE(trail.types, QStringList({"propose_failed"}));
    }

    void dryRunUnsupportedIsNamed()
    {
        fbtest::BrokerHarness h;
        h.sandbox.setDryRunUnsupported(u"EVPL_VC"_s, true);
        h.initialize();
        const QJsonObject r = h.callTool("fabric_propose_change",
                                         {{"change_type", "connection_create"},
                                          {"spec", fbtest::BrokerHarness::connectionSpec(3305)}});
        QVERIFY(r.value("isError").toBool());
        const QJsonObject s = r.value("structuredContent").toObject();
        QCOMPARE(s.value("error").toObject().value("kind").toString(), "dry_run_unsupported");
        QVERIFY(s.value("error").toObject().value("message").toString().contains("EQ-3142411"));
        QCOMPARE(h.store.pendingCount(), 0);
    }

    void policyDenialMintsNothing()
    {
        fb::BrokerSettings settings;
        settings.policy.maxPerChange = fb::Money{0.01, u"USD"_s};
        fbtest::BrokerHarness h(settings);
        h.initialize();
        AuditTrail trail(h);
        const QJsonObject r = h.callTool("fabric_propose_change",
                                         {{"change_type", "connection_create"},
                                          {"spec", fbtest::BrokerHarness::connectionSpec(3304)}});
        QVERIFY(r.value("isError").toBool());
        const QJsonObject s = r.value("structuredContent").toObject();
        QCOMPARE(s.value("error").toObject().value("kind").toString(), "policy_denied");
        QVERIFY(!s.contains("confirm_token"));
        QCOMPARE(h.store.pendingCount(), 0);
        QCOMPARE(trail.types, QStringList({"propose_failed"}));
    }
};

QTEST_GUILESS_MAIN(TestProposeOperation)
#include "tst_proposeoperation.moc"
