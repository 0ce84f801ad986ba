// LocalSocketServer: per-user socket, sessions over QLocalSocket, slow readers, lock file.
#include "RawSocket.h"
#include "SocketClient.h"
#include "TestEnvironment.h"
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"
#include "transport/socket/LocalSocketServer.h"
#include "transport/socket/SocketDirectory.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QLocalServer>
#include <QLockFile>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace fb::mcp;
using namespace fb::transport;
using fbtest::rawConnect;
using fbtest::rawWrite;
using fbtest::SocketClient;

namespace {

void registerTools(ToolRegistry &registry, QPointer<ToolCall> *slow)
{
    ToolDefinition echo;
    echo.name = "echo";
    echo.description = QString(8000, 'd'); // makes tools/list responses big
    echo.toolset = "read";
    echo.handler = [](ToolCall *c) { c->finishStructured(c->arguments(), QString()); };
    registry.registerTool(echo);
    ToolDefinition s;
    s.name = "slow";
    s.description = "slow";
    s.toolset = "read";
    s.handler = [slow](ToolCall *c) { *slow = c; };
    registry.registerTool(s);
}

// Leaves a socket file that nobody listens on.
void makeStaleSocketFile(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const QByteArray p = QFile::encodeName(path);
    std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
    QVERIFY(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
    ::close(fd);
    QVERIFY(QFileInfo::exists(path));
}

} // namespace

class TestLocalSocketServer : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings(
            {QStringLiteral("session \\d+ has \\d+ bytes waiting to be written "),
             QStringLiteral("refusing a connection( \\(\\w+\\))?: already \\d+ sessions "),
             QStringLiteral("session \\d+ notifications/initialized before initialize, ignored$"),
             QStringLiteral("session \\d+ refused: ")});
    }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_dir.path()));
    }

    void resolveSocketPath()
    {
        const QString dir = QDir::cleanPath(m_dir.path());
        QCOMPARE(LocalSocketServer::runtimeDirectory(), dir);
        QCOMPARE(LocalSocketServer::resolveSocketPath(QString()), dir + "/fabric-broker.sock");
        QCOMPARE(LocalSocketServer::resolveSocketPath("other.sock"), dir + "/other.sock");
        QCOMPARE(LocalSocketServer::resolveSocketPath("/run/x/y.sock"), QString("/run/x/y.sock"));
        QCOMPARE(LocalSocketServer::resolveSocketPath("sub/y.sock"),
                 QDir::current().absoluteFilePath("sub/y.sock"));
        qunsetenv("XDG_RUNTIME_DIR");
        // Without XDG_RUNTIME_DIR: /run/user/<uid> when usable, else the fallback (the rule
        // itself is tested in tst_socketdirectory).
        QCOMPARE(LocalSocketServer::resolveSocketPath(QString()),
                 SocketDirectory::resolve(QString(), ::getuid()).path() + "/fabric-broker.sock");
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_dir.path()));
    }

    void fallbackDirectoryIsPrivate()
    {
        qunsetenv("XDG_RUNTIME_DIR");
        ToolRegistry registry;
        McpServer server(&registry, {});
        LocalSocketServer lss(&server);
        QString error;
        const QString name = QString("tst-%1.sock").arg(::getpid());
        const bool ok = lss.listen(name, &error);
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_dir.path()));
        QVERIFY2(ok, qPrintable(error));
        // /run/user/<uid> when it exists and is private (another test may have made it), else
        // the fallback; either way a private directory.
        const QFileInfo dir(QFileInfo(lss.socketPath()).absolutePath());
        QVERIFY(dir.absoluteFilePath() == QString("/tmp/fabric-broker-%1").arg(::getuid()) ||
                dir.absoluteFilePath() == QString("/run/user/%1").arg(::getuid()));
        QVERIFY(dir.isDir());
        QCOMPARE(dir.permissions() & (QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup |
                                      QFile::ReadOther | QFile::WriteOther | QFile::ExeOther),
                 QFile::Permissions());
        lss.close();
        QVERIFY(!QFileInfo::exists(dir.filePath() + "/" + name));
    }

    void twoConcurrentSessions()
    {
        ToolRegistry registry;
        QPointer<ToolCall> slow;
        registerTools(registry, &slow);
        McpServer server(&registry, {});
        LocalSocketServer lss(&server);
        QString error;
        QVERIFY2(lss.listen("two.sock", &error), qPrintable(error));
        QCOMPARE(lss.socketPath(), m_dir.path() + "/two.sock");
        QVERIFY(QFileInfo::exists(lss.socketPath()));
        QVERIFY(QFileInfo::exists(lss.socketPath() + ".lock"));
        // Only the owner may access the socket.
        QCOMPARE(QFileInfo(lss.socketPath()).permissions() &
                     (QFile::ReadOther | QFile::WriteOther | QFile::ReadGroup | QFile::WriteGroup),
                 QFile::Permissions());

        SocketClient a, b;
        QVERIFY(a.connectTo(lss.socketPath()));
        QVERIFY(b.connectTo(lss.socketPath()));
        QVERIFY(a.initialize());
        QVERIFY(b.initialize());
        QTRY_COMPARE(server.sessionCount(), 2);
        for (const ClientInfo &c : server.sessions())
            QCOMPARE(c.transport, QString("socket"));
        a.request(1, "tools/call", QJsonObject{{"name", "slow"}});
        QTRY_VERIFY(slow);
        // b is served while a's call is in flight.
        b.request(1, "tools/call",
                  QJsonObject{{"name", "echo"}, {"arguments", QJsonObject{{"v", 2}}}});
        const QJsonObject rb = b.response(1);
        QCOMPARE(rb.value("result").toObject().value("structuredContent").toObject().value("v"),
                 QJsonValue(2));
        QCOMPARE(a.response(1, 50), QJsonObject());
        slow->finishStructured(QJsonObject{{"who", "a"}}, "a");
        QVERIFY(a.response(1).contains("result"));

        QSignalSpy closed(&server, &McpServer::sessionClosed);
        a.socket.disconnectFromServer();
        QTRY_COMPARE(closed.count(), 1);
        QCOMPARE(server.sessionCount(), 1);
        b.request(2, "ping");
        QVERIFY(b.response(2).contains("result"));
        lss.close();
        QVERIFY(!QFileInfo::exists(m_dir.path() + "/two.sock"));
        QVERIFY(!QFileInfo::exists(m_dir.path() + "/two.sock.lock"));
    }

    void clientThatNeverReadsIsDroppedWithoutBlockingOthers()
    {
        ToolRegistry registry;
        QPointer<ToolCall> slow;
        registerTools(registry, &slow);
        ServerOptions options;
        options.maxPendingWriteBytes = 256 * 1024;
        McpServer server(&registry, options);
        LocalSocketServer lss(&server);
        QString error;
        QVERIFY2(lss.listen("slowreader.sock", &error), qPrintable(error));
        QSignalSpy closed(&server, &McpServer::sessionClosed);

        SocketClient good;
        QVERIFY(good.connectTo(lss.socketPath()));
        QVERIFY(good.initialize());

        const int fd = rawConnect(lss.socketPath());
        QVERIFY(fd >= 0);
        QByteArray flood = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                           "\"protocolVersion\":\"2025-06-18\"}}\n";
        for (int i = 1; i <= 400; ++i) // ~3.2 MB of tools/list answers
            flood += "{\"jsonrpc\":\"2.0\",\"id\":" + QByteArray::number(i) +
                     ",\"method\":\"tools/list\"}\n";
        QVERIFY(rawWrite(fd, flood));
        // Meanwhile the good client is answered promptly.
        for (int i = 1; i <= 20; ++i) {
            QElapsedTimer t;
            t.start();
            good.request(i, "ping");
            QVERIFY(good.response(i, 2000).contains("result"));
            QVERIFY(t.elapsed() < 1000);
        }
        QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, 5000);
        QCOMPARE(closed.at(0).at(0).value<ClientInfo>().name, QString());
        QCOMPARE(server.sessionCount(), 1);
        good.request(100, "tools/list");
        QVERIFY(good.response(100).value("result").toObject().contains("tools"));
        ::close(fd);
    }

    void maxSessions()
    {
        ToolRegistry registry;
        ServerOptions options;
        options.maxSessions = 1;
        McpServer server(&registry, options);
        LocalSocketServer lss(&server);
        QVERIFY(lss.listen("max.sock"));
        QSignalSpy rejected(&lss, &LocalSocketServer::connectionRejected);
        SocketClient a, b;
        QVERIFY(a.connectTo(lss.socketPath()));
        QVERIFY(a.initialize());
        QVERIFY(b.connectTo(lss.socketPath()));
        QTRY_COMPARE(rejected.count(), 1);
        QTRY_COMPARE(b.socket.state(), QLocalSocket::UnconnectedState);
        a.request(1, "ping");
        QVERIFY(a.response(1).contains("result"));
    }

    void secondInstanceGetsClearError()
    {
        ToolRegistry registry;
        McpServer server(&registry, {});
        LocalSocketServer first(&server);
        QVERIFY(first.listen("double.sock"));
        LocalSocketServer second(&server);
        QString error;
        QVERIFY(!second.listen("double.sock", &error));
        QVERIFY2(error.contains("already serving"), qPrintable(error));
        QVERIFY2(error.contains(QString::number(QCoreApplication::applicationPid())),
                 qPrintable(error));
        // The first instance is untouched.
        SocketClient c;
        QVERIFY(c.connectTo(first.socketPath()));
        QVERIFY(c.initialize());
    }

    void staleSocketAndLockAreRecovered()
    {
        const QString path = m_dir.path() + "/stale.sock";
        // A previous instance died: its socket file and its lock file remain.
        makeStaleSocketFile(path);
        const pid_t child = ::fork();
        if (child == 0) {
            QLockFile lock(path + ".lock");
            const bool locked = lock.tryLock(0);
            ::_exit(locked ? 0 : 1); // no destructors: the lock file stays
        }
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QCOMPARE(WEXITSTATUS(status), 0);
        QVERIFY(QFileInfo::exists(path + ".lock"));
        {
            QLocalSocket probe;
            probe.connectToServer(path);
            QVERIFY(!probe.waitForConnected(200)); // nobody behind the stale socket
        }
        ToolRegistry registry;
        McpServer server(&registry, {});
        LocalSocketServer lss(&server);
        QString error;
        QVERIFY2(lss.listen(path, &error), qPrintable(error));
        SocketClient c;
        QVERIFY(c.connectTo(path));
        QVERIFY(c.initialize());
    }

    void staleSocketWithoutLock()
    {
        const QString path = m_dir.path() + "/nolock.sock";
        makeStaleSocketFile(path);
        ToolRegistry registry;
        McpServer server(&registry, {});
        LocalSocketServer lss(&server);
        QString error;
        QVERIFY2(lss.listen(path, &error), qPrintable(error));
        SocketClient c;
        QVERIFY(c.connectTo(path));
        QVERIFY(c.initialize());
    }

    void missingDirectoryIsAnError()
    {
        ToolRegistry registry;
        McpServer server(&registry, {});
        LocalSocketServer lss(&server);
        QString error;
        QVERIFY(!lss.listen(m_dir.path() + "/no/such/dir/x.sock", &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!lss.isListening());
    }

    void relayHelloNarrowsOrRefusesOneSession()
    {
        ToolRegistry registry;
        QPointer<ToolCall> slow;
        registerTools(registry, &slow);
        ToolDefinition write;
        write.name = "write";
        write.toolset = "mutate";
        write.handler = [](ToolCall *c) { c->finishStructured(QJsonObject{{"wrote", true}}, {}); };
        registry.registerTool(write);
        registry.setServedToolsets({"read", "mutate"});
        McpServer server(&registry, {});
        QJsonObject seenHello;
        server.setRelayHelloHandler([&seenHello](const QJsonObject &hello) {
            seenHello = hello;
            SessionPolicy p;
            if (hello.value("ask").toString() == "narrow")
                p.toolsets = {"read"};
            else if (hello.value("ask").toString() == "refuse") {
                p.refusal = "refused: because";
                p.refusalData = QJsonObject{{"why", "because"}};
            }
            p.welcome = QJsonObject{{"ok", p.refusal.isEmpty()}};
            return p;
        });
        LocalSocketServer lss(&server);
        QVERIFY(lss.listen("hello.sock"));
        auto sendHello = [](SocketClient &c, const QString &ask) {
            c.socket.write(QJsonDocument(QJsonObject{{RelayHelloKey, QJsonObject{{"ask", ask}}}})
                               .toJson(QJsonDocument::Compact) +
                           '\n');
        };
        auto toolNames = [](SocketClient &c, int id) {
            c.request(id, "tools/list");
            QStringList names;
            for (const QJsonValue &t :
                 c.response(id).value("result").toObject().value("tools").toArray())
                names << t.toObject().value("name").toString();
            return names;
        };

        SocketClient narrow, plain, refused;
        QVERIFY(narrow.connectTo(lss.socketPath()));
        sendHello(narrow, "narrow");
        QVERIFY(narrow.initialize());
        QCOMPARE(seenHello.value("ask").toString(), QString("narrow"));
        QCOMPARE(narrow.messages.first().value(RelayWelcomeKey).toObject().value("ok"),
                 QJsonValue(true)); // the welcome comes first
        QCOMPARE(toolNames(narrow, 1), QStringList({"echo", "slow"}));
        narrow.request(2, "tools/call", QJsonObject{{"name", "write"}});
        QVERIFY(narrow.response(2).value("error").toObject().value("message").toString().contains(
            "Unknown tool: write"));

        QVERIFY(plain.connectTo(lss.socketPath()));
        QVERIFY(plain.initialize()); // no hello: the instance's toolsets
        QCOMPARE(toolNames(plain, 1), QStringList({"echo", "slow", "write"}));
        // A hello that is not the first line is just an invalid message.
        sendHello(plain, "refuse");
        plain.request(2, "tools/call", QJsonObject{{"name", "write"}});
        QCOMPARE(plain.response(2)
                     .value("result")
                     .toObject()
                     .value("structuredContent")
                     .toObject()
                     .value("wrote"),
                 QJsonValue(true));

        QVERIFY(refused.connectTo(lss.socketPath()));
        sendHello(refused, "refuse");
        QVERIFY(!refused.initialize());
        const QJsonObject error = refused.response(0).value("error").toObject();
        QCOMPARE(error.value("code").toInt(), protocol::SessionSettingsConflict);
        QCOMPARE(error.value("message").toString(), QString("refused: because"));
        QCOMPARE(error.value("data").toObject().value("why").toString(), QString("because"));
        refused.request(1, "tools/list");
        QCOMPARE(refused.response(1).value("error").toObject().value("code").toInt(),
                 protocol::SessionSettingsConflict);
        refused.request(2, "ping");
        QVERIFY(refused.response(2).contains("result"));
    }

private:
    QTemporaryDir m_dir{QDir::tempPath() + "/fbmcp-XXXXXX"};
};

QTEST_GUILESS_MAIN(TestLocalSocketServer)
#include "tst_localsocketserver.moc"
