#include "mcp/HttpToken.h"
#include "mcp/SocketDirectory.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSaveFile>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::mcp {

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

QByteArray store(const QString &path, QString *error)
{
    const QByteArray token = HttpToken::generate();
    const QString dir = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = u"cannot create the directory %1"_s.arg(dir);
        return {};
    }
    QSaveFile file(path);
    // QSaveFile writes a temporary file next to the target: make it private before any byte.
    const mode_t old = ::umask(077);
    const bool opened = file.open(QIODevice::WriteOnly);
    ::umask(old);
    if (!opened) {
        if (error)
            *error = u"cannot write %1: %2"_s.arg(path, file.errorString());
        return {};
    }
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(token + '\n');
    if (!file.commit()) {
        if (error)
            *error = u"cannot write %1: %2"_s.arg(path, file.errorString());
        return {};
    }
    return token;
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
    QFile file(path);
    if (!file.exists())
        return store(path, error);
    struct stat st = {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::getuid() || (st.st_mode & 077) != 0) {
        if (error)
            *error = u"%1 is not a private file of this user (expected mode 0600); remove it to "
                     "get a new token"_s.arg(path);
        return {};
    }
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = u"cannot read %1: %2"_s.arg(path, file.errorString());
        return {};
    }
    const QByteArray token = file.read(512).trimmed();
    if (!validToken(token)) {
        file.close();
        return store(path, error); // damaged: replaced
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
    const QByteArray given = value.mid(7).trimmed();
    // Constant time in the token's length: every byte is compared whatever differs first.
    unsigned char diff = given.size() == token.size() ? 0 : 1;
    for (qsizetype i = 0; i < token.size(); ++i) {
        const char g = i < given.size() ? given.at(i) : '\0';
        diff |= static_cast<unsigned char>(g ^ token.at(i));
    }
    return diff == 0;
}

} // namespace fb::mcp
