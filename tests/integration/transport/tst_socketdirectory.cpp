// SocketDirectory: the socket location found from the uid alone, the private fallback, and the
// checks a client makes on the listening side. Every bad case is created for real; the cases
// that need another owner use root (chown to nobody, a listener that drops to nobody) and skip
// with a message otherwise.
#include "TestEnvironment.h"
#include "transport/socket/SocketDirectory.h"

#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTemporaryDir>
#include <QTest>

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

using namespace fb::transport;

namespace {

uid_t nobodyUid()
{
    const passwd *pw = ::getpwnam("nobody");
    return pw ? pw->pw_uid : 65534;
}

gid_t nobodyGid()
{
    const passwd *pw = ::getpwnam("nobody");
    return pw ? pw->pw_gid : 65534;
}

mode_t modeOf(const QString &path)
{
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_mode & 07777;
}

uid_t ownerOf(const QString &path)
{
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
        return uid_t(-1);
    return st.st_uid;
}

bool makeDir(const QString &path, mode_t mode)
{
    const QByteArray p = QFile::encodeName(path);
    return ::mkdir(p.constData(), 0700) == 0 && ::chmod(p.constData(), mode) == 0;
}

// A socket file that nobody listens on.
bool bindSocketFile(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const QByteArray p = QFile::encodeName(path);
    std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

} // namespace

class TestSocketDirectory : public QObject {
    Q_OBJECT
    QTemporaryDir m_scratch{QDir::tempPath() + "/fbsockdir-XXXXXX"};
    uid_t m_uid = ::getuid();
    QString m_runUser;  // a scratch stand-in for /run/user
    QString m_fallback; // a scratch stand-in for /tmp

private slots:
    void init() { fbtest::failOnWarnings(); }
    void initTestCase()
    {
        QVERIFY(m_scratch.isValid());
        m_runUser = m_scratch.filePath("run-user");
        m_fallback = m_scratch.filePath("tmp");
        QVERIFY(QDir().mkpath(m_runUser));
        QVERIFY(QDir().mkpath(m_fallback));
    }

    void cleanup()
    {
        // Each case builds its own /run/user/<uid> stand-in.
        QDir(m_runUser + "/" + QString::number(m_uid)).removeRecursively();
        ::unlink(QFile::encodeName(m_runUser + "/" + QString::number(m_uid)).constData());
    }

    void xdgRuntimeDirWinsWhenItExists()
    {
        const SocketDirectory d =
            SocketDirectory::resolve(m_scratch.path() + "/", m_uid, m_runUser, m_fallback);
        QCOMPARE(d.path(), QDir::cleanPath(m_scratch.path()));
        QCOMPARE(d.source(), SocketDirectory::Source::XdgRuntimeDir);
        // Unusable values are ignored as if unset.
        QCOMPARE(SocketDirectory::resolve("relative/dir", m_uid, m_runUser, m_fallback).source(),
                 SocketDirectory::Source::Fallback);
        QCOMPARE(
            SocketDirectory::resolve(m_scratch.filePath("missing"), m_uid, m_runUser, m_fallback)
                .source(),
            SocketDirectory::Source::Fallback);
    }

    void runUserFromTheUidAlone()
    {
        const QString runUser = m_runUser + "/" + QString::number(m_uid);
        QVERIFY(makeDir(runUser, 0700));
        const SocketDirectory d = SocketDirectory::resolve(QString(), m_uid, m_runUser, m_fallback);
        QCOMPARE(d.path(), runUser);
        QCOMPARE(d.source(), SocketDirectory::Source::RunUser);
        // The real default roots give the same answer as the environment-reading overload.
        qunsetenv("XDG_RUNTIME_DIR");
        QCOMPARE(SocketDirectory::resolve().path(),
                 SocketDirectory::resolve(QString(), m_uid).path());
    }

    void runUserWithGroupOrWorldAccessIsSkipped()
    {
        const QString runUser = m_runUser + "/" + QString::number(m_uid);
        for (mode_t mode : {0750, 0705, 0755, 0777, 0701}) {
            QVERIFY(makeDir(runUser, mode));
            const SocketDirectory d =
                SocketDirectory::resolve(QString(), m_uid, m_runUser, m_fallback);
            QCOMPARE(d.source(), SocketDirectory::Source::Fallback);
            QCOMPARE(d.path(), m_fallback + "/fabric-broker-" + QString::number(m_uid));
            QCOMPARE(modeOf(runUser), mode); // looked at, never changed
            QVERIFY(QDir(runUser).removeRecursively());
        }
    }

    void runUserThatIsASymlinkIsSkipped()
    {
        const QString target = m_scratch.filePath("elsewhere");
        QVERIFY(makeDir(target, 0700));
        const QString runUser = m_runUser + "/" + QString::number(m_uid);
        QVERIFY(QFile::link(target, runUser));
        QCOMPARE(SocketDirectory::resolve(QString(), m_uid, m_runUser, m_fallback).source(),
                 SocketDirectory::Source::Fallback);
    }

    void runUserOfAnotherOwnerIsSkipped()
    {
        const QString runUser = m_runUser + "/" + QString::number(m_uid);
        QVERIFY(makeDir(runUser, 0700));
        // Without root: the same directory asked for on behalf of another uid.
        QCOMPARE(SocketDirectory::resolve(QString(), m_uid + 1, m_runUser, m_fallback).source(),
                 SocketDirectory::Source::Fallback);
        if (m_uid != 0)
            QSKIP("not root: cannot chown a directory to nobody");
        QCOMPARE(::chown(QFile::encodeName(runUser).constData(), nobodyUid(), nobodyGid()), 0);
        QCOMPARE(SocketDirectory::resolve(QString(), m_uid, m_runUser, m_fallback).source(),
                 SocketDirectory::Source::Fallback);
    }

    void fallbackIsCreatedPrivate()
    {
        const QString dir = m_fallback + "/created";
        QString error;
        QVERIFY(!SocketDirectory::checkPrivateDirectory(dir, m_uid, false, &error));
        QVERIFY2(error.contains("does not exist"), qPrintable(error));
        QVERIFY(!QFileInfo::exists(dir)); // a client only looks
        ::umask(0);                       // even with a permissive umask
        const bool ok = SocketDirectory::checkPrivateDirectory(dir, m_uid, true, &error);
        ::umask(022);
        QVERIFY2(ok, qPrintable(error));
        QCOMPARE(modeOf(dir), mode_t(0700));
        QCOMPARE(ownerOf(dir), m_uid);
        QVERIFY2(SocketDirectory::checkPrivateDirectory(dir, m_uid, true, &error),
                 qPrintable(error)); // an existing private one is used as it is
    }

    void fallbackWithGroupOrWorldAccessIsRefusedNotChmodded()
    {
        for (mode_t mode : {0750, 0770, 0705, 0755, 0777, 01777}) {
            const QString dir = m_fallback + "/open-" + QString::number(mode, 8);
            QVERIFY(makeDir(dir, mode));
            QString error;
            QVERIFY(!SocketDirectory::checkPrivateDirectory(dir, m_uid, true, &error));
            QVERIFY2(error.contains("lets other users in"), qPrintable(error));
            QVERIFY2(error.contains(QString::number(mode, 8)), qPrintable(error));
            QVERIFY2(error.contains(dir), qPrintable(error));
            QCOMPARE(modeOf(dir), mode); // never chmod'ed behind the user's back
        }
    }

    void fallbackThatIsASymlinkIsRefused()
    {
        const QString target = m_scratch.filePath("private-target");
        QVERIFY(makeDir(target, 0700));
        const QString dir = m_fallback + "/link";
        QVERIFY(QFile::link(target, dir));
        QString error;
        QVERIFY(!SocketDirectory::checkPrivateDirectory(dir, m_uid, true, &error));
        QVERIFY2(error.contains("symbolic link"), qPrintable(error));
        // A dangling link is refused the same way, never created through.
        const QString dangling = m_fallback + "/dangling";
        QVERIFY(QFile::link(m_scratch.filePath("nothing-here"), dangling));
        QVERIFY(!SocketDirectory::checkPrivateDirectory(dangling, m_uid, true, &error));
        QVERIFY2(error.contains("symbolic link"), qPrintable(error));
        QVERIFY(!QFileInfo::exists(m_scratch.filePath("nothing-here")));
    }

    void fallbackThatIsAFileIsRefused()
    {
        const QString path = m_fallback + "/file";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QString error;
        QVERIFY(!SocketDirectory::checkPrivateDirectory(path, m_uid, true, &error));
        QVERIFY2(error.contains("not a directory"), qPrintable(error));
    }

    void fallbackOfAnotherOwnerIsRefused()
    {
        const QString dir = m_fallback + "/theirs";
        QVERIFY(makeDir(dir, 0700));
        QString error;
        QVERIFY(!SocketDirectory::checkPrivateDirectory(dir, m_uid + 1, true, &error));
        QVERIFY2(error.contains("belongs to uid"), qPrintable(error));
        if (m_uid != 0)
            QSKIP("not root: cannot chown a directory to nobody");
        QCOMPARE(::chown(QFile::encodeName(dir).constData(), nobodyUid(), nobodyGid()), 0);
        QVERIFY(!SocketDirectory::checkPrivateDirectory(dir, m_uid, true, &error));
        QVERIFY2(
            error.contains(QString("belongs to uid %1, not to uid %2").arg(nobodyUid()).arg(m_uid)),
            qPrintable(error));
        QCOMPARE(ownerOf(dir), nobodyUid()); // untouched
        QCOMPARE(modeOf(dir), mode_t(0700));
    }

    void socketFileChecks()
    {
        QString why;
        const QString absent = m_scratch.filePath("absent.sock");
        QCOMPARE(checkSocketFile(absent, m_uid, &why), ListenerCheck::Absent);

        const QString file = m_scratch.filePath("regular.sock");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QCOMPARE(checkSocketFile(file, m_uid, &why), ListenerCheck::Refused);
        QVERIFY2(why.contains("is not a socket"), qPrintable(why));

        const QString sock = m_scratch.filePath("mine.sock");
        QVERIFY(bindSocketFile(sock));
        QCOMPARE(checkSocketFile(sock, m_uid, &why), ListenerCheck::Trusted);
        QCOMPARE(checkSocketFile(sock, m_uid + 1, &why), ListenerCheck::Refused);

        const QString link = m_scratch.filePath("link.sock");
        QVERIFY(QFile::link(sock, link));
        QCOMPARE(checkSocketFile(link, m_uid, &why), ListenerCheck::Refused);
        QVERIFY2(why.contains("is not a socket"), qPrintable(why));
    }

    void socketOwnedByNobodyIsRefused()
    {
        if (m_uid != 0)
            QSKIP("not root: cannot chown a socket to nobody");
        const QString sock = m_scratch.filePath("nobody.sock");
        QVERIFY(bindSocketFile(sock));
        QCOMPARE(::chown(QFile::encodeName(sock).constData(), nobodyUid(), nobodyGid()), 0);
        QString why;
        QCOMPARE(checkSocketFile(sock, m_uid, &why), ListenerCheck::Refused);
        QVERIFY2(why.contains(QString("belongs to uid %1").arg(nobodyUid())), qPrintable(why));
    }

    void peerOfOurOwnListenerIsTrusted()
    {
        QLocalServer server;
        QVERIFY(server.listen(m_scratch.filePath("own.sock")));
        QLocalSocket client;
        client.connectToServer(server.fullServerName());
        QVERIFY(client.waitForConnected(2000));
        QString why;
        QVERIFY2(peerRunsAs(client.socketDescriptor(), m_uid, &why), qPrintable(why));
        QVERIFY(!peerRunsAs(client.socketDescriptor(), m_uid + 1, &why));
        QVERIFY2(why.contains(QString("runs as uid %1").arg(m_uid)), qPrintable(why));
        QVERIFY(!peerRunsAs(-1, m_uid, &why));
    }

    void peerRunningAsNobodyIsRefused()
    {
        if (m_uid != 0)
            QSKIP("not root: cannot start a listener as nobody");
        // The socket file is ours (bound as root), but the process that listens on it dropped to
        // nobody: only SO_PEERCRED can tell.
        const QString path = m_scratch.filePath("impostor.sock");
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        const QByteArray p = QFile::encodeName(path);
        std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
        QCOMPARE(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
        int ready[2];
        QCOMPARE(::pipe(ready), 0);
        const uid_t nobody = nobodyUid();
        const gid_t nobodyG = nobodyGid();
        const pid_t child = ::fork();
        if (child == 0) {
            if (::setgroups(0, nullptr) != 0 || ::setgid(nobodyG) != 0 || ::setuid(nobody) != 0)
                ::_exit(20);
            if (::listen(fd, 4) != 0)
                ::_exit(21);
            (void)::write(ready[1], "r", 1);
            const int c = ::accept(fd, nullptr, nullptr);
            pollfd pf{c, POLLIN, 0};
            char buf[16];
            // Anything the client writes before closing is a failure of the client.
            const bool gotBytes = ::poll(&pf, 1, 3000) > 0 && ::recv(c, buf, sizeof buf, 0) > 0;
            ::_exit(gotBytes ? 1 : 0);
        }
        ::close(fd);
        char r = 0;
        QCOMPARE(::read(ready[0], &r, 1), ssize_t(1));
        ::close(ready[0]);
        ::close(ready[1]);
        QString why;
        QCOMPARE(checkSocketFile(path, m_uid, &why), ListenerCheck::Trusted); // the file is ours
        QLocalSocket client;
        client.connectToServer(path);
        QVERIFY(client.waitForConnected(2000));
        QVERIFY(!peerRunsAs(client.socketDescriptor(), m_uid, &why));
        QVERIFY2(why.contains(QString("runs as uid %1, not as uid 0").arg(nobody)),
                 qPrintable(why));
        client.abort();
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }
};

QTEST_GUILESS_MAIN(TestSocketDirectory)
#include "tst_socketdirectory.moc"
