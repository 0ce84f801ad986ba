#include "core/AuditLogDetail.h"

#include "core/CanonicalJson.h"
#include "core/ChangeType.h"
#include "core/ProposalStore.h"
#include "core/TokenDigest.h"

#include <QMutexLocker>
#include <QScopeGuard>

#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

// The writer: open() finds the end of the chain, record() appends one canonical line chained to
// the previous one, syncs it and updates the head file. File safety is in AuditLogFile.cpp,
// bounds in AuditLogBounds.cpp, reading in AuditLogVerify.cpp.

namespace fb {

using namespace auditdetail;

namespace {

constexpr qint64 TailWindow = 64 * 1024;

} // namespace

AuditLog::AuditLog(Clock *clock)
    : m_clock(clock ? clock : Clock::system())
    , m_prevHash(zeroHash().toLatin1())
{
}

AuditLog::~AuditLog()
{
    close();
}

void AuditLog::close()
{
    QMutexLocker lock(&m_mutex);
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    if (m_headFd >= 0)
        ::close(m_headFd);
    m_headFd = -1;
    if (m_markerFd >= 0)
        ::close(m_markerFd);
    m_markerFd = -1;
}

bool AuditLog::isOpen() const
{
    QMutexLocker lock(&m_mutex);
    return m_fd >= 0;
}

bool AuditLog::fail(const QString &message, QString *error)
{
    m_lastError = message;
    if (error)
        *error = message;
    return false;
}

bool AuditLog::open(const QString &path, QString *error)
{
    close();
    QMutexLocker lock(&m_mutex);
    m_path = path;
    m_seq = 0;
    m_prevHash = zeroHash().toLatin1();
    m_needsNewline = false;
    m_expectedSize = 0;
    m_continuation.reset();
    if (path.isEmpty())
        return fail(QStringLiteral("no audit log path"), error);

    QString openError;
    const int fd = openLogFd(&openError);
    if (fd < 0)
        return fail(openError, error);
    m_fd = fd;
    QString tailError;
    bool ok;
    {
        FileLock fileLock(m_fd);
        ok = fileLock.locked();
        if (!ok)
            tailError = lockFailure();
        else
            ok = loadTail(&tailError);
        if (ok) {
            // A head file ahead of the log (or naming another record at the same seq) means
            // acknowledged records are gone: say so in the next record, then go on.
            QString why;
            const std::optional<AuditHead> kept = readHeadFile(headFilePath(m_path), &why);
            if (kept && (kept->seq > m_seq ||
                         (kept->seq == m_seq && kept->sha256.toLatin1() != m_prevHash))) {
                const bool shorter = kept->seq > m_seq;
                m_continuation = QJsonObject{
                    {QStringLiteral("reason"),
                     shorter ? QStringLiteral("truncated") : QStringLiteral("replaced")},
                    {QStringLiteral("detail"),
                     (shorter ? QStringLiteral("when opened, the log ended at seq %1 but its head "
                                               "file recorded seq %2: %3")
                              : QStringLiteral("when opened, the log's last record (seq %1) was "
                                               "not the one its head file recorded (seq %2): %3"))
                         .arg(m_seq)
                         .arg(kept->seq)
                         .arg(sameUserNote())},
                    {QStringLiteral("previous"),
                     QJsonObject{{QStringLiteral("path"), m_path},
                                 {QStringLiteral("seq"), static_cast<double>(kept->seq)},
                                 {QStringLiteral("sha256"), kept->sha256}}},
                    {QStringLiteral("found"),
                     QJsonObject{{QStringLiteral("seq"), static_cast<double>(m_seq)},
                                 {QStringLiteral("sha256"), QString::fromLatin1(m_prevHash)}}}};
            }
            checkMarkerLocked();
            ok = openHeadFd(&tailError);
            if (ok) {
                if (!m_continuation) {
                    if (::ftruncate(m_headFd, 0) == 0)
                        writeHeadLocked();
                }
            }
        }
    }
    if (!ok) {
        ::close(m_fd);
        m_fd = -1;
        if (m_headFd >= 0)
            ::close(m_headFd);
        m_headFd = -1;
        return fail(QStringLiteral("audit log %1: %2").arg(path, tailError), error);
    }
    m_lastError.clear();
    return true;
}

// Reads the end of the file backwards until the last complete, valid record, skipping torn
// lines. Caller holds m_mutex and the file lock.
bool AuditLog::loadTail(QString *error)
{
    struct stat st {};
    if (::fstat(m_fd, &st) != 0) {
        *error = errnoText(errno);
        return false;
    }
    const qint64 size = st.st_size;
    m_seq = 0;
    m_prevHash = zeroHash().toLatin1();
    m_needsNewline = false;
    // Until the tail is known, the next record must read it again.
    m_expectedSize = -1;
    if (size == 0) {
        m_expectedSize = 0;
        return true;
    }

    qint64 window = TailWindow;
    for (;;) {
        const qint64 start = qMax<qint64>(0, size - window);
        QByteArray buf;
        if (!preadAll(m_fd, start, size - start, &buf, error))
            return false;
        if (start + buf.size() == size)
            m_needsNewline = !buf.endsWith('\n');
        QList<QByteArray> lines = buf.split('\n');
        if (buf.endsWith('\n'))
            lines.removeLast();
        // The first line of a window that does not start at 0 may be cut: never trust it.
        const qsizetype first = start > 0 ? 1 : 0;
        for (qsizetype i = lines.size() - 1; i >= first; --i) {
            const ParsedLine p = classify(lines.at(i));
            if (p.kind == LineKind::Torn)
                continue;
            if (p.kind != LineKind::Record) {
                *error = QStringLiteral("its last complete line is not a valid audit record (%1); "
                                        "refusing to append. Run \"fabric-broker audit verify\".")
                             .arg(p.why);
                return false;
            }
            m_seq = p.seq;
            m_prevHash = sha256Hex(lines.at(i));
            m_expectedSize = size;
            return true;
        }
        if (start == 0) {
            m_expectedSize = size;
            return true; // only torn lines: the chain starts afresh
        }
        window *= 4;
    }
}

// Writes one record on the locked descriptor and syncs it. Caller holds m_mutex and the lock.
// known: a current fstat of m_fd, or nullptr to take one.
bool AuditLog::appendLocked(const QString &type, const QJsonObject &data, const struct stat *known)
{
    struct stat st {};
    if (known)
        st = *known;
    else if (::fstat(m_fd, &st) != 0)
        return fail(QStringLiteral("cannot stat audit log: %1").arg(errnoText(errno)));
    if (st.st_size != m_expectedSize) {
        // Another writer appended, or our last write failed part-way: resynchronize the chain
        // from what the file actually holds.
        QString tailError;
        if (!loadTail(&tailError))
            return fail(QStringLiteral("audit log %1: %2").arg(m_path, tailError));
    }

    const qint64 nowMs = m_clock->nowMs();
    const QJsonObject rec{{QStringLiteral("seq"), static_cast<double>(m_seq + 1)},
                          {QStringLiteral("time"), isoUtc(nowMs)},
                          {QStringLiteral("type"), type},
                          {QStringLiteral("data"), scrub(data)},
                          {QStringLiteral("prev"), QString::fromLatin1(m_prevHash)}};
    const QByteArray line = canonicalJson(rec);
    QByteArray buf;
    buf.reserve(line.size() + 2);
    if (m_needsNewline)
        buf.append('\n');
    buf.append(line);
    buf.append('\n');

    qint64 done = 0;
    while (done < buf.size()) {
        const qint64 n = m_write
                             ? m_write(m_fd, buf.constData() + done, buf.size() - done)
                             : static_cast<qint64>(::write(m_fd, buf.constData() + done,
                                                           static_cast<size_t>(buf.size() - done)));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : EIO;
            m_expectedSize = -1; // force a resync from the file before the next record
            return fail(QStringLiteral("cannot write audit record %1 (%2): %3")
                            .arg(m_seq + 1)
                            .arg(type, errnoText(err)));
        }
        done += n;
    }
    m_seq += 1;
    m_prevHash = sha256Hex(line);
    m_needsNewline = false;
    m_expectedSize = st.st_size + buf.size();

    const int synced = m_sync ? m_sync(m_fd) : ::fdatasync(m_fd);
    if (synced != 0) {
        const int err = errno;
        m_expectedSize = -1;
        return fail(QStringLiteral("cannot sync audit record %1 (%2): %3")
                        .arg(m_seq)
                        .arg(type, errnoText(err)));
    }
    writeHeadLocked();
    writeMarkerLocked(type);
    m_lastRecordMs = nowMs;
    if (m_observer)
        m_written.append(Written{m_seq, type, isoUtc(nowMs),
                                 rec.value(QStringLiteral("prev")).toString(),
                                 QString::fromLatin1(m_prevHash), line});
    return true;
}

bool AuditLog::record(AuditEventType type, const QJsonObject &data)
{
    return appendAndNotify(auditEventNameString(type), data);
}

bool AuditLog::recordForTesting(const QString &typeName, const QJsonObject &data)
{
    return appendAndNotify(typeName, data);
}

// The observer runs after the lock is released: it may record (an export_gap) in turn.
bool AuditLog::appendAndNotify(const QString &type, const QJsonObject &data)
{
    const bool ok = appendRecord(type, data);
    QList<Written> written;
    std::function<void(const Written &)> observer;
    {
        QMutexLocker lock(&m_mutex);
        written = std::exchange(m_written, {});
        observer = m_observer;
    }
    if (observer) {
        for (const Written &w : std::as_const(written))
            observer(w);
    }
    return ok;
}

void AuditLog::setObserver(std::function<void(const Written &)> observer)
{
    QMutexLocker lock(&m_mutex);
    m_observer = std::move(observer);
}

qint64 AuditLog::lastRecordMs() const
{
    QMutexLocker lock(&m_mutex);
    return m_lastRecordMs;
}

bool AuditLog::appendRecord(const QString &type, const QJsonObject &data)
{
    QMutexLocker lock(&m_mutex);
    if (m_fd < 0)
        return fail(QStringLiteral("audit log is not open"));

    if (!lockFile(m_fd))
        return fail(
            QStringLiteral("audit log %1: %2; nothing was recorded").arg(m_path, lockFailure()));
    // Unlocks whichever descriptor is current when record() returns.
    const auto unlock = qScopeGuard([this] {
        if (m_fd >= 0)
            ::flock(m_fd, LOCK_UN);
    });
    struct stat st {};
    if (::fstat(m_fd, &st) != 0)
        return fail(QStringLiteral("cannot stat audit log: %1").arg(errnoText(errno)));
    QString pathError;
    if (!checkPathLocked(st, &pathError))
        return fail(QStringLiteral("audit log %1: %2").arg(m_path, pathError));
    if (m_continuation) {
        if (!appendLocked(auditEventNameString(AuditEventType::LogContinued), *m_continuation,
                          nullptr))
            return false;
        m_continuation.reset();
        return appendLocked(type, data, nullptr);
    }
    return appendLocked(type, data, &st); // the common case: one fstat and one lstat per record
}

namespace {

QJsonObject proposalRecord(const Proposal &p, qint64 now)
{
    QJsonObject o{{QStringLiteral("token_sha256"), tokenDigest(p.token)},
                  {QStringLiteral("change_type"), changeTypeName(p.changeType)},
                  {QStringLiteral("target"), p.target},
                  {QStringLiteral("request_sha256"), p.requestSha256},
                  {QStringLiteral("proposed_at"), isoUtc(p.proposedAtMs)},
                  {QStringLiteral("expires_at"), isoUtc(p.expiresAtMs)},
                  {QStringLiteral("age_ms"), static_cast<double>(now - p.proposedAtMs)}};
    const QJsonValue client = p.context.value(QStringLiteral("client"));
    if (!client.isUndefined())
        o.insert(QStringLiteral("client"), client);
    return o;
}

} // namespace

bool AuditLog::recordEviction(const Proposal &proposal)
{
    QJsonObject data = proposalRecord(proposal, m_clock->nowMs());
    if (!proposal.evictedBecause.isEmpty())
        data.insert(QStringLiteral("reason"), proposal.evictedBecause);
    return record(AuditEventType::Evicted, data);
}

bool AuditLog::recordExpiry(const Proposal &proposal)
{
    return record(AuditEventType::Expired, proposalRecord(proposal, m_clock->nowMs()));
}

QString AuditLog::path() const
{
    QMutexLocker lock(&m_mutex);
    return m_path;
}

qint64 AuditLog::recordCount() const
{
    QMutexLocker lock(&m_mutex);
    return m_seq;
}

QString AuditLog::headSha256() const
{
    QMutexLocker lock(&m_mutex);
    return QString::fromLatin1(m_prevHash);
}

QString AuditLog::lastError() const
{
    QMutexLocker lock(&m_mutex);
    return m_lastError;
}

void AuditLog::setIoHooksForTesting(WriteFn writeFn, SyncFn syncFn)
{
    QMutexLocker lock(&m_mutex);
    m_write = std::move(writeFn);
    m_sync = std::move(syncFn);
}

} // namespace fb
