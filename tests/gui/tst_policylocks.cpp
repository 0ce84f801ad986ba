// The operator policy in the GUI: the settings dialog shows locked settings disabled with
// "set by your administrator", and the approval dialog shows the policy line and asks for the
// last six characters of the request SHA-256 when the typed-confirmation rule applies.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/PolicyGate.h"
#include "core/Clock.h"
#include "core/Policy.h"
#include "gui/ApprovalDialog.h"
#include "gui/DesktopPreferences.h"
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
    void observabilityTargetsSavedAndLocked();
    void approvalDialogShowsThePolicyLine();
    void typedConfirmationUnlocksApprove();
};

// Settings > Observability: the two targets are saved (validated first: a malformed one is
// refused with the reason and nothing is written); the policy's value is shown in a disabled
// field named for who set it, and saving keeps the value saved before, not the policy's.
void TestPolicyLocks::observabilityTargetsSavedAndLocked()
{
    QSettings().clear();
    BrokerSettings settings;
    settings.toolsets = {"read"};
    {
        SettingsDialog dialog(FabricConfig{}, settings, false, nullptr);
        auto *otlp = dialog.findChild<QLineEdit *>("otlpEndpointEdit");
        auto *syslog = dialog.findChild<QLineEdit *>("auditSyslogEdit");
        QVERIFY(otlp && syslog && otlp->isEnabled() && syslog->isEnabled());
        QCOMPARE(otlp->accessibleName(), QStringLiteral("OpenTelemetry collector"));
        otlp->setText(" http://127.0.0.1:4318 ");
        syslog->setText("udp://127.0.0.1:514");
        dialog.save();
        auto *status = dialog.findChild<QLabel *>("statusLabel");
        QVERIFY(status);
        QVERIFY2(status->text().startsWith("Audit records to syslog: syslog target "
                                           "\"udp://127.0.0.1:514\": unsupported scheme"),
                 qPrintable(status->text()));
        QVERIFY(!QSettings().contains("audit/syslog"));
        QVERIFY(!QSettings().contains("observability/otlpEndpoint"));
        otlp->setText("ftp://collector");
        syslog->setText("tls://siem.example.com:6514");
        dialog.save();
        QVERIFY2(status->text().startsWith("OpenTelemetry collector: must be an http(s) URL"),
                 qPrintable(status->text()));
        otlp->setText(" http://127.0.0.1:4318 ");
        dialog.save();
        QCOMPARE(QSettings().value("observability/otlpEndpoint").toString(),
                 QStringLiteral("http://127.0.0.1:4318"));
        QCOMPARE(QSettings().value("audit/syslog").toString(),
                 QStringLiteral("tls://siem.example.com:6514"));
        const DesktopPreferences loaded = DesktopPreferences::load(QSettings());
        QCOMPARE(loaded.otlpEndpoint, QStringLiteral("http://127.0.0.1:4318"));
        QCOMPARE(loaded.auditSyslog, QStringLiteral("tls://siem.example.com:6514"));
    }
    const PolicyParseResult parsed =
        parsePolicy(R"({"audit": {"syslog": "tls://siem.corp.example:6514"},
                        "observability": {"otlp_endpoint": "https://otel.corp.example"}})",
                    "/etc/fabric-broker/policy.json");
    QVERIFY(parsed.ok());
    settings.policy = parsed.policy;
    SettingsDialog dialog(FabricConfig{}, settings, false, nullptr);
    auto *otlp = dialog.findChild<QLineEdit *>("otlpEndpointEdit");
    auto *syslog = dialog.findChild<QLineEdit *>("auditSyslogEdit");
    QVERIFY(otlp && syslog);
    QVERIFY(!otlp->isEnabled());
    QVERIFY(!syslog->isEnabled());
    QCOMPARE(syslog->text(), QStringLiteral("tls://siem.corp.example:6514"));
    QCOMPARE(otlp->text(), QStringLiteral("https://otel.corp.example"));
    QVERIFY2(syslog->toolTip().contains(
                 "set by your administrator: audit.syslog in /etc/fabric-broker/policy.json"),
             qPrintable(syslog->toolTip()));
    auto *label = dialog.findChild<QLabel *>("policyLocksLabel");
    QVERIFY(label && label->text().contains("Audit records to syslog: set by your administrator"));
    dialog.save();
    QCOMPARE(QSettings().value("audit/syslog").toString(),
             QStringLiteral("tls://siem.example.com:6514"));
    QCOMPARE(QSettings().value("observability/otlpEndpoint").toString(),
             QStringLiteral("http://127.0.0.1:4318"));
    QSettings().clear();
}

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
