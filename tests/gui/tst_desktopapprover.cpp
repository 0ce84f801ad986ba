// DesktopApprover: one non-modal dialog per request, each status mapping end to end, done
// exactly once, several approvals answerable in any order without anything modal.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "gui/ApprovalDialog.h"
#include "gui/DesktopApprover.h"

#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace fb;

class FakeCall : public QObject {
    Q_OBJECT
signals:
    void cancelled(const QString &reason);
};

class TestDesktopApprover : public QObject {
    Q_OBJECT

    struct Recorder {
        int calls = 0;
        HumanDecision last;
        std::function<void(const HumanDecision &)> done()
        {
            return [this](const HumanDecision &d) {
                ++calls;
                last = d;
            };
        }
    };

    ApprovalDialog *openOne(DesktopApprover &approver, ManualClock &clock, Recorder &rec,
                            FakeCall *call = nullptr, int timeoutMs = 300000, char sha = 'a')
    {
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs(), ChangeType::ConnectionCreate,
                                                     QStringLiteral("lab-%1").arg(sha), sha);
        ctx.timeoutMs = timeoutMs;
        const int before = approver.openDialogs().size();
        approver.requestApprovalFor(call, false, ctx, rec.done());
        const QList<ApprovalDialog *> dialogs = approver.openDialogs();
        if (dialogs.size() != before + 1)
            return nullptr;
        return dialogs.last();
    }

private slots:
    void init() { fbtest::failOnWarnings(); }
    void channelIsDesktop()
    {
        DesktopApprover approver;
        QCOMPARE(approver.channel(), QStringLiteral("desktop"));
    }

    void approveDenyEscapeClose_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<HumanStatus>("expected");
        QTest::newRow("approve") << "approve" << HumanStatus::Accepted;
        QTest::newRow("deny") << "deny" << HumanStatus::Declined;
        QTest::newRow("enter") << "enter" << HumanStatus::Declined;
        QTest::newRow("escape") << "escape" << HumanStatus::Cancelled;
        QTest::newRow("close") << "close" << HumanStatus::Cancelled;
    }

    void approveDenyEscapeClose()
    {
        QFETCH(QString, action);
        QFETCH(HumanStatus, expected);
        ManualClock clock;
        DesktopApprover approver(&clock);
        approver.setApproveDelayMs(0);
        QSignalSpy requested(&approver, &DesktopApprover::approvalRequested);
        Recorder rec;
        QPointer<ApprovalDialog> dialog = openOne(approver, clock, rec);
        QVERIFY(dialog);
        QCOMPARE(requested.size(), 1);
        QCOMPARE(approver.pendingCount(), 1);
        QVERIFY(dialog->isVisible());
        QVERIFY(!QApplication::activeModalWidget());
        QCOMPARE(rec.calls, 0);

        if (action == u"approve")
            QTest::mouseClick(dialog->approveButton(), Qt::LeftButton);
        else if (action == u"deny")
            QTest::mouseClick(dialog->denyButton(), Qt::LeftButton);
        else if (action == u"enter")
            QTest::keyClick(dialog, Qt::Key_Return);
        else if (action == u"escape")
            QTest::keyClick(dialog, Qt::Key_Escape);
        else
            QVERIFY(dialog->close());

        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, expected);
        QCOMPARE(rec.last.channel, QStringLiteral("desktop"));
        QCOMPARE(approver.pendingCount(), 0);
        QTRY_VERIFY(dialog.isNull());
        QCOMPARE(rec.calls, 1);
    }

    void timeoutClosesTheDialog()
    {
        ManualClock clock;
        DesktopApprover approver(&clock);
        Recorder rec;
        QPointer<ApprovalDialog> dialog = openOne(approver, clock, rec, nullptr, 150);
        QVERIFY(dialog);
        QTRY_COMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, HumanStatus::TimedOut);
        QTRY_VERIFY(dialog.isNull());
        QCOMPARE(approver.pendingCount(), 0);
    }

    // #22: other credentials saved while dialogs are open: every one is answered Declined with
    // the reason, stays open saying why, and can only be closed.
    void bindingChangeDeniesEveryOpenDialog()
    {
        ManualClock clock;
        DesktopApprover approver(&clock);
        approver.setApproveDelayMs(0);
        Recorder first, second;
        QPointer<ApprovalDialog> a = openOne(approver, clock, first, nullptr, 300000, 'a');
        QPointer<ApprovalDialog> b = openOne(approver, clock, second, nullptr, 300000, 'b');
        QVERIFY(a && b);
        const QString why = QStringLiteral("the credentials changed from client id x to client "
                                           "id y while this approval was open; nothing was sent");
        approver.denyAllOpen(why);
        for (Recorder *rec : {&first, &second}) {
            QCOMPARE(rec->calls, 1);
            QCOMPARE(rec->last.status, HumanStatus::Declined);
            QCOMPARE(rec->last.detail, why);
        }
        QCOMPARE(approver.pendingCount(), 0);
        for (const QPointer<ApprovalDialog> &d : {a, b}) {
            QVERIFY(d && d->isVisible());
            QVERIFY2(d->expiredNotice()->text().contains(why),
                     qPrintable(d->expiredNotice()->text()));
            QCOMPARE(d->expiredNotice()->textFormat(), Qt::PlainText);
            QVERIFY(d->approveButton()->isHidden());
            QCOMPARE(d->denyButton()->text(), QStringLiteral("Close"));
        }
        QTest::mouseClick(a->denyButton(), Qt::LeftButton);
        QTRY_VERIFY(a.isNull());
        QCOMPARE(first.calls, 1);
    }

    void cancelledCallSaysTheAgentGaveUp()
    {
        ManualClock clock;
        DesktopApprover approver(&clock);
        approver.setApproveDelayMs(0);
        Recorder rec;
        FakeCall call;
        QPointer<ApprovalDialog> dialog = openOne(approver, clock, rec, &call);
        QVERIFY(dialog);
        // The client's own reason is hostile text: shown inert, on one line.
        emit call.cancelled(QStringLiteral("<b>timeout</b>\n\u202Eevil"));
        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, HumanStatus::CallCancelled);
        QCOMPARE(approver.pendingCount(), 0);
        // The dialog does not vanish: it says why, and approving is gone.
        QVERIFY(dialog && dialog->isVisible());
        QVERIFY(dialog->agentGaveUp());
        const QString notice = dialog->expiredNotice()->text();
        QVERIFY2(notice.contains(QStringLiteral("The agent gave up waiting")), qPrintable(notice));
        QVERIFY(notice.contains(QStringLiteral("Nothing was created")));
        QVERIFY(notice.contains(QStringLiteral("<b>timeout</b>")));
        QVERIFY(!notice.contains(QChar(0x202E)));
        QCOMPARE(dialog->expiredNotice()->textFormat(), Qt::PlainText);
        QVERIFY(!dialog->expiredNotice()->isHidden());
        QVERIFY(dialog->approveButton()->isHidden());
        QVERIFY(!dialog->approveButton()->isEnabled());
        QCOMPARE(dialog->denyButton()->text(), QStringLiteral("Close"));
        QTest::mouseClick(dialog->denyButton(), Qt::LeftButton);
        QTRY_VERIFY(dialog.isNull());
        QCOMPARE(rec.calls, 1); // answered exactly once, as call_cancelled
        QCOMPARE(rec.last.status, HumanStatus::CallCancelled);
    }

    void alreadyCancelledCallOpensNothing()
    {
        ManualClock clock;
        DesktopApprover approver(&clock);
        Recorder rec;
        FakeCall call;
        approver.requestApprovalFor(&call, true, guitest::sampleContext(clock.nowMs()), rec.done());
        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, HumanStatus::CallCancelled);
        QVERIFY(approver.openDialogs().isEmpty());
    }

    void twoConcurrentApprovalsAnsweredInAnyOrder()
    {
        ManualClock clock;
        DesktopApprover approver(&clock);
        approver.setApproveDelayMs(0);
        QSignalSpy count(&approver, &DesktopApprover::pendingCountChanged);
        Recorder first, second;
        QPointer<ApprovalDialog> a = openOne(approver, clock, first, nullptr, 300000, 'a');
        // Returning at all proves requestApproval did not block on the first dialog.
        QPointer<ApprovalDialog> b = openOne(approver, clock, second, nullptr, 300000, 'b');
        QVERIFY(a && b && a != b);
        QVERIFY(a->isVisible() && b->isVisible());
        QVERIFY(!a->isModal() && !b->isModal());
        QVERIFY(!QApplication::activeModalWidget());
        QCOMPARE(approver.pendingCount(), 2);
        QCOMPARE(count.last().at(0).toInt(), 2);

        // The second one first, then the first one.
        QTest::mouseClick(b->approveButton(), Qt::LeftButton);
        QCOMPARE(second.calls, 1);
        QCOMPARE(second.last.status, HumanStatus::Accepted);
        QCOMPARE(first.calls, 0);
        QVERIFY(a->isVisible());
        QVERIFY(!QApplication::activeModalWidget());
        QCOMPARE(approver.pendingCount(), 1);

        QTest::mouseClick(a->denyButton(), Qt::LeftButton);
        QCOMPARE(first.calls, 1);
        QCOMPARE(first.last.status, HumanStatus::Declined);
        QCOMPARE(second.calls, 1);
        QCOMPARE(approver.pendingCount(), 0);
        QTRY_VERIFY(a.isNull() && b.isNull());
    }

    void denyAllPendingAnswersEveryCall()
    {
        ManualClock clock;
        DesktopApprover approver(&clock);
        Recorder first, second;
        QPointer<ApprovalDialog> a = openOne(approver, clock, first, nullptr, 300000, 'a');
        QPointer<ApprovalDialog> b = openOne(approver, clock, second, nullptr, 300000, 'b');
        QVERIFY(a && b);
        QVERIFY(approver.raiseOldest());
        approver.denyAllPending(QStringLiteral("quitting"));
        QCOMPARE(first.calls, 1);
        QCOMPARE(second.calls, 1);
        QCOMPARE(first.last.status, HumanStatus::Declined);
        QCOMPARE(second.last.detail, QStringLiteral("quitting"));
        QCOMPARE(approver.pendingCount(), 0);
        QTRY_VERIFY(a.isNull() && b.isNull());
        QVERIFY(!approver.raiseOldest());
    }

    void raiseForFindsTheDialogOfThatProposal()
    {
        // What opening a desktop notification does: the dialog of that proposal, if still open.
        ManualClock clock;
        DesktopApprover approver(&clock);
        QSignalSpy requested(&approver, &DesktopApprover::approvalRequested);
        Recorder first, second;
        QPointer<ApprovalDialog> a = openOne(approver, clock, first, nullptr, 300000, 'a');
        QPointer<ApprovalDialog> b = openOne(approver, clock, second, nullptr, 300000, 'b');
        QVERIFY(a && b);
        QCOMPARE(requested.size(), 2);
        const QString shaA = requested.at(0).at(0).value<Proposal>().requestSha256;
        const QString shaB = requested.at(1).at(0).value<Proposal>().requestSha256;
        QVERIFY(!shaA.isEmpty() && shaA != shaB);
        QVERIFY(approver.raiseFor(shaB));
        QVERIFY(!approver.raiseFor(QString(64, u'f')));
        QTest::mouseClick(b->denyButton(), Qt::LeftButton);
        QCOMPARE(second.calls, 1);
        QVERIFY(!approver.raiseFor(shaB));
        QVERIFY(approver.raiseFor(shaA));
        QCOMPARE(first.calls, 0); // raising decides nothing
        approver.denyAllPending();
    }

    void destroyingTheApproverDenies()
    {
        ManualClock clock;
        Recorder rec;
        QPointer<ApprovalDialog> dialog;
        {
            DesktopApprover approver(&clock);
            dialog = openOne(approver, clock, rec);
            QVERIFY(dialog);
        }
        QCOMPARE(rec.calls, 1);
        QCOMPARE(rec.last.status, HumanStatus::Declined);
        QTRY_VERIFY(dialog.isNull());
    }

    void sandboxBannerFollowsTheApprover()
    {
        ManualClock clock;
        DesktopApprover approver(&clock);
        approver.setSandbox(true);
        Recorder rec;
        QPointer<ApprovalDialog> dialog = openOne(approver, clock, rec);
        QVERIFY(dialog);
        QVERIFY(dialog->sandboxBanner()->isVisible());
        approver.denyAllPending();
    }
};

QTEST_MAIN(TestDesktopApprover)
#include "tst_desktopapprover.moc"
