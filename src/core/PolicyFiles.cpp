// Policy files: where they are, whether an administrator file is safe to trust, and the
// loader that merges the administrator layer with the user's file.
#include "core/Policy.h"
#include "core/Sha256.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace fb {

using namespace Qt::StringLiterals;

namespace {
constexpr qint64 MaxPolicyBytes = 64 * 1024;
} // namespace

PolicyPaths PolicyPaths::fromEnvironment()
{
    return fromEnvironment(QProcessEnvironment::systemEnvironment());
}

PolicyPaths PolicyPaths::fromEnvironment(const QProcessEnvironment &env)
{
    PolicyPaths p;
    p.extraAdmin = env.value(u"FABRIC_BROKER_EXTRA_ADMIN_POLICY"_s);
    p.user = env.value(u"FABRIC_BROKER_POLICY"_s);
    if (p.user.isEmpty()) {
        QString config = env.value(u"XDG_CONFIG_HOME"_s);
        if (config.isEmpty() || !QDir::isAbsolutePath(config)) {
            const QString home = env.value(u"HOME"_s);
            config = (QDir::isAbsolutePath(home) ? home : QDir::homePath()) + u"/.config"_s;
        }
        p.user = config + u"/fabric-broker/policy.json"_s;
    }
    return p;
}

QStringList PolicyPaths::all() const
{
    QStringList out;
    for (const QString &path : {system, extraAdmin, user}) {
        if (!path.isEmpty())
            out << path;
    }
    return out;
}

QMap<QString, QString> policyFileDigests(const PolicyPaths &paths)
{
    QMap<QString, QString> out;
    for (const QString &path : paths.all()) {
        QFile f(path);
        QString digest;
        if (f.open(QIODevice::ReadOnly))
            digest = QString::fromLatin1(Sha256::hash(f.read(MaxPolicyBytes + 1)).toHex());
        else if (policyFileExists(path))
            digest = u"unreadable"_s;
        out.insert(path, digest);
    }
    return out;
}

QString adminFileUnsafeReason(const QString &path)
{
    struct stat st {};
    const QByteArray native = QFile::encodeName(path);
    if (::lstat(native.constData(), &st) != 0)
        return u"it cannot be read"_s;
    if (!S_ISREG(st.st_mode))
        return u"it is not a regular file"_s;
    if (st.st_uid != 0)
        return u"it is owned by uid %1, not root"_s.arg(st.st_uid);
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return u"it is writable by its group or by everyone (mode %1)"_s.arg(st.st_mode & 07777, 4,
                                                                             8, QLatin1Char('0'));
    const QByteArray dir = QFile::encodeName(QFileInfo(path).absolutePath());
    struct stat dst {};
    if (::stat(dir.constData(), &dst) != 0 || dst.st_uid != 0 ||
        (dst.st_mode & (S_IWGRP | S_IWOTH)))
        return u"its directory %1 is writable by someone other than root"_s.arg(
            QFileInfo(path).absolutePath());
    return {};
}

QString policyFileStatError(const QString &path)
{
    if (path.isEmpty())
        return {};
    struct stat st {};
    const QByteArray native = QFile::encodeName(path);
    // stat(), not QFileInfo::exists(): that is false on EACCES, ELOOP or a dangling link, and
    // a file the process cannot see must not count as absent.
    if (::stat(native.constData(), &st) == 0 || errno == ENOENT) {
        if (errno == ENOENT) {
            // A dangling symbolic link is there, but points nowhere: not an absent file.
            struct stat lst {};
            if (::lstat(native.constData(), &lst) == 0 && S_ISLNK(lst.st_mode))
                return u"it is a symbolic link to nothing (stat: ENOENT)"_s;
        }
        return {};
    }
    const int err = errno;
    return u"it cannot be examined (stat: %1, errno %2)"_s.arg(
        QString::fromLocal8Bit(std::strerror(err)), QString::number(err));
}

bool policyFileExists(const QString &path)
{
    if (path.isEmpty())
        return false;
    struct stat st {};
    const QByteArray native = QFile::encodeName(path);
    return ::lstat(native.constData(), &st) == 0 || errno != ENOENT;
}

namespace {
// nullopt: the file does not exist (ENOENT). Otherwise the parse result (errors when it cannot
// be examined or read, with the errno).
std::optional<PolicyParseResult> readPolicyFile(const QString &path)
{
    if (!policyFileExists(path))
        return std::nullopt;
    PolicyParseResult r;
    if (const QString why = policyFileStatError(path); !why.isEmpty()) {
        r.errors.append(why);
        return r;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        r.errors.append(u"cannot read it: %1 (errno %2)"_s.arg(f.errorString()).arg(errno));
        return r;
    }
    const QByteArray bytes = f.read(MaxPolicyBytes + 1);
    if (bytes.size() > MaxPolicyBytes) {
        r.errors.append(u"it is larger than %1 bytes"_s.arg(MaxPolicyBytes));
        return r;
    }
    return parsePolicy(bytes, path);
}
} // namespace

PolicyLoadResult loadPolicy(const PolicyPaths &paths)
{
    PolicyLoadResult out;
    Policy admin;
    auto failFile = [&](const QString &path, const QString &why) {
        out.errors.append(u"policy file %1 is IGNORED: %2; the mutate toolset is "
                          "refused until it is fixed"_s.arg(path, why));
        out.refuseMutate = true;
        if (!out.failedFiles.contains(path))
            out.failedFiles.append(path);
    };
    for (const QString &path : {paths.system, paths.extraAdmin}) {
        if (!policyFileExists(path))
            continue;
        if (const QString why = policyFileStatError(path); !why.isEmpty()) {
            failFile(path, why);
            out.failedAdminFiles.append(path);
            continue;
        }
        const QString unsafe = adminFileUnsafeReason(path);
        if (!unsafe.isEmpty()) {
            failFile(path, unsafe);
            out.failedAdminFiles.append(path);
            continue;
        }
        const auto r = readPolicyFile(path);
        if (!r)
            continue;
        if (!r->ok()) {
            failFile(path, r->errors.join(u"; "_s));
            out.failedAdminFiles.append(path);
            continue;
        }
        out.files.append(path);
        out.adminFiles.append(path);
        if (admin.sources.isEmpty()) { // the first administrator file is taken as written
            admin = r->policy;
            continue;
        }
        // A second administrator-layer file tightens the first, never loosens it.
        const PolicyMergeResult m = mergePolicy(admin, r->policy, PolicyLayer::Administrator);
        admin = m.effective;
        out.ignored += m.ignored;
    }
    Policy user;
    if (const auto r = readPolicyFile(paths.user)) {
        if (!r->ok()) {
            failFile(paths.user, r->errors.join(u"; "_s));
        } else {
            out.files.append(paths.user);
            user = r->policy;
        }
    }
    const PolicyMergeResult m = mergePolicy(admin, user);
    out.effective = m.effective;
    out.ignored += m.ignored;
    return out;
}

} // namespace fb
