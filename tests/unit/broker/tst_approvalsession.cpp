// ApprovalSession: the decision logic of one desktop approval, without any widget.
#include "../../gui/GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/ApprovalSession.h"

#include <QPointer>
#include <QTest>

using namespace fb;

class FakeCall : public QObject {
    Q_OBJECT
signals:
    void cancelled(const QString &reason);
};

class TestApprovalSession : public QObject {
    Q_OBJECT

    struct Recorder {
        int calls = 0;
        HumanDecision last;
        ApprovalSession::Done done()
        {
            return [this](const HumanDecision &d) {
                ++calls;
                last = d;
            };
        }
    };

private slots:
    void init() { fbtest::failOnWarnings(); }
    void statusMapping_data()
    {
        QTest::addColumn<int>("action");
        QTest::addColumn<HumanStatus>("expected");
        QTest::newRow("approve") << 0 << HumanStatus::Accepted;
        QTest::newRow("deny") << 1 << HumanStatus::Declined;
        QTest::newRow("dismiss") << 2 << HumanStatus::Cancelled;
        QTest::newRow("timeout") << 3 << HumanStatus::TimedOut;
        QTest::newRow("call cancelled") << 4 << HumanStatus::CallCancelled;
        QTest::newRow("failed") << 5 << HumanStatus::Failed;
        QTest::newRow("shutdown") << 6 << HumanStatus::Declined;
    }

    void statusMapping()
    {
        QFETCH(int, action);
        QFETCH(HumanStatus, expected);
        ManualClock clock;
        Recorder rec;
        ApprovalSession s(guitest::sampleContext(clock.nowMs()), &clock, rec.done());
        s.start();
        clock.advanceMs(1234);
        switch (action) {
        case 0:
            s.approve();
            break;
        case 1:
            s.deny();
            break;
        case 2:
            s.dismiss();
            break;
        case 3:
            s.timeOut();
            break;
        case 4:
            s.callCancelled({});
            break;
        case 5:
            s.fail(QStringLiteral("no screen"));
            break;
        case 6:
            s.denyForShutdown(QStringLiteral("quitting"));
            break;
        }
        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, expected);
        QCOMPARE(rec.last.channel, QStringLiteral("desktop"));
        QCOMPARE(rec.last.decidedAtMs, clock.nowMs());
        QVERIFY(!rec.last.detail.isEmpty());
        QVERIFY(s.isFinished());
        // Later inputs change nothing.
        s.approve();
        s.deny();
        s.timeOut();
        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, expected);
    }

    void finishedSignalFollowsDone()
    {
        ManualClock clock;
        Recorder rec;
        ApprovalSession s(guitest::sampleContext(clock.nowMs()), &clock, rec.done());
        int signals_ = 0;
        connect(&s, &ApprovalSession::finished, this, [&](const HumanDecision &d) {
            QCOMPARE(rec.calls, 1);
            QCOMPARE(d.status, HumanStatus::Declined);
            ++signals_;
        });
        s.start();
        s.deny();
        QCOMPARE(signals_, 1);
    }

    void timesOutByItself()
    {
        ManualClock clock;
        Recorder rec;
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ctx.timeoutMs = 50;
        ApprovalSession s(ctx, &clock, rec.done());
        s.start();
        QCOMPARE(s.answerDeadlineMs(), clock.nowMs() + 50);
        QTRY_COMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, HumanStatus::TimedOut);
    }

    void cancelledBySource()
    {
        ManualClock clock;
        Recorder rec;
        FakeCall call;
        ApprovalSession s(guitest::sampleContext(clock.nowMs()), &clock, rec.done());
        s.watchCancellation(&call, false);
        s.start();
        QCOMPARE(rec.calls, 0);
        emit call.cancelled(QStringLiteral("client sent notifications/cancelled"));
        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, HumanStatus::CallCancelled);
        QVERIFY(rec.last.detail.contains(QStringLiteral("notifications/cancelled")));
        emit call.cancelled(QStringLiteral("again"));
        QCOMPARE(rec.calls, 1);
    }

    void alreadyCancelledEndsAtStart()
    {
        ManualClock clock;
        Recorder rec;
        FakeCall call;
        ApprovalSession s(guitest::sampleContext(clock.nowMs()), &clock, rec.done());
        s.watchCancellation(&call, true);
        QCOMPARE(rec.calls, 0);
        s.start();
        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, HumanStatus::CallCancelled);
    }

    void sourceDestroyedIsCancellation()
    {
        ManualClock clock;
        Recorder rec;
        auto *call = new FakeCall;
        ApprovalSession s(guitest::sampleContext(clock.nowMs()), &clock, rec.done());
        s.watchCancellation(call, false);
        s.start();
        delete call;
        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, HumanStatus::CallCancelled);
    }

    void destroyedUndecidedIsDenial()
    {
        ManualClock clock;
        Recorder rec;
        {
            ApprovalSession s(guitest::sampleContext(clock.nowMs()), &clock, rec.done());
            s.start();
        }
        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, HumanStatus::Declined);
    }

    void doneMayDestroyTheSession()
    {
        ManualClock clock;
        QPointer<ApprovalSession> s;
        int calls = 0;
        s = new ApprovalSession(guitest::sampleContext(clock.nowMs()), &clock,
                                [&](const HumanDecision &) {
                                    ++calls;
                                    delete s.data();
                                });
        s->start();
        s->approve();
        QCOMPARE(calls, 1);
        QVERIFY(s.isNull());
    }
};

QTEST_GUILESS_MAIN(TestApprovalSession)
#include "tst_approvalsession.moc"
