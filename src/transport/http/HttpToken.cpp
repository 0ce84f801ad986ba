#include "transport/http/HttpToken.h"

#include "core/TokenDigest.h"
#include "transport/socket/SocketDirectory.h"

#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::transport {

namespace {

constexpr qsizetype kTokenBytes = 32;

bool validToken(const QByteArray &token)
{
    if (token.size() < 32 || token.size() > 256)
        return false;
    for (const char c : token) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok)
            return false;
    }
    return true;
}

QString errnoText()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

// The token's directory: the /tmp fallback goes through the socket's private-directory check
// (created 0700, refused when it is not ours and private), as the socket does; any other
// directory must exist or is created 0700.
bool prepareDirectory(const QString &dir, QString *error)
{
    const SocketDirectory runtime = SocketDirectory::resolve();
    QString why;
    if (dir == runtime.path() && runtime.source() == SocketDirectory::Source::Fallback) {
        if (!SocketDirectory::checkPrivateDirectory(dir, ::getuid(), true, &why)) {
            if (error)
                *error = why;
            return false;
        }
        return true;
    }
    if (QFileInfo(dir).isDir())
        return true;
    const QString parent = QFileInfo(dir).absolutePath();
    if (parent != dir && !prepareDirectory(parent, error))
        return false;
    if (::mkdir(QFile::encodeName(dir).constData(), 0700) != 0 && errno != EEXIST) {
        if (error)
            *error = u"cannot create the directory %1: %2"_s.arg(dir, errnoText());
        return false;
    }
    return true;
}

// A new token, written to a fresh file (O_EXCL, 0600, never through a symlink) that replaces
// the old one by rename, so a reader never sees half a token and nobody can plant the file.
QByteArray store(const QString &path, QString *error)
{
    const QByteArray token = HttpToken::generate();
    const QString dir = QFileInfo(path).absolutePath();
    if (!prepareDirectory(dir, error))
        return {};
    const QByteArray target = QFile::encodeName(path);
    const QByteArray temp =
        target + ".new-" + QByteArray::number(QRandomGenerator::system()->generate64(), 16);
    const int fd =
        ::open(temp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (error)
            *error = u"cannot write %1: %2"_s.arg(path, errnoText());
        return {};
    }
    const QByteArray line = token + '\n';
    const bool written = ::write(fd, line.constData(), static_cast<size_t>(line.size())) ==
                             static_cast<ssize_t>(line.size()) &&
                         ::fsync(fd) == 0;
    ::close(fd);
    if (!written || ::rename(temp.constData(), target.constData()) != 0) {
        if (error)
            *error = u"cannot write %1: %2"_s.arg(path, errnoText());
        ::unlink(temp.constData());
        return {};
    }
    return token;
}

// The token stored at path: opened without following a symlink, then checked on the
// descriptor itself (no race between a check by path and the open). Empty when the file is
// missing (*missing), not this user's private regular file (*error says so) or damaged (no
// error).
QByteArray readPrivate(const QString &path, bool *missing, QString *error)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        *missing = true;
        return {};
    }
    struct stat st = {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::getuid() ||
        (st.st_mode & 077) != 0) {
        if (fd >= 0)
            ::close(fd);
        if (error)
            *error = u"%1 is not a private file of this user (expected mode 0600); remove it to "
                     "get a new token"_s.arg(path);
        return {};
    }
    char buffer[512];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    ::close(fd);
    const QByteArray token = QByteArray(buffer, n > 0 ? static_cast<qsizetype>(n) : 0).trimmed();
    return validToken(token) ? token : QByteArray();
}

} // namespace

QString HttpToken::fileName()
{
    return u"fabric-broker-http.token"_s;
}

QString HttpToken::defaultPath()
{
    return SocketDirectory::resolve().path() + u'/' + fileName();
}

QByteArray HttpToken::generate()
{
    QByteArray raw(kTokenBytes, Qt::Uninitialized);
    QRandomGenerator::system()->generate(raw.begin(), raw.end());
    return raw.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

QByteArray HttpToken::loadOrCreate(const QString &path, QString *error)
{
    bool missing = false;
    QString refused;
    const QByteArray token = readPrivate(path, &missing, &refused);
    if (!refused.isEmpty()) {
        if (error)
            *error = refused;
        return {};
    }
    if (missing || token.isEmpty())
        return store(path, error); // missing, or damaged: replaced
    return token;
}

QByteArray HttpToken::read(const QString &path, QString *error)
{
    const QString dir = QFileInfo(path).absolutePath();
    QString why;
    if (!SocketDirectory::checkPrivateDirectory(dir, ::getuid(), false, &why)) {
        if (error)
            *error = why;
        return {};
    }
    bool missing = false;
    QString reason;
    const QByteArray token = readPrivate(path, &missing, &reason);
    if (token.isEmpty() && error) {
        *error = missing
                     ? u"no token at %1: is Fabric Broker running with MCP over HTTP?"_s.arg(path)
                 : reason.isEmpty() ? u"%1 does not hold a valid token"_s.arg(path)
                                    : reason;
    }
    return token;
}

QByteArray HttpToken::rotate(const QString &path, QString *error)
{
    return store(path, error);
}

bool HttpToken::authorizationMatches(const QByteArray &token, const QByteArray &authorization)
{
    const QByteArray value = authorization.trimmed();
    if (token.isEmpty() || value.size() < 7 || value.left(7).toLower() != "bearer ")
        return false;
    return TokenDigest::equalSecrets(token, value.mid(7).trimmed()); // constant time
}

} // namespace fb::transport
