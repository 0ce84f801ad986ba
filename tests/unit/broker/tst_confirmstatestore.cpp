// ConfirmStateStore: requestState for the multi-round-trip confirm is attacker input. It must
// verify (HMAC-SHA-256, per-process key), be usable once, belong to one session, and end at its
// deadline with the record's timeout reported once.
#include "TestEnvironment.h"
#include "broker/ConfirmState.h"
#include "broker/ConfirmStateStore.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

const QString kToken = u"token-digest"_s;

PendingConfirm record(quint64 session, qint64 deadlineMs, const QString &sha = QString(64, u'a'))
{
    PendingConfirm r;
    r.sessionId = session;
    r.tokenSha256 = kToken;
    r.proposal.token = u"chg-0123456789abcdef0123456789abcdef"_s;
    r.proposal.requestSha256 = sha;
    r.askedAtMs = deadlineMs - 1000;
    r.deadlineMs = deadlineMs;
    return r;
}

// Flips one character of the state at index i to another base64url character.
QString flipped(QString state, qsizetype i)
{
    state[i] = state[i] == u'A' ? u'B' : u'A';
    return state;
}

} // namespace

class TestConfirmStateStore : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void takenOnce()
    {
        ManualClock clock;
        ConfirmStateStore store(&clock);
        const QString state = store.issue(record(7, clock.nowMs() + 60000));
        QVERIFY(state.startsWith(u"fbrs1."_s));
        QVERIFY(state.size() <= ConfirmStateStore::MaxStateLength);
        QCOMPARE(store.pendingCount(), 1);

        const auto first = store.take(state, 7, kToken);
        QCOMPARE(first.status, ConfirmStateStore::Status::Taken);
        QVERIFY(first.record);
        QCOMPARE(first.record->proposal.requestSha256, QString(64, u'a'));
        QCOMPARE(store.pendingCount(), 0);

        // The same state again: already completed, never a second record.
        const auto second = store.take(state, 7, kToken);
        QCOMPARE(second.status, ConfirmStateStore::Status::Completed);
    }

    void statesAreDistinctAndCarryNoRecordData()
    {
        ManualClock clock;
        ConfirmStateStore store(&clock);
        const QString sha = u"d1f0c0ffee"_s + QString(54, u'0');
        const QString a = store.issue(record(1, clock.nowMs() + 60000, sha));
        const QString b = store.issue(record(1, clock.nowMs() + 60000, sha));
        QVERIFY(a != b);
        QVERIFY(!a.contains(sha.left(10)));
        QVERIFY(!a.contains(u"chg-"_s));
        QVERIFY(!a.contains(u"accept"_s));
    }

    void tamperedOrForgedIsInvalid_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("id changed") << 0;
        QTest::newRow("mac changed") << 1;
        QTest::newRow("mac dropped") << 2;
        QTest::newRow("other prefix") << 3;
        QTest::newRow("empty") << 4;
        QTest::newRow("oversized") << 5;
        QTest::newRow("not base64") << 6;
        QTest::newRow("forged by a second store") << 7;
        QTest::newRow("extra part") << 8;
    }

    void tamperedOrForgedIsInvalid()
    {
        QFETCH(int, kind);
        ManualClock clock;
        ConfirmStateStore store(&clock);
        const QString state = store.issue(record(3, clock.nowMs() + 60000));
        const qsizetype dot = state.lastIndexOf(u'.');
        QString bad;
        switch (kind) {
        case 0:
            bad = flipped(state, 7);
            break;
        case 1:
            bad = flipped(state, dot + 3);
            break;
        case 2:
            bad = state.left(dot);
            break;
        case 3:
            bad = u"fbrs2."_s + state.mid(6);
            break;
        case 4:
            bad = QString();
            break;
        case 5:
            bad = state + QString(400, u'A');
            break;
        case 6:
            bad = state.left(dot + 1) + u"!!!!"_s;
            break;
        case 7: {
            ConfirmStateStore other(&clock); // another process: another key
            bad = other.issue(record(3, clock.nowMs() + 60000));
            break;
        }
        case 8:
            bad = state + u".AAAA"_s;
            break;
        }
        QCOMPARE(store.take(bad, 3, kToken).status, ConfirmStateStore::Status::Invalid);
        QVERIFY(!store.take(bad, 3, kToken).record);
        // The genuine state still works: a bad attempt does not burn it.
        QCOMPARE(store.take(state, 3, kToken).status, ConfirmStateStore::Status::Taken);
    }

    void otherSessionIsInvalid()
    {
        ManualClock clock;
        ConfirmStateStore store(&clock);
        const QString state = store.issue(record(11, clock.nowMs() + 60000));
        QCOMPARE(store.take(state, 12, kToken).status, ConfirmStateStore::Status::Invalid);
        QCOMPARE(store.pendingCount(), 1);
        QCOMPARE(store.take(state, 11, kToken).status, ConfirmStateStore::Status::Taken);
    }

    void otherTokenIsInvalid()
    {
        ManualClock clock;
        ConfirmStateStore store(&clock);
        const QString state = store.issue(record(11, clock.nowMs() + 60000));
        QCOMPARE(store.take(state, 11, u"another-token"_s).status,
                 ConfirmStateStore::Status::Invalid);
        QCOMPARE(store.take(state, 11, kToken).status, ConfirmStateStore::Status::Taken);
    }

    void inputRequiredShape()
    {
        const QJsonObject params{{u"message"_s, u"m"_s}};
        const QJsonObject r = ConfirmStateStore::inputRequiredResult(params, u"fbrs1.x.y"_s);
        QCOMPARE(r.value(u"resultType"_s).toString(), u"input_required"_s);
        QCOMPARE(r.value(u"requestState"_s).toString(), u"fbrs1.x.y"_s);
        const QJsonObject req =
            r.value(u"inputRequests"_s).toObject().value(u"confirm"_s).toObject();
        QCOMPARE(req.value(u"method"_s).toString(), u"elicitation/create"_s);
        QCOMPARE(req.value(u"params"_s).toObject(), params);
    }

    void answerIn()
    {
        const QJsonObject answer{{u"action"_s, u"decline"_s}};
        QCOMPARE(ConfirmStateStore::answerIn(QJsonObject{{u"confirm"_s, answer}}), answer);
        QVERIFY(!ConfirmStateStore::answerIn(QJsonValue()));
        QVERIFY(!ConfirmStateStore::answerIn(QJsonObject{{u"other"_s, answer}}));
        QVERIFY(!ConfirmStateStore::answerIn(QJsonObject{{u"confirm"_s, u"accept"_s}}));
        QVERIFY(!ConfirmStateStore::answerIn(QJsonArray{answer}));
    }

    void deadlineEndsTheRecordOnce()
    {
        ManualClock clock;
        ConfirmStateStore store(&clock);
        QSignalSpy timedOut(&store, &ConfirmStateStore::timedOut);
        const QString state = store.issue(record(5, clock.nowMs() + 1000));
        clock.advanceMs(999);
        store.expireDue();
        QCOMPARE(timedOut.count(), 0);
        clock.advanceMs(1);
        store.expireDue();
        QCOMPARE(timedOut.count(), 1);
        QCOMPARE(timedOut.first().first().value<PendingConfirm>().sessionId, quint64(5));
        store.expireDue();
        QCOMPARE(timedOut.count(), 1);
        QCOMPARE(store.pendingCount(), 0);
        // A late retry is told that it timed out, with the record for the result.
        const auto late = store.take(state, 5, kToken);
        QCOMPARE(late.status, ConfirmStateStore::Status::TimedOut);
        QVERIFY(late.record);
        QCOMPARE(timedOut.count(), 1);
    }

    void lateRetryBeforeTheTimerIsTimedOut()
    {
        ManualClock clock;
        ConfirmStateStore store(&clock);
        QSignalSpy timedOut(&store, &ConfirmStateStore::timedOut);
        const QString state = store.issue(record(5, clock.nowMs() + 1000));
        clock.advanceMs(5000); // the timer has not run yet
        QCOMPARE(store.take(state, 5, kToken).status, ConfirmStateStore::Status::TimedOut);
        QCOMPARE(timedOut.count(), 1); // audited once, when found
    }

    void timerFiresOnItsOwn()
    {
        ConfirmStateStore store; // the system clock
        QSignalSpy timedOut(&store, &ConfirmStateStore::timedOut);
        store.issue(record(9, Clock::system()->nowMs() + 50));
        QVERIFY(timedOut.wait(5000));
        QCOMPARE(timedOut.count(), 1);
    }

    // At most 16 waiting per session and 64 in all: the oldest gives way, timed out, once.
    void pendingIsCappedPerSessionAndInAll()
    {
        ManualClock clock;
        ConfirmStateStore store(&clock);
        QSignalSpy timedOut(&store, &ConfirmStateStore::timedOut);
        QStringList states;
        for (int i = 0; i < ConfirmStateStore::MaxPendingPerSession; ++i)
            states << store.issue(record(1, clock.nowMs() + 60000 + i));
        QCOMPARE(store.pendingCount(1), int(ConfirmStateStore::MaxPendingPerSession));
        QCOMPARE(timedOut.count(), 0);
        const QString next = store.issue(record(1, clock.nowMs() + 90000));
        QCOMPARE(store.pendingCount(1), int(ConfirmStateStore::MaxPendingPerSession));
        QCOMPARE(timedOut.count(), 1);
        // The oldest of the session is the one that ended; its retry is told it timed out.
        QCOMPARE(store.take(states.first(), 1, kToken).status, ConfirmStateStore::Status::TimedOut);
        QCOMPARE(store.take(next, 1, kToken).status, ConfirmStateStore::Status::Taken);

        // Across sessions: 64 in all.
        ConfirmStateStore all(&clock);
        QSignalSpy allTimedOut(&all, &ConfirmStateStore::timedOut);
        QString oldest;
        for (int i = 0; i < ConfirmStateStore::MaxPending; ++i) {
            const QString st = all.issue(record(100 + quint64(i) % 8, clock.nowMs() + 60000));
            if (i == 0)
                oldest = st;
        }
        QCOMPARE(all.pendingCount(), int(ConfirmStateStore::MaxPending));
        all.issue(record(999, clock.nowMs() + 60000));
        QCOMPARE(all.pendingCount(), int(ConfirmStateStore::MaxPending));
        QCOMPARE(allTimedOut.count(), 1);
        QCOMPARE(all.take(oldest, 100, kToken).status, ConfirmStateStore::Status::TimedOut);
    }

    void endAllEndsEveryRecord()
    {
        ManualClock clock;
        ConfirmStateStore store(&clock);
        QSignalSpy ended(&store, &ConfirmStateStore::ended);
        const QString a = store.issue(record(1, clock.nowMs() + 60000));
        store.issue(record(2, clock.nowMs() + 60000));
        QCOMPARE(store.endAll(u"the credentials changed"_s), 2);
        QCOMPARE(store.pendingCount(), 0);
        QCOMPARE(ended.count(), 2);
        QCOMPARE(ended.first().at(1).toString(), u"the credentials changed"_s);
        const auto late = store.take(a, 1, kToken);
        QCOMPARE(late.status, ConfirmStateStore::Status::TimedOut);
        QCOMPARE(late.endReason, u"the credentials changed"_s);
    }

    void rememberedIsBounded()
    {
        ManualClock clock;
        ConfirmStateStore store(&clock);
        QStringList states;
        for (int i = 0; i < ConfirmStateStore::MaxRemembered + 10; ++i) {
            states << store.issue(record(1, clock.nowMs() + 60000));
            QCOMPARE(store.take(states.last(), 1, kToken).status, ConfirmStateStore::Status::Taken);
        }
        // Forgotten states still verify and are reported as completed, never as new.
        QCOMPARE(store.take(states.first(), 1, kToken).status,
                 ConfirmStateStore::Status::Completed);
        QCOMPARE(store.take(states.last(), 1, kToken).status, ConfirmStateStore::Status::Completed);
    }
};

QTEST_GUILESS_MAIN(TestConfirmStateStore)
#include "tst_confirmstatestore.moc"
