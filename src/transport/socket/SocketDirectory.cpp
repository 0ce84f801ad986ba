#include "transport/socket/SocketDirectory.h"

#include "core/NameTable.h"
#include "transport/socket/SocketRules.h"

#include <QFile>

#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::transport {

namespace {

QString fromStd(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

SocketDirectory SocketDirectory::resolve()
{
    return resolve(qEnvironmentVariable("XDG_RUNTIME_DIR"), ::getuid());
}

SocketDirectory SocketDirectory::resolve(const QString &xdgRuntimeDir, uid_t uid,
                                         const QString &runUserRoot, const QString &fallbackRoot)
{
    const socketrules::Directory found =
        socketrules::resolveDirectory(QFile::encodeName(xdgRuntimeDir).toStdString(), uid,
                                      QFile::encodeName(runUserRoot).toStdString(),
                                      QFile::encodeName(fallbackRoot).toStdString());
    SocketDirectory d;
    d.m_path = QFile::decodeName(QByteArray::fromStdString(found.path));
    d.m_source = static_cast<Source>(found.source);
    static_assert(int(Source::Fallback) == int(socketrules::Source::Fallback));
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
    std::string why;
    if (socketrules::checkPrivateDirectory(QFile::encodeName(dir).toStdString(), uid, create, &why))
        return true;
    *error = fromStd(why);
    return false;
}

ListenerCheck checkSocketFile(const QString &path, uid_t uid, QString *why)
{
    std::string text;
    switch (socketrules::checkSocketFile(QFile::encodeName(path).toStdString(), uid, &text)) {
    case socketrules::Check::Absent:
        return ListenerCheck::Absent;
    case socketrules::Check::Trusted:
        return ListenerCheck::Trusted;
    case socketrules::Check::Refused:
        break;
    }
    *why = fromStd(text);
    return ListenerCheck::Refused;
}

bool peerRunsAs(qintptr fd, uid_t uid, QString *why)
{
    std::string text;
    if (socketrules::peerRunsAs(static_cast<int>(fd), uid, &text))
        return true;
    *why = fromStd(text);
    return false;
}

} // namespace fb::transport
