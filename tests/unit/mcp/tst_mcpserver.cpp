// McpServer, the engine every transport hands its connections to (the session protocol itself
// is tst_session): serve() counts limited peers against maxSessions and refuses the one over
// (logged, nullptr) while a process's own devices are always served (and take a place); the session
// table (ids, lookup, the ClientInfo list with each transport's name); opened / initialized /
// closed once per session; broadcastLog reaches every initialized session.
#include "TestEnvironment.h"
#include "TestPipe.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace fb::mcp;
using fbtest::TestClient;
using namespace Qt::StringLiterals;

namespace {

void initialize(TestClient &client, const QString &name)
{
    client.request(
        0, u"initialize"_s,
        QJsonObject{{u"protocolVersion"_s, u"2025-11-25"_s},
                    {u"capabilities"_s, QJsonObject{}},
                    {u"clientInfo"_s, QJsonObject{{u"name"_s, name}, {u"version"_s, u"1"_s}}}});
    QVERIFY(client.response(0).contains(u"result"_s));
    client.notify(u"notifications/initialized"_s);
}

} // namespace

class TestMcpServer : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings({u"refusing a connection \\(socket\\): already 2 sessions "
                                u"\\(maximum 2\\)$"_s});
    }

    void limitedPeersCountAgainstTheMaximum()
    {
        ToolRegistry registry;
        ServerOptions options;
        options.maxSessions = 2;
        McpServer server(&registry, options);
        QCOMPARE(server.options().maxSessions, 2);
        QCOMPARE(server.registry(), &registry);
        TestClient a, b, c, own;
        Session *sa = server.serve({u"socket"_s, &a.serverEnd, &a.serverEnd, true});
        Session *sb = server.serve({u"http"_s, &b.serverEnd, &b.serverEnd, true});
        QVERIFY(sa && sb);
        QCOMPARE(server.serve({u"socket"_s, &c.serverEnd, &c.serverEnd, true}), nullptr);
        Session *so = server.serve({u"stdio"_s, &own.serverEnd, &own.serverEnd, false});
        QVERIFY(so); // the process's own devices are always served
        QCOMPARE(server.sessionCount(), 3);

        // A closed session frees its place.
        QSignalSpy closed(&server, &McpServer::sessionClosed);
        const quint64 idA = sa->id();
        a.clientEnd.closeWriteChannel();
        QTRY_COMPARE(closed.size(), 1);
        QCOMPARE(closed.at(0).at(0).value<ClientInfo>().sessionId, idA);
        QCOMPARE(server.session(idA), nullptr);
        QCOMPARE(server.sessionCount(), 2);
        // The process's own session is not refused, but it does take a place.
        QCOMPARE(server.serve({u"socket"_s, &c.serverEnd, &c.serverEnd, true}), nullptr);
        b.clientEnd.closeWriteChannel();
        QTRY_COMPARE(closed.size(), 2);
        QVERIFY(server.serve({u"socket"_s, &c.serverEnd, &c.serverEnd, true}));
    }

    void sessionTableAndSignals()
    {
        ToolRegistry registry;
        auto server = std::make_unique<McpServer>(&registry, ServerOptions{});
        QSignalSpy opened(server.get(), &McpServer::sessionOpened);
        QSignalSpy initialized(server.get(), &McpServer::sessionInitialized);
        TestClient one, two;
        Session *s1 = server->serve({u"socket"_s, &one.serverEnd, &one.serverEnd, true});
        Session *s2 = server->serve({u"http"_s, &two.serverEnd, &two.serverEnd, true});
        QCOMPARE(opened.size(), 2);
        QVERIFY(s1->id() != s2->id());
        QCOMPARE(server->session(s2->id()), s2);
        QCOMPARE(server->session(s2->id() + 1000), nullptr);
        QStringList transports;
        for (const ClientInfo &c : server->sessions())
            transports << c.transport;
        QCOMPARE(transports, (QStringList{u"socket"_s, u"http"_s}));

        initialize(one, u"first"_s);
        QTRY_COMPARE(initialized.size(), 1);
        QCOMPARE(initialized.at(0).at(0).value<ClientInfo>().name, u"first"_s);

        // broadcastLog: every initialized session at its level; not the one still starting.
        server->broadcastLog(u"warning"_s, u"broker"_s, u"to all"_s);
        QVERIFY(!one.waitMethod(u"notifications/message"_s).isEmpty());
        QTest::qWait(20);
        QCOMPARE(two.withMethod(u"notifications/message"_s).size(), 0);
        server.reset(); // sessions end before the pipes they use
    }
};

QTEST_GUILESS_MAIN(TestMcpServer)
#include "tst_mcpserver.moc"
