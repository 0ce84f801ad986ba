// A local process of another user must not reach the broker's socket. Needs root (to create a
// throwaway system user and switch to it in a forked child); skips with a message otherwise.
//  1. as deployed: the socket (QLocalServer::UserAccessOption) in a private directory — the
//     other user's connect() is refused by the kernel (permissions);
//  2. defence in depth: directory and socket opened up to everyone (chmod) — the kernel lets
//     the connection through, and the server's SO_PEERCRED check rejects it before a byte of
//     MCP is read or written.
#include "TestEnvironment.h"
#include "mcp/McpServer.h"
#include "mcp/ToolRegistry.h"
#include "transport/socket/LocalSocketServer.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace fb::mcp;
using namespace fb::transport;

namespace {

const char *const kUser = "fbtestuser";

enum ChildResult {
    Refused = 10,          // connect() failed with EACCES/EPERM
    Answered = 11,         // the server answered MCP: the other user got in
    ClosedUnanswered = 12, // connected, then closed by the server without an answer
    OtherError = 13,
    PrivDropFailed = 14,
};

// In a forked child: become uid/gid, connect, send initialize, wait up to 5 s for anything.
// Only async-signal-safe calls between fork and _exit.
[[noreturn]] void childConnect(const char *path, uid_t uid, gid_t gid)
{
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0 ||
        ::getuid() != uid)
        ::_exit(PrivDropFailed);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
        ::_exit(errno == EACCES || errno == EPERM ? Refused : OtherError);
    static const char init[] =
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"intruder\",\"version\":"
        "\"1\"}}}\n";
    (void)::send(fd, init, sizeof init - 1, MSG_NOSIGNAL);
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0)
        ::_exit(OtherError); // neither answered nor closed within 5 s
    char buf[256];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    ::_exit(n > 0 ? Answered : ClosedUnanswered);
}

int runAsOtherUser(const QString &socketPath, uid_t uid, gid_t gid)
{
    const QByteArray path = QFile::encodeName(socketPath);
    const pid_t pid = ::fork();
    if (pid == 0)
        childConnect(path.constData(), uid, gid);
    int status = 0;
    // Keep the server's event loop running while the child talks to it.
    if (!QTest::qWaitFor([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, 15000)) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

class TestSocketSecondUser : public QObject {
    Q_OBJECT
    uid_t m_uid = 0;
    gid_t m_gid = 0;

private slots:
    void init() { fbtest::failOnWarnings({QStringLiteral("rejecting a connection: ")}); }

    void initTestCase()
    {
        if (::getuid() != 0)
            QSKIP("not running as root: cannot create and switch to a second user "
                  "(run this test as root to check cross-user socket refusal)");
        if (!::getpwnam(kUser)) {
            const int rc = QProcess::execute(
                "useradd", {"--system", "--no-create-home", "--shell", "/usr/sbin/nologin", kUser});
            if (rc != 0)
                QSKIP("useradd fbtestuser failed: cannot create the second user");
        }
        const passwd *pw = ::getpwnam(kUser);
        QVERIFY(pw);
        m_uid = pw->pw_uid;
        m_gid = pw->pw_gid;
        QVERIFY(m_uid != 0);
    }

    void otherUserIsRefusedByPermissions()
    {
        QTemporaryDir dir; // 0700, owned by root
        QVERIFY(dir.isValid());
        ToolRegistry registry;
        McpServer server(&registry, {});
        LocalSocketServer lss(&server);
        QString error;
        QVERIFY2(lss.listen(dir.path() + "/fb.sock", &error), qPrintable(error));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(lss.socketPath()).constData(), &st), 0);
        QCOMPARE(int(st.st_mode & 077), 0); // socket reachable by its owner only
        QSignalSpy opened(&server, &McpServer::sessionOpened);
        QCOMPARE(runAsOtherUser(lss.socketPath(), m_uid, m_gid), int(Refused));
        QCOMPARE(opened.count(), 0);
    }

    void otherUserIsRejectedByPeerCredentials()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ToolRegistry registry;
        McpServer server(&registry, {});
        LocalSocketServer lss(&server);
        QString error;
        QVERIFY2(lss.listen(dir.path() + "/fb.sock", &error), qPrintable(error));
        // Simulate a misconfiguration: everyone may traverse the directory and write the socket.
        QCOMPARE(::chmod(QFile::encodeName(dir.path()).constData(), 0755), 0);
        QCOMPARE(::chmod(QFile::encodeName(lss.socketPath()).constData(), 0777), 0);
        QSignalSpy rejected(&lss, &LocalSocketServer::connectionRejected);
        QSignalSpy opened(&server, &McpServer::sessionOpened);
        QCOMPARE(runAsOtherUser(lss.socketPath(), m_uid, m_gid), int(ClosedUnanswered));
        QCOMPARE(rejected.count(), 1);
        QVERIFY(rejected.at(0).at(0).toString().contains(QString::number(m_uid)));
        QCOMPARE(opened.count(), 0);
        QCOMPARE(lss.rejectedConnections(), 1);
    }
};

QTEST_GUILESS_MAIN(TestSocketSecondUser)
#include "tst_socket_second_user.moc"
