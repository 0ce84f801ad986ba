// ConfirmState (src/broker/ConfirmState): one confirm's stages, which only move forward, the
// MRTR record it becomes while the person is asked (and back), and the audit records built from
// it: the second dry run lands in before_send, the decision's latency counts from the question.
#include "TestEnvironment.h"
#include "broker/ConfirmState.h"

#include <QJsonArray>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

ConfirmState sample()
{
    ConfirmState s;
    s.tokenSha256 = QString(64, u'd');
    s.proposal.token = u"chg-0123456789abcdef0123456789abcdef"_s;
    s.proposal.requestSha256 = QString(64, u'a');
    s.proposal.context = QJsonObject{{"price", QJsonObject{{"priced", false}}}};
    s.request.path = u"/fabric/v4/networks"_s;
    s.request.changeType = ChangeType::NetworkCreate;
    s.request.body = R"({"name":"n"})";
    s.checks.proposalExists = true;
    s.checks.notEvicted = true;
    s.policy = QJsonObject{{"decision", "allow"}};
    s.askedAtMs = 1000;
    return s;
}

FabricResult dryRun(bool ok, const QString &correlationId)
{
    FabricResult r;
    r.kind = ok ? FabricResult::Kind::Ok : FabricResult::Kind::FabricError;
    r.correlationId = correlationId;
    if (!ok) {
        FabricError e;
        e.errorCode = u"EQ-1"_s;
        r.errors = {e};
    }
    return r;
}

} // namespace

class TestConfirmState : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    // Every stage has its own name, in the order the stages move.
    void everyStageHasItsOwnName()
    {
        QStringList names;
        for (int s = int(ConfirmStage::Started); s <= int(ConfirmStage::Outcome); ++s)
            names << confirmStageName(ConfirmStage(s));
        QCOMPARE(names, (QStringList{QStringLiteral("started"), QStringLiteral("consumed"),
                                     QStringLiteral("policy"), QStringLiteral("revalidated"),
                                     QStringLiteral("asked"), QStringLiteral("answered"),
                                     QStringLiteral("revalidated_before_send"),
                                     QStringLiteral("sending"), QStringLiteral("outcome")}));
    }

    void stagesOnlyMoveForward()
    {
        ConfirmState s;
        QCOMPARE(s.stage, ConfirmStage::Started);
        QVERIFY(s.advance(ConfirmStage::Consumed));
        QVERIFY(!s.advance(ConfirmStage::Consumed));
        QVERIFY(!s.advance(ConfirmStage::Started));
        QCOMPARE(s.stage, ConfirmStage::Consumed);
        QVERIFY(!s.answered());
        QVERIFY(!s.revalidatingBeforeSend());
        QVERIFY(s.advance(ConfirmStage::Answered)); // stages may be skipped
        QVERIFY(s.answered());
        QVERIFY(s.revalidatingBeforeSend());
        QVERIFY(!s.advance(ConfirmStage::Asked));
        QCOMPARE(s.stage, ConfirmStage::Answered);
        QVERIFY(s.advance(ConfirmStage::Outcome));
        QVERIFY(!s.advance(ConfirmStage::Outcome));
    }

    void pendingRoundTrip()
    {
        const ConfirmState s = sample();
        const QJsonObject client{{"name", "agent"}};
        const PendingConfirm p = s.toPending(7, client, 5000);
        QCOMPARE(p.sessionId, quint64(7));
        QCOMPARE(p.client, client);
        QCOMPARE(p.deadlineMs, qint64(5000));
        QCOMPARE(p.askedAtMs, qint64(1000));
        QCOMPARE(p.tokenSha256, s.tokenSha256);
        const ConfirmState back = ConfirmState::fromPending(p);
        QCOMPARE(back.stage, ConfirmStage::Asked);
        QVERIFY(back.reserved); // the first round reserved the price when it asked
        QCOMPARE(back.tokenSha256, s.tokenSha256);
        QCOMPARE(back.proposal.token, s.proposal.token);
        QCOMPARE(back.request, s.request);
        QCOMPARE(back.checks.toJson(), s.checks.toJson());
        QCOMPARE(back.policy, s.policy);
        QCOMPARE(back.askedAtMs, s.askedAtMs);
    }

    void secondDryRunIsBeforeSend()
    {
        ConfirmState s = sample();
        s.advance(ConfirmStage::Policy);
        const QJsonObject first = s.recordRevalidation(dryRun(true, u"c1"_s));
        QCOMPARE(first.value("stage").toString(), "before_asking");
        QCOMPARE(first.value("ok").toBool(), true);
        QCOMPARE(first.value("request_sha256").toString(), s.proposal.requestSha256);
        QCOMPARE(s.revalidation.value("correlation_id").toString(), "c1");
        QVERIFY(!s.revalidation.contains("before_send"));

        s.advance(ConfirmStage::Answered);
        const QJsonObject second = s.recordRevalidation(dryRun(false, u"c2"_s));
        QCOMPARE(second.value("stage").toString(), "before_send");
        QCOMPARE(second.value("ok").toBool(), false);
        QCOMPARE(s.revalidation.value("correlation_id").toString(), "c1"); // the first stays
        const QJsonObject before = s.revalidation.value("before_send").toObject();
        QCOMPARE(before.value("ok").toBool(), false);
        QCOMPARE(before.value("correlation_id").toString(), "c2");
        QCOMPARE(before.value("fabric_errors").toArray().size(), 1);
    }

    void decisionLatencyCountsFromTheQuestion()
    {
        ConfirmState s = sample();
        HumanDecision d;
        d.status = HumanStatus::Accepted;
        d.channel = u"desktop"_s;
        d.detail = u"approved"_s;
        const QJsonObject r = s.decisionRecord(d, 4500, {});
        QCOMPARE(r.value("status").toString(), "accepted");
        QCOMPARE(r.value("channel").toString(), "desktop");
        QCOMPARE(r.value("decision_latency_ms").toInteger(), 3500);
        s.askedAtMs = 0; // never asked: no latency
        QCOMPARE(s.decisionRecord(d, 4500, {}).value("decision_latency_ms").toInteger(), 0);
    }

    void redemptionNamesTheRequestOnlyWhenKnown()
    {
        ConfirmState s = sample();
        const QJsonObject r = s.redemptionRecord(ConsumeOutcome::Consumed, {});
        QCOMPARE(r.value("outcome").toString(), consumeOutcomeName(ConsumeOutcome::Consumed));
        QCOMPARE(r.value("request_sha256").toString(), s.proposal.requestSha256);
        QCOMPARE(r.value("token_sha256").toString(), s.tokenSha256);
        QVERIFY(!r.contains("request_state"));
        QCOMPARE(s.redemptionRecord(ConsumeOutcome::Consumed, {}, u"st"_s)
                     .value("request_state")
                     .toString(),
                 "st");
        s.proposal.requestSha256.clear();
        QVERIFY(s.redemptionRecord(ConsumeOutcome::Unknown, {}).value("request_sha256").isNull());
    }

    void sendingRecordCarriesWhatIsSent()
    {
        ConfirmState s = sample();
        s.human = QJsonObject{{"status", "accepted"}};
        const QJsonObject r = s.sendingRecord();
        QCOMPARE(r.value("request").toObject(), s.request.toJson());
        QCOMPARE(r.value("price").toObject(), QJsonObject({{"priced", false}}));
        QCOMPARE(r.value("human_confirmation").toObject(), s.human);
        QCOMPARE(r.value("unconfirmed_execution").toBool(), false);
    }
};

QTEST_APPLESS_MAIN(TestConfirmState)
#include "tst_confirmstate.moc"
