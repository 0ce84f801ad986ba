#include "core/AuditDayMarker.h"
#include "core/AuditEvent.h"
#include "core/AuditLogDetail.h"
#include "core/SpendLedger.h"

#include "core/CanonicalJson.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QStandardPaths>

#include <cerrno>
#include <cmath>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

// File safety of the audit log: the log and its .head file are opened with O_NOFOLLOW, 0600, in
// 0700 directories; every append first checks that the path still names the file being written
// (replaced, moved, unlinked, truncated) and arms a "log_continued" record when it does not.

Q_LOGGING_CATEGORY(lcAuditLog, "fabricbroker.audit")

namespace fb {

namespace auditdetail {

namespace {

constexpr qsizetype HeadFileBytes = 160;
const char HeadFormat[] = "fabric-broker-audit-head/1";

std::optional<AuditHead> parseHeadFile(const QByteArray &bytes, QString *why)
{
    const QJsonDocument doc = QJsonDocument::fromJson(bytes.trimmed());
    const QJsonObject o = doc.object();
    const double seq = o.value(QStringLiteral("seq")).toDouble(-1);
    AuditHead head{static_cast<qint64>(seq), o.value(QStringLiteral("sha256")).toString()};
    if (!doc.isObject() ||
        o.value(QStringLiteral("format")).toString() != QLatin1String(HeadFormat) || seq < 0 ||
        seq > static_cast<double>(MaxSafeInteger) || std::floor(seq) != seq ||
        !isLowerHex64(head.sha256)) {
        *why = QStringLiteral("not a head file of this format");
        return std::nullopt;
    }
    return head;
}

} // namespace

bool ensureDirectory(const QString &dir, QString *error)
{
    const QFileInfo info(dir);
    if (info.isDir())
        return true;
    if (info.exists()) {
        *error = QStringLiteral("%1 exists and is not a directory").arg(dir);
        return false;
    }
    const QString parent = info.absolutePath();
    if (parent != info.absoluteFilePath() && !ensureDirectory(parent, error))
        return false;
    if (::mkdir(QFile::encodeName(dir).constData(), 0700) != 0 && errno != EEXIST) {
        *error = QStringLiteral("cannot create directory %1: %2").arg(dir, errnoText(errno));
        return false;
    }
    return true;
}

bool preadAll(int fd, qint64 offset, qint64 size, QByteArray *out, QString *error)
{
    out->resize(size);
    qint64 done = 0;
    while (done < size) {
        const ssize_t n = ::pread(fd, out->data() + done, static_cast<size_t>(size - done),
                                  static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *error = n < 0 ? errnoText(errno) : QStringLiteral("unexpected end of file");
            return false;
        }
        done += n;
    }
    return true;
}

bool lockFile(int fd)
{
    // Never a blocking flock on the event loop: another holder gets a bounded wait, then the
    // record fails (a create is then not sent: audit_unavailable).
    for (int attempt = 0; attempt < LockAttempts; ++attempt) {
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
            return true;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return errno == ENOLCK || errno == EINVAL; // no flock here: single-process only
        if (errno == EWOULDBLOCK)
            ::usleep(LockRetryMicroseconds);
    }
    return false;
}

QString lockFailure()
{
    return QStringLiteral("another process has held the audit log's lock for more than %1 ms")
        .arg(LockAttempts * LockRetryMicroseconds / 1000);
}

FileLock::FileLock(int fd)
    : m_fd(fd)
    , m_locked(lockFile(fd))
{
}

FileLock::~FileLock()
{
    if (m_locked)
        ::flock(m_fd, LOCK_UN);
}

QString defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/fabric-broker");
}

// The fixed-size content of the head file: canonical JSON padded with spaces, then "\n", so
// each update overwrites the whole previous content with one pwrite.
QByteArray headFileContent(qint64 seq, const QByteArray &sha256)
{
    QByteArray line =
        canonicalJson(QJsonObject{{QStringLiteral("format"), QLatin1String(HeadFormat)},
                                  {QStringLiteral("seq"), static_cast<double>(seq)},
                                  {QStringLiteral("sha256"), QString::fromLatin1(sha256)}});
    if (line.size() < HeadFileBytes - 1)
        line.append(QByteArray(HeadFileBytes - 1 - line.size(), ' '));
    line.append('\n');
    return line;
}

std::optional<QByteArray> readSmallFile(const QString &path, qsizetype maxBytes, QString *why)
{
    why->clear();
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            *why = errnoText(errno);
        return std::nullopt;
    }
    QByteArray buf(maxBytes + 1, '\0');
    ssize_t n;
    do {
        n = ::pread(fd, buf.data(), static_cast<size_t>(buf.size()), 0);
    } while (n < 0 && errno == EINTR);
    const int err = errno;
    ::close(fd);
    if (n < 0) {
        *why = errnoText(err);
        return std::nullopt;
    }
    buf.truncate(n);
    return buf;
}

std::optional<AuditHead> readHeadFile(const QString &path, QString *why)
{
    const auto bytes = readSmallFile(path, 4095, why);
    if (!bytes)
        return std::nullopt;
    return parseHeadFile(*bytes, why);
}

QString sameUserNote()
{
    return QStringLiteral("the log was replaced, moved, unlinked or truncated by something other "
                          "than this writer");
}
} // namespace auditdetail

using namespace auditdetail;

QString AuditLog::defaultPath()
{
    const QString fromEnv = qEnvironmentVariable(PathEnvironmentVariable);
    if (!fromEnv.isEmpty())
        return fromEnv;
    return defaultDirectory() + QStringLiteral("/audit.jsonl");
}

QString AuditLog::headFilePath(const QString &logPath)
{
    return logPath + QStringLiteral(".head");
}

// Opens (creating) the log at m_path. Caller holds m_mutex.
int AuditLog::openLogFd(QString *error)
{
    const QFileInfo info(m_path);
    QString dirError;
    if (!ensureDirectory(info.absolutePath(), &dirError)) {
        *error = dirError;
        return -1;
    }
    if (info.absolutePath() == defaultDirectory())
        ::chmod(QFile::encodeName(info.absolutePath()).constData(), 0700);

    const QByteArray native = QFile::encodeName(m_path);
    struct stat before {};
    const bool existed = ::lstat(native.constData(), &before) == 0;
    const int fd =
        ::open(native.constData(), O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        const int err = errno;
        *error = err == ELOOP
                     ? QStringLiteral("audit log %1 is a symbolic link; refusing to "
                                      "follow it")
                           .arg(m_path)
                     : QStringLiteral("cannot open audit log %1: %2").arg(m_path, errnoText(err));
        return -1;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        *error = QStringLiteral("audit log %1 is not a regular file").arg(m_path);
        return -1;
    }
    if ((st.st_mode & 0777) != 0600 && ::fchmod(fd, 0600) != 0) {
        const int err = errno;
        ::close(fd);
        *error = QStringLiteral("cannot restrict audit log %1 to mode 0600: %2")
                     .arg(m_path, errnoText(err));
        return -1;
    }
    if (!existed) {
        // Make the new directory entry durable too.
        const int dirFd = ::open(QFile::encodeName(info.absolutePath()).constData(),
                                 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirFd >= 0) {
            ::fsync(dirFd);
            ::close(dirFd);
        }
    }
    m_dev = st.st_dev;
    m_ino = st.st_ino;
    return fd;
}

// Opens (creating) <log>.head. Caller holds m_mutex.
bool AuditLog::openHeadFd(QString *error)
{
    if (m_headFd >= 0)
        ::close(m_headFd);
    const QString path = headFilePath(m_path);
    m_headFd = ::open(QFile::encodeName(path).constData(),
                      O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (m_headFd < 0) {
        *error =
            QStringLiteral("cannot open the audit head file %1: %2").arg(path, errnoText(errno));
        return false;
    }
    struct stat st {};
    if (::fstat(m_headFd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(m_headFd);
        m_headFd = -1;
        *error = QStringLiteral("audit head file %1 is not a regular file").arg(path);
        return false;
    }
    return true;
}

// Overwrites the head file with the current head. Best effort and not synced: the record is
// already durable; a head file that lags behind the log is accepted by verify().
void AuditLog::writeHeadLocked()
{
    if (m_headFd < 0)
        return;
    const QByteArray content = headFileContent(m_seq, m_prevHash);
    while (::pwrite(m_headFd, content.constData(), static_cast<size_t>(content.size()), 0) < 0 &&
           errno == EINTR) {
    }
}

QString AuditLog::dayMarkerProblem() const
{
    QMutexLocker lock(&m_mutex);
    return m_markerProblem;
}

// Whether the log just opened (its tail loaded) continues the day's marker. Caller holds
// m_mutex.
void AuditLog::checkMarkerLocked()
{
    using namespace Qt::StringLiterals;
    m_markerContinues = true;
    m_markerProblem.clear();
    if (m_markerPath.isEmpty())
        return;
    QString why;
    const std::optional<AuditDayMarker> marker = AuditDayMarker::read(m_markerPath, &why);
    if (!why.isEmpty())
        m_markerProblem = u"the audit day marker %1 cannot be read (%2), so the last 24 hours "
                          "cannot be known to be in this log. Daily-limit confirms are refused "
                          "until the administrator runs `fabric-broker policy reset-ledger` "
                          "(audited)."_s.arg(m_markerPath, why);
    else if (marker)
        m_markerProblem =
            marker->discontinuity(m_path, m_seq, QString::fromLatin1(m_prevHash), m_clock->nowMs(),
                                  SpendLedger::WindowMs, m_markerPath);
    m_markerContinues = m_markerProblem.isEmpty();
}

// After a durable record: the marker names it, while the log continues the marker (or the
// record is a ledger_reset, which starts the day over on purpose). Best effort, like the head
// file. Caller holds m_mutex.
void AuditLog::writeMarkerLocked(const QString &type)
{
    if (m_markerPath.isEmpty())
        return;
    if (!m_markerContinues && type != auditEventName(AuditEventType::LedgerReset))
        return;
    m_markerContinues = true;
    // Best effort, but never silent: without the marker, deleting the log would start the day's
    // spend count over unnoticed. Said once per log, on stderr (a read-only home, say).
    const auto cannotWrite = [this](const QString &why) {
        if (!m_markerWarned)
            qCWarning(lcAuditLog).noquote()
                << "cannot write the audit day marker" << m_markerPath
                << QStringLiteral("(%1):").arg(why)
                << "a deleted or replaced audit log would not be noticed by the daily limit";
        m_markerWarned = true;
    };
    if (m_markerFd < 0) {
        QString dirError;
        if (!ensureDirectory(QFileInfo(m_markerPath).absolutePath(), &dirError))
            return cannotWrite(dirError);
        m_markerFd = ::open(QFile::encodeName(m_markerPath).constData(),
                            O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (m_markerFd < 0)
            return cannotWrite(errnoText(errno));
    }
    AuditDayMarker m;
    m.log = QFileInfo(m_path).absoluteFilePath();
    m.seq = m_seq;
    m.sha256 = QString::fromLatin1(m_prevHash);
    m.atMs = m_clock->nowMs();
    const QByteArray content = m.content();
    ssize_t written = -1;
    while ((written = ::pwrite(m_markerFd, content.constData(), static_cast<size_t>(content.size()),
                               0)) < 0 &&
           errno == EINTR) {
    }
    if (written != content.size())
        cannotWrite(written < 0 ? errnoText(errno) : QStringLiteral("short write"));
}

// Compares the path with the open descriptor. When the file there is no longer the one we
// write (replaced, moved, unlinked) or it shrank behind our back (truncated), switches to the
// file now at the path and arms a "log_continued" record that links to our last head. Caller
// holds m_mutex and the file lock of the current descriptor; on return the lock may be held on
// a new descriptor instead (the caller re-locks, see record()).
bool AuditLog::checkPathLocked(const struct stat &fdStat, QString *error)
{
    struct stat pathStat {};
    QString reason;
    QString detail;
    if (::lstat(QFile::encodeName(m_path).constData(), &pathStat) != 0) {
        if (errno != ENOENT) {
            *error = QStringLiteral("cannot stat audit log %1: %2").arg(m_path, errnoText(errno));
            return false;
        }
        reason = fdStat.st_nlink == 0 ? QStringLiteral("unlinked") : QStringLiteral("moved");
        detail = fdStat.st_nlink == 0
                     ? QStringLiteral("the log file was deleted while the broker was writing it")
                     : QStringLiteral("the log file was renamed or moved away while the broker "
                                      "was writing it");
    } else if (pathStat.st_dev != m_dev || pathStat.st_ino != m_ino) {
        reason = QStringLiteral("replaced");
        detail = QStringLiteral("another file took the log's path while the broker was writing "
                                "it");
    } else if (fdStat.st_nlink == 0) {
        reason = QStringLiteral("unlinked");
        detail = QStringLiteral("the log file was deleted while the broker was writing it");
    } else if (m_expectedSize >= 0 && fdStat.st_size < m_expectedSize) {
        reason = QStringLiteral("truncated");
        detail = QStringLiteral("the log file shrank from %1 to %2 bytes while the broker was "
                                "writing it: acknowledged records were removed")
                     .arg(m_expectedSize)
                     .arg(fdStat.st_size);
    } else {
        return true;
    }

    const QJsonObject continuation{
        {QStringLiteral("reason"), reason},
        {QStringLiteral("detail"), detail},
        {QStringLiteral("previous"),
         QJsonObject{{QStringLiteral("path"), m_path},
                     {QStringLiteral("seq"), static_cast<double>(m_seq)},
                     {QStringLiteral("sha256"), QString::fromLatin1(m_prevHash)},
                     {QStringLiteral("inode"), QString::number(m_ino)}}}};
    if (reason != u"truncated") {
        QString openError;
        const int fd = openLogFd(&openError);
        if (fd < 0) {
            *error = openError;
            return false;
        }
        ::flock(m_fd, LOCK_UN);
        ::close(m_fd);
        m_fd = fd;
        if (!lockFile(m_fd)) {
            *error = lockFailure();
            return false;
        }
        // The head file is best effort (see writeHeadLocked); the link record is not.
        QString headError;
        if (!openHeadFd(&headError))
            m_headFd = -1;
    }
    // Armed before anything else can fail: a later record still writes the link first.
    if (!m_continuation)
        m_continuation = continuation;
    return loadTail(error);
}

} // namespace fb
