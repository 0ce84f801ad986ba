// MainWindow and DesktopUi wiring.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/MutationBroker.h"
#include "fabric/FabricClient.h"
#include "gui/ApprovalDialog.h"
#include "gui/DesktopApprover.h"
#include "gui/DesktopUi.h"
#include "gui/MainWindow.h"
#include "gui/ProposalTableModel.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLoggingCategory>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <unistd.h>

using namespace fb;

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }
    void activityNeverShowsTokens()
    {
        const QString token = QStringLiteral("chg-0123456789abcdef0123456789abcdef");
        const QJsonObject record{
            {QStringLiteral("change_type"), QStringLiteral("connection_create")},
            {QStringLiteral("target"), QStringLiteral("EVPL_VC \"lab\"")},
            {QStringLiteral("request_sha256"), guitest::fakeSha('e')},
            {QStringLiteral("token_sha256"), guitest::fakeSha('f')},
            {QStringLiteral("confirm_token"), token},
            {QStringLiteral("client"), guitest::sampleClient().toJson()}};
        for (const fb::AuditEventType type : fb::allAuditEventTypes()) {
            const QString line = MainWindow::formatActivity(type, record, 1767225600000);
            QVERIFY(!line.isEmpty());
            QVERIFY2(!line.contains(token), qPrintable(line));
            QVERIFY2(!line.contains(guitest::fakeSha('f').left(12)), qPrintable(line));
        }
        const QString proposed =
            MainWindow::formatActivity(fb::AuditEventType::Proposed, record, 1767225600000);
        QVERIFY(proposed.contains(QStringLiteral("connection_create")));
        QVERIFY(proposed.contains(QStringLiteral("claude-code 2.1.4")));
        QVERIFY(proposed.contains(guitest::fakeSha('e').left(12)));
        const QString switched = MainWindow::formatActivity(
            fb::AuditEventType::EndpointSwitched,
            {{QStringLiteral("from"), QStringLiteral("http://127.0.0.1:4799")},
             {QStringLiteral("to"), QStringLiteral("https://api.equinix.com")},
             {QStringLiteral("outcome"), QStringLiteral("switching")}},
            1767225600000);
        QVERIFY2(switched.endsWith(QStringLiteral(
                     "switched from the sandbox to https://api.equinix.com: switching")),
                 qPrintable(switched));
    }

    void httpWarningBanner()
    {
        // ServerHost::httpWarning() in the window: plain text, named and described for a
        // screen reader, hidden when there is nothing to say.
        ManualClock clock;
        ProposalTableModel model(&clock);
        MainWindow window(&model, &clock);
        QLabel *banner = window.httpWarningBanner();
        QVERIFY(banner);
        QVERIFY(!banner->isVisibleTo(&window));
        const QString why = QStringLiteral("MCP over HTTP is off: cannot listen on "
                                           "127.0.0.1:7431: the address is already in use <b>");
        window.setHttpWarning(why);
        QVERIFY(banner->isVisibleTo(&window));
        QCOMPARE(banner->textFormat(), Qt::PlainText);
        QVERIFY(banner->text().startsWith(QStringLiteral("Warning: ") + why));
        QCOMPARE(banner->accessibleName(), QStringLiteral("Warning: MCP over HTTP is off"));
        QCOMPARE(banner->accessibleDescription(), banner->text());
        window.setHttpWarning(QString());
        QVERIFY(!banner->isVisibleTo(&window));
    }

    void clientsPanelAndSandbox()
    {
        ManualClock clock;
        ProposalTableModel model(&clock);
        MainWindow window(&model, &clock);
        window.setFabricEndpoint(QUrl(QStringLiteral("http://127.0.0.1:8443")), true);
        QVERIFY(window.windowTitle().contains(QStringLiteral("SANDBOX")));
        QVERIFY(window.sandboxBanner()->isVisibleTo(&window));
        // The window says which endpoint the app uses (issue #40: after a switch from the
        // sandbox, the person sees the account's endpoint).
        auto *endpoint = window.findChild<QLabel *>(QStringLiteral("endpointValue"));
        QVERIFY(endpoint);
        QCOMPARE(endpoint->text(), QStringLiteral("http://127.0.0.1:8443 (embedded SANDBOX)"));
        window.setFabricEndpoint(QUrl(QStringLiteral("https://api.equinix.com")), false);
        QVERIFY(!window.windowTitle().contains(QStringLiteral("SANDBOX")));
        QVERIFY(!window.sandboxBanner()->isVisibleTo(&window));
        QCOMPARE(endpoint->text(), QStringLiteral("https://api.equinix.com (production)"));

        mcp::ClientInfo c = guitest::sampleClient(7);
        c.name.clear();
        window.clientOpened(c);
        QCOMPARE(window.clientsTree()->topLevelItemCount(), 1);
        c = guitest::sampleClient(7);
        window.clientInitialized(c);
        QCOMPARE(window.clientsTree()->topLevelItemCount(), 1);
        QTreeWidgetItem *item = window.clientsTree()->topLevelItem(0);
        QCOMPARE(item->text(0), QStringLiteral("claude-code"));
        QCOMPARE(item->text(1), QStringLiteral("2.1.4"));
        QCOMPARE(item->text(2), QStringLiteral("2025-06-18"));
        QCOMPARE(item->text(3), QStringLiteral("socket"));
        QVERIFY(!item->text(4).isEmpty());
        window.clientClosed(c);
        QCOMPARE(window.clientsTree()->topLevelItemCount(), 0);
        QVERIFY(window.activityLog()->toPlainText().contains(QStringLiteral("client connected")));
        QCOMPARE(window.proposalsView()->model(), &model);
    }

    void desktopUiQuitDeniesOpenApprovals()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        FabricClient fabric(FabricConfig{});
        MutationBroker broker(&store, &fabric, BrokerSettings{}, &clock);
        DesktopContext ctx;
        ctx.store = &store;
        ctx.broker = &broker;
        ctx.fabric = &fabric;
        ctx.sandbox = true;
        ctx.executablePath = QStringLiteral("/usr/bin/fabric-broker");
        ctx.clock = &clock;
        DesktopUi ui(ctx);
        QCOMPARE(ui.approver()->channel(), QStringLiteral("desktop"));
        QVERIFY(ui.mainWindow()->windowTitle().contains(QStringLiteral("SANDBOX")));

        // Nothing pending: no question.
        int asked = 0;
        bool answer = false;
        ui.setQuitQuestion([&](int approvals, int pending) {
            ++asked;
            Q_UNUSED(pending);
            return approvals >= 0 && answer;
        });
        QVERIFY(ui.confirmQuit());
        QCOMPARE(asked, 0);

        // An audit event lands in the activity log.
        emit broker.auditEvent(fb::AuditEventType::Decision,
                               {{QStringLiteral("status"), QStringLiteral("declined")},
                                {QStringLiteral("channel"), QStringLiteral("desktop")}});
        QVERIFY(ui.mainWindow()->activityLog()->toPlainText().contains(
            QStringLiteral("decision: declined via desktop")));

        int calls = 0;
        HumanDecision last;
        ui.desktopApprover()->requestApprovalFor(
            nullptr, false, guitest::sampleContext(clock.nowMs()), [&](const HumanDecision &d) {
                ++calls;
                last = d;
            });
        QCOMPARE(ui.desktopApprover()->pendingCount(), 1);
        QVERIFY(ui.desktopApprover()->openDialogs().first()->sandboxBanner()->isVisible());
        QVERIFY(!ui.confirmQuit()); // "keep running"
        QCOMPARE(asked, 1);
        QCOMPARE(calls, 0);
        answer = true;
        QVERIFY(ui.confirmQuit());
        QCOMPARE(asked, 2);
        QCOMPARE(calls, 1);
        QCOMPARE(last.status, HumanStatus::Declined);
    }

    // Team mode in the window (docs/team.md): File > Team approvals opens the dialog, and a
    // plain-text banner says while the team database is unreachable. Without team mode neither.
    void desktopUiTeamModeMenuAndBanner()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        FabricClient fabric(FabricConfig{});
        MutationBroker broker(&store, &fabric, BrokerSettings{}, &clock);
        DesktopContext ctx;
        ctx.store = &store;
        ctx.broker = &broker;
        ctx.fabric = &fabric;
        ctx.sandbox = true;
        ctx.clock = &clock;
        {
            DesktopUi single(ctx);
            QVERIFY(!single.mainWindow()->teamApprovalsAction()->isVisible());
            QVERIFY(!single.mainWindow()->teamWarningBanner()->isVisibleTo(single.mainWindow()));
        }
        // Team mode is the administrator's alone (issue #34): an administrator-layer policy
        // file names the database (root-owned, in a folder only its owner can write).
        if (::getuid() != 0)
            QSKIP("an administrator policy file must be owned by root: run as root");
        QTemporaryDir adminDir;
        QVERIFY(adminDir.isValid());
        const QString adminFile = adminDir.filePath(QStringLiteral("admin-policy.json"));
        {
            QFile f(adminFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"team\": {\"database\": "
                    "\"postgresql://carol@/nodb?host=/nonexistent-fb-dir&port=1\"}}");
        }
        const QByteArray old = qgetenv("FABRIC_BROKER_EXTRA_ADMIN_POLICY");
        qputenv("FABRIC_BROKER_EXTRA_ADMIN_POLICY", QFile::encodeName(adminFile));
        // The unreachable database is logged, again on every retry (warnings fail these tests
        // otherwise): those categories are quiet here.
        QLoggingCategory::setFilterRules(QStringLiteral(
            "fabricbroker.team.*.warning=false\nfabricbroker.gui.team.warning=false"));
        {
            DesktopUi team(ctx);
            MainWindow *window = team.mainWindow();
            QVERIFY(window->teamApprovalsAction()->isVisible());
            QLabel *banner = window->teamWarningBanner();
            QTRY_VERIFY_WITH_TIMEOUT(banner->isVisibleTo(window), 10000);
            QCOMPARE(banner->textFormat(), Qt::PlainText);
            QVERIFY2(banner->text().contains(QStringLiteral("team database is unreachable")),
                     qPrintable(banner->text()));
            QVERIFY2(banner->text().contains(QStringLiteral("nonexistent-fb-dir")),
                     qPrintable(banner->text()));
            QCOMPARE(banner->accessibleName(),
                     QStringLiteral("Warning: the team database is unreachable"));
            window->teamApprovalsAction()->trigger();
            auto dialogShown = [] {
                const QWidgetList all = QApplication::topLevelWidgets();
                return std::any_of(all.cbegin(), all.cend(), [](QWidget *w) {
                    return w->isVisible() && QByteArrayView(w->metaObject()->className()) ==
                                                 QByteArrayView("fb::TeamApprovalsDialog");
                });
            };
            QTRY_VERIFY_WITH_TIMEOUT(dialogShown(), 5000);
        }
        QLoggingCategory::setFilterRules(QString());
        if (old.isNull())
            qunsetenv("FABRIC_BROKER_EXTRA_ADMIN_POLICY");
        else
            qputenv("FABRIC_BROKER_EXTRA_ADMIN_POLICY", old);
    }

    // The quit question names creates in flight and says how long quitting waits for them;
    // it no longer claims that nothing is created.
    void quitQuestionNamesCreatesInFlight()
    {
        const QStringList none = DesktopUi::quitQuestionText(1, 2, {}, 10);
        QVERIFY2(none.at(0).contains(QStringLiteral("1 approval")), qPrintable(none.at(0)));
        QVERIFY2(none.at(0).contains(QStringLiteral("2 proposal")), qPrintable(none.at(0)));
        QVERIFY(!none.join(u' ').contains(QStringLiteral("in flight")));
        QVERIFY(!none.join(u' ').contains(QStringLiteral("nothing is created")));

        const QStringList creates = DesktopUi::quitQuestionText(
            0, 0, {QStringLiteral("conn-a SV->AWS"), QStringLiteral("net-b")}, 10);
        QVERIFY2(creates.at(0).contains(QStringLiteral("2 create(s) are in flight to Fabric")),
                 qPrintable(creates.at(0)));
        QVERIFY(creates.at(0).contains(QStringLiteral("conn-a SV->AWS")));
        QVERIFY(creates.at(0).contains(QStringLiteral("net-b")));
        QVERIFY(!creates.at(0).contains(QStringLiteral("approval")));
        QVERIFY2(creates.at(1).contains(QStringLiteral("10 second")), qPrintable(creates.at(1)));
        QVERIFY(creates.at(1).contains(QStringLiteral("unknown outcome")));

        QStringList many;
        for (int i = 0; i < 6; ++i)
            many << QStringLiteral("conn-%1").arg(i);
        const QString text = DesktopUi::quitQuestionText(0, 0, many, 10).at(0);
        QVERIFY(text.contains(QStringLiteral("conn-2")));
        QVERIFY(!text.contains(QStringLiteral("conn-3")));
        QVERIFY2(text.contains(QStringLiteral("3 more")), qPrintable(text));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
