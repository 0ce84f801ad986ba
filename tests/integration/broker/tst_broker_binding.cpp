// The binding is enforced by the server: when recompiling the stored spec yields different
// bytes, confirm answers request_matches_binding = false and sends nothing. Also: a failing
// audit sink stops the create, and the spec cannot be re-supplied at confirm time.
#include "BrokerHarness.h"
#include "TestEnvironment.h"
#include "core/CanonicalJson.h"

#include <QtTest>

using namespace fbtest;

namespace {

// A compiler that changes what it produces after the proposal: one extra byte of drift.
class DriftingCompiler : public fb::ChangeCompiler {
public:
    fb::CompileResult compile(fb::ChangeType type, const QJsonValue &spec) const override
    {
        fb::CompileResult r = fb::ChangeCompiler::compile(type, spec);
        if (r.request) {
            QJsonObject body = QJsonDocument::fromJson(r.request->body).object();
            body.insert("bandwidth", body.value("bandwidth").toInt() * 2);
            r.request->body = fb::canonicalJson(body);
        }
        return r;
    }
};

class BrokenCompiler : public fb::ChangeCompiler {
public:
    fb::CompileResult compile(fb::ChangeType, const QJsonValue &) const override
    {
        fb::CompileResult r;
        r.violations.append(fb::SpecViolation{"$.name", "a newer schema rejects this"});
        return r;
    }
};

class FailingAudit : public fb::AuditSink {
public:
    QStringList types;
    bool failOn(const QString &t) const { return t == "sending"; }
    bool record(fb::AuditEventType type, const QJsonObject &) override
    {
        types << fb::auditEventNameString(type);
        return !failOn(types.last());
    }
};

int realCreates(const fb::FabricSandbox &sandbox)
{
    return sandbox.realCreateCount();
}

} // namespace

class TestBrokerBinding : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings({QStringLiteral("binding mismatch: ")}); }

    void driftIsRefused()
    {
        BrokerHarness h;
        h.initialize();
        const QJsonObject proposed =
            h.callTool("fabric_propose_change", {{"change_type", "connection_create"},
                                                 {"spec", BrokerHarness::connectionSpec(3001)}});
        QVERIFY2(!proposed.value("isError").toBool(), QJsonDocument(proposed).toJson());
        const QString token =
            proposed.value("structuredContent").toObject().value("confirm_token").toString();

        DriftingCompiler drifting;
        h.broker->setCompiler(&drifting);
        const QJsonObject confirmed =
            h.callTool("fabric_confirm_change", {{"confirm_token", token}});
        const QJsonObject s = confirmed.value("structuredContent").toObject();
        QVERIFY(confirmed.value("isError").toBool());
        QCOMPARE(s.value("confirm_checks").toObject(),
                 QJsonObject({{"proposal_exists", true},
                              {"not_evicted", true},
                              {"not_expired", true},
                              {"not_previously_used", true},
                              {"request_matches_binding", false}}));
        QCOMPARE(s.value("failed_check").toString(), QStringLiteral("request_matches_binding"));
        QCOMPARE(s.value("executed").toBool(), false);
        QCOMPARE(s.value("human_confirmation").toObject().value("status").toString(),
                 QStringLiteral("not_requested"));
        // Nobody was asked and nothing was sent.
        for (const QJsonObject &m : std::as_const(h.received))
            QVERIFY(m.value("method").toString() != "elicitation/create");
        QCOMPARE(realCreates(h.sandbox), 0);
        // And the token is gone.
        h.broker->setCompiler(nullptr);
        const QJsonObject again = h.callTool("fabric_confirm_change", {{"confirm_token", token}});
        QCOMPARE(again.value("structuredContent")
                     .toObject()
                     .value("confirm_checks")
                     .toObject()
                     .value("not_previously_used"),
                 QJsonValue(false));
    }

    void storedSpecThatNoLongerCompilesIsRefused()
    {
        BrokerHarness h;
        h.initialize();
        const QJsonObject proposed =
            h.callTool("fabric_propose_change", {{"change_type", "connection_create"},
                                                 {"spec", BrokerHarness::connectionSpec(3002)}});
        const QString token =
            proposed.value("structuredContent").toObject().value("confirm_token").toString();
        BrokenCompiler broken;
        h.broker->setCompiler(&broken);
        const QJsonObject s = h.callTool("fabric_confirm_change", {{"confirm_token", token}})
                                  .value("structuredContent")
                                  .toObject();
        QCOMPARE(s.value("confirm_checks").toObject().value("request_matches_binding"),
                 QJsonValue(false));
        QCOMPARE(s.value("executed").toBool(), false);
        QCOMPARE(realCreates(h.sandbox), 0);
    }

    void unchangedCompilerExecutesTheBoundBytes()
    {
        BrokerHarness h;
        h.initialize();
        const QJsonObject spec = BrokerHarness::connectionSpec(3003);
        const QJsonObject proposed = h.callTool(
            "fabric_propose_change", {{"change_type", "connection_create"}, {"spec", spec}});
        const QJsonObject p = proposed.value("structuredContent").toObject();
        const int id = h.nextId++;
        h.send({{"jsonrpc", "2.0"},
                {"id", id},
                {"method", "tools/call"},
                {"params", QJsonObject{{"name", "fabric_confirm_change"},
                                       {"arguments", QJsonObject{{"confirm_token",
                                                                  p.value("confirm_token")}}}}}});
        const QJsonObject elicit = h.waitFor(
            [](const QJsonObject &m) { return m.value("method") == "elicitation/create"; });
        h.send({{"jsonrpc", "2.0"},
                {"id", elicit.value("id")},
                {"result",
                 QJsonObject{{"action", "accept"}, {"content", QJsonObject{{"confirm", true}}}}}});
        const QJsonObject r =
            h.waitFor([id](const QJsonObject &m) { return m.value("id").toInt(-1) == id; });
        const QJsonObject s = r.value("result").toObject().value("structuredContent").toObject();
        QCOMPARE(s.value("executed").toBool(), true);
        QCOMPARE(realCreates(h.sandbox), 1);
        // The bytes sent are exactly the canonical bytes the token was bound to.
        QByteArray sent;
        for (const auto &req : h.sandbox.requests())
            if (req.method == "POST" && req.path == "/fabric/v4/connections" && !req.dryRun)
                sent = req.body;
        QCOMPARE(sent, fb::canonicalJson(spec));
        QCOMPARE(fb::requestSha256(fb::ChangeType::ConnectionCreate, sent),
                 p.value("request_sha256").toString());
        // And the dry run sent the same bytes.
        QByteArray dry;
        for (const auto &req : h.sandbox.requests())
            if (req.method == "POST" && req.path == "/fabric/v4/connections" && req.dryRun)
                dry = req.body;
        QCOMPARE(dry, sent);
    }

    void auditFailureStopsTheCreate()
    {
        BrokerHarness h;
        FailingAudit audit;
        h.broker->setAuditSink(&audit);
        h.initialize();
        const QJsonObject proposed =
            h.callTool("fabric_propose_change", {{"change_type", "connection_create"},
                                                 {"spec", BrokerHarness::connectionSpec(3004)}});
        const QString token =
            proposed.value("structuredContent").toObject().value("confirm_token").toString();
        const int id = h.nextId++;
        h.send({{"jsonrpc", "2.0"},
                {"id", id},
                {"method", "tools/call"},
                {"params", QJsonObject{{"name", "fabric_confirm_change"},
                                       {"arguments", QJsonObject{{"confirm_token", token}}}}}});
        const QJsonObject elicit = h.waitFor(
            [](const QJsonObject &m) { return m.value("method") == "elicitation/create"; });
        h.send({{"jsonrpc", "2.0"},
                {"id", elicit.value("id")},
                {"result",
                 QJsonObject{{"action", "accept"}, {"content", QJsonObject{{"confirm", true}}}}}});
        const QJsonObject r =
            h.waitFor([id](const QJsonObject &m) { return m.value("id").toInt(-1) == id; });
        const QJsonObject s = r.value("result").toObject().value("structuredContent").toObject();
        QCOMPARE(s.value("executed").toBool(), false);
        QCOMPARE(s.value("execution").toObject().value("reason").toString(),
                 QStringLiteral("audit_unavailable"));
        QCOMPARE(realCreates(h.sandbox), 0);
        QVERIFY(audit.types.contains("proposed"));
        QVERIFY(audit.types.contains("redemption"));
        QVERIFY(audit.types.contains("decision"));
        QVERIFY(!audit.types.contains("executed"));
    }
};

QTEST_GUILESS_MAIN(TestBrokerBinding)
#include "tst_broker_binding.moc"
