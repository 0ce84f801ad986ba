// The app's side of the launcher's fd-passing relay (FastRelayWire.h) on a real LocalSocketServer:
// a well-formed hello (NUL marker, exactly two descriptors) reaches the relay handler with the
// peer's command line and environment read from /proc; the handler's session reads and writes
// the passed descriptors directly; "ok", "stderr" and "exit" lines reach the relay. Everything
// else a same-user peer may send instead is dropped without a session and without keeping a
// descriptor: a wrong marker, no descriptors, one, three, a directory, a hello cut short. An
// MCP client (first byte '{') is served as before; connections that send nothing are bounded.
#include "TestEnvironment.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"
#include "mcp/ToolRegistry.h"
#include "transport/socket/FastRelayConnection.h"
#include "transport/socket/FastRelayWire.h"
#include "transport/socket/LocalSocketServer.h"
#include "transport/stdio/StdioDevices.h"

#include <QDir>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace fb::mcp;
using namespace fb::transport;
namespace wire = fb::fastrelay;

namespace {

int openFdCount()
{
    return int(QDir(QStringLiteral("/proc/self/fd"))
                   .entryList(QDir::NoDotAndDotDot | QDir::System | QDir::Files | QDir::Dirs)
                   .size());
}

int connectTo(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const QByteArray p = QFile::encodeName(path);
    std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool sendWithFds(int sock, const QByteArray &data, const QList<int> &fds)
{
    iovec iov{const_cast<char *>(data.constData()), size_t(data.size())};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    QByteArray control;
    if (!fds.isEmpty()) {
        control.resize(qsizetype(CMSG_SPACE(sizeof(int) * size_t(fds.size()))));
        control.fill(0);
        msg.msg_control = control.data();
        msg.msg_controllen = size_t(control.size());
        cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * size_t(fds.size()));
        std::memcpy(CMSG_DATA(c), fds.constData(), sizeof(int) * size_t(fds.size()));
    }
    return ::sendmsg(sock, &msg, MSG_NOSIGNAL) == data.size();
}

// Everything the app writes on the control connection until it closes it (or the timeout).
QByteArray readAll(int sock, int timeoutMs = 5000)
{
    QByteArray out;
    QElapsedTimer t;
    t.start();
    ::fcntl(sock, F_SETFL, ::fcntl(sock, F_GETFL) | O_NONBLOCK);
    while (t.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        char buf[4096];
        const ssize_t n = ::read(sock, buf, sizeof buf);
        if (n == 0)
            return out;
        if (n > 0)
            out.append(buf, n);
        else if (errno != EAGAIN)
            return out;
    }
    return out;
}

const QByteArray kHello(wire::kHello, wire::kHelloSize);

} // namespace

class TestFastRelayConnection : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    ToolRegistry m_registry;
    std::unique_ptr<McpServer> m_server;
    std::unique_ptr<LocalSocketServer> m_local;
    QList<QPointer<FastRelayConnection>> m_relays;
    std::function<void(FastRelayConnection *)> m_onRelay;

    // A dropped hostile hello: no handler call, the connection closed, no descriptor kept, and
    // the server still serves the next relay.
    void expectDropped(const QByteArray &data, const QList<int> &fds)
    {
        const int before = openFdCount();
        const int sock = connectTo(m_local->socketPath());
        QVERIFY(sock >= 0);
        QVERIFY(sendWithFds(sock, data, fds));
        QCOMPARE(readAll(sock), QByteArray()); // closed unanswered
        ::close(sock);
        QTRY_COMPARE(openFdCount(), before);
        QCOMPARE(m_relays.size(), 0);
        QCOMPARE(m_server->sessionCount(), 0);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_dir.path()));
        m_server = std::make_unique<McpServer>(&m_registry, ServerOptions{});
        m_local = std::make_unique<LocalSocketServer>(m_server.get());
        QVERIFY(m_local->listen(QStringLiteral("relay.sock")));
        m_local->setRelayHandler([this](FastRelayConnection *relay) {
            m_relays << relay;
            if (m_onRelay)
                m_onRelay(relay);
        });
    }
    void init()
    {
        fbtest::failOnWarnings({QStringLiteral("dropping a connection: not a well-formed relay "
                                               "hello"),
                                QStringLiteral("refusing a connection \\(socket\\): already")});
        m_relays.clear();
        m_onRelay = {};
    }

    void aRelayIsHandedOverWithItsCommandLineAndItsSessionUsesThePassedPipes()
    {
        int in[2], out[2];
        QVERIFY(::pipe2(in, O_CLOEXEC) == 0 && ::pipe2(out, O_CLOEXEC) == 0);
        m_onRelay = [this](FastRelayConnection *relay) {
            StdioDevices *devices = relay->take();
            Session *session =
                m_server->serve({QStringLiteral("socket"), devices->input(), devices->output()});
            QVERIFY(session);
            relay->setParent(session);
            relay->say(QStringLiteral("hello\x01there"));
            connect(session, &Session::closed, relay, [relay] { relay->finish(7); });
        };
        const int sock = connectTo(m_local->socketPath());
        QVERIFY(sendWithFds(sock, kHello, {in[0], out[1]}));
        ::close(in[0]);
        ::close(out[1]);
        QTRY_COMPARE(m_relays.size(), 1);
        // The launch is this process's own command line and environment, read from /proc.
        QCOMPARE(m_relays.first()->launch().pid, QCoreApplication::applicationPid());
        QCOMPARE(m_relays.first()->launch().arguments, QCoreApplication::arguments());
        // (as this process was started: qputenv does not change /proc/self/environ)
        QVERIFY(!qgetenv("PATH").isEmpty());
        QCOMPARE(m_relays.first()->launch().environment.value(QStringLiteral("PATH")),
                 QString::fromLocal8Bit(qgetenv("PATH")));
        // The session answers on the pipe this process passed.
        const QByteArray ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
        QCOMPARE(::write(in[1], ping.constData(), size_t(ping.size())), ping.size());
        QByteArray answer;
        ::fcntl(out[0], F_SETFL, O_NONBLOCK);
        QTRY_VERIFY([&] {
            char buf[256];
            const ssize_t n = ::read(out[0], buf, sizeof buf);
            if (n > 0)
                answer.append(buf, n);
            return answer.contains('\n');
        }());
        QCOMPARE(answer, QByteArray("{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{}}\n"));
        // End of the client's input ends the session; the relay is told its exit status.
        ::close(in[1]);
        const QByteArray control = readAll(sock);
        QCOMPARE(control, QByteArray("ok\nstderr hello there\nexit 7\n"));
        ::close(sock);
        ::close(out[0]);
        QTRY_COMPARE(m_server->sessionCount(), 0);
    }

    void aRelayThatEndsEndsItsSession()
    {
        int in[2], out[2];
        QVERIFY(::pipe2(in, O_CLOEXEC) == 0 && ::pipe2(out, O_CLOEXEC) == 0);
        QPointer<Session> served;
        m_onRelay = [this, &served](FastRelayConnection *relay) {
            StdioDevices *devices = relay->take();
            served =
                m_server->serve({QStringLiteral("socket"), devices->input(), devices->output()});
            relay->setParent(served);
            connect(relay, &FastRelayConnection::relayGone, served,
                    [s = served.data()] { s->close(QStringLiteral("relay gone")); });
        };
        const int sock = connectTo(m_local->socketPath());
        QVERIFY(sendWithFds(sock, kHello, {in[0], out[1]}));
        QTRY_VERIFY(served);
        ::close(sock); // the launcher was killed
        QTRY_VERIFY(!served);
        QTRY_COMPARE(m_server->sessionCount(), 0);
        for (int fd : {in[0], in[1], out[0], out[1]})
            ::close(fd);
    }

    void withoutAHandlerTheRelayIsToldToRunTheAppItself()
    {
        LocalSocketServer bare(m_server.get());
        QVERIFY(bare.listen(QStringLiteral("bare.sock")));
        int p[2];
        QVERIFY(::pipe2(p, O_CLOEXEC) == 0);
        const int sock = connectTo(bare.socketPath());
        QVERIFY(sendWithFds(sock, kHello, {p[0], p[1]}));
        QCOMPARE(readAll(sock), QByteArray("exec\n"));
        ::close(sock);
        ::close(p[0]);
        ::close(p[1]);
    }

    void hostileHellosAreDroppedWithoutKeepingADescriptor()
    {
        int p[2];
        QVERIFY(::pipe2(p, O_CLOEXEC) == 0);
        QByteArray wrong = kHello;
        wrong[5] = 'X';
        expectDropped(wrong, {p[0], p[1]});           // another marker
        expectDropped(kHello, {});                    // no descriptors
        expectDropped(kHello, {p[0]});                // one
        expectDropped(kHello, {p[0], p[1], p[0]});    // three
        expectDropped(kHello.left(5), {p[0], p[1]});  // cut short
        expectDropped(kHello + "more", {p[0], p[1]}); // more than the hello
        const int dir = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        expectDropped(kHello, {p[0], dir}); // a directory
        ::close(dir);
        ::close(p[0]);
        ::close(p[1]);
    }

    void anMcpClientIsStillServedOnTheSocket()
    {
        const int sock = connectTo(m_local->socketPath());
        const QByteArray ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
        QCOMPARE(::write(sock, ping.constData(), size_t(ping.size())), ping.size());
        QByteArray answer;
        ::fcntl(sock, F_SETFL, O_NONBLOCK);
        QTRY_VERIFY([&] {
            char buf[256];
            const ssize_t n = ::read(sock, buf, sizeof buf);
            if (n > 0)
                answer.append(buf, n);
            return answer.contains('\n');
        }());
        QCOMPARE(answer, QByteArray("{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{}}\n"));
        ::close(sock);
        QTRY_COMPARE(m_server->sessionCount(), 0);
        QCOMPARE(m_relays.size(), 0);
    }

    void silentConnectionsAreBoundedBySessions()
    {
        QSignalSpy rejected(m_local.get(), &LocalSocketServer::connectionRejected);
        const int max = m_server->options().maxSessions;
        QList<int> silent;
        for (int i = 0; i < max; ++i) {
            silent << connectTo(m_local->socketPath());
            QCoreApplication::processEvents(); // accepted (the listen backlog stays short)
        }
        QTRY_COMPARE(rejected.count(), 0);
        const int extra = connectTo(m_local->socketPath());
        QTRY_COMPARE(rejected.count(), 1);
        QCOMPARE(readAll(extra, 2000), QByteArray()); // closed
        ::close(extra);
        for (int fd : silent)
            ::close(fd);
        QTRY_COMPARE(m_server->sessionCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFastRelayConnection)
#include "tst_fastrelayconnection.moc"
