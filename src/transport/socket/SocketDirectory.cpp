#include "transport/socket/SocketDirectory.h"

#include "core/NameTable.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::transport {

namespace {

QString errnoText()
{
    return QString::fromLocal8Bit(strerror(errno));
}

QString modeText(mode_t mode)
{
    return u"0%1"_s.arg(uint(mode & 07777), 3, 8, QChar(u'0'));
}

} // namespace

SocketDirectory SocketDirectory::resolve()
{
    return resolve(qEnvironmentVariable("XDG_RUNTIME_DIR"), ::getuid());
}

SocketDirectory SocketDirectory::resolve(const QString &xdgRuntimeDir, uid_t uid,
                                         const QString &runUserRoot, const QString &fallbackRoot)
{
    SocketDirectory d;
    if (!xdgRuntimeDir.isEmpty() && QDir::isAbsolutePath(xdgRuntimeDir) &&
        QFileInfo(xdgRuntimeDir).isDir()) {
        d.m_path = QDir::cleanPath(xdgRuntimeDir);
        d.m_source = Source::XdgRuntimeDir;
        return d;
    }
    // What systemd-logind (and elogind) create for a user session; a short client environment
    // loses XDG_RUNTIME_DIR but never the uid.
    const QString runUser = QDir::cleanPath(runUserRoot + u'/' + QString::number(uid));
    struct stat st {};
    if (::lstat(QFile::encodeName(runUser).constData(), &st) == 0 && S_ISDIR(st.st_mode) &&
        st.st_uid == uid && (st.st_mode & 07777) == 0700) {
        d.m_path = runUser;
        d.m_source = Source::RunUser;
        return d;
    }
    d.m_path = QDir::cleanPath(fallbackRoot + u"/fabric-broker-"_s + QString::number(uid));
    d.m_source = Source::Fallback;
    return d;
}

QString SocketDirectory::sourceDescription() const
{
    static constexpr EnumName<Source> kSources[] = {
        {Source::XdgRuntimeDir, u"$XDG_RUNTIME_DIR"},
        {Source::RunUser, u"/run/user/<uid>"},
        {Source::Fallback,
         u"the private fallback (no $XDG_RUNTIME_DIR, no usable /run/user/<uid>)"},
    };
    return nameOf(kSources, m_source);
}

bool SocketDirectory::checkPrivateDirectory(const QString &dir, uid_t uid, bool create,
                                            QString *error)
{
    const QByteArray path = QFile::encodeName(dir);
    if (create && ::mkdir(path.constData(), 0700) != 0 && errno != EEXIST) {
        *error = u"cannot create the socket directory %1: %2"_s.arg(dir, errnoText());
        return false;
    }
    struct stat st {};
    if (::lstat(path.constData(), &st) != 0) {
        *error = u"the socket directory %1 does not exist"_s.arg(dir);
        return false;
    }
    const QString fix = u" Remove it (or fix it) yourself; Fabric Broker never uses or changes "
                        u"it as it is."_s;
    if (S_ISLNK(st.st_mode)) {
        *error = u"refusing the socket directory %1: it is a symbolic link."_s.arg(dir) + fix;
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        *error = u"refusing the socket directory %1: it is not a directory."_s.arg(dir) + fix;
        return false;
    }
    if (st.st_uid != uid) {
        *error =
            u"refusing the socket directory %1: it belongs to uid %2, not to uid %3."_s.arg(dir)
                .arg(st.st_uid)
                .arg(uid) +
            fix;
        return false;
    }
    if ((st.st_mode & 077) != 0) {
        *error = u"refusing the socket directory %1: its mode %2 lets other users in (it must "
                 u"be 0700)."_s.arg(dir, modeText(st.st_mode)) +
                 fix;
        return false;
    }
    return true;
}

ListenerCheck checkSocketFile(const QString &path, uid_t uid, QString *why)
{
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0) {
        if (errno == ENOENT)
            return ListenerCheck::Absent;
        *why = u"cannot inspect %1: %2"_s.arg(path, errnoText());
        return ListenerCheck::Refused;
    }
    if (!S_ISSOCK(st.st_mode)) {
        *why = u"%1 is not a socket"_s.arg(path);
        return ListenerCheck::Refused;
    }
    if (st.st_uid != uid) {
        *why =
            u"the socket %1 belongs to uid %2, not to uid %3"_s.arg(path).arg(st.st_uid).arg(uid);
        return ListenerCheck::Refused;
    }
    return ListenerCheck::Trusted;
}

bool peerRunsAs(qintptr fd, uid_t uid, QString *why)
{
    struct ucred cred {};
    socklen_t len = sizeof cred;
    if (fd < 0 || ::getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        *why = u"cannot read the peer credentials: %1"_s.arg(errnoText());
        return false;
    }
    if (cred.uid != uid) {
        *why = u"the peer process (pid %1) runs as uid %2, not as uid %3"_s.arg(cred.pid)
                   .arg(cred.uid)
                   .arg(uid);
        return false;
    }
    return true;
}

} // namespace fb::transport
