// StdioRelay, `fabric-broker --stdio` when the app already runs, in this test process: its stdin,
// stdout and stderr are pipes the test holds (fds 0, 1 and 2 swapped for the test's duration) and
// the running instance is a QLocalServer the test answers from. connectTo trusts only a socket of
// this user with a listener (a missing or stale one is absent, anything else refused); the bytes
// pass unchanged both ways, the hello first; the instance's welcome never reaches the client, a
// first line that is not one does; a refusal prints its fix first on stderr and ends the relay
// with kRefusedExitCode once the client has its answer; end of input on either side ends it.
#include "BrokerScratch.h"
#include "SwappedStdio.h"
#include "TestEnvironment.h"
#include "app/StdioRelay.h"
#include "mcp/McpServer.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace fb;
using namespace fbtest;
using namespace Qt::StringLiterals;

class TstStdioRelay : public QObject {
    Q_OBJECT
    BrokerScratch m_scratch;
    QString m_path;
    QLocalServer m_instance;
    QLocalSocket *m_session = nullptr; // the instance's side of the relay's connection
    QByteArray m_received;

    // The instance listening, and a relay connected to it.
    bool connectRelay(StdioRelay &relay)
    {
        if (!m_instance.listen(m_path))
            return false;
        QString why;
        if (relay.connectTo(m_path, &why) != transport::ListenerCheck::Trusted)
            return false;
        if (!QTest::qWaitFor([&] { return m_instance.hasPendingConnections(); }, 5000))
            return false;
        m_session = m_instance.nextPendingConnection();
        connect(m_session, &QLocalSocket::readyRead, this,
                [this] { m_received += m_session->readAll(); });
        return true;
    }
    bool instanceReceives(const QByteArray &expected)
    {
        const bool seen =
            QTest::qWaitFor([&] { return m_received.size() >= expected.size(); }, 10000);
        if (m_received != expected)
            qWarning("the instance got %s", m_received.constData());
        return seen && std::exchange(m_received, {}) == expected;
    }
    static QByteArray line(const char *key, const QJsonObject &value)
    {
        return QJsonDocument(QJsonObject{{QLatin1StringView(key), value}})
                   .toJson(QJsonDocument::Compact) +
               '\n';
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_scratch.setUp());
        m_path = m_scratch.path(u"fabric-broker.sock"_s);
        // The relay's progress notes would land on the stdout under test (Qt Test prints them).
        QLoggingCategory::setFilterRules(
            u"fabricbroker.*.info=false\nfabricbroker.*.debug=false"_s);
    }
    void cleanupTestCase() { m_scratch.tearDown(); }
    void init() { failOnWarnings(); }
    void cleanup()
    {
        delete m_session;
        m_session = nullptr;
        m_instance.close();
        m_received.clear();
        QFile::remove(m_path);
    }

    void connectToTrustsOnlyThisUsersListener()
    {
        QString why;
        {
            StdioRelay relay;
            QCOMPARE(relay.connectTo(m_path, &why), transport::ListenerCheck::Absent);
        }
        {
            // A socket file nobody listens on: an instance that died.
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un addr{};
            addr.sun_family = AF_UNIX;
            const QByteArray name = QFile::encodeName(m_path);
            std::memcpy(addr.sun_path, name.constData(), name.size());
            QCOMPARE(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
            ::close(fd);
            StdioRelay relay;
            QCOMPARE(relay.connectTo(m_path, &why), transport::ListenerCheck::Absent);
            QVERIFY(QFile::remove(m_path));
        }
        {
            // Not a socket at all.
            QFile file(m_path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.close();
            StdioRelay relay;
            why.clear();
            QCOMPARE(relay.connectTo(m_path, &why), transport::ListenerCheck::Refused);
            QVERIFY(!why.isEmpty());
            QVERIFY(QFile::remove(m_path));
        }
        // A listener of this user: trusted, and not a byte written before start().
        StdioRelay relay;
        QVERIFY(connectRelay(relay));
        QTest::qWait(0);
        QVERIFY(m_received.isEmpty());
    }

    void bytesPassUnchangedUntilEndOfInput()
    {
        SwappedStdio stdio;
        StdioRelay relay;
        QVERIFY(connectRelay(relay));
        QSignalSpy finished(&relay, &StdioRelay::finished);
        relay.start();
        // Not the relay's to parse: whatever the client writes, as it is.
        const QByteArray request = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n";
        stdio.write(request);
        QVERIFY(instanceReceives(request));
        const QByteArray answer = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\npartial";
        m_session->write(answer);
        QVERIFY(stdio.waitForOutput(answer));
        // The client closes stdin: the instance's session ends, the relay exits 0.
        stdio.closeInput();
        QTRY_VERIFY_WITH_TIMEOUT(m_session->state() == QLocalSocket::UnconnectedState, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        QCOMPARE(finished.first().first().toInt(), 0);
        QVERIFY(stdio.takeOutput(2).isEmpty());
    }

    void theHelloGoesFirstAndTheWelcomeStaysWithTheRelay()
    {
        SwappedStdio stdio;
        StdioRelay relay;
        QVERIFY(connectRelay(relay));
        const QJsonObject hello{{u"v"_s, 1}, {u"toolsets"_s, QJsonArray{u"read"_s}}};
        relay.setHello(hello);
        stdio.write("first\n");
        relay.start();
        QVERIFY(instanceReceives(line(mcp::RelayHelloKey, hello) + "first\n"));
        // The welcome and what follows in the same packet: only what follows is the client's.
        m_session->write(line(mcp::RelayWelcomeKey, {{u"toolsets"_s, QJsonArray{u"read"_s}},
                                                     {u"approvalChannel"_s, u"client"_s}}) +
                         "answer\n");
        QVERIFY(stdio.waitForOutput("answer\n"));
        // The instance ends the session: so does the relay, with 0.
        QSignalSpy finished(&relay, &StdioRelay::finished);
        m_session->disconnectFromServer();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        QCOMPARE(finished.first().first().toInt(), 0);
    }

    void aFirstLineThatIsNoWelcomeReachesTheClient()
    {
        SwappedStdio stdio;
        StdioRelay relay;
        QVERIFY(connectRelay(relay));
        relay.setHello({{u"v"_s, 1}});
        relay.start();
        QVERIFY(instanceReceives(line(mcp::RelayHelloKey, {{u"v"_s, 1}})));
        // An instance that does not speak hello answers the client's JSON-RPC directly.
        m_session->write("{\"jsonrpc\":\"2.0\",\"id\":1,");
        QTest::qWait(0);
        QVERIFY(stdio.takeOutput().isEmpty()); // a line is waited for, not half of one
        m_session->write("\"result\":{}}\n");
        QVERIFY(stdio.waitForOutput("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"));
    }

    void aRefusalSaysItsFixAndEndsWithTheRefusedCode()
    {
        SwappedStdio stdio;
        StdioRelay relay;
        QVERIFY(connectRelay(relay));
        QSignalSpy finished(&relay, &StdioRelay::finished);
        relay.setHello({{u"v"_s, 1}});
        relay.start();
        stdio.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n");
        m_session->write(line(
            mcp::RelayWelcomeKey,
            {{u"refused"_s, u"the app serves read only"_s},
             {u"conflicts"_s, QJsonArray{QJsonObject{{u"fix"_s, u"drop --toolsets mutate"_s}}}}}));
        QVERIFY(stdio.waitForOutput("fabric-broker: Fix: drop --toolsets mutate.\n"
                                    "fabric-broker: the app serves read only\n",
                                    2));
        // Still running until the client has the instance's error for its initialize.
        QTest::qWait(0);
        QCOMPARE(finished.size(), 0);
        const QByteArray error = "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32600}}\n";
        m_session->write(error);
        QVERIFY(stdio.waitForOutput(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        QCOMPARE(finished.first().first().toInt(), StdioRelay::kRefusedExitCode);
    }
};

QTEST_MAIN(TstStdioRelay)
#include "tst_stdiorelay.moc"
