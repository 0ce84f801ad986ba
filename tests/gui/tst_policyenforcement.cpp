// An operator policy holds in the running app (#22): for each reason the policy forbids the
// mutate toolset (toolsets.allowed, a policy file that cannot be applied, fabric.endpoint), in
// the user's file and (as root) in an administrator-layer file, the real widgets are driven:
// "Turn on proposals" is not offered (and its slot, if reached, changes nothing), the hint and
// "Served toolsets" say which rule and who set it, the settings dialog's mutate box is disabled
// with the same words, a saved read,mutate is shown as overridden, Save does not serve mutate,
// and a connected MCP session lists no mutate tool; after each of those steps a real
// `fabric-broker --stdio` process (the binary MCP clients spawn, with a client's short
// environment) relays to this app's socket and lists tools: no mutate tool is served there
// either. approval.channel locks the channel box and wins over a saved channel.
#include "../unit/mcp/TestPipe.h"
#include "TestEnvironment.h"
#include "app/FastRelayServe.h"
#include "broker/Catalog.h"
#include "broker/MutationBroker.h"
#include "broker/PolicyApply.h"
#include "broker/RelayHello.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "gui/DesktopPreferences.h"
#include "gui/DesktopUi.h"
#include "gui/MainWindow.h"
#include "gui/SettingsDialog.h"
#include "mcp/McpServer.h"
#include "mcp/ToolRegistry.h"
#include "transport/socket/FastRelayConnection.h"
#include "transport/socket/LocalSocketServer.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QJsonDocument>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

#ifndef FB_BROKER_BIN
#define FB_BROKER_BIN "" // no app target in this build: the relayed checks fail, saying so
#endif

using namespace fb;
using fbtest::TestClient;

namespace {

struct Host {
    ManualClock clock;
    ProposalStore store{&clock};
    FabricClient fabric{FabricConfig{}}; // https://api.equinix.com
    mcp::ToolRegistry registry;
    MutationBroker broker{&store, &fabric, BrokerSettings{}, &clock};
    Catalog catalog{&fabric, &store, &clock};
    mcp::McpServer server{&registry, {}};
    Host()
    {
        catalog.registerTools(&registry);
        broker.registerTools(&registry);
    }
    DesktopContext context()
    {
        DesktopContext ctx;
        ctx.store = &store;
        ctx.broker = &broker;
        ctx.server = &server;
        ctx.fabric = &fabric;
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

void initialize(TestClient &client)
{
    client.send(QJsonObject{
        {"jsonrpc", "2.0"},
        {"id", 0},
        {"method", "initialize"},
        {"params", QJsonObject{{"protocolVersion", "2025-11-25"},
                               {"capabilities", QJsonObject()},
                               {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}}}});
    client.send(QJsonObject{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
}

SettingsDialog *openSettingsDialog()
{
    for (QWidget *w : QApplication::topLevelWidgets()) {
        if (auto *d = qobject_cast<SettingsDialog *>(w); d && d->isVisible())
            return d;
    }
    return nullptr;
}

// The app's per-user socket, with the relay hello decided as ServerHost decides it (against what
// the app serves at that moment).
struct AppSocket {
    transport::LocalSocketServer server;
    QString path;
    AppSocket(Host &host, LiveSettings *live, const QString &dir)
        : server(&host.server)
        , path(dir + QStringLiteral("/fabric-broker.sock"))
    {
        const auto decide = [&host, live](const RelayRequest &request) {
            RelayInstanceFacts facts;
            facts.toolsets = host.registry.servedToolsets();
            facts.endpoint = normalizedEndpoint(host.fabric.config().endpoint.toString());
            facts.credentialsFingerprint = credentialsFingerprint(host.fabric.config());
            facts.approvalChannel = host.broker.approver()->channel();
            facts.settings = live->settings();
            facts.policyFiles = live->policyDigests();
            facts.pid = QCoreApplication::applicationPid();
            return decideRelayedSession(request, facts);
        };
        host.server.setRelayHelloHandler(
            [decide](const QJsonObject &hello) { return decide(RelayRequest::fromJson(hello)); });
        // The launcher's fd-passing relay, served as the app serves it.
        server.setRelayHandler(
            [&host, socketPath = path, decide](transport::FastRelayConnection *relay) {
                serveFastRelay(relay, &host.server, socketPath, decide);
            });
        QString error;
        if (!server.listen(path, &error))
            qFatal("listen %s: %s", qPrintable(path), qPrintable(error));
    }
};

// Spawns the real `fabric-broker --stdio` as an MCP client does (PATH and HOME only), relayed
// to socket; initializes, lists tools, and ends its input. The event loop keeps running while it
// waits (the app under test answers in this process).
QStringList relayedToolNames(const QString &socket, const QString &home)
{
    QProcess relay;
    QProcessEnvironment env;
    env.insert("PATH", qEnvironmentVariable("PATH"));
    env.insert("HOME", home);
    relay.setProcessEnvironment(env);
    relay.start(QStringLiteral(FB_BROKER_BIN), {"--stdio", "--socket", socket});
    if (!relay.waitForStarted(10000))
        return {"not started: " + relay.errorString()};
    auto line = [](const QJsonObject &o) -> QByteArray {
        QByteArray bytes = QJsonDocument(o).toJson(QJsonDocument::Compact);
        bytes.append('\n');
        return bytes;
    };
    relay.write(line(QJsonObject{
        {"jsonrpc", "2.0"},
        {"id", 0},
        {"method", "initialize"},
        {"params",
         QJsonObject{{"protocolVersion", "2025-11-25"},
                     {"capabilities", QJsonObject()},
                     {"clientInfo", QJsonObject{{"name", "relayed"}, {"version", "1"}}}}}}));
    relay.write(line(QJsonObject{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
    relay.write(line(QJsonObject{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}));
    QByteArray out;
    QJsonObject response;
    const bool answered = QTest::qWaitFor(
        [&] {
            out += relay.readAllStandardOutput();
            for (const QByteArray &l : out.split('\n')) {
                const QJsonObject m = QJsonDocument::fromJson(l).object();
                if (m.value("id") == QJsonValue(1)) {
                    response = m;
                    return true;
                }
            }
            return relay.state() == QProcess::NotRunning;
        },
        20000);
    relay.closeWriteChannel();
    (void)QTest::qWaitFor([&] { return relay.state() == QProcess::NotRunning; }, 10000);
    if (relay.state() != QProcess::NotRunning)
        relay.kill();
    if (!answered || response.isEmpty())
        return {"no tools/list answer: " + QString::fromUtf8(out) +
                QString::fromUtf8(relay.readAllStandardError())};
    QStringList names;
    for (const QJsonValue &t : response.value("result").toObject().value("tools").toArray())
        names << t.toObject().value("name").toString();
    if (names.isEmpty())
        names << "error: " + QString::fromUtf8(QJsonDocument(response).toJson());
    return names;
}

#define VERIFY_NO_MUTATE_RELAYED(socket, home)                                                     \
    do {                                                                                           \
        const QStringList relayed = relayedToolNames(socket, home);                                \
        QVERIFY2(relayed.contains("fabric_list_proposals") ||                                      \
                     relayed.contains("fabric_search_connections"),                                \
                 qPrintable(relayed.join(',')));                                                   \
        QVERIFY2(!relayed.contains("fabric_propose_change"), qPrintable(relayed.join(',')));       \
        QVERIFY2(!relayed.contains("fabric_confirm_change"), qPrintable(relayed.join(',')));       \
    } while (false)

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

} // namespace

class TestPolicyEnforcement : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void init()
    {
        fbtest::failOnWarnings(
            {QStringLiteral("keychain read failed: "), QStringLiteral("Fabric binding changed: ")});
    }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(::chmod(QFile::encodeName(m_dir.path()).constData(), 0755) == 0);
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath("config")));
        qputenv("XDG_CONFIG_DIRS", QFile::encodeName(m_dir.filePath("etc")));
        qunsetenv("EQUINIX_MCP_TOOLSETS");
        qunsetenv("EQUINIX_MCP_APPROVAL");
        QCoreApplication::setOrganizationName("fabric-broker-tests");
        QCoreApplication::setApplicationName("tst_policyenforcement");
    }
    void cleanup()
    {
        qunsetenv("FABRIC_BROKER_POLICY");
        qunsetenv("FABRIC_BROKER_EXTRA_ADMIN_POLICY");
        for (QWidget *top : QApplication::topLevelWidgets())
            top->close();
    }

    void mutateLockedEverywhere_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<bool>("admin");
        QTest::addColumn<QString>("words");
        const QList<std::tuple<const char *, QByteArray, QString>> reasons{
            {"toolsets.allowed", R"({"toolsets": {"allowed": ["read"]}})",
             "toolsets.allowed in %1"},
            {"broken file", R"({"toolsets": {"allowed": ["read"]})", "%1 cannot be applied"},
            {"fabric.endpoint", R"({"fabric": {"endpoint": "https://other.example"}})",
             "fabric.endpoint in %1"},
        };
        for (const auto &[name, file, words] : reasons) {
            QTest::addRow("user file: %s", name)
                << file << false << QStringLiteral("set by your policy file: ") + words;
            QTest::addRow("administrator file: %s", name)
                << file << true << QStringLiteral("set by your administrator: ") + words;
        }
    }

    void mutateLockedEverywhere()
    {
        QFETCH(QByteArray, file);
        QFETCH(bool, admin);
        QFETCH(QString, words);
        if (admin && ::geteuid() != 0)
            QSKIP("an administrator-layer file must be owned by root");
        const QString path = m_dir.filePath(admin ? "admin-policy.json" : "user-policy.json");
        writeFile(path, file);
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
        qputenv(admin ? "FABRIC_BROKER_EXTRA_ADMIN_POLICY" : "FABRIC_BROKER_POLICY",
                QFile::encodeName(path));
        const QString lock = words.arg(path);
        // What any process of this user could have written: read,mutate saved.
        QSettings().clear();
        {
            QSettings settings;
            DesktopPreferences prefs;
            prefs.toolsets = {"read", "mutate"};
            prefs.save(settings);
        }

        Host host;
        TestClient client;
        host.server.serve({"stdio", &client.serverEnd, &client.serverEnd, false});
        initialize(client);
        DesktopUi ui(host.context());
        MainWindow *w = ui.mainWindow();
        QCOMPARE(host.registry.servedToolsets(), QStringList{"read"}); // the saved value lost
        QTemporaryDir socketDir;
        QVERIFY(socketDir.isValid());
        QVERIFY(QDir(socketDir.path()).mkdir("home"));
        const QString home = socketDir.filePath("home");
        AppSocket socket(host, ui.liveSettings(), socketDir.path());
        VERIFY_NO_MUTATE_RELAYED(socket.path, home);
        QVERIFY(ui.liveSettings()->current().mutateLock);
        QVERIFY2(ui.liveSettings()->current().mutateLock->text().contains(lock),
                 qPrintable(ui.liveSettings()->current().mutateLock->text()));

        // The main window: not offered, and says who locked it.
        QVERIFY(w->enableProposalsButton()->isHidden());
        QVERIFY2(w->emptyHintLabel()->text().contains(lock),
                 qPrintable(w->emptyHintLabel()->text()));
        auto *served = w->findChild<QLabel *>("toolsetsValue");
        QVERIFY(served);
        QVERIFY2(served->text().contains(lock), qPrintable(served->text()));
        // A click that still reaches the slot changes nothing.
        ui.enableProposals();
        QCOMPARE(host.registry.servedToolsets(), QStringList{"read"});
        QVERIFY(w->enableProposalsButton()->isHidden());
        VERIFY_NO_MUTATE_RELAYED(socket.path, home);

        // The settings dialog: the mutate box is disabled with the same words, the saved
        // value is shown as overridden, and Save (even with the box forced on) serves read.
        ui.showSettings();
        SettingsDialog *dialog = openSettingsDialog();
        QVERIFY(dialog);
        auto *mutate = dialog->findChild<QCheckBox *>("mutateToolsetCheck");
        QVERIFY(mutate);
        QVERIFY(!mutate->isEnabled());
        QVERIFY(!mutate->isChecked());
        QVERIFY2(mutate->toolTip().contains(lock), qPrintable(mutate->toolTip()));
        auto *label = dialog->findChild<QLabel *>("policyLocksLabel");
        QVERIFY(label);
        QCOMPARE(label->textFormat(), Qt::PlainText);
        QVERIFY2(label->text().contains("Overridden: the saved toolsets (read,mutate)"),
                 qPrintable(label->text()));
        // A disabled box set anyway. Not with fabric.endpoint: the dialog shows (and saves) the
        // locked endpoint, under which the policy does allow mutate.
        if (!lock.contains("fabric.endpoint"))
            mutate->setChecked(true);
        dialog->findChild<QDialogButtonBox *>("buttonBox")->button(QDialogButtonBox::Save)->click();
        QTRY_VERIFY(!openSettingsDialog());
        QCOMPARE(host.registry.servedToolsets(), QStringList{"read"});
        VERIFY_NO_MUTATE_RELAYED(socket.path, home);

        const QStringList tools = toolNames(client, 1);
        QVERIFY(!tools.isEmpty()); // the read tools
        QVERIFY2(!tools.contains("fabric_propose_change"), qPrintable(tools.join(',')));
        QVERIFY(!tools.contains("fabric_confirm_change"));
        QFile::remove(path);
    }

    void channelLockWinsOverTheSavedChannel()
    {
        const QString path = m_dir.filePath("user-channel.json");
        writeFile(path, R"({"approval": {"channel": "desktop"}})");
        qputenv("FABRIC_BROKER_POLICY", QFile::encodeName(path));
        QSettings().clear();
        {
            QSettings settings;
            DesktopPreferences prefs;
            prefs.toolsets = {"read", "mutate"};
            prefs.approvalMode = ApprovalMode::Client; // written by some other process
            prefs.save(settings);
        }
        Host host;
        DesktopUi ui(host.context());
        QCOMPARE(host.broker.approver()->channel(), QStringLiteral("desktop"));
        QCOMPARE(host.registry.servedToolsets(), QStringList({"read", "mutate"}));
        ui.showSettings();
        SettingsDialog *dialog = openSettingsDialog();
        QVERIFY(dialog);
        auto *combo = dialog->findChild<QComboBox *>("approvalCombo");
        QVERIFY(!combo->isEnabled());
        QCOMPARE(combo->currentData().toString(), QStringLiteral("desktop"));
        const QString words = "set by your policy file: approval.channel in " + path;
        QVERIFY2(combo->toolTip().contains(words), qPrintable(combo->toolTip()));
        auto *label = dialog->findChild<QLabel *>("policyLocksLabel");
        QVERIFY2(label->text().contains("Overridden: the saved approval channel (client)"),
                 qPrintable(label->text()));
        combo->setCurrentIndex(combo->findData("client")); // forced anyway
        dialog->findChild<QDialogButtonBox *>("buttonBox")->button(QDialogButtonBox::Save)->click();
        QTRY_VERIFY(!openSettingsDialog());
        QCOMPARE(host.broker.approver()->channel(), QStringLiteral("desktop"));
        QFile::remove(path);
    }
};

QTEST_MAIN(TestPolicyEnforcement)
#include "tst_policyenforcement.moc"
