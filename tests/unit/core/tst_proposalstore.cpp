// ProposalStore: minting, TTL boundaries, capacity and eviction order, predicate outcomes in the
// seed's order, tombstones, single-use under concurrency, and the signals the GUI relies on.
#include "TestEnvironment.h"
#include "core/ProposalStore.h"

#include <QSignalSpy>
#include <QtTest>

#include <atomic>
#include <thread>

using namespace fb;

namespace {
Proposal make(const QString &target = QStringLiteral("t"))
{
    Proposal p;
    p.changeType = ChangeType::ConnectionCreate;
    p.target = target;
    p.requestSha256 = QString(64, u'a');
    return p;
}
} // namespace

class TestProposalStore : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void tokenFormat()
    {
        QSet<QString> seen;
        for (int i = 0; i < 1000; ++i) {
            const QString t = ProposalStore::mintToken();
            QVERIFY(ProposalStore::looksLikeToken(t));
            QCOMPARE(t.size(), 36);
            QVERIFY(!seen.contains(t));
            seen.insert(t);
        }
        QVERIFY(!ProposalStore::looksLikeToken(u"chg-ABCDEF00000000000000000000000000"));
        QVERIFY(!ProposalStore::looksLikeToken(u"chg-123"));
        QVERIFY(!ProposalStore::looksLikeToken(u"tok-00000000000000000000000000000000"));
    }

    void addFillsTimestampsAndDefaults()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        QCOMPARE(store.ttlMs(), 600000);
        QCOMPARE(store.maxPending(), 20);
        const auto r = store.add(make());
        QVERIFY(ProposalStore::looksLikeToken(r.proposal.token));
        QCOMPARE(r.proposal.proposedAtMs, clock.nowMs());
        QCOMPARE(r.proposal.expiresAtMs, clock.nowMs() + 600000);
        QVERIFY(r.evicted.isEmpty());
        QCOMPARE(store.pendingCount(), 1);
        QVERIFY(store.peek(r.proposal.token));
    }

    void consumeOnceThenPreviouslyUsed()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        const QString token = store.add(make()).proposal.token;
        const auto first = store.consume(token);
        QCOMPARE(first.outcome, ConsumeOutcome::Consumed);
        QCOMPARE(first.checks.toJson(), QJsonObject({{"proposal_exists", true},
                                                     {"not_evicted", true},
                                                     {"not_expired", true},
                                                     {"not_previously_used", true},
                                                     {"request_matches_binding", QJsonValue()}}));
        QVERIFY(first.checks.firstFailure().isEmpty());
        QVERIFY(!first.checks.allPassed()); // the broker evaluates the binding
        QCOMPARE(store.pendingCount(), 0);

        const auto second = store.consume(token);
        QCOMPARE(second.outcome, ConsumeOutcome::PreviouslyUsed);
        QCOMPARE(second.checks.firstFailure(), QStringLiteral("not_previously_used"));
        QCOMPARE(second.checks.toJson().value("not_previously_used"), QJsonValue(false));
        QCOMPARE(second.checks.toJson().value("request_matches_binding"), QJsonValue());
        QVERIFY(second.proposal);
        QCOMPARE(second.proposal->token, token);
        // A third attempt still says the same.
        QCOMPARE(store.consume(token).outcome, ConsumeOutcome::PreviouslyUsed);
    }

    void unknownToken()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        const auto r = store.consume(QStringLiteral("chg-00000000000000000000000000000000"));
        QCOMPARE(r.outcome, ConsumeOutcome::Unknown);
        QVERIFY(!r.proposal);
        QCOMPARE(r.checks.toJson(), QJsonObject({{"proposal_exists", false},
                                                 {"not_evicted", QJsonValue()},
                                                 {"not_expired", QJsonValue()},
                                                 {"not_previously_used", QJsonValue()},
                                                 {"request_matches_binding", QJsonValue()}}));
        QCOMPARE(r.checks.firstFailure(), QStringLiteral("proposal_exists"));
        QCOMPARE(store.consume(QString()).outcome, ConsumeOutcome::Unknown);
    }

    void ttlBoundaryExactlyAtExpiry()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        store.setTtlMs(1000);
        const QString a = store.add(make()).proposal.token;
        const QString b = store.add(make()).proposal.token;
        clock.advanceMs(999);
        QCOMPARE(store.consume(a).outcome, ConsumeOutcome::Consumed); // 1 ms before expiry
        clock.advanceMs(1);                                           // exactly at expiry
        QVERIFY(!store.peek(b));
        QSignalSpy expired(&store, &ProposalStore::proposalExpired);
        const auto r = store.consume(b);
        QCOMPARE(r.outcome, ConsumeOutcome::Expired);
        QCOMPARE(r.checks.toJson(), QJsonObject({{"proposal_exists", true},
                                                 {"not_evicted", true},
                                                 {"not_expired", false},
                                                 {"not_previously_used", QJsonValue()},
                                                 {"request_matches_binding", QJsonValue()}}));
        QCOMPARE(expired.count(), 1);
        // Still expired (not unknown) on a retry.
        QCOMPARE(store.consume(b).outcome, ConsumeOutcome::Expired);
    }

    void sweptExpiredStaysDistinguishable()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        store.setTtlMs(1000);
        QSignalSpy expired(&store, &ProposalStore::proposalExpired);
        const QString t = store.add(make()).proposal.token;
        clock.advanceMs(1000);
        store.sweep();
        QCOMPARE(expired.count(), 1);
        QCOMPARE(store.pendingCount(), 0);
        clock.advanceMs(1999); // 2 x TTL after expiry, minus 1 ms
        QCOMPARE(store.consume(t).outcome, ConsumeOutcome::Expired);
        clock.advanceMs(1);
        QCOMPARE(store.consume(t).outcome, ConsumeOutcome::Expired);
        // Long after, the tombstone is pruned once something else happens.
        clock.advanceMs(10000);
        store.add(make());
        QCOMPARE(store.consume(t).outcome, ConsumeOutcome::Unknown);
    }

    void evictionOrderAndReport()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        QSignalSpy evictedSpy(&store, &ProposalStore::proposalEvicted);
        QStringList tokens;
        for (int i = 0; i < 20; ++i) {
            clock.advanceMs(1);
            const auto r = store.add(make(QString::number(i)));
            QVERIFY(r.evicted.isEmpty());
            tokens << r.proposal.token;
        }
        QCOMPARE(store.pendingCount(), 20);
        const auto r21 = store.add(make(QStringLiteral("20")));
        QCOMPARE(r21.evicted.size(), 1);
        QCOMPARE(r21.evicted.first().token, tokens.first());
        QCOMPARE(r21.evicted.first().target, QStringLiteral("0"));
        QCOMPARE(evictedSpy.count(), 1);
        QCOMPARE(store.pendingCount(), 20);
        const auto r22 = store.add(make(QStringLiteral("21")));
        QCOMPARE(r22.evicted.first().token, tokens.at(1));

        const auto ev = store.consume(tokens.first());
        QCOMPARE(ev.outcome, ConsumeOutcome::Evicted);
        QCOMPARE(ev.checks.toJson(), QJsonObject({{"proposal_exists", true},
                                                  {"not_evicted", false},
                                                  {"not_expired", QJsonValue()},
                                                  {"not_previously_used", QJsonValue()},
                                                  {"request_matches_binding", QJsonValue()}}));
        QCOMPARE(store.consume(tokens.first()).outcome, ConsumeOutcome::Evicted);
        QCOMPARE(store.consume(tokens.at(2)).outcome, ConsumeOutcome::Consumed);
        const auto pending = store.pending();
        QCOMPARE(pending.first().target, QStringLiteral("3"));
        QCOMPARE(pending.last().target, QStringLiteral("21"));
    }

    void expiredNeverCausesEviction()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        store.setTtlMs(1000);
        store.setMaxPending(3);
        const QString old = store.add(make(QStringLiteral("old"))).proposal.token;
        clock.advanceMs(500);
        const QString live1 = store.add(make()).proposal.token;
        const QString live2 = store.add(make()).proposal.token;
        clock.advanceMs(500); // "old" expired exactly now
        const auto r = store.add(make());
        QVERIFY(r.evicted.isEmpty());
        QCOMPARE(store.pendingCount(), 3);
        QCOMPARE(store.consume(old).outcome, ConsumeOutcome::Expired);
        QCOMPARE(store.consume(live1).outcome, ConsumeOutcome::Consumed);
        QCOMPARE(store.consume(live2).outcome, ConsumeOutcome::Consumed);
    }

    void configurableCapacity()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        store.setMaxPending(2);
        store.add(make());
        store.add(make());
        QCOMPARE(store.add(make()).evicted.size(), 1);
        store.setMaxPending(0); // clamped to at least one
        QCOMPARE(store.maxPending(), 1);
        QCOMPARE(store.add(make()).evicted.size(), 2);
    }

    void signals_()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        QSignalSpy added(&store, &ProposalStore::proposalAdded);
        QSignalSpy consumed(&store, &ProposalStore::proposalConsumed);
        const QString t = store.add(make()).proposal.token;
        QCOMPARE(added.count(), 1);
        QCOMPARE(added.first().first().value<Proposal>().token, t);
        store.consume(t);
        store.consume(t);
        QCOMPARE(consumed.count(), 1);
    }

    void concurrentConsumeExactlyOneWins()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        for (int round = 0; round < 50; ++round) {
            const QString t = store.add(make()).proposal.token;
            std::atomic<int> consumed{0}, used{0};
            std::atomic<bool> go{false};
            std::vector<std::thread> threads;
            for (int i = 0; i < 8; ++i) {
                threads.emplace_back([&] {
                    while (!go.load()) {
                    }
                    const auto r = store.consume(t);
                    if (r.outcome == ConsumeOutcome::Consumed)
                        ++consumed;
                    else if (r.outcome == ConsumeOutcome::PreviouslyUsed)
                        ++used;
                });
            }
            go = true;
            for (auto &th : threads)
                th.join();
            QCOMPARE(consumed.load(), 1);
            QCOMPARE(used.load(), 7);
        }
    }

    void tombstonesAreBounded()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        store.setMaxPending(1);
        QString first;
        for (int i = 0; i < ProposalStore::MaxTombstones + 10; ++i) {
            const QString t = store.add(make()).proposal.token;
            if (i == 0)
                first = t;
        }
        QCOMPARE(store.consume(first).outcome, ConsumeOutcome::Unknown);
    }
};

QTEST_GUILESS_MAIN(TestProposalStore)
#include "tst_proposalstore.moc"
