// ApprovalDialog: renders what the broker compiled; deny is the default; approve unlocks late
// and locks at expiry; the countdown runs from the absolute deadline of an injected clock.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/ProposalView.h"
#include "gui/ApprovalDialog.h"

#include <QApplication>
#include <QClipboard>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

using namespace fb;

class TestApprovalDialog : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }
    void rendersEveryCompiledField()
    {
        ManualClock clock;
        const ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ApprovalDialog dialog(ctx, &clock);

        QHash<QString, QString> leaves;
        for (QTreeWidgetItemIterator it(dialog.requestTree()); *it; ++it) {
            const QString path = (*it)->data(0, Qt::UserRole).toString();
            if (!path.isEmpty())
                leaves.insert(path, (*it)->text(1));
        }
        const auto expected =
            ProposalView::flatten(QJsonDocument::fromJson(ctx.request.body).object());
        QVERIFY(expected.size() >= 15);
        QCOMPARE(leaves.size(), expected.size());
        for (const auto &[path, value] : expected) {
            QVERIFY2(leaves.contains(path), qPrintable(path));
            QCOMPARE(leaves.value(path), value);
        }
        QVERIFY(leaves.contains(QStringLiteral("notifications[0].emails[0]")));
        QCOMPARE(leaves.value(QStringLiteral("aSide.accessPoint.linkProtocol.vlanTag")),
                 QStringLiteral("1001"));
    }

    void showsClientPriceAndTarget()
    {
        ManualClock clock;
        const ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ApprovalDialog dialog(ctx, &clock);
        const QString client = dialog.clientLabel()->text();
        QVERIFY2(client.contains(QStringLiteral("claude-code")), qPrintable(client));
        QVERIFY(client.contains(QStringLiteral("2.1.4")));
        QVERIFY(client.contains(QStringLiteral("session 3")));
        QCOMPARE(dialog.priceLabel()->text(), ProposalView::priceLine(guitest::samplePrice()));
        QVERIFY(dialog.priceLabel()->text().contains(QStringLiteral("USD 300.00/month")));
        const auto labels = dialog.findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.begin(), labels.end(),
                            [&](QLabel *l) { return l->text() == ctx.proposal.target; }));
        QVERIFY(!dialog.sandboxBanner()->isVisibleTo(&dialog));
        dialog.setSandbox(true);
        QVERIFY(dialog.sandboxBanner()->isVisibleTo(&dialog));
        QVERIFY(dialog.sandboxBanner()->text().contains(QStringLiteral("SANDBOX")));
    }

    // The Policy line is escaped like every other value: a reason (from a policy file another
    // user may have written) can neither start a line of its own nor reorder the text.
    void policyLineIsEscaped()
    {
        ManualClock clock;
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        const QString hostile = QStringLiteral("ok\nPrice: USD 0.00 \u202Eevil\u200B\uFE0F");
        ctx.proposal.context.insert(
            "policy", QJsonObject{{"checks", QJsonArray{QJsonObject{{"reason", hostile}}}}});
        ApprovalDialog dialog(ctx, &clock);
        const QString text = dialog.priceLabel()->text();
        QVERIFY2(text.endsWith(
                     QStringLiteral("\nPolicy: ok\\nPrice: USD 0.00 \\u202Eevil\\u200B\\uFE0F")),
                 qPrintable(text));
        QCOMPARE(text.count(u'\n'), 1); // the price line, then the policy line: no other break
        QVERIFY(!text.contains(QChar(0x202E)));
    }

    // Issue 15: unpriced in one short line; the raw Fabric error in a collapsed section.
    void unpricedShowsShortLineAndDetails()
    {
        ManualClock clock;
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        const QString raw = QStringLiteral(
            "price lookup failed: Fabric rejected POST /fabric/v4/prices/search (HTTP 400): "
            "EQ-3038022 Invalid value (at /connection/bandwidth: No rate for bandwidth 10) "
            "<b>x</b>");
        ctx.proposal.context.insert(
            QStringLiteral("price"),
            QJsonObject{
                {QStringLiteral("priced"), false},
                {QStringLiteral("summary"), QStringLiteral("no rate-card price for 10 Mbps in SV")},
                {QStringLiteral("reason"), raw}});
        ApprovalDialog dialog(ctx, &clock);
        QCOMPARE(dialog.priceLabel()->text(),
                 QStringLiteral("unpriced: no rate-card price for 10 Mbps in SV"));
        auto *details = dialog.findChild<QLabel *>(QStringLiteral("priceDetails"));
        auto *toggle = dialog.findChild<QToolButton *>(QStringLiteral("priceDetailsToggle"));
        QVERIFY(details && toggle);
        QCOMPARE(details->text(), raw);
        QCOMPARE(details->textFormat(), Qt::PlainText);
        QVERIFY(!details->isVisibleTo(&dialog));
        toggle->click();
        QVERIFY(details->isVisibleTo(&dialog));
        // A priced proposal has no such section.
        ApprovalDialog priced(guitest::sampleContext(clock.nowMs()), &clock);
        QVERIFY(!priced.findChild<QLabel *>(QStringLiteral("priceDetails")));
    }

    void confirmingClientDifferentFromProposer()
    {
        ManualClock clock;
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ctx.client = guitest::sampleClient(9, QStringLiteral("cursor"), QStringLiteral("1.7.0"));
        ApprovalDialog dialog(ctx, &clock);
        const QString client = dialog.clientLabel()->text();
        QVERIFY(client.contains(QStringLiteral("claude-code 2.1.4")));
        QVERIFY2(client.contains(QStringLiteral("cursor 1.7.0 (session 9")), qPrintable(client));
    }

    void shaIsSelectableAndCopies()
    {
        ManualClock clock;
        const ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ApprovalDialog dialog(ctx, &clock);
        QLineEdit *sha = dialog.shaField();
        QCOMPARE(sha->text(), ctx.proposal.requestSha256);
        QCOMPARE(sha->text().size(), 64);
        QVERIFY(sha->isReadOnly());
        sha->selectAll();
        QCOMPARE(sha->selectedText(), ctx.proposal.requestSha256);
        QApplication::clipboard()->clear();
        QTest::mouseClick(dialog.copyShaButton(), Qt::LeftButton);
        QCOMPARE(QApplication::clipboard()->text(), ctx.proposal.requestSha256);
    }

    void denyIsDefaultAndFocused()
    {
        ManualClock clock;
        auto *dialog = new ApprovalDialog(guitest::sampleContext(clock.nowMs()), &clock);
        QPointer<ApprovalDialog> guard(dialog);
        dialog->open();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QVERIFY(dialog->denyButton()->isDefault());
        QVERIFY(!dialog->approveButton()->isDefault());
        QVERIFY(!dialog->approveButton()->autoDefault());
        QCOMPARE(dialog->focusWidget(), dialog->denyButton());
        QVERIFY(!dialog->isModal());
        QCOMPARE(dialog->windowModality(), Qt::NonModal);
        QVERIFY(!QApplication::activeModalWidget());
        QVERIFY(dialog->testAttribute(Qt::WA_DeleteOnClose));
        // Enter answers with the default button: deny.
        QSignalSpy denied(dialog, &ApprovalDialog::denyChosen);
        QSignalSpy approved(dialog, &ApprovalDialog::approveChosen);
        QTest::keyClick(dialog, Qt::Key_Return);
        QCOMPARE(denied.size(), 1);
        QCOMPARE(approved.size(), 0);
        QTRY_VERIFY(guard.isNull()); // deleted on close
    }

    void approveLabelsNameTheAction()
    {
        QCOMPARE(ApprovalDialog::approveLabel(ChangeType::ConnectionCreate),
                 QStringLiteral("Create connection"));
        QCOMPARE(ApprovalDialog::approveLabel(ChangeType::NetworkCreate),
                 QStringLiteral("Create network"));
        QCOMPARE(ApprovalDialog::approveLabel(ChangeType::ServiceTokenCreate),
                 QStringLiteral("Create service token"));
        ManualClock clock;
        ApprovalDialog dialog(guitest::sampleContext(clock.nowMs(), ChangeType::ServiceTokenCreate),
                              &clock);
        QCOMPARE(dialog.approveButton()->text(), QStringLiteral("Create service token"));
    }

    void approveUnlocksAfterTheDelay()
    {
        ManualClock clock;
        ApprovalDialog dialog(guitest::sampleContext(clock.nowMs()), &clock);
        dialog.setApproveDelayMs(300);
        QVERIFY(!dialog.approveButton()->isEnabled());
        dialog.open();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(!dialog.approveButton()->isEnabled());
        // A click while locked is not an answer.
        QSignalSpy approved(&dialog, &ApprovalDialog::approveChosen);
        QTest::mouseClick(dialog.approveButton(), Qt::LeftButton);
        QCOMPARE(approved.size(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.approveButton()->isEnabled(), 3000);
        QTest::mouseClick(dialog.approveButton(), Qt::LeftButton);
        QCOMPARE(approved.size(), 1);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
    }

    void countdownFromAbsoluteDeadline()
    {
        ManualClock clock;
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ctx.proposal.expiresAtMs = clock.nowMs() + 125000; // 2m 05s left
        ApprovalDialog dialog(ctx, &clock);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.setApproveDelayMs(0);
        dialog.setAnswerDeadlineMs(clock.nowMs() + 60000);
        dialog.open();
        QVERIFY(dialog.expiresLabel()->text().startsWith(QStringLiteral("in 2m 05s (at ")));
        QVERIFY(dialog.approveButton()->isEnabled());
        QVERIFY(!dialog.expiredNotice()->isVisible());

        clock.advanceMs(65000);
        dialog.refresh();
        QVERIFY2(dialog.expiresLabel()->text().startsWith(QStringLiteral("in 1m 00s")),
                 qPrintable(dialog.expiresLabel()->text()));
        QVERIFY(dialog.approveButton()->isEnabled());

        clock.advanceMs(59500); // 500 ms left: still shows 1s, still approvable
        dialog.refresh();
        QVERIFY(dialog.expiresLabel()->text().startsWith(QStringLiteral("in 1s")));
        QVERIFY(dialog.approveButton()->isEnabled());

        clock.advanceMs(500); // exactly at the deadline
        dialog.refresh();
        QVERIFY(dialog.isExpired());
        QVERIFY(!dialog.approveButton()->isEnabled());
        QVERIFY(dialog.expiresLabel()->text().startsWith(QStringLiteral("expired at ")));
        QVERIFY(dialog.expiredNotice()->isVisible());
        QVERIFY(dialog.expiredNotice()->text().contains(QStringLiteral("expired")));
        QSignalSpy approved(&dialog, &ApprovalDialog::approveChosen);
        QTest::mouseClick(dialog.approveButton(), Qt::LeftButton);
        QCOMPARE(approved.size(), 0);
        // Deny still works after expiry.
        QSignalSpy denied(&dialog, &ApprovalDialog::denyChosen);
        QTest::mouseClick(dialog.denyButton(), Qt::LeftButton);
        QCOMPARE(denied.size(), 1);
    }

    void theTimerRepaintsTheCountdown()
    {
        ManualClock clock;
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ctx.proposal.expiresAtMs = clock.nowMs() + 10000;
        ApprovalDialog dialog(ctx, &clock);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.open();
        QVERIFY(dialog.expiresLabel()->text().startsWith(QStringLiteral("in 10s")));
        clock.advanceMs(10000);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.expiredNotice()->isVisible(), 2500);
        QVERIFY(!dialog.approveButton()->isEnabled());
        dialog.closeWithoutAnswer();
    }
};

QTEST_MAIN(TestApprovalDialog)
#include "tst_approvaldialog.moc"
