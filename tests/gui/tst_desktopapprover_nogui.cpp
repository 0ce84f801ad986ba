// Without a widget application the desktop dialog cannot be shown: the answer is Failed, at once.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "gui/DesktopApprover.h"

#include <QTest>

using namespace fb;

class TestDesktopApproverNoGui : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void failsWithoutQApplication()
    {
        ManualClock clock;
        DesktopApprover approver(&clock);
        int calls = 0;
        HumanDecision last;
        approver.requestApprovalFor(nullptr, false, guitest::sampleContext(clock.nowMs()),
                                    [&](const HumanDecision &d) {
                                        ++calls;
                                        last = d;
                                    });
        QCOMPARE(calls, 1);
        QCOMPARE(last.status, HumanStatus::Failed);
        QCOMPARE(last.channel, QStringLiteral("desktop"));
        QVERIFY(last.detail.contains(QStringLiteral("cannot be shown")));
        QCOMPARE(approver.pendingCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestDesktopApproverNoGui)
#include "tst_desktopapprover_nogui.moc"
