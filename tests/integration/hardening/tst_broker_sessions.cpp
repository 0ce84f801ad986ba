// The whole broker in-process (embedded sandbox, FabricClient, ProposalStore, MutationBroker,
// Catalog, McpServer) served over the per-user socket to many sessions at once:
//  - 100 concurrent sessions each propose and confirm (answering the elicitation with accept):
//    every request is answered, nothing is lost, exactly 100 creates reach the sandbox;
//  - two sessions confirming the same token in the same event-loop read turn: exactly one
//    proceeds, the other is told not_previously_used = false.
#include "../broker/BrokerHarness.h"
#include "HardeningUtil.h"
#include "TestEnvironment.h"
#include "broker/BrokerSettings.h"
#include "transport/socket/LocalSocketServer.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace fbtest;

namespace {

// One MCP client on the broker's socket that answers every elicitation with accept + confirm.
class BrokerClient {
public:
    QLocalSocket socket;
    QList<QJsonObject> messages;
    QByteArray partial;
    int elicitations = 0;
    int nextId = 1;
    bool acceptElicitations = true;

    BrokerClient()
    {
        QObject::connect(&socket, &QLocalSocket::readyRead, [this] {
            partial += socket.readAll();
            QList<QJsonObject> fresh;
            takeJsonLines(&partial, &fresh);
            for (const QJsonObject &m : std::as_const(fresh)) {
                messages.append(m);
                if (m.value("method") == "elicitation/create" && acceptElicitations) {
                    ++elicitations;
                    send({{"jsonrpc", "2.0"},
                          {"id", m.value("id")},
                          {"result", QJsonObject{{"action", "accept"},
                                                 {"content", QJsonObject{{"confirm", true}}}}}});
                }
            }
        });
    }
    void send(const QJsonObject &m)
    {
        socket.write(QJsonDocument(m).toJson(QJsonDocument::Compact) + '\n');
    }
    int request(const QString &method, const QJsonObject &params)
    {
        const int id = nextId++;
        send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
        return id;
    }
    int callTool(const QString &name, const QJsonObject &args)
    {
        return request("tools/call", {{"name", name}, {"arguments", args}});
    }
    QJsonObject find(int id) const
    {
        for (const QJsonObject &m : messages)
            if (!m.contains("method") && m.value("id").toInt(-1) == id)
                return m;
        return {};
    }
    int countResponses(int id) const
    {
        int n = 0;
        for (const QJsonObject &m : messages)
            n += !m.contains("method") && m.value("id").toInt(-1) == id ? 1 : 0;
        return n;
    }
    int initialize()
    {
        return request(
            "initialize",
            {{"protocolVersion", "2025-11-25"},
             {"capabilities", QJsonObject{{"elicitation", QJsonObject{{"form", QJsonObject{}}}}}},
             {"clientInfo", QJsonObject{{"name", "hardening"}, {"version", "1"}}}});
    }
    void initialized() { send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}); }
};

struct SocketBroker {
    QTemporaryDir dir;
    fb::FabricSandbox sandbox;
    std::unique_ptr<fb::FabricClient> fabric;
    fb::ProposalStore store;
    fb::mcp::ToolRegistry registry;
    std::unique_ptr<fb::MutationBroker> broker;
    std::unique_ptr<fb::Catalog> catalog;
    std::unique_ptr<fb::mcp::McpServer> server;
    std::unique_ptr<fb::transport::LocalSocketServer> lss;

    bool start(int sessions)
    {
        if (!dir.isValid() || !sandbox.listen(0))
            return false;
        fb::FabricConfig config;
        config.endpoint = sandbox.baseUrl();
        config.clientId = QStringLiteral("test");
        config.clientSecret = QStringLiteral("test");
        config.sandbox = true;
        fabric = std::make_unique<fb::FabricClient>(config);
        fb::BrokerSettings settings;
        settings.maxPending = 200;
        settings.approvalMode = fb::ApprovalMode::Client;
        settings.toolsets = {QStringLiteral("read"), QStringLiteral("mutate")};
        broker = std::make_unique<fb::MutationBroker>(&store, fabric.get(), settings);
        catalog = std::make_unique<fb::Catalog>(fabric.get(), &store, fb::Clock::system());
        catalog->registerTools(&registry);
        broker->registerTools(&registry);
        registry.setServedToolsets({QStringLiteral("read"), QStringLiteral("mutate")});
        fb::mcp::ServerOptions options;
        options.version = QStringLiteral("test");
        options.maxSessions = sessions + 8;
        server = std::make_unique<fb::mcp::McpServer>(&registry, options);
        lss = std::make_unique<fb::transport::LocalSocketServer>(server.get());
        QString error;
        if (!lss->listen(dir.path() + "/broker.sock", &error)) {
            qWarning() << error;
            return false;
        }
        return true;
    }
};

QJsonObject structured(const QJsonObject &response)
{
    return response.value("result").toObject().value("structuredContent").toObject();
}

} // namespace

class TestBrokerSessions : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void hundredConcurrentSessionsProposeAndConfirm()
    {
        constexpr int kSessions = 100;
        SocketBroker b;
        QVERIFY(b.start(kSessions));
        std::vector<std::unique_ptr<BrokerClient>> clients;
        for (int i = 0; i < kSessions; ++i) {
            clients.push_back(std::make_unique<BrokerClient>());
            clients.back()->socket.connectToServer(b.lss->socketPath());
        }
        QElapsedTimer t;
        t.start();
        QVERIFY(QTest::qWaitFor(
            [&] {
                return std::all_of(clients.begin(), clients.end(), [](const auto &c) {
                    return c->socket.state() == QLocalSocket::ConnectedState;
                });
            },
            20000));
        // A connection is a session from its first byte on (it could have been a relay's).
        for (auto &c : clients)
            c->initialize();
        QTRY_COMPARE_WITH_TIMEOUT(b.server->sessionCount(), kSessions, 20000);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return std::all_of(clients.begin(), clients.end(),
                                   [](const auto &c) { return c->find(1).contains("result"); });
            },
            30000));
        for (auto &c : clients)
            c->initialized();
        // All proposals at once.
        for (int i = 0; i < kSessions; ++i)
            clients[i]->callTool("fabric_propose_change",
                                 {{"change_type", "connection_create"},
                                  {"spec", BrokerHarness::connectionSpec(2000 + i)}});
        QVERIFY(QTest::qWaitFor(
            [&] {
                return std::all_of(clients.begin(), clients.end(),
                                   [](const auto &c) { return !c->find(2).isEmpty(); });
            },
            120000));
        const qint64 proposeMs = t.elapsed();
        QSet<QString> tokens;
        for (int i = 0; i < kSessions; ++i) {
            const QJsonObject s = structured(clients[i]->find(2));
            QVERIFY2(s.value("confirm_token").toString().startsWith("chg-"),
                     qPrintable(
                         QString("session %1: %2")
                             .arg(i)
                             .arg(QString::fromUtf8(QJsonDocument(clients[i]->find(2)).toJson()))));
            tokens.insert(s.value("confirm_token").toString());
        }
        QCOMPARE(tokens.size(), kSessions);
        // All confirmations at once; each client accepts its elicitation as it arrives.
        for (int i = 0; i < kSessions; ++i)
            clients[i]->callTool(
                "fabric_confirm_change",
                {{"confirm_token", structured(clients[i]->find(2)).value("confirm_token")}});
        QVERIFY(QTest::qWaitFor(
            [&] {
                return std::all_of(clients.begin(), clients.end(),
                                   [](const auto &c) { return !c->find(3).isEmpty(); });
            },
            180000));
        qInfo("100 sessions: proposals answered after %lld ms, confirmations after %lld ms",
              proposeMs, t.elapsed());
        for (int i = 0; i < kSessions; ++i) {
            const QJsonObject s = structured(clients[i]->find(3));
            QVERIFY2(s.value("executed").toBool(),
                     qPrintable(QString("session %1: %2")
                                    .arg(i)
                                    .arg(QString::fromUtf8(QJsonDocument(s).toJson()))));
            QCOMPARE(s.value("human_confirmation").toObject().value("status").toString(),
                     QString("accepted"));
            QCOMPARE(s.value("execution").toObject().value("outcome").toString(),
                     QString("created"));
            QCOMPARE(clients[i]->elicitations, 1);
            for (int id = 1; id <= 3; ++id)
                QCOMPARE(clients[i]->countResponses(id), 1); // every request answered once
        }
        QCOMPARE(b.sandbox.realCreateCount(), kSessions);
        int realPosts = 0;
        for (const auto &req : b.sandbox.requests())
            realPosts +=
                req.method == "POST" && req.path == "/fabric/v4/connections" && !req.dryRun;
        QCOMPARE(realPosts, kSessions);
    }

    void sameTokenConfirmedByTwoSessionsInOneReadTurn()
    {
        SocketBroker b;
        QVERIFY(b.start(4));
        BrokerClient a, c;
        for (BrokerClient *x : {&a, &c}) {
            x->socket.connectToServer(b.lss->socketPath());
            QVERIFY(x->socket.waitForConnected(2000));
            x->initialize();
            QTRY_VERIFY_WITH_TIMEOUT(x->find(1).contains("result"), 10000);
            x->initialized();
        }
        const int pid =
            a.callTool("fabric_propose_change", {{"change_type", "connection_create"},
                                                 {"spec", BrokerHarness::connectionSpec(2500)}});
        QTRY_VERIFY_WITH_TIMEOUT(!a.find(pid).isEmpty(), 20000);
        const QString token = structured(a.find(pid)).value("confirm_token").toString();
        QVERIFY(token.startsWith("chg-"));
        // Both confirmations are written and flushed to the kernel before the event loop runs
        // again, so the server reads both sockets in the same turn.
        const int ida = a.callTool("fabric_confirm_change", {{"confirm_token", token}});
        const int idc = c.callTool("fabric_confirm_change", {{"confirm_token", token}});
        a.socket.flush();
        c.socket.flush();
        QTRY_VERIFY_WITH_TIMEOUT(!a.find(ida).isEmpty() && !c.find(idc).isEmpty(), 30000);
        const QJsonObject sa = structured(a.find(ida));
        const QJsonObject sc = structured(c.find(idc));
        const bool aRan = sa.value("executed").toBool();
        const bool cRan = sc.value("executed").toBool();
        QVERIFY2(aRan != cRan, "exactly one of the two confirmations must proceed");
        const QJsonObject loser = aRan ? sc : sa;
        QCOMPARE(loser.value("confirm_checks").toObject().value("not_previously_used"),
                 QJsonValue(false));
        QCOMPARE(loser.value("human_confirmation").toObject().value("status").toString(),
                 QString("not_requested"));
        QCOMPARE(a.elicitations + c.elicitations, 1);
        QCOMPARE(b.sandbox.realCreateCount(), 1);
    }
};

QTEST_GUILESS_MAIN(TestBrokerSessions)
#include "tst_broker_sessions.moc"
