// ConfirmOperation driven through every stage of its ConfirmState against the embedded sandbox
// on loopback, with a test clock and a scripted approver: the stages each path takes, the TTL
// checked again after the answer, the dry run again after a slow answer, the binding checked
// again right before the bytes leave, and the audit records each stage writes.
#include "BrokerHarness.h"
#include "TestEnvironment.h"
#include "broker/ConfirmState.h"
#include "core/AuditLog.h"
#include "core/Clock.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace fbtest;
using fb::ConfirmStage;

namespace {

// Answers on the desktop channel, after running `before` (which may move the clock or change
// the Fabric configuration while the "person" reads).
class ScriptedApprover : public fb::Approver {
public:
    fb::HumanStatus answer = fb::HumanStatus::Accepted;
    std::function<void()> before;
    fb::Clock *clock = nullptr;
    int asked = 0;
    QString channel() const override { return QStringLiteral("desktop"); }
    void requestApproval(fb::mcp::ToolCall *, const fb::ApprovalContext &,
                         std::function<void(const fb::HumanDecision &)> done) override
    {
        ++asked;
        if (before)
            before();
        done(fb::HumanDecision{answer, QStringLiteral("desktop"), QStringLiteral("scripted"),
                               clock->nowMs()});
    }
};

// Holds every answer until the test gives it: confirms that overlap.
class HoldingApprover : public fb::Approver {
public:
    QList<std::function<void(const fb::HumanDecision &)>> held;
    QStringList prompts; // the Policy line each prompt carried
    QString channel() const override { return QStringLiteral("desktop"); }
    void requestApproval(fb::mcp::ToolCall *, const fb::ApprovalContext &ctx,
                         std::function<void(const fb::HumanDecision &)> done) override
    {
        prompts << ctx.proposal.context.value("policy").toObject().value("reason").toString();
        held << std::move(done);
    }
    void answerAll(fb::Clock *clock)
    {
        const auto all = std::exchange(held, {});
        for (const auto &done : all)
            done(fb::HumanDecision{fb::HumanStatus::Accepted, QStringLiteral("desktop"),
                                   QStringLiteral("held"), clock->nowMs()});
    }
};

struct Run {
    QList<ConfirmStage> stages;
    QStringList audit;
    QJsonObject result;
    QJsonObject structured() const { return result.value("structuredContent").toObject(); }
    QString reason() const
    {
        return structured().value("execution").toObject().value("reason").toString();
    }
};

class TestConfirmOperation : public QObject {
    Q_OBJECT

    fb::ManualClock clock{QDateTime::currentMSecsSinceEpoch()};
    ScriptedApprover approver;

    std::unique_ptr<BrokerHarness> harness(fb::BrokerSettings settings = {})
    {
        auto h = std::make_unique<BrokerHarness>(settings, &clock);
        approver = ScriptedApprover{};
        approver.clock = &clock;
        h->broker->setApprover(&approver);
        h->initialize();
        return h;
    }

    static QString propose(BrokerHarness &h, int vlan)
    {
        const QJsonObject proposed =
            h.callTool("fabric_propose_change", {{"change_type", "connection_create"},
                                                 {"spec", BrokerHarness::connectionSpec(vlan)}});
        [&] { QVERIFY2(!proposed.value("isError").toBool(), QJsonDocument(proposed).toJson()); }();
        return proposed.value("structuredContent").toObject().value("confirm_token").toString();
    }

    static Run confirm(BrokerHarness &h, const QString &token)
    {
        Run run;
        QMetaObject::Connection a =
            QObject::connect(h.broker.get(), &fb::MutationBroker::confirmStage,
                             [&run](const QString &, ConfirmStage s) { run.stages << s; });
        QMetaObject::Connection b =
            QObject::connect(h.broker.get(), &fb::MutationBroker::auditEvent,
                             [&run](fb::AuditEventType t, const QJsonObject &record) {
                                 QString name = fb::auditEventNameString(t);
                                 if (record.contains("stage"))
                                     name += ":" + record.value("stage").toString();
                                 run.audit << name;
                             });
        run.result = h.callTool("fabric_confirm_change", {{"confirm_token", token}});
        QObject::disconnect(a);
        QObject::disconnect(b);
        return run;
    }

private slots:
    void init()
    {
        fbtest::failOnWarnings({QStringLiteral("Fabric binding changed: "),
                                QStringLiteral("binding changed before send: "),
                                QStringLiteral("spend ledger: the audit log was unlinked ")});
    }

    void approvedCreatePassesEveryStageOnce()
    {
        auto h = harness();
        const Run r = confirm(*h, propose(*h, 3101));
        QCOMPARE(r.stages, (QList<ConfirmStage>{ConfirmStage::Consumed, ConfirmStage::Policy,
                                                ConfirmStage::Revalidated, ConfirmStage::Asked,
                                                ConfirmStage::Answered, ConfirmStage::Sending,
                                                ConfirmStage::Outcome}));
        QCOMPARE(r.audit, (QStringList{"redemption", "policy:confirm", "revalidation:before_asking",
                                       "approval_requested", "decision", "sending", "executed"}));
        QCOMPARE(r.structured().value("executed").toBool(), true);
        QCOMPARE(r.structured()
                     .value("revalidation")
                     .toObject()
                     .value("before_send")
                     .toObject()
                     .value("ran"),
                 QJsonValue(false));
        QCOMPARE(h->sandbox.realCreateCount(), 1);
        QCOMPARE(approver.asked, 1);
    }

    void unknownTokenEndsAfterConsumed()
    {
        auto h = harness();
        const Run r = confirm(*h, QStringLiteral("chg-doesnotexist"));
        QCOMPARE(r.stages, (QList<ConfirmStage>{ConfirmStage::Consumed, ConfirmStage::Outcome}));
        QCOMPARE(r.audit, QStringList{"redemption"});
        QCOMPARE(r.structured().value("executed").toBool(), false);
        QCOMPARE(approver.asked, 0);
    }

    // A daily limit with no audit log to establish the day: denied at the policy stage.
    void policyDenialEndsAfterPolicy()
    {
        fb::BrokerSettings settings;
        settings.policy.maxPerDay = fb::Money{1000000, QStringLiteral("USD")};
        auto h = harness(settings);
        const Run r = confirm(*h, propose(*h, 3102));
        QCOMPARE(r.stages, (QList<ConfirmStage>{ConfirmStage::Consumed, ConfirmStage::Policy,
                                                ConfirmStage::Outcome}));
        QCOMPARE(r.audit, (QStringList{"redemption", "policy:confirm"}));
        QCOMPARE(r.reason(), QStringLiteral("policy_denied"));
        QCOMPARE(approver.asked, 0);
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    void revalidationFailureEndsBeforeAsking()
    {
        auto h = harness();
        const QString token = propose(*h, 3103);
        h->sandbox.failNext(1, 503);
        const Run r = confirm(*h, token);
        QCOMPARE(r.stages, (QList<ConfirmStage>{ConfirmStage::Consumed, ConfirmStage::Policy,
                                                ConfirmStage::Revalidated, ConfirmStage::Outcome}));
        QCOMPARE(r.reason(), QStringLiteral("revalidation_failed"));
        QCOMPARE(approver.asked, 0);
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    void declinedEndsAfterAnswered()
    {
        auto h = harness();
        approver.answer = fb::HumanStatus::Declined;
        const Run r = confirm(*h, propose(*h, 3104));
        QCOMPARE(r.stages, (QList<ConfirmStage>{ConfirmStage::Consumed, ConfirmStage::Policy,
                                                ConfirmStage::Revalidated, ConfirmStage::Asked,
                                                ConfirmStage::Answered, ConfirmStage::Outcome}));
        QCOMPARE(r.structured().value("human_confirmation").toObject().value("status").toString(),
                 QStringLiteral("declined"));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    // The TTL is checked again against the time the answer came: an approval after the
    // proposal expired sends nothing.
    void ttlIsCheckedAgainAfterTheAnswer()
    {
        auto h = harness();
        const QString token = propose(*h, 3105);
        approver.before = [&] { clock.advanceMs(h->store.ttlMs() + 1); };
        const Run r = confirm(*h, token);
        QCOMPARE(r.stages, (QList<ConfirmStage>{ConfirmStage::Consumed, ConfirmStage::Policy,
                                                ConfirmStage::Revalidated, ConfirmStage::Asked,
                                                ConfirmStage::Answered, ConfirmStage::Outcome}));
        const QJsonObject s = r.structured();
        QCOMPARE(s.value("confirm_checks").toObject().value("not_expired"), QJsonValue(false));
        QCOMPARE(s.value("executed").toBool(), false);
        QCOMPARE(s.value("human_confirmation").toObject().value("status").toString(),
                 QStringLiteral("accepted"));
        QVERIFY(!r.audit.contains("sending"));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    // Just inside the TTL the same answer is sent: the re-check uses the answer's time.
    void answerJustInsideTheTtlIsSent()
    {
        fb::BrokerSettings settings;
        settings.policy.revalidateAfterMs = qint64(24) * 3600 * 1000;
        auto h = harness(settings);
        const QString token = propose(*h, 3106);
        approver.before = [&] { clock.advanceMs(h->store.ttlMs() - 1); };
        const Run r = confirm(*h, token);
        QCOMPARE(r.structured().value("executed").toBool(), true);
        QCOMPARE(h->sandbox.realCreateCount(), 1);
    }

    void slowAnswerRevalidatesBeforeSend()
    {
        fb::BrokerSettings settings;
        settings.policy.revalidateAfterMs = 1000;
        auto h = harness(settings);
        approver.before = [&] { clock.advanceMs(5000); };
        const Run r = confirm(*h, propose(*h, 3107));
        QCOMPARE(r.stages,
                 (QList<ConfirmStage>{ConfirmStage::Consumed, ConfirmStage::Policy,
                                      ConfirmStage::Revalidated, ConfirmStage::Asked,
                                      ConfirmStage::Answered, ConfirmStage::RevalidatedBeforeSend,
                                      ConfirmStage::Sending, ConfirmStage::Outcome}));
        QVERIFY(r.audit.contains("revalidation:before_send"));
        QCOMPARE(r.structured()
                     .value("revalidation")
                     .toObject()
                     .value("before_send")
                     .toObject()
                     .value("ran"),
                 QJsonValue(true));
        QCOMPARE(h->sandbox.realCreateCount(), 1);
    }

    void failedRevalidationBeforeSendSendsNothing()
    {
        fb::BrokerSettings settings;
        settings.policy.revalidateAfterMs = 1000;
        auto h = harness(settings);
        const QString token = propose(*h, 3108);
        approver.before = [&] {
            clock.advanceMs(5000);
            h->sandbox.failNext(1, 503);
        };
        const Run r = confirm(*h, token);
        QCOMPARE(r.stages.last(), ConfirmStage::Outcome);
        QVERIFY(r.stages.contains(ConfirmStage::RevalidatedBeforeSend));
        QVERIFY(!r.stages.contains(ConfirmStage::Sending));
        QCOMPARE(r.reason(), QStringLiteral("revalidation_failed"));
        QCOMPARE(r.structured().value("human_confirmation").toObject().value("status").toString(),
                 QStringLiteral("accepted"));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    // #22: other credentials saved while the person reads: the approved create is not sent.
    void bindingIsCheckedAgainRightBeforeSend()
    {
        auto h = harness();
        const QString token = propose(*h, 3109);
        approver.before = [&] {
            fb::FabricConfig other = h->fabric->config();
            other.clientId = QStringLiteral("someone-else");
            h->fabric->setConfig(other);
        };
        const Run r = confirm(*h, token);
        const QJsonObject s = r.structured();
        QCOMPARE(s.value("confirm_checks").toObject(),
                 QJsonObject({{"proposal_exists", true},
                              {"not_evicted", true},
                              {"not_expired", true},
                              {"not_previously_used", true},
                              {"request_matches_binding", false}}));
        QCOMPARE(r.reason(), QStringLiteral("binding_mismatch"));
        QVERIFY2(s.value("message").toString().contains("credentials changed"),
                 qPrintable(s.value("message").toString()));
        QVERIFY(!r.stages.contains(ConfirmStage::Sending));
        QVERIFY(!r.audit.contains("sending"));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    void endpointChangeBeforeSendIsNamed()
    {
        auto h = harness();
        const QString token = propose(*h, 3110);
        approver.before = [&] {
            fb::FabricConfig other = h->fabric->config();
            other.endpoint = QUrl(QStringLiteral("http://127.0.0.1:9"));
            h->fabric->setConfig(other);
        };
        const Run r = confirm(*h, token);
        QCOMPARE(r.reason(), QStringLiteral("binding_mismatch"));
        QVERIFY(r.structured().value("message").toString().contains("endpoint changed"));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    // The binding is compared again in execute(): other credentials saved during the second
    // dry run (after the answer) stop the create too.
    void bindingChangedDuringTheSecondDryRun()
    {
        fb::BrokerSettings settings;
        settings.policy.revalidateAfterMs = 1000;
        auto h = harness(settings);
        const QString token = propose(*h, 3112);
        approver.before = [&] { clock.advanceMs(5000); };
        QMetaObject::Connection c =
            QObject::connect(h->broker.get(), &fb::MutationBroker::auditEvent,
                             [&](fb::AuditEventType t, const QJsonObject &record) {
                                 if (t == fb::AuditEventType::Revalidation &&
                                     record.value("stage").toString() == "before_send") {
                                     fb::FabricConfig other = h->fabric->config();
                                     other.clientId = QStringLiteral("someone-else");
                                     h->fabric->setConfig(other);
                                 }
                             });
        const Run r = confirm(*h, token);
        QObject::disconnect(c);
        QVERIFY(r.stages.contains(ConfirmStage::RevalidatedBeforeSend));
        QVERIFY(!r.stages.contains(ConfirmStage::Sending));
        QCOMPARE(r.reason(), QStringLiteral("binding_mismatch"));
        QVERIFY2(r.structured().value("message").toString().contains("approved create was not "
                                                                     "sent"),
                 qPrintable(r.structured().value("message").toString()));
        QCOMPARE(r.structured().value("confirm_checks").toObject().value("request_matches_binding"),
                 QJsonValue(false));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
    }

    // Three overlapping confirms under a daily limit that fits two: the third is refused
    // before anyone is asked (the first two hold reservations); the prompts show them.
    void reservationsBoundOverlappingConfirms()
    {
        double price = 0;
        {
            auto probe = harness();
            const QJsonObject p = probe->callTool("fabric_propose_change",
                                                  {{"change_type", "connection_create"},
                                                   {"spec", BrokerHarness::connectionSpec(3200)}});
            price = p.value("structuredContent")
                        .toObject()
                        .value("price")
                        .toObject()
                        .value("monthly_recurring")
                        .toDouble();
            QVERIFY2(price > 0, QJsonDocument(p).toJson());
        }
        QTemporaryDir dir;
        fb::AuditLog log(&clock);
        QVERIFY(log.open(dir.filePath("audit.jsonl")));
        fb::BrokerSettings limited;
        limited.policy.maxPerDay = fb::Money{2 * price, QStringLiteral("USD")};
        BrokerHarness h(limited, &clock);
        HoldingApprover holding;
        h.broker->setApprover(&holding);
        h.broker->setAuditSink(&log); // seeds the ledger: an empty day
        h.initialize();
        QStringList tokens;
        for (int i = 0; i < 3; ++i)
            tokens << propose(h, 3201 + i);
        QList<int> ids;
        for (const QString &t : std::as_const(tokens)) {
            ids << h.nextId;
            h.send({{"jsonrpc", "2.0"},
                    {"id", h.nextId++},
                    {"method", "tools/call"},
                    {"params", QJsonObject{{"name", "fabric_confirm_change"},
                                           {"arguments", QJsonObject{{"confirm_token", t}}}}}});
        }
        auto resultOf = [&](int id) {
            return h
                .waitFor([id](const QJsonObject &m) {
                    return m.value("id").toInt(-1) == id && !m.contains("method");
                })
                .value("result")
                .toObject()
                .value("structuredContent")
                .toObject();
        };
        // One is refused before anyone is asked: two reservations fill the day. Which of the
        // three depends on the order Fabric answers their dry runs (three connections, no
        // order between them), so it is the first to be answered.
        int refusedId = -1;
        h.waitFor([&](const QJsonObject &m) {
            for (int id : std::as_const(ids))
                if (BrokerHarness::isAnswerTo(m, id)) {
                    refusedId = id;
                    return true;
                }
            return false;
        });
        QVERIFY(refusedId >= 0);
        const QJsonObject third = resultOf(refusedId);
        QCOMPARE(third.value("execution").toObject().value("reason").toString(),
                 QStringLiteral("policy_denied"));
        QCOMPARE(third.value("human_confirmation").toObject().value("status").toString(),
                 QStringLiteral("not_requested"));
        QVERIFY2(third.value("message").toString().contains("waiting for approval"),
                 qPrintable(third.value("message").toString()));
        QCOMPARE(holding.held.size(), 2);
        QVERIFY2(holding.prompts.at(1).contains("waiting for approval"),
                 qPrintable(holding.prompts.at(1)));
        holding.answerAll(&clock);
        for (int id : std::as_const(ids))
            if (id != refusedId)
                QCOMPARE(resultOf(id).value("executed").toBool(), true);
        QCOMPARE(h.sandbox.realCreateCount(), 2);

        // The day is full: the next is refused at the policy stage, naming the amounts.
        const Run next = confirm(h, propose(h, 3210));
        QCOMPARE(next.reason(), QStringLiteral("policy_denied"));
        QVERIFY2(next.structured().value("message").toString().contains("already used"),
                 qPrintable(next.structured().value("message").toString()));
        QCOMPARE(h.sandbox.realCreateCount(), 2);

        // A restart keeps the day: a new broker seeded from the same log refuses too; the
        // clock stepped back 2 hours changes nothing.
        clock.advanceMs(-2 * 3600 * 1000);
        BrokerHarness again(limited, &clock);
        again.broker->setApprover(&holding);
        again.broker->setAuditSink(&log);
        again.initialize();
        const Run afterRestart = confirm(again, propose(again, 3211));
        QCOMPARE(afterRestart.reason(), QStringLiteral("policy_denied"));
        QCOMPARE(again.sandbox.realCreateCount(), 0);
        QCOMPARE(holding.held.size(), 0);
        h.broker->setAuditSink(nullptr);
        again.broker->setAuditSink(nullptr);
    }

    // The log deleted while the broker runs: the running ledger keeps its day.
    void deletedLogDoesNotResetTheRunningDay()
    {
        double price = 0;
        QTemporaryDir dir;
        fb::AuditLog log(&clock);
        QVERIFY(log.open(dir.filePath("audit.jsonl")));
        {
            auto probe = harness();
            const QJsonObject p = probe->callTool("fabric_propose_change",
                                                  {{"change_type", "connection_create"},
                                                   {"spec", BrokerHarness::connectionSpec(3300)}});
            price = p.value("structuredContent")
                        .toObject()
                        .value("price")
                        .toObject()
                        .value("monthly_recurring")
                        .toDouble();
        }
        fb::BrokerSettings limited;
        limited.policy.maxPerDay = fb::Money{1.5 * price, QStringLiteral("USD")};
        BrokerHarness h(limited, &clock);
        ScriptedApprover yes;
        yes.clock = &clock;
        h.broker->setApprover(&yes);
        h.broker->setAuditSink(&log);
        h.initialize();
        QCOMPARE(confirm(h, propose(h, 3301)).structured().value("executed").toBool(), true);
        QVERIFY(QFile::remove(dir.filePath("audit.jsonl")));
        const Run r = confirm(h, propose(h, 3302));
        QCOMPARE(r.reason(), QStringLiteral("policy_denied"));
        QCOMPARE(h.sandbox.realCreateCount(), 1);
        // After a restart the continued log's previous file is gone: denied, saying why.
        BrokerHarness again(limited, &clock);
        again.broker->setApprover(&yes);
        again.broker->setAuditSink(&log);
        again.initialize();
        const Run denied = confirm(again, propose(again, 3303));
        QCOMPARE(denied.reason(), QStringLiteral("policy_denied"));
        QVERIFY2(denied.structured().value("message").toString().contains("reset-ledger"),
                 qPrintable(denied.structured().value("message").toString()));
        QCOMPARE(again.sandbox.realCreateCount(), 0);
        h.broker->setAuditSink(nullptr);
        again.broker->setAuditSink(nullptr);
    }

    void auditFailureAtSendingSendsNothing()
    {
        auto h = harness();
        const QString token = propose(*h, 3111);
        struct Failing : fb::AuditSink {
            bool record(fb::AuditEventType type, const QJsonObject &) override
            {
                return type != fb::AuditEventType::Sending;
            }
        } failing;
        h->broker->setAuditSink(&failing);
        const Run r = confirm(*h, token);
        QCOMPARE(r.reason(), QStringLiteral("audit_unavailable"));
        QVERIFY(!r.stages.contains(ConfirmStage::Sending));
        QCOMPARE(h->sandbox.realCreateCount(), 0);
        h->broker->setAuditSink(nullptr);
    }

    void stagesOnlyMoveForward()
    {
        fb::ConfirmState s;
        QVERIFY(s.advance(ConfirmStage::Consumed));
        QVERIFY(s.advance(ConfirmStage::Asked));
        QVERIFY(!s.advance(ConfirmStage::Policy));
        QCOMPARE(s.stage, ConfirmStage::Asked);
        QVERIFY(!s.answered());
        QVERIFY(s.advance(ConfirmStage::Outcome));
        QVERIFY(!s.advance(ConfirmStage::Sending));
        QCOMPARE(fb::confirmStageName(ConfirmStage::RevalidatedBeforeSend),
                 QStringLiteral("revalidated_before_send"));
    }
};

} // namespace

QTEST_GUILESS_MAIN(TestConfirmOperation)
#include "tst_confirmoperation.moc"
