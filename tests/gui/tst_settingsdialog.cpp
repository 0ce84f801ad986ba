// SettingsDialog: saving another endpoint or other credentials warns about and voids the
// pending proposals (their tokens then say why); saving the same values, or saving in the
// sandbox (whose saved values do not apply to this session), voids nothing.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/Catalog.h"
#include "broker/ReadOperations.h"
#include "core/ProposalStore.h"
#include "gui/SettingsDialog.h"
#include "mcp/ToolRegistry.h"

#include <QBoxLayout>
#include <QCheckBox>
#include <QFile>
#include <QGroupBox>

#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace fb;

class TestSettingsDialog : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        fbtest::failOnWarnings();
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear(); // each test starts with nothing saved
    }

    void settingsWarnAndVoidPendingProposals()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        Proposal p = guitest::sampleContext(clock.nowMs()).proposal;
        const Proposal a = store.add(p).proposal;
        const Proposal b = store.add(p).proposal;
        QSignalSpy evicted(&store, &ProposalStore::proposalEvicted);

        FabricConfig current;
        current.endpoint = QUrl("https://api.equinix.com");
        current.clientId = "id-1";
        current.clientSecret = "secret-1";
        QPointer<SettingsDialog> dialog =
            new SettingsDialog(current, BrokerSettings{}, false, nullptr);
        dialog->setProposalStore(&store);
        QSignalSpy saved(dialog.data(), &SettingsDialog::saved);
        dialog->show();
        QVERIFY(!dialog->voidWarningLabel()->isVisible());

        dialog->endpointEdit()->setText("https://api.example.net");
        QVERIFY(dialog->voidWarningLabel()->isVisible());
        QVERIFY2(dialog->voidWarningLabel()->text().contains("voids the 2 pending"),
                 qPrintable(dialog->voidWarningLabel()->text()));
        dialog->endpointEdit()->setText("https://api.equinix.com/");
        QVERIFY(!dialog->voidWarningLabel()->isVisible());
        dialog->endpointEdit()->setText("https://api.example.net");

        dialog->save();
        QCOMPARE(saved.size(), 1);
        QCOMPARE(evicted.size(), 2);
        QCOMPARE(store.pendingCount(), 0);
        const ConsumeResult r = store.consume(a.token);
        QCOMPARE(r.outcome, ConsumeOutcome::Evicted);
        QVERIFY(r.proposal->evictedBecause.contains("endpoint or credentials were changed"));
        QCOMPARE(store.consume(b.token).checks.notEvicted, std::optional<bool>(false));
        delete dialog;
    }

    void everyToolsetIsListedWithItsCountAndWhatItReads()
    {
        BrokerSettings settings;
        settings.toolsets = {"read", "routing", "mutate"};
        SettingsDialog dialog(FabricConfig{}, settings, false, nullptr);
        const QStringList names = mcp::ToolRegistry::knownToolsets();
        for (const QString &name : names) {
            auto *check = dialog.findChild<QCheckBox *>(name + "ToolsetCheck");
            QVERIFY2(check, qPrintable(name));
            QCOMPARE(check->isChecked(), settings.toolsets.contains(name));
        }
        for (const readops::Toolset &set : readops::table().toolsets) {
            auto *check = dialog.findChild<QCheckBox *>(set.name + "ToolsetCheck");
            QCOMPARE(check->text(), QStringLiteral("%1 (%2 tools): %3")
                                        .arg(set.name)
                                        .arg(readToolCount(set.name))
                                        .arg(set.summary));
            QCOMPARE(check->accessibleDescription(), set.description);
        }
        // Saved as checked, in the toolsets' order.
        dialog.findChild<QCheckBox *>("accountToolsetCheck")->setChecked(true);
        dialog.findChild<QCheckBox *>("mutateToolsetCheck")->setChecked(false);
        QCOMPARE(dialog.preferences().toolsets, (QStringList{"read", "routing", "account"}));
    }

    void notificationsCheckShowsAndSavesTheSetting()
    {
        FabricConfig current;
        current.endpoint = QUrl("https://api.equinix.com");
        {
            SettingsDialog dialog(current, BrokerSettings{}, false, nullptr);
            QSignalSpy saved(&dialog, &SettingsDialog::saved);
            auto *check = dialog.findChild<QCheckBox *>("notificationsCheck");
            QVERIFY(check);
            QVERIFY(check->isChecked()); // on by default
            QVERIFY(!check->accessibleDescription().isEmpty());
            QVERIFY(dialog.preferences().notifications);
            check->setChecked(false);
            QVERIFY(!dialog.preferences().notifications);
            dialog.save();
            QCOMPARE(saved.size(), 1);
        }
        QVERIFY(!DesktopPreferences::load(QSettings()).notifications);
        SettingsDialog again(current, BrokerSettings{}, false, nullptr);
        QVERIFY(!again.findChild<QCheckBox *>("notificationsCheck")->isChecked());
    }

    void settingsSavedUnchangedVoidNothing()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        store.add(guitest::sampleContext(clock.nowMs()).proposal);
        FabricConfig current;
        current.endpoint = QUrl("https://api.equinix.com");
        QPointer<SettingsDialog> dialog =
            new SettingsDialog(current, BrokerSettings{}, false, nullptr);
        dialog->setProposalStore(&store);
        dialog->endpointEdit()->setText("https://api.equinix.com");
        dialog->save();
        QCOMPARE(store.pendingCount(), 1);

        // In the sandbox saved values do not apply to this session: nothing is voided.
        QPointer<SettingsDialog> sandboxDialog =
            new SettingsDialog(current, BrokerSettings{}, true, nullptr);
        sandboxDialog->setProposalStore(&store);
        sandboxDialog->endpointEdit()->setText("https://api.example.net");
        QVERIFY(!sandboxDialog->voidWarningLabel()->isVisible());
        sandboxDialog->save();
        QCOMPARE(store.pendingCount(), 1);
        delete dialog;
        delete sandboxDialog;
    }

    // Settings > Observability (docs/observability.md): one read-only row per export, as plain
    // text (a collector's error may quote anything), named for screen readers, replaced (not
    // added to) when shown again, after the team group. FB_SCREENSHOT_DIR: a PNG of the dialog.
    void observabilityRowsArePlainTextAndReplaced()
    {
        SettingsDialog dialog(FabricConfig{}, BrokerSettings{}, true, nullptr);
        const QList<QPair<QString, QString>> rows{
            {"OpenTelemetry", "traces to http://127.0.0.1:4318/v1/traces; <b>bold</b> &amp;"},
            {"Prometheus",
             "http://127.0.0.1:7431/metrics (GET /metrics with the HTTP bearer token)"},
            {"Audit records to syslog", "tls://siem.example.com:6514, connected; 41 records sent"},
        };
        dialog.showObservability(rows);
        auto *group = dialog.findChild<QGroupBox *>("observabilityGroup");
        QVERIFY(group);
        for (int i = 0; i < rows.size(); ++i) {
            auto *value = group->findChild<QLabel *>(QStringLiteral("observabilityValue%1").arg(i));
            QVERIFY(value);
            QCOMPARE(value->text(), rows.at(i).second);
            QCOMPARE(value->textFormat(), Qt::PlainText);
            QCOMPARE(value->accessibleName(), rows.at(i).first);
        }
        auto *layout = qobject_cast<QBoxLayout *>(dialog.layout());
        QVERIFY(layout);
        auto *team = dialog.findChild<QGroupBox *>("teamGroup");
        QVERIFY(team);
        QCOMPARE(layout->indexOf(group), layout->indexOf(team) + 1);
        if (const QByteArray dir = qgetenv("FB_SCREENSHOT_DIR"); !dir.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            QVERIFY(dialog.grab().save(QFile::decodeName(dir) + "/settings-observability.png"));
        }
        // Shown again: the rows are the new ones, no more.
        dialog.showObservability({{"OpenTelemetry", "off (set OTEL_EXPORTER_OTLP_ENDPOINT)"}});
        QCOMPARE(dialog.findChildren<QGroupBox *>("observabilityGroup").size(), 1);
        QVERIFY(group->findChild<QLabel *>("observabilityValue0"));
        QCOMPARE(group->findChild<QLabel *>("observabilityValue0")->text(),
                 "off (set OTEL_EXPORTER_OTLP_ENDPOINT)");
        QTRY_VERIFY(!group->findChild<QLabel *>("observabilityValue1"));
    }
};

QTEST_MAIN(TestSettingsDialog)
#include "tst_settingsdialog.moc"
