// The desktop app for assistive technology and the keyboard: every interactive control of the
// main window, Settings, Connect a client, the audit view and the approval dialog has an
// accessible name and description (walked through QAccessible, as the AT-SPI bridge reads
// it; tests/e2e/desktop-a11y.test.mjs walks the real AT-SPI tree); a new approval raises an
// alert; the approval works with the keyboard alone (focus on Deny, Tab order, Escape never
// approves). And Settings: its help texts are not clipped, and a missing keychain says what is
// missing.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/PolicyGate.h"
#include "core/Policy.h"
#include "gui/ApprovalDialog.h"
#include "gui/AuditViewDialog.h"
#include "gui/ConnectClientDialog.h"
#include "gui/MainWindow.h"
#include "gui/ProposalTableModel.h"
#include "gui/SettingsDialog.h"
#include "keychain/CredentialStore.h"

#include <QAccessible>
#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <qt6keychain/keychain.h>

using namespace fb;

namespace {

// The roles a person operates (the AT-SPI test's list, in QAccessible terms).
bool interactive(QAccessible::Role role)
{
    switch (role) {
    case QAccessible::PushButton:
    case QAccessible::CheckBox:
    case QAccessible::RadioButton:
    case QAccessible::ComboBox:
    case QAccessible::EditableText:
    case QAccessible::SpinBox:
    case QAccessible::Table:
    case QAccessible::Tree:
    case QAccessible::List:
    case QAccessible::PageTab:
    case QAccessible::PageTabList:
    case QAccessible::Slider:
    case QAccessible::ButtonMenu:
    case QAccessible::ButtonDropDown:
        return true;
    default:
        return false;
    }
}

// "role 'name'" of every interactive control under root without a name or a description.
QStringList unlabelled(QAccessibleInterface *root, int depth = 0)
{
    QStringList out;
    if (!root || depth > 40)
        return out;
    for (int i = 0; i < root->childCount(); ++i) {
        QAccessibleInterface *child = root->child(i);
        if (!child)
            continue;
        if (interactive(child->role()) && !child->state().invisible &&
            (child->text(QAccessible::Name).trimmed().isEmpty() ||
             child->text(QAccessible::Description).trimmed().isEmpty()))
            out << QStringLiteral("%1 '%2' (%3)")
                       .arg(QString::fromLatin1(qAccessibleRoleString(child->role())),
                            child->text(QAccessible::Name),
                            child->object() ? child->object()->objectName() : QString());
        if (child->role() != QAccessible::Table && child->role() != QAccessible::Tree)
            out += unlabelled(child, depth + 1);
    }
    return out;
}

QStringList unlabelled(QWidget *window)
{
    return unlabelled(QAccessible::queryAccessibleInterface(window));
}

using SeenEvent = std::pair<QObject *, QAccessible::Event>;
QList<SeenEvent> *g_events = nullptr;
void recordEvent(QAccessibleEvent *event)
{
    if (g_events)
        g_events->append({event->object(), event->type()});
}

} // namespace

class TestAccessibility : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // No D-Bus session at all: QtKeychain finds no keychain, as on a bare desktop. (Not in
        // the AT-SPI run, whose bridge needs the session.)
        if (qEnvironmentVariableIsEmpty("QT_LINUX_ACCESSIBILITY_ALWAYS_ON"))
            qputenv("DBUS_SESSION_BUS_ADDRESS",
                    QFile::encodeName(QStringLiteral("unix:path=%1/no-bus").arg(m_dir.path())));
    }
    void init()
    {
        // QtKeychain and the store warn when no keychain answers: expected in that test only.
        if (qstrcmp(QTest::currentTestFunction(), "missingKeychainSaysWhatIsMissing") != 0)
            fbtest::failOnWarnings();
    }

    void mainWindowControlsAreNamed()
    {
        ManualClock clock;
        ProposalTableModel model(&clock);
        MainWindow window(&model, &clock);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QStringList missing = unlabelled(&window);
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u", ")));
    }

    void settingsControlsAreNamed()
    {
        SettingsDialog dialog(FabricConfig{}, BrokerSettings{}, false, nullptr);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const QStringList missing = unlabelled(&dialog);
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u", ")));
    }

    void connectClientControlsAreNamed()
    {
        ConnectClientDialog dialog(QStringLiteral("/usr/bin/fabric-broker"));
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const QStringList missing = unlabelled(&dialog);
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u", ")));
    }

    void auditViewControlsAreNamed()
    {
        AuditViewDialog dialog(m_dir.filePath(QStringLiteral("audit.jsonl")));
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const QStringList missing = unlabelled(&dialog);
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u", ")));
    }

    void approvalControlsAreNamed()
    {
        ManualClock clock;
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ctx.proposal.context.insert("policy", typedConfirmationVerdict(ctx, clock));
        ApprovalDialog dialog(ctx, &clock);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.open();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(dialog.findChild<QLineEdit *>("typedConfirmationEdit"));
        const QStringList missing = unlabelled(&dialog);
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u", ")));
    }

    void newApprovalIsAnnounced()
    {
        // The alert is sent only while assistive technology listens: ctest runs this function
        // once more under Xvfb, in a D-Bus session, with the AT-SPI bridge forced on
        // (tst_gui_accessibility_atspi in tests/gui/CMakeLists.txt).
        if (qEnvironmentVariableIsEmpty("QT_LINUX_ACCESSIBILITY_ALWAYS_ON"))
            QSKIP("needs the AT-SPI bridge: see tst_gui_accessibility_atspi");
        QTRY_VERIFY_WITH_TIMEOUT(QAccessible::isActive(), 10000);
        QList<SeenEvent> events;
        g_events = &events;
        const auto previous = QAccessible::installUpdateHandler(recordEvent);
        ManualClock clock;
        ApprovalDialog dialog(guitest::sampleContext(clock.nowMs()), &clock);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.open();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QAccessible::installUpdateHandler(previous);
        g_events = nullptr;
        int alerts = 0;
        for (const auto &[object, type] : std::as_const(events))
            alerts += type == QAccessible::Alert && object == &dialog;
        QCOMPARE(alerts, 1);
    }

    void approvalByKeyboardAlone()
    {
        ManualClock clock;
        const ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        {
            // Escape closes without approving (dismissed: nothing is created).
            ApprovalDialog dialog(ctx, &clock);
            dialog.setAttribute(Qt::WA_DeleteOnClose, false);
            dialog.setApproveDelayMs(0);
            QSignalSpy approved(&dialog, &ApprovalDialog::approveChosen);
            QSignalSpy dismissed(&dialog, &ApprovalDialog::dismissed);
            showActive(dialog);
            QCOMPARE(QApplication::focusWidget(), dialog.denyButton());
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
            QCOMPARE(dismissed.count(), 1);
            QCOMPARE(approved.count(), 0);
        }
        {
            // Return on the focused default button denies.
            ApprovalDialog dialog(ctx, &clock);
            dialog.setAttribute(Qt::WA_DeleteOnClose, false);
            dialog.setApproveDelayMs(0);
            QSignalSpy denied(&dialog, &ApprovalDialog::denyChosen);
            showActive(dialog);
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
            QCOMPARE(denied.count(), 1);
        }
        {
            // Alt+D (the mnemonic) denies too; a mnemonic animates the click, so it lands later.
            ApprovalDialog dialog(ctx, &clock);
            dialog.setAttribute(Qt::WA_DeleteOnClose, false);
            dialog.setApproveDelayMs(0);
            QSignalSpy denied(&dialog, &ApprovalDialog::denyChosen);
            showActive(dialog);
            QTest::keyClick(dialog.windowHandle(), Qt::Key_D, Qt::AltModifier);
            QTRY_COMPARE(denied.count(), 1);
        }
        {
            // Tab reaches the approve button, Space approves.
            ApprovalDialog dialog(ctx, &clock);
            dialog.setAttribute(Qt::WA_DeleteOnClose, false);
            dialog.setApproveDelayMs(0);
            QSignalSpy approved(&dialog, &ApprovalDialog::approveChosen);
            showActive(dialog);
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            QCOMPARE(QApplication::focusWidget(), dialog.approveButton());
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
            QCOMPARE(approved.count(), 1);
        }
    }

    void typedConfirmationByKeyboard()
    {
        ManualClock clock;
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ctx.proposal.context.insert("policy", typedConfirmationVerdict(ctx, clock));
        ApprovalDialog dialog(ctx, &clock);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.setApproveDelayMs(0);
        QSignalSpy approved(&dialog, &ApprovalDialog::approveChosen);
        showActive(dialog);
        // Deny, then the typed confirmation, then the approve button.
        QCOMPARE(QApplication::focusWidget(), dialog.denyButton());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        auto *typed = dialog.findChild<QLineEdit *>("typedConfirmationEdit");
        QCOMPARE(QApplication::focusWidget(), typed);
        QTest::keyClicks(typed, ctx.proposal.requestSha256.right(6));
        QTRY_VERIFY(dialog.approveButton()->isEnabled());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), dialog.approveButton());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QCOMPARE(approved.count(), 1);
    }

    void settingsHelpTextsAreNotClipped_data()
    {
        QTest::addColumn<bool>("sandbox");
        QTest::newRow("sandbox") << true;
        QTest::newRow("production") << false;
    }
    void settingsHelpTextsAreNotClipped()
    {
        QFETCH(bool, sandbox);
        SettingsDialog dialog(FabricConfig{}, BrokerSettings{}, sandbox, nullptr);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.show(); // the default size: what the person sees first
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto *note = dialog.findChild<QLabel *>(QStringLiteral("brokerNote"));
        QVERIFY(note && note->isVisible());
        QTRY_VERIFY2(clippedLabels(dialog).isEmpty(),
                     qPrintable(clippedLabels(dialog).join(u", ")));
        if (const QByteArray shot = qgetenv("FB_SETTINGS_SCREENSHOT"); !shot.isEmpty())
            dialog.grab().save(QFile::decodeName(shot) + (sandbox ? "-sandbox.png" : ".png"));

        // A long text that arrives later (a keychain error) still fits.
        auto *credentials = dialog.findChild<QLabel *>(QStringLiteral("credentialsNote"));
        QVERIFY(credentials);
        credentials->setText(keychain::CredentialStore::failureText(
            QKeychain::NoBackendAvailable, QStringLiteral("Unknown error")));
        QTRY_VERIFY2(clippedLabels(dialog).isEmpty(),
                     qPrintable(clippedLabels(dialog).join(u", ")));
        if (const QByteArray shot = qgetenv("FB_SETTINGS_SCREENSHOT"); !shot.isEmpty())
            dialog.grab().save(QFile::decodeName(shot) +
                               (sandbox ? "-sandbox-keychain.png" : "-keychain.png"));
    }

    void missingKeychainSaysWhatIsMissing()
    {
        const QString text = keychain::CredentialStore::failureText(
            QKeychain::NoBackendAvailable, QStringLiteral("Unknown error"));
        for (const char *word : {"Secret Service", "GNOME Keyring", "KeePassXC", "KWallet",
                                 "EQUINIX_API_CLIENTID", "EQUINIX_API_CLIENTSECRET"})
            QVERIFY2(text.contains(QLatin1String(word)), qPrintable(text));

        // The real thing: no D-Bus session (initTestCase), the settings dialog reads the keychain.
        keychain::CredentialStore store(
            QStringLiteral("fabric-broker-test-%1").arg(QCoreApplication::applicationPid()));
        SettingsDialog dialog(FabricConfig{}, BrokerSettings{}, false, &store);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        auto *note = dialog.findChild<QLabel *>(QStringLiteral("credentialsNote"));
        QVERIFY(note);
        QTRY_VERIFY_WITH_TIMEOUT(note->text().startsWith(QStringLiteral("Keychain unavailable")),
                                 10000);
        for (const char *word : {"GNOME Keyring", "KWallet", "EQUINIX_API_CLIENTID"})
            QVERIFY2(note->text().contains(QLatin1String(word)), qPrintable(note->text()));
    }

private:
    // Visible word-wrapped labels shorter than their text needs at their width.
    static QStringList clippedLabels(QWidget &window)
    {
        QStringList out;
        int checked = 0;
        for (QLabel *label : window.findChildren<QLabel *>()) {
            if (!label->isVisible() || !label->wordWrap() || label->text().isEmpty())
                continue;
            ++checked;
            const int needed = label->heightForWidth(label->width());
            if (needed > label->height())
                out << QStringLiteral("%1 needs %2 px at width %3, has %4")
                           .arg(label->objectName())
                           .arg(needed)
                           .arg(label->width())
                           .arg(label->height());
        }
        if (checked < 2)
            out << QStringLiteral("only %1 word-wrapped labels found").arg(checked);
        return out;
    }

    static void showActive(QWidget &w)
    {
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QApplication::setActiveWindow(&w);
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QApplication::processEvents();
    }

    static QJsonObject typedConfirmationVerdict(ApprovalContext &ctx, ManualClock &clock)
    {
        const Policy policy = parsePolicy(R"({"approval": {"typed_confirmation_above_monthly":
            {"amount": 1, "currency": "USD"}}})",
                                          "p")
                                  .policy;
        ctx.proposal.context.insert("price", guitest::samplePrice());
        return policyAtConfirm(policy, ctx.proposal, nullptr, clock.nowMs()).toJson();
    }

    QTemporaryDir m_dir;
};

QTEST_MAIN(TestAccessibility)
#include "tst_accessibility.moc"
