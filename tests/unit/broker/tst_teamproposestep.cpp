// TeamProposeStep (src/broker/TeamProposeStep): the team-mode step of one proposal, in-process
// against a team queue whose database cannot be reached (publishing on a real PostgreSQL is
// tests/integration/team/tst_team_broker). A broker not in team mode has nothing in the way; a
// database that cannot take proposals is named, and the refusal says no token was minted; a
// publish the database does not take uses the token up and remembers no row, answering once;
// a step gone before the answer answers nothing and leaves the token alone.
#include "TestEnvironment.h"
#include "broker/BrokerContext.h"
#include "broker/TeamProposeStep.h"
#include "core/Clock.h"
#include "core/ProposalStore.h"
#include "core/TokenDigest.h"
#include "mcp/ClientInfo.h"
#include "team/TeamQueue.h"

#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

Proposal proposal()
{
    Proposal p;
    p.changeType = ChangeType::NetworkCreate;
    p.requestSha256 = u"00"_s;
    p.fabricEndpoint = u"https://api.equinix.com"_s;
    p.credentialIdentity = u"client id abc"_s;
    p.context = QJsonObject{{"validated", QJsonObject{{"uuid", "x"}}},
                            {"price", QJsonObject{{"priced", false}}}};
    return p;
}

} // namespace

class TestTeamProposeStep : public QObject {
    Q_OBJECT

    ManualClock clock;
    std::unique_ptr<ProposalStore> store;
    std::unique_ptr<BrokerContext> context;
    std::unique_ptr<team::TeamQueue> queue;

    void makeBroker(bool teamMode = true)
    {
        store = std::make_unique<ProposalStore>(&clock);
        BrokerSettings settings;
        settings.policy.teamApproverKeys = QList<ApproverKey>{};
        context = std::make_unique<BrokerContext>(store.get(), nullptr, settings, &clock);
        if (!teamMode)
            return;
        queue = std::make_unique<team::TeamQueue>(u"mysql://carol@db/team"_s,
                                                  team::TeamIdentity{u"carol"_s, {}, {}});
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"^team\\.database must be"_s));
        queue->start();
        context->setTeam(queue.get());
    }

private slots:
    void init() { fbtest::failOnWarnings(); }

    void cleanup()
    {
        context.reset();
        queue.reset();
        store.reset();
    }

    void notInTeamModeNothingIsInTheWay()
    {
        makeBroker(false);
        QVERIFY(!TeamProposeStep::unavailable(*context));
    }

    void aDatabaseThatCannotTakeProposalsIsNamed()
    {
        makeBroker();
        const std::optional<QString> why = TeamProposeStep::unavailable(*context);
        QVERIFY(why);
        QVERIFY2(why->startsWith(u"team.database must be a libpq connection URI"_s),
                 qPrintable(*why));
    }

    void theRefusalMintsNoToken()
    {
        const QJsonObject error = TeamProposeStep::refusal(u"not connected"_s);
        QCOMPARE(error.value("kind"), "team_unavailable");
        QCOMPARE(error.value("message"),
                 "Team mode: the team database cannot take proposals (not connected). Fabric's "
                 "dry run validated the request, but no token was minted: a proposal the team "
                 "cannot see cannot be approved. Propose again once that is fixed.");
        QCOMPARE(error.size(), 2);
        // The database's words are bounded.
        const QString long_ =
            TeamProposeStep::refusal(QString(2000, u'x')).value("message").toString();
        QVERIFY(long_.contains(QString(500, u'x') + u")"_s));
        QVERIFY(!long_.contains(QString(501, u'x')));
    }

    void aPublishTheDatabaseDoesNotTakeUsesTheTokenUp()
    {
        makeBroker();
        const Proposal stored = store->add(proposal()).proposal;
        TeamProposeStep step(context.get());
        int calls = 0;
        TeamProposeStep::Published published;
        step.publish(stored, CompiledRequest{}, mcp::ClientInfo{},
                     [&](const TeamProposeStep::Published &p) {
                         ++calls;
                         published = p;
                     });
        QTRY_COMPARE(calls, 1);
        QVERIFY(!published.brokerGone);
        QVERIFY(!published.team);
        QVERIFY(!published.error.isEmpty());
        // Used up: the token was never shown, and now it never works.
        QCOMPARE(store->consume(stored.token).outcome, ConsumeOutcome::PreviouslyUsed);
        QVERIFY(!context->takePublished(tokenDigest(stored.token)));
        QTest::qWait(20);
        QCOMPARE(calls, 1);
    }

    void theBrokerGoneMeanwhile()
    {
        makeBroker();
        const Proposal stored = store->add(proposal()).proposal;
        TeamProposeStep step(context.get());
        int calls = 0;
        TeamProposeStep::Published published;
        step.publish(stored, CompiledRequest{}, mcp::ClientInfo{},
                     [&](const TeamProposeStep::Published &p) {
                         ++calls;
                         published = p;
                     });
        context.reset();
        QTRY_COMPARE(calls, 1);
        QVERIFY(published.brokerGone);
        QVERIFY(!published.team);
        // The store was not asked to use the token up.
        QCOMPARE(store->consume(stored.token).outcome, ConsumeOutcome::Consumed);
    }

    void aStepGoneBeforeTheAnswerAnswersNothing()
    {
        makeBroker();
        const Proposal stored = store->add(proposal()).proposal;
        auto step = std::make_unique<TeamProposeStep>(context.get());
        int calls = 0;
        step->publish(stored, CompiledRequest{}, mcp::ClientInfo{},
                      [&](const TeamProposeStep::Published &) { ++calls; });
        step.reset();
        QTest::qWait(50);
        QCOMPARE(calls, 0);
        QCOMPARE(store->consume(stored.token).outcome, ConsumeOutcome::Consumed);
    }
};

QTEST_GUILESS_MAIN(TestTeamProposeStep)
#include "tst_teamproposestep.moc"
