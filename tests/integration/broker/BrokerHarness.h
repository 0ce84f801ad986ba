#pragma once
// A whole broker in one test process: the embedded sandbox, the real FabricClient, the store,
// the broker and catalog tools, and an MCP session over an in-memory pipe driven as a client.
#include "../../unit/mcp/TestPipe.h"
#include "JsonRpc.h"
#include "broker/Catalog.h"
#include "broker/MutationBroker.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "mcp/McpServer.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/FabricSandbox.h"
#include "sandbox/SandboxIds.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <memory>

namespace fbtest {

struct BrokerHarness {
    fb::FabricSandbox sandbox;
    std::unique_ptr<fb::FabricClient> fabric;
    fb::ProposalStore store;
    fb::mcp::ToolRegistry registry;
    std::unique_ptr<fb::MutationBroker> broker;
    std::unique_ptr<fb::Catalog> catalog;
    std::unique_ptr<fb::mcp::McpServer> server;
    PipeEnd serverEnd, clientEnd;
    QByteArray inbox;
    QList<QJsonObject> received;
    int nextId = 1;

    explicit BrokerHarness(fb::BrokerSettings settings = {}, fb::Clock *clock = fb::Clock::system())
        : store(clock)
    {
        QVERIFY(sandbox.listen(0));
        fb::FabricConfig config;
        config.endpoint = sandbox.baseUrl();
        config.clientId = QStringLiteral("test");
        config.clientSecret = QStringLiteral("test");
        config.sandbox = true;
        fabric = std::make_unique<fb::FabricClient>(config);
        broker = std::make_unique<fb::MutationBroker>(&store, fabric.get(), settings, clock);
        catalog = std::make_unique<fb::Catalog>(fabric.get(), &store, fb::Clock::system());
        catalog->registerTools(&registry);
        broker->registerTools(&registry);
        registry.setServedToolsets({QStringLiteral("read"), QStringLiteral("mutate")});
        fb::mcp::ServerOptions options;
        options.version = QStringLiteral("test");
        server = std::make_unique<fb::mcp::McpServer>(&registry, options);
        serverEnd.setPeer(&clientEnd);
        clientEnd.setPeer(&serverEnd);
        QObject::connect(&clientEnd, &QIODevice::readyRead, [this] {
            inbox += clientEnd.readAll();
            takeJsonLines(&inbox, &received);
        });
        server->serve({"stdio", &serverEnd, &serverEnd, false});
    }

    void send(const QJsonObject &msg)
    {
        clientEnd.write(QJsonDocument(msg).toJson(QJsonDocument::Compact) + '\n');
    }

    QJsonObject waitFor(const std::function<bool(const QJsonObject &)> &pred, int ms = 10000)
    {
        QJsonObject hit;
        auto find = [&] {
            for (const QJsonObject &m : std::as_const(received))
                if (pred(m)) {
                    hit = m;
                    return true;
                }
            return false;
        };
        if (!QTest::qWaitFor(find, ms))
            QTest::qFail("timed out waiting for a message", __FILE__, __LINE__);
        return hit;
    }

    // Sends a request without waiting; its id, for answerTo().
    int startRequest(const QString &method, const QJsonObject &params)
    {
        const int id = nextId++;
        send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
        return id;
    }

    static bool isAnswerTo(const QJsonObject &m, int id)
    {
        return m.value("id").toInt(-1) == id && !m.contains("method");
    }

    QJsonObject answerTo(int id, int ms = 10000)
    {
        return waitFor([id](const QJsonObject &m) { return isAnswerTo(m, id); }, ms);
    }

    QJsonObject request(const QString &method, const QJsonObject &params)
    {
        return answerTo(startRequest(method, params));
    }

    // A tools/call sent without waiting (e.g. a confirm that waits for people).
    int startToolCall(const QString &name, const QJsonObject &args)
    {
        return startRequest("tools/call", {{"name", name}, {"arguments", args}});
    }

    void initialize(bool elicitation = true)
    {
        QJsonObject caps;
        if (elicitation)
            caps.insert("elicitation", QJsonObject{{"form", QJsonObject{}}});
        const QJsonObject r = request(
            "initialize", {{"protocolVersion", "2025-11-25"},
                           {"capabilities", caps},
                           {"clientInfo", QJsonObject{{"name", "harness"}, {"version", "1"}}}});
        QVERIFY(r.contains("result"));
        send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    }

    QJsonObject callTool(const QString &name, const QJsonObject &args)
    {
        return request("tools/call", {{"name", name}, {"arguments", args}})
            .value("result")
            .toObject();
    }

    static QJsonObject connectionSpec(int vlan)
    {
        const QString port = fb::SandboxIds::PortSvPrimary;
        const QString profile = fb::SandboxIds::ProfileAwsDirectConnect;
        return QJsonObject{
            {"type", "EVPL_VC"},
            {"name", QStringLiteral("harness-%1").arg(vlan)},
            {"bandwidth", 50},
            {"notifications", QJsonArray{QJsonObject{
                                  {"type", "ALL"}, {"emails", QJsonArray{"netops@example.com"}}}}},
            {"aSide", QJsonObject{{"accessPoint",
                                   QJsonObject{{"type", "COLO"},
                                               {"port", QJsonObject{{"uuid", port}}},
                                               {"linkProtocol", QJsonObject{{"type", "DOT1Q"},
                                                                            {"vlanTag", vlan}}}}}}},
            {"zSide",
             QJsonObject{{"accessPoint", QJsonObject{{"type", "SP"},
                                                     {"profile", QJsonObject{{"type", "L2_PROFILE"},
                                                                             {"uuid", profile}}},
                                                     {"location", QJsonObject{{"metroCode", "SV"}}},
                                                     {"sellerRegion", "us-west-1"},
                                                     {"authenticationKey", "123456789012"}}}}},
        };
    }
};

} // namespace fbtest
