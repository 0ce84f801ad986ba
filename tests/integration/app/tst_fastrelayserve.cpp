// serveFastRelay with the real launcher (FB_BROKER_BIN, spawned as an MCP client spawns it, with
// PATH and HOME only) against a socket served in this process: the relay's own command line and
// environment reach decide(); a served session answers on the client's own pipes and its stderr
// says with which toolsets; a refused one says the fix first, answers the first request with the
// refusal and ends the relay with kRefusedExitCode; invalid settings in the relay's environment
// end it with status 1 and the reason; --help is not taken (the relay runs the app binary,
// which prints the help); killing the relay ends its session.
#include "TestEnvironment.h"
#include "app/FastRelayServe.h"
#include "mcp/McpServer.h"
#include "mcp/ToolRegistry.h"
#include "transport/socket/FastRelayConnection.h"
#include "transport/socket/FastRelayWire.h"
#include "transport/socket/LocalSocketServer.h"

#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

QByteArray line(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

QByteArray initialize(int id)
{
    return line({{"jsonrpc", "2.0"},
                 {"id", id},
                 {"method", "initialize"},
                 {"params", QJsonObject{{"protocolVersion", "2025-11-25"},
                                        {"capabilities", QJsonObject()},
                                        {"clientInfo",
                                         QJsonObject{{"name", "relayed"}, {"version", "1"}}}}}});
}

} // namespace

class TestFastRelayServe : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QTemporaryDir m_home;
    mcp::ToolRegistry m_registry;
    std::unique_ptr<mcp::McpServer> m_server;
    std::unique_ptr<transport::LocalSocketServer> m_local;
    QList<RelayRequest> m_asked;
    mcp::SessionPolicy m_answer;

    void start(QProcess &relay, const QStringList &args, const QProcessEnvironment &extra = {})
    {
        QProcessEnvironment env;
        env.insert("PATH", qEnvironmentVariable("PATH"));
        env.insert("HOME", m_home.path());
        env.insert(extra);
        relay.setProcessEnvironment(env);
        relay.start(QStringLiteral(FB_BROKER_BIN),
                    QStringList{"--stdio", "--socket", m_local->socketPath()} + args);
        QVERIFY(relay.waitForStarted(10000));
    }
    static QJsonObject responseTo(QProcess &relay, int id, QByteArray *out)
    {
        QJsonObject found;
        (void)QTest::qWaitFor(
            [&] {
                *out += relay.readAllStandardOutput();
                for (const QByteArray &l : out->split('\n')) {
                    const QJsonObject m = QJsonDocument::fromJson(l).object();
                    if (m.value("id") == QJsonValue(id)) {
                        found = m;
                        return true;
                    }
                }
                return false;
            },
            15000);
        return found;
    }
    static bool ended(QProcess &relay)
    {
        return QTest::qWaitFor([&] { return relay.state() == QProcess::NotRunning; }, 15000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid() && m_home.isValid());
        m_server = std::make_unique<mcp::McpServer>(&m_registry, mcp::ServerOptions{});
        m_local = std::make_unique<transport::LocalSocketServer>(m_server.get());
        QVERIFY(m_local->listen(m_dir.filePath("app.sock")));
        m_local->setRelayHandler([this](transport::FastRelayConnection *relay) {
            serveFastRelay(relay, m_server.get(), m_local->socketPath(),
                           [this](const RelayRequest &request) {
                               m_asked << request;
                               return m_answer;
                           });
        });
    }
    void init()
    {
        fbtest::failOnWarnings({u"session \\d+ refused: "_s});
        m_asked.clear();
        m_answer = {};
    }

    void aServedSessionUsesTheClientsPipesAndSaysItsToolsets()
    {
        m_answer.welcome =
            QJsonObject{{"toolsets", QJsonArray{"read"}}, {"approvalChannel", "client"}};
        m_answer.toolsets = {"read"};
        QProcess relay;
        start(relay, {"--toolsets", "read"});
        relay.write(initialize(1));
        QByteArray out;
        const QJsonObject init = responseTo(relay, 1, &out);
        QVERIFY2(init.value("result").toObject().contains("serverInfo"), out.constData());
        QCOMPARE(m_asked.size(), 1);
        QCOMPARE(m_asked.first().toolsets.value_or(QStringList()), QStringList{"read"});
        QCOMPARE(m_asked.first().toolsetsSource, u"--toolsets"_s);
        QCOMPARE(m_asked.first().pid, relay.processId());
        relay.closeWriteChannel(); // the client's end of input ends the session and the relay
        QVERIFY(ended(relay));
        QCOMPARE(relay.exitStatus(), QProcess::NormalExit);
        QCOMPARE(relay.exitCode(), 0);
        const QByteArray err = relay.readAllStandardError();
        QVERIFY2(err.contains("session served with the toolsets read - approvals through the "
                              "client channel"),
                 err.constData());
        QTRY_COMPARE(m_server->sessionCount(), 0);
    }

    void aRefusedSessionSaysTheFixAndEndsWithItsStatus()
    {
        m_answer.refusal = u"refused: this instance serves read only"_s;
        m_answer.welcome =
            QJsonObject{{"refused", m_answer.refusal},
                        {"conflicts", QJsonArray{QJsonObject{{"fix", "drop --toolsets mutate"}}}}};
        QProcess relay;
        start(relay, {"--toolsets", "read,mutate"});
        relay.write(initialize(1));
        QByteArray out;
        const QJsonObject answer = responseTo(relay, 1, &out);
        QCOMPARE(answer.value("error").toObject().value("message").toString(), m_answer.refusal);
        QVERIFY(ended(relay));
        QCOMPARE(relay.exitCode(), fastrelay::kRefusedExitCode);
        const QByteArray err = relay.readAllStandardError();
        QVERIFY2(err.startsWith("fabric-broker: Fix: drop --toolsets mutate."), err.constData());
        QVERIFY(err.contains(m_answer.refusal.toUtf8()));
        QTRY_COMPARE(m_server->sessionCount(), 0);
    }

    void invalidSettingsInTheRelaysEnvironmentEndIt()
    {
        QProcess relay;
        QProcessEnvironment bad;
        bad.insert("EQUINIX_MCP_TOOLSETS", "everything");
        start(relay, {}, bad);
        QVERIFY(ended(relay));
        QCOMPARE(relay.exitCode(), 1);
        const QByteArray err = relay.readAllStandardError();
        QVERIFY2(err.startsWith("fabric-broker: ") && err.contains("everything"), err.constData());
        QVERIFY(m_asked.isEmpty());
        QCOMPARE(m_server->sessionCount(), 0);
    }

    void helpIsNotTakenTheAppBinaryPrintsIt()
    {
        QProcess relay;
        start(relay, {"--help-all-the-things"}); // not an option: the app binary says so
        QVERIFY(ended(relay));
        QCOMPARE(relay.exitCode(), 2);
        QVERIFY(relay.readAllStandardError().contains("help-all-the-things"));
        QVERIFY(m_asked.isEmpty());
    }

    void killingTheRelayEndsItsSession()
    {
        m_answer.welcome = QJsonObject{{"toolsets", QJsonArray{"read"}}};
        QSignalSpy closed(m_server.get(), &mcp::McpServer::sessionClosed);
        QProcess relay;
        start(relay, {});
        relay.write(initialize(1));
        QByteArray out;
        QVERIFY(!responseTo(relay, 1, &out).isEmpty());
        QCOMPARE(m_server->sessionCount(), 1);
        relay.kill();
        QVERIFY(ended(relay));
        QTRY_COMPARE(closed.count(), 1);
        QCOMPARE(m_server->sessionCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFastRelayServe)
#include "tst_fastrelayserve.moc"
