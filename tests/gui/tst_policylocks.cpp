// The operator policy in the GUI: the settings dialog shows locked settings disabled with
// "set by your administrator", and the approval dialog shows the policy line and asks for the
// last six characters of the request SHA-256 when the typed-confirmation rule applies.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/PolicyGate.h"
#include "core/Clock.h"
#include "core/Policy.h"
#include "gui/ApprovalDialog.h"
#include "gui/SettingsDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace fb;

class TestPolicyLocks : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void initTestCase();
    void lockedSettingsAreDisabled();
    void userPolicyLocksNameTheFile();
    void noPolicyNoLocks();
    void approvalDialogShowsThePolicyLine();
    void typedConfirmationUnlocksApprove();
};

void TestPolicyLocks::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestPolicyLocks::lockedSettingsAreDisabled()
{
    BrokerSettings settings;
    settings.toolsets = {"read", "mutate"};
    PolicyParseResult parsed = parsePolicy(R"({"toolsets": {"allowed": ["read"]},
        "approval": {"channel": "desktop"}, "fabric": {"endpoint": "https://api.equinix.com"},
        "allow_unconfirmed_mutations": false})",
                                           "/etc/fabric-broker/policy.json");
    QVERIFY(parsed.ok());
    settings.policy = parsed.policy;
    FabricConfig config;
    config.endpoint = QUrl("https://other.example");
    SettingsDialog dialog(config, settings, false, nullptr);
    auto *mutate = dialog.findChild<QCheckBox *>("mutateToolsetCheck");
    auto *read = dialog.findChild<QCheckBox *>("readToolsetCheck");
    auto *combo = dialog.findChild<QComboBox *>("approvalCombo");
    QVERIFY(mutate && read && combo);
    QVERIFY(!mutate->isEnabled());
    QVERIFY(!mutate->isChecked());
    QVERIFY(read->isEnabled());
    QVERIFY(!combo->isEnabled());
    QCOMPARE(combo->currentData().toString(), QStringLiteral("desktop"));
    QVERIFY(!dialog.endpointEdit()->isEnabled());
    QCOMPARE(dialog.endpointEdit()->text(), QStringLiteral("https://api.equinix.com"));
    QVERIFY(mutate->toolTip().contains(
        "set by your administrator: toolsets.allowed in /etc/fabric-broker/policy.json"));
    auto *label = dialog.findChild<QLabel *>("policyLocksLabel");
    QVERIFY(label);
    QCOMPARE(label->textFormat(), Qt::PlainText);
    QCOMPARE(label->text().count("set by your administrator"), 4);
    QVERIFY2(label->text().contains("The estate, routing, observability, precision-time, "
                                    "marketplace, account, mutate toolsets are not allowed"),
             qPrintable(label->text()));
    for (const char *name : {"routing", "account"}) {
        auto *check = dialog.findChild<QCheckBox *>(QString(name) + "ToolsetCheck");
        QVERIFY(check && !check->isEnabled() && !check->isChecked());
        QVERIFY(check->toolTip().contains("toolsets.allowed"));
    }
    QVERIFY(label->text().contains("without a person's approval is locked off"));
    // Saving keeps the locked values.
    QCOMPARE(dialog.preferences().toolsets, QStringList{"read"});
}

void TestPolicyLocks::userPolicyLocksNameTheFile()
{
    BrokerSettings settings;
    settings.policy =
        parsePolicy(R"({"approval": {"channel": "client"}})", "/home/u/.config/p.json").policy;
    SettingsDialog dialog(FabricConfig{}, settings, true, nullptr);
    auto *label = dialog.findChild<QLabel *>("policyLocksLabel");
    QVERIFY(label);
    QVERIFY(label->text().contains(
        "set by your policy file: approval.channel in /home/u/.config/p.json"));
    QVERIFY(!label->text().contains("administrator"));
    QVERIFY(!dialog.findChild<QComboBox *>("approvalCombo")->isEnabled());
}

void TestPolicyLocks::noPolicyNoLocks()
{
    SettingsDialog dialog(FabricConfig{}, BrokerSettings{}, true, nullptr);
    QVERIFY(!dialog.findChild<QLabel *>("policyLocksLabel"));
    QVERIFY(dialog.findChild<QComboBox *>("approvalCombo")->isEnabled());
    QVERIFY(dialog.endpointEdit()->isEnabled());
}

void TestPolicyLocks::approvalDialogShowsThePolicyLine()
{
    ManualClock clock;
    ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
    const Policy policy =
        parsePolicy(
            R"({"spend": {"max_monthly_recurring_per_day": {"amount": 1000, "currency": "USD"}}})",
            "p")
            .policy;
    const PolicyVerdict v = evaluateAtConfirm(policy, guitest::samplePrice(), {{150, "USD"}});
    ctx.proposal.context.insert("policy", v.toJson());
    ApprovalDialog dialog(ctx, &clock);
    QVERIFY2(dialog.priceLabel()->text().contains(
                 "Policy: within your daily limit: USD 150.00 of USD 1,000.00 used, this change "
                 "adds USD 300.00"),
             qPrintable(dialog.priceLabel()->text()));
    QVERIFY(!dialog.findChild<QLineEdit *>("typedConfirmationEdit"));
}

void TestPolicyLocks::typedConfirmationUnlocksApprove()
{
    ManualClock clock;
    ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
    ctx.proposal.requestSha256 = QString(52, u'a') + QStringLiteral("0123456789ab");
    const Policy policy = parsePolicy(R"({"approval": {"typed_confirmation_above_monthly":
        {"amount": 299.99, "currency": "USD"}}})",
                                      "p")
                              .policy;
    ctx.proposal.context.insert("price", guitest::samplePrice());
    const PolicyVerdict v = policyAtConfirm(policy, ctx.proposal, nullptr, clock.nowMs());
    QCOMPARE(v.verdict, QStringLiteral("require_desktop"));
    QCOMPARE(v.rule, QStringLiteral("approval.typed_confirmation_above_monthly"));
    ctx.proposal.context.insert("policy", v.toJson());
    ApprovalDialog dialog(ctx, &clock);
    dialog.setApproveDelayMs(0);
    dialog.open();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto *typed = dialog.findChild<QLineEdit *>("typedConfirmationEdit");
    QVERIFY(typed);
    QTest::qWait(50);
    QVERIFY(!dialog.approveButton()->isEnabled());
    const QString sha = ctx.proposal.requestSha256;
    QVERIFY(sha.size() == 64);
    typed->setText(QStringLiteral("56789a")); // off by one: still locked
    QVERIFY(!dialog.approveButton()->isEnabled());
    typed->setText(sha.right(6).toUpper());
    QTRY_VERIFY(dialog.approveButton()->isEnabled());
    typed->setText(QString());
    QVERIFY(!dialog.approveButton()->isEnabled());
    dialog.setAttribute(Qt::WA_DeleteOnClose, false);
}

QTEST_MAIN(TestPolicyLocks)
#include "tst_policylocks.moc"
