// ServerHost, one broker process put together, in this test process: without credentials it
// serves the embedded sandbox (and says so to clients), with them the configured Fabric; the
// toolsets come from --toolsets over the environment over the saved settings; invalid settings
// start nothing; the socket is served to an MCP client and a second instance on it is refused,
// and it is free again once the host is gone; --http serves a bearer-token endpoint, and a port
// already taken is a warning, not a failed start; a relayed session's hello is decided against
// what the host serves; a team database outside the policy is ignored, loudly; desktop approval
// needs a desktop; shutdown() without a create in flight ends at once, from the event loop.
// Every path it writes (audit log, day marker, token, socket) is in a scratch folder.
#include "BrokerScratch.h"
#include "McpSocketClient.h"
#include "TestEnvironment.h"
#include "app/ServerHost.h"
#include "broker/Approver.h"
#include "broker/MutationBroker.h"
#include "core/AuditLog.h"
#include "mcp/McpServer.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/FabricSandbox.h"
#include "transport/http/HttpToken.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;
using namespace fbtest;
using namespace Qt::StringLiterals;

class TstServerHost : public QObject {
    Q_OBJECT
    BrokerScratch m_scratch;

    QString path(const QString &name) const { return m_scratch.path(name); }

private slots:
    void initTestCase() { QVERIFY(m_scratch.setUp()); }
    void cleanupTestCase() { m_scratch.tearDown(); }
    void init() { failOnWarnings({u"SANDBOX: using the embedded Fabric sandbox"_s}); }

    void withoutCredentialsTheSandboxIsServedAndSaysSo()
    {
        ServerHost host;
        ServerHost::Options options;
        options.listen = true;
        options.socket = path(u"a.sock"_s);
        options.instructionsNote = u" NOTE-1"_s;
        options.readOnlyNote = u" READ-ONLY-NOTE"_s;
        QString error;
        QVERIFY2(host.start(options, &error), qPrintable(error));
        QVERIFY(host.isSandbox());
        QVERIFY(host.sandbox());
        QCOMPARE(host.fabric()->config().endpoint, host.sandbox()->baseUrl());
        QCOMPARE(host.auditLog()->path(), path(u"audit.jsonl"_s));
        QCOMPARE(host.socketPath(), options.socket);
        QVERIFY(host.httpUrl().isEmpty());
        QVERIFY(!host.team());

        McpSocketClient client;
        QVERIFY(client.connectTo(options.socket));
        const QJsonObject init = client.initialize();
        QCOMPARE(init.value(u"serverInfo"_s).toObject().value(u"title"_s).toString(),
                 u"Fabric Broker (SANDBOX)"_s);
        const QString instructions = init.value(u"instructions"_s).toString();
        QVERIFY2(instructions.startsWith(u"SANDBOX: "_s), qPrintable(instructions));
        QVERIFY(instructions.endsWith(u" NOTE-1 READ-ONLY-NOTE"_s));
        // The default toolset: reading only.
        const QStringList tools = client.toolNames();
        QVERIFY(tools.contains(u"fabric_list_metros"_s));
        QVERIFY(!tools.contains(u"fabric_propose_change"_s));
    }

    void credentialsServeTheConfiguredFabric()
    {
        ServerHost::Options options;
        QVERIFY(ServerHost::usesSandbox(options));
        FabricConfig saved;
        saved.clientId = u"saved-id"_s;
        saved.clientSecret = u"saved-secret"_s;
        options.savedFabricConfig = saved;
        QVERIFY(!ServerHost::usesSandbox(options));
        options.forceSandbox = true;
        QVERIFY(ServerHost::usesSandbox(options));
        options = {};
        ScopedEnvironmentVariable id("EQUINIX_CLIENT_ID", "env-id");
        ScopedEnvironmentVariable secret("EQUINIX_CLIENT_SECRET", "env-secret");
        ScopedEnvironmentVariable endpoint("EQUINIX_API_ENDPOINT", "http://127.0.0.1:9");
        QVERIFY(!ServerHost::usesSandbox(options));

        ServerHost host;
        QString error;
        QVERIFY2(host.start(options, &error), qPrintable(error));
        QVERIFY(!host.isSandbox());
        QVERIFY(!host.sandbox());
        QCOMPARE(host.fabric()->config().endpoint, QUrl(u"http://127.0.0.1:9"_s));
        QCOMPARE(host.fabric()->config().clientId, u"env-id"_s);
    }

    void toolsetsFromTheCommandLineOverTheEnvironmentOverSaved()
    {
        struct Case {
            QString flag;
            QByteArray environment;
            QStringList saved;
            bool mutate;
        };
        const QList<Case> cases{{u"read,mutate"_s, "read", {}, true},
                                {{}, "read", {u"read"_s, u"mutate"_s}, false},
                                {{}, {}, {u"read"_s, u"mutate"_s}, true},
                                {{}, {}, {}, false}};
        for (const Case &c : cases) {
            ScopedEnvironmentVariable env("EQUINIX_MCP_TOOLSETS", c.environment);
            ServerHost::Options options;
            options.toolsets = c.flag;
            options.savedToolsets = c.saved;
            options.readOnlyNote = u" READ-ONLY-NOTE"_s;
            ServerHost host;
            QString error;
            QVERIFY2(host.start(options, &error), qPrintable(error));
            QCOMPARE(host.settings().toolsets.contains(u"mutate"_s), c.mutate);
            QCOMPARE(host.registry()->servedToolsets().contains(u"mutate"_s), c.mutate);
            QCOMPARE(host.server()->options().instructions.endsWith(u"READ-ONLY-NOTE"_s),
                     !c.mutate);
        }
    }

    void invalidSettingsStartNothing()
    {
        ServerHost::Options options;
        options.toolsets = u"read,everything"_s;
        options.listen = true;
        options.socket = path(u"never.sock"_s);
        ServerHost host;
        QString error;
        QVERIFY(!host.start(options, &error));
        QVERIFY2(error.contains(u"everything"_s), qPrintable(error));
        QVERIFY(!host.auditLog());
        QVERIFY(!host.server());
        QVERIFY(!QFileInfo::exists(options.socket));
    }

    void aSecondInstanceOnTheSocketIsRefusedUntilTheFirstIsGone()
    {
        ServerHost::Options options;
        options.listen = true;
        options.socket = path(u"one.sock"_s);
        QString error;
        auto first = std::make_unique<ServerHost>();
        QVERIFY2(first->start(options, &error), qPrintable(error));
        {
            ServerHost second;
            QVERIFY(!second.start(options, &error));
            QVERIFY2(error.contains(u"already serving"_s), qPrintable(error));
        }
        // The first still serves.
        McpSocketClient client;
        QVERIFY(client.connectTo(options.socket));
        QVERIFY(client.initialize().contains(u"serverInfo"_s));
        first.reset();
        QVERIFY(!QFileInfo::exists(options.socket));
        ServerHost third;
        QVERIFY2(third.start(options, &error), qPrintable(error));
    }

    void httpIsServedOrWarnedAbout()
    {
        ServerHost::Options options;
        options.http = u"127.0.0.1:0"_s;
        QString error;
        {
            ServerHost host;
            QVERIFY2(host.start(options, &error), qPrintable(error));
            QVERIFY2(host.httpUrl().startsWith(u"http://127.0.0.1:"_s), qPrintable(host.httpUrl()));
            QVERIFY(host.httpWarning().isEmpty());
        }
        QCOMPARE(transport::HttpToken::defaultPath(), path(transport::HttpToken::fileName()));
        QFile token(transport::HttpToken::defaultPath());
        QVERIFY(token.open(QIODevice::ReadOnly));
        const QByteArray before = token.readAll();
        token.close();
        // A port someone else holds: the other transports run, the token is replaced.
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost));
        options.http = u"127.0.0.1:%1"_s.arg(taken.serverPort());
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"^MCP over HTTP is off: "_s));
        ServerHost host;
        QVERIFY2(host.start(options, &error), qPrintable(error));
        QVERIFY(host.httpUrl().isEmpty());
        QVERIFY(host.httpWarning().startsWith(u"MCP over HTTP is off: "_s));
        QVERIFY(token.open(QIODevice::ReadOnly));
        QVERIFY(token.readAll() != before);
        // Not an address it serves: refused before it starts.
        options.http = u"0.0.0.0:80"_s;
        ServerHost refused;
        QVERIFY(!refused.start(options, &error));
        QVERIFY2(error.contains(u"loopback"_s), qPrintable(error));
    }

    void aRelayedSessionIsDecidedAgainstWhatTheHostServes()
    {
        ServerHost::Options options;
        options.listen = true;
        options.socket = path(u"relay.sock"_s);
        ServerHost host;
        QString error;
        QVERIFY2(host.start(options, &error), qPrintable(error));
        // The welcome the host answers a relay's hello with, on a connection of its own.
        auto welcomeFor = [&](const QJsonObject &hello) {
            McpSocketClient relay;
            if (!relay.connectTo(options.socket))
                return QJsonObject();
            relay.send(QJsonDocument(QJsonObject{{QLatin1StringView(mcp::RelayHelloKey), hello}})
                           .toJson(QJsonDocument::Compact) +
                       '\n');
            return relay.waitFor(QLatin1StringView(mcp::RelayWelcomeKey))
                .value(QLatin1StringView(mcp::RelayWelcomeKey))
                .toObject();
        };
        // Asking for the mutate toolset this read-only host does not serve: refused.
        const QJsonObject hello{{u"v"_s, 1},
                                {u"pid"_s, 1},
                                {u"sandbox"_s, true},
                                {u"toolsets"_s, QJsonArray{u"read"_s, u"mutate"_s}},
                                {u"toolsetsSource"_s, u"--toolsets"_s}};
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"refused:"_s));
        const QJsonObject refused = welcomeFor(hello);
        QVERIFY2(refused.value(u"refused"_s).toString().contains(u"mutate"_s),
                 QJsonDocument(refused).toJson().constData());
        // The same --sandbox session asking for reading only is served.
        QJsonObject narrow = hello;
        narrow.insert(u"toolsets"_s, QJsonArray{u"read"_s});
        const QJsonObject welcome = welcomeFor(narrow);
        QVERIFY2(!welcome.isEmpty() && !welcome.contains(u"refused"_s),
                 QJsonDocument(welcome).toJson().constData());
    }

    void aTeamDatabaseOutsideThePolicyIsIgnored()
    {
        ScopedEnvironmentVariable env("FABRIC_BROKER_TEAM_DATABASE",
                                      "postgresql:///team?host=/nonexistent");
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(u"FABRIC_BROKER_TEAM_DATABASE is IGNORED"_s));
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(u"the saved team/database setting is IGNORED"_s));
        ServerHost::Options options;
        options.savedTeamDatabase = true;
        ServerHost host;
        QString error;
        QVERIFY2(host.start(options, &error), qPrintable(error));
        QVERIFY(!host.team());
        QVERIFY(host.settings().teamDatabase.isEmpty());
    }

    void desktopApprovalNeedsADesktop()
    {
        ScopedEnvironmentVariable env("EQUINIX_MCP_APPROVAL", "desktop");
        ServerHost host;
        QString error;
        QVERIFY2(host.start({}, &error), qPrintable(error));
        QVERIFY(!host.applyApprovalMode(nullptr, &error));
        QVERIFY2(error.contains(u"needs the desktop UI"_s), qPrintable(error));
        // Without a desktop and without that demand, the client is asked.
        ScopedEnvironmentVariable automatic("EQUINIX_MCP_APPROVAL", "auto");
        ServerHost headless;
        QVERIFY2(headless.start({}, &error), qPrintable(error));
        QVERIFY2(headless.applyApprovalMode(nullptr, &error), qPrintable(error));
        QCOMPARE(headless.broker()->approver()->channel(), u"client"_s);
    }

    void shutdownWithNothingInFlightEndsFromTheEventLoop()
    {
        ServerHost host;
        QString error;
        QVERIFY2(host.start({}, &error), qPrintable(error));
        QVERIFY(!host.isShuttingDown());
        int done = 0;
        int again = 0;
        host.shutdown(ServerHost::kShutdownGraceMs, [&] { ++done; });
        QVERIFY(host.isShuttingDown());
        QCOMPARE(done, 0); // from the event loop, not from the call
        host.shutdown(ServerHost::kShutdownGraceMs, [&] { ++again; });
        QTRY_COMPARE(done, 1);
        QCoreApplication::processEvents();
        QCOMPARE(again, 0);
        QCOMPARE(host.broker()->createsInFlight(), 0);
    }

    void instructionsNameTheLimitsAndTheSandbox()
    {
        BrokerSettings settings;
        settings.maxPending = 7;
        settings.proposalTtlMs = 90 * 1000;
        const QString real = ServerHost::serverInstructions(false, settings);
        QVERIFY2(real.contains(u"at most 7 are pending"_s), qPrintable(real));
        QVERIFY(real.contains(MutationBroker::durationText(90 * 1000)));
        QVERIFY(real.contains(u"connection_create"_s));
        QVERIFY(!real.contains(u"SANDBOX"_s));
        QCOMPARE(ServerHost::serverInstructions(true, settings),
                 u"SANDBOX: this broker is connected to its embedded Fabric sandbox, not to "
                 "Equinix; nothing real is created. "_s +
                     real);
    }
};

QTEST_MAIN(TstServerHost)
#include "tst_serverhost.moc"
