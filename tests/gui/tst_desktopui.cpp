// Settings of a running app apply without a restart: a connected MCP session (the real
// McpServer with the real broker and catalog tools) is told notifications/tools/list_changed and
// then lists the mutate tools when read,mutate is saved in the settings dialog; the approval
// channel switches at once. And the empty proposals table's hint: how to connect a client, and
// "Turn on proposals" while mutate is off. And the activity line when an agent gives up.
#include "../unit/mcp/TestPipe.h"
#include "TestEnvironment.h"
#include "broker/Catalog.h"
#include "broker/MutationBroker.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "gui/ConnectClientDialog.h"
#include "gui/DesktopUi.h"
#include "gui/MainWindow.h"
#include "gui/SettingsDialog.h"
#include "mcp/McpServer.h"
#include "mcp/ToolRegistry.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;
using fbtest::TestClient;

namespace {

// What ServerHost gives the embedded sandbox: a loopback address and placeholder credentials.
FabricConfig sandboxConfig()
{
    FabricConfig c;
    c.endpoint = QUrl(QStringLiteral("http://127.0.0.1:4799"));
    c.clientId = QStringLiteral("sandbox");
    c.clientSecret = QStringLiteral("sandbox");
    // sandbox stays false: the tests say "on the sandbox" through DesktopContext::sandbox.
    return c;
}

struct Host {
    ManualClock clock;
    ProposalStore store{&clock};
    FabricClient fabric{sandboxConfig()};
    mcp::ToolRegistry registry;
    MutationBroker broker{&store, &fabric, BrokerSettings{}, &clock};
    Catalog catalog{&fabric, &store, &clock};
    mcp::McpServer server{&registry, {}};
    Host()
    {
        catalog.registerTools(&registry);
        broker.registerTools(&registry);
        registry.setServedToolsets({QStringLiteral("read")});
    }
    DesktopContext context()
    {
        DesktopContext ctx;
        ctx.store = &store;
        ctx.broker = &broker;
        ctx.server = &server;
        ctx.fabric = &fabric;
        ctx.sandbox = true;
        ctx.executablePath = QStringLiteral("/usr/bin/fabric-broker");
        ctx.clock = &clock;
        return ctx;
    }
};

QStringList toolNames(TestClient &c, int id)
{
    c.send(QJsonObject{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/list"}});
    QJsonObject response;
    (void)QTest::qWaitFor(
        [&] {
            for (const QJsonValue &m : std::as_const(c.messages)) {
                if (m.toObject().value("id") == QJsonValue(id)) {
                    response = m.toObject();
                    return true;
                }
            }
            return false;
        },
        3000);
    QStringList names;
    for (const QJsonValue &t : response.value("result").toObject().value("tools").toArray())
        names << t.toObject().value("name").toString();
    return names;
}

int listChangedCount(const TestClient &c)
{
    int n = 0;
    for (const QJsonValue &m : c.messages)
        n += m.toObject().value("method").toString() == "notifications/tools/list_changed";
    return n;
}

SettingsDialog *openSettingsDialog()
{
    for (QWidget *w : QApplication::topLevelWidgets()) {
        if (auto *d = qobject_cast<SettingsDialog *>(w))
            return d;
    }
    return nullptr;
}

} // namespace

class TestDesktopUi : public QObject {
    Q_OBJECT
    QTemporaryDir m_config;

private slots:
    void init() { fbtest::failOnWarnings({QStringLiteral("keychain read failed: ")}); }

    void initTestCase()
    {
        qRegisterMetaType<FabricConfig>();
        QVERIFY(m_config.isValid());
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_config.filePath("config")));
        qputenv("XDG_CONFIG_DIRS", QFile::encodeName(m_config.filePath("etc")));
        QCoreApplication::setOrganizationName("fabric-broker-tests");
        QCoreApplication::setApplicationName("tst_desktopui");
    }

    // Team mode's fields (docs/team.md): only the administrator's policy turns team mode on
    // (issue #34), so the URI field is read-only, says so, and Save never writes team/database;
    // the role's password field hides its text.
    void teamDatabaseSetting()
    {
        QSettings().clear();
        Host host;
        DesktopUi ui(host.context());
        ui.showSettings();
        SettingsDialog *dialog = openSettingsDialog();
        QVERIFY(dialog);
        auto *uri = dialog->findChild<QLineEdit *>("teamDatabaseEdit");
        auto *password = dialog->findChild<QLineEdit *>("teamPasswordEdit");
        auto *note = dialog->findChild<QLabel *>("teamNote");
        QVERIFY(uri && password && note);
        QVERIFY(uri->isReadOnly());
        QVERIFY(uri->text().isEmpty());
        QVERIFY2(note->text().contains("administrator's policy"), qPrintable(note->text()));
        QCOMPARE(password->echoMode(), QLineEdit::Password);
        uri->setText("postgresql://agent@evil.example/team"); // what a script could still do
        dialog->findChild<QDialogButtonBox *>("buttonBox")->button(QDialogButtonBox::Save)->click();
        QTest::qWait(100);
        QVERIFY(!QSettings().contains("team/database"));
    }

    void savedToolsetsAndApprovalApplyToConnectedSessions()
    {
        Host host;
        TestClient client;
        host.server.serve({"stdio", &client.serverEnd, &client.serverEnd, false});
        client.send(QJsonObject{
            {"jsonrpc", "2.0"},
            {"id", 0},
            {"method", "initialize"},
            {"params", QJsonObject{{"protocolVersion", "2025-11-25"},
                                   {"capabilities", QJsonObject()},
                                   {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}}}});
        client.send(QJsonObject{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
        QVERIFY(!toolNames(client, 1).contains("fabric_propose_change"));

        DesktopUi ui(host.context());
        host.broker.setApprover(ui.approver()); // as the app does in the automatic mode
        QCOMPARE(host.broker.approver()->channel(), QString("desktop"));
        ui.showSettings();
        SettingsDialog *dialog = openSettingsDialog();
        QVERIFY(dialog);
        auto *mutate = dialog->findChild<QCheckBox *>("mutateToolsetCheck");
        auto *approval = dialog->findChild<QComboBox *>("approvalCombo");
        QVERIFY(mutate && approval);
        QVERIFY(!mutate->isChecked());
        mutate->setChecked(true);
        approval->setCurrentIndex(approval->findData("client"));
        dialog->findChild<QDialogButtonBox *>("buttonBox")->button(QDialogButtonBox::Save)->click();

        // The same session, without reconnecting.
        QTRY_COMPARE(listChangedCount(client), 1);
        const QStringList tools = toolNames(client, 2);
        QVERIFY2(tools.contains("fabric_propose_change"), qPrintable(tools.join(',')));
        QVERIFY(tools.contains("fabric_confirm_change"));
        QCOMPARE(host.registry.servedToolsets(), QStringList({"read", "mutate"}));
        QCOMPARE(host.broker.approver()->channel(), QString("client"));
        QCOMPARE(DesktopPreferences::load(QSettings()).toolsets, QStringList({"read", "mutate"}));
        QVERIFY(ui.mainWindow()->emptyHint()->isHidden() == false);
        QVERIFY(ui.mainWindow()->enableProposalsButton()->isHidden()); // mutate is on now
    }

    void httpEndpointSetting()
    {
        QSettings().clear();
        Host host;
        DesktopUi ui(host.context());
        ui.showSettings();
        SettingsDialog *dialog = openSettingsDialog();
        QVERIFY(dialog);
        auto *http = dialog->findChild<QCheckBox *>("httpCheck");
        QVERIFY(http);
        QVERIFY(!http->isChecked()); // off by default
        QVERIFY(http->text().contains("127.0.0.1:7431"));
        http->setChecked(true);
        dialog->findChild<QDialogButtonBox *>("buttonBox")->button(QDialogButtonBox::Save)->click();
        QTRY_COMPARE(DesktopPreferences::load(QSettings()).httpAddress, QString("127.0.0.1:7431"));
        // A saved address is kept; switching it off removes it.
        DesktopPreferences prefs = DesktopPreferences::load(QSettings());
        prefs.httpAddress = "[::1]:9000";
        QSettings settings;
        prefs.save(settings);
        QTRY_VERIFY(!openSettingsDialog()); // the first one is gone
        ui.showSettings();
        dialog = openSettingsDialog();
        QVERIFY(dialog);
        http = dialog->findChild<QCheckBox *>("httpCheck");
        QVERIFY(http->isChecked());
        QVERIFY(http->text().contains("[::1]:9000"));
        http->setChecked(false);
        dialog->findChild<QDialogButtonBox *>("buttonBox")->button(QDialogButtonBox::Save)->click();
        QTRY_VERIFY(DesktopPreferences::load(QSettings()).httpAddress.isEmpty());
    }

    void activityRecordsThatTheAgentGaveUp()
    {
        const QString line = MainWindow::formatActivity(
            fb::AuditEventType::Decision,
            QJsonObject{{"status", "call_cancelled"}, {"channel", "desktop"}}, 1767225600000);
        QVERIFY2(line.contains("the agent gave up waiting (call_cancelled via desktop); nothing "
                               "was sent"),
                 qPrintable(line));
    }

    void emptyProposalsTableSaysWhatToDo()
    {
        QSettings().clear();
        Host host;
        DesktopUi ui(host.context());
        MainWindow *w = ui.mainWindow();
        QVERIFY(!w->emptyHint()->isHidden());
        QVERIFY(w->proposalsView()->isHidden()); // the hint stands in for the empty table
        QVERIFY2(w->emptyHintLabel()->text().contains("Connect an MCP client"),
                 qPrintable(w->emptyHintLabel()->text()));
        QVERIFY(w->emptyHintLabel()->text().contains("Proposals are off"));
        QCOMPARE(w->emptyHintLabel()->textFormat(), Qt::PlainText);

        QSignalSpy connectAsked(w, &MainWindow::connectClientRequested);
        QTest::mouseClick(w->emptyConnectButton(), Qt::LeftButton);
        QCOMPARE(connectAsked.count(), 1);

        QSignalSpy changed(&host.registry, &mcp::ToolRegistry::toolsChanged);
        QVERIFY(!w->enableProposalsButton()->isHidden());
        QTest::mouseClick(w->enableProposalsButton(), Qt::LeftButton);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(host.registry.servedToolsets(), QStringList({"read", "mutate"}));
        QCOMPARE(DesktopPreferences::load(QSettings()).toolsets, QStringList({"read", "mutate"}));
        QVERIFY(w->enableProposalsButton()->isHidden());
        QVERIFY(!w->emptyHintLabel()->text().contains("Proposals are off"));
        for (QWidget *top : QApplication::topLevelWidgets()) // the Connect a client dialog
            top->close();
    }

    // Issue #40: credentials saved while the app runs on the sandbox are offered a switch to
    // the saved account now, in a non-modal box whose default is "Later" and whose text says
    // what switching drops. Not offered when the sandbox was asked for (--sandbox), when the
    // app serves its own stdio, when the saved credentials are incomplete, when the endpoint
    // is the sandbox's own, or off the sandbox.
    void sandboxSwitchOffer_data()
    {
        QTest::addColumn<bool>("sandbox");
        QTest::addColumn<bool>("forced");
        QTest::addColumn<bool>("ownStdio");
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<QString>("secret");
        QTest::addColumn<bool>("offered");
        const QString other = QStringLiteral("http://127.0.0.1:4711");
        const QString sandboxUrl = sandboxConfig().endpoint.toString();
        QTest::newRow("sandbox, credentials saved")
            << true << false << false << other << "s3" << true;
        QTest::newRow("--sandbox") << true << true << false << other << "s3" << false;
        QTest::newRow("own stdio") << true << false << true << other << "s3" << false;
        QTest::newRow("no secret") << true << false << false << other << "" << false;
        QTest::newRow("the sandbox's endpoint")
            << true << false << false << sandboxUrl << "s3" << false;
        QTest::newRow("not the sandbox") << false << false << false << other << "s3" << false;
    }

    void sandboxSwitchOffer()
    {
        QFETCH(bool, sandbox);
        QFETCH(bool, forced);
        QFETCH(bool, ownStdio);
        QFETCH(QString, endpoint);
        QFETCH(QString, secret);
        QFETCH(bool, offered);
        Host host;
        DesktopContext ctx = host.context();
        ctx.sandbox = sandbox;
        ctx.forcedSandbox = forced;
        ctx.ownStdio = ownStdio;
        DesktopUi ui(ctx);
        Proposal p;
        p.target = QStringLiteral("a sandbox proposal");
        host.store.add(p);
        FabricConfig saved;
        saved.endpoint = QUrl(endpoint);
        saved.clientId = QStringLiteral("saved-client");
        saved.clientSecret = secret;
        QSignalSpy switchSpy(&ui, &DesktopUi::switchFromSandboxRequested);
        QPointer<QMessageBox> box = ui.offerSandboxSwitch(saved);
        QCOMPARE(bool(box), offered);
        if (!offered) {
            QVERIFY(!ui.findChild<QMessageBox *>());
            return;
        }
        QVERIFY(!box->isModal() || box->windowModality() != Qt::ApplicationModal);
        QCOMPARE(box->textFormat(), Qt::PlainText);
        QVERIFY2(box->text().contains(QStringLiteral("1 pending proposal(s) are dropped")),
                 qPrintable(box->text()));
        QVERIFY(box->text().contains(QStringLiteral("0 open approval dialog(s) are denied")));
        QVERIFY(box->text().contains(QStringLiteral("relayed --stdio clients, HTTP sessions")));
        QVERIFY(box->text().contains(endpoint));
        QVERIFY(box->text().contains(QStringLiteral("saved-client")));
        QVERIFY(!box->text().contains(secret));
        QCOMPARE(box->defaultButton()->text(), QStringLiteral("Later (at the next start)"));
        // The count follows the store while the box is up.
        host.store.add(p);
        QVERIFY(box->text().contains(QStringLiteral("2 pending proposal(s) are dropped")));
        QAbstractButton *now = nullptr;
        for (QAbstractButton *b : box->buttons())
            if (b->text() == QStringLiteral("Switch to Equinix now"))
                now = b;
        QVERIFY(now);
        // Later changes nothing; only "Switch to Equinix now" asks for the switch.
        box->defaultButton()->click();
        QVERIFY(box->isHidden()); // deleted later (no event loop here: see init's keychain)
        QCOMPARE(switchSpy.count(), 0);
        QCOMPARE(host.store.pendingCount(), 2);
        box = ui.offerSandboxSwitch(saved);
        QVERIFY(box);
        for (QAbstractButton *b : box->buttons())
            if (b->text() == QStringLiteral("Switch to Equinix now"))
                b->click();
        QCOMPARE(switchSpy.count(), 1);
        // The request carries what the box named: the switch goes ahead only if the keychain and
        // the settings still hold exactly that at the press (DesktopInstance::switchFromSandbox).
        const auto shown = switchSpy.at(0).at(0).value<FabricConfig>();
        QCOMPARE(shown.endpoint, saved.endpoint);
        QCOMPARE(shown.clientId, saved.clientId);
        QCOMPARE(shown.clientSecret, saved.clientSecret);
    }

    // The client id comes from the keychain, which anyone with the person's session can write:
    // shown as plain text with its structure escaped, it cannot add a line to the offer.
    void sandboxSwitchOfferEscapesTheClientId()
    {
        Host host;
        DesktopContext ctx = host.context();
        ctx.sandbox = true;
        DesktopUi ui(ctx);
        FabricConfig saved;
        saved.endpoint = QUrl(QStringLiteral("https://api.equinix.com"));
        saved.clientId =
            QStringLiteral("x).\n- nothing is sent to Equinix; this only reloads the sandbox (");
        saved.clientId.replace(QStringLiteral("\\n"), QStringLiteral("\n"));
        saved.clientSecret = QStringLiteral("s");
        QPointer<QMessageBox> box = ui.offerSandboxSwitch(saved);
        QVERIFY(box);
        QVERIFY(saved.clientId.contains(QLatin1Char('\n')));
        const QStringList lines = box->text().split(QLatin1Char('\n'));
        for (const QString &line : lines)
            QVERIFY2(!line.startsWith(QStringLiteral("- nothing is sent")),
                     qPrintable(box->text()));
        box->close();
    }

    // On the sandbox, Settings is about the Equinix account: the endpoint field never holds the
    // sandbox's own loopback address (another port at every start) and the sandbox's placeholder
    // credentials are not offered as the account's; saving that address is refused.
    // Opened from the tray (no main window shown), a dialog has no parent: it must close with
    // the DesktopUi (the sandbox switch replaces it in process) rather than outlive the stores it
    // was given. And Settings opens once: a second press raises it, so two cannot save over
    // each other.
    void dialogsOpenedFromTheTrayCloseWithTheUi()
    {
        Host host;
        QPointer<SettingsDialog> settings;
        QPointer<ConnectClientDialog> connect;
        {
            DesktopUi ui(host.context());
            ui.showSettings();
            settings = openSettingsDialog();
            QVERIFY(settings);
            QVERIFY(!settings->parentWidget());
            ui.showSettings();
            int open = 0;
            for (QWidget *w : QApplication::topLevelWidgets())
                open += qobject_cast<SettingsDialog *>(w) != nullptr;
            QCOMPARE(open, 1);
            ui.showConnectClient();
            for (QWidget *w : QApplication::topLevelWidgets()) {
                if (auto *d = qobject_cast<ConnectClientDialog *>(w))
                    connect = d;
            }
            QVERIFY(connect);
            QVERIFY(!connect->parentWidget());
        }
        QVERIFY(!settings);
        QVERIFY(!connect);
    }

    void sandboxSettingsNeverSaveTheSandboxAddress()
    {
        QSettings().remove(QStringLiteral("fabric/endpoint"));
        FabricConfig sandbox;
        sandbox.endpoint = QUrl(QStringLiteral("http://127.0.0.1:45678"));
        sandbox.clientId = QStringLiteral("sandbox");
        sandbox.clientSecret = QStringLiteral("sandbox");
        sandbox.sandbox = true;
        auto *dialog = new SettingsDialog(sandbox, BrokerSettings{}, true, nullptr);
        QCOMPARE(dialog->endpointEdit()->text(), FabricConfig{}.endpoint.toString());
        QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("clientIdEdit"))->text(), QString());
        QSignalSpy saved(dialog, &SettingsDialog::saved);
        dialog->endpointEdit()->setText(QStringLiteral("http://127.0.0.1:45678/"));
        dialog->findChild<QLineEdit *>(QStringLiteral("clientIdEdit"))->setText("id");
        dialog->findChild<QLineEdit *>(QStringLiteral("clientSecretEdit"))->setText("secret");
        dialog->save();
        QCOMPARE(saved.count(), 0);
        QVERIFY(!QSettings().contains(QStringLiteral("fabric/endpoint")));
        delete dialog;
    }
};

QTEST_MAIN(TestDesktopUi)
#include "tst_desktopui.moc"
