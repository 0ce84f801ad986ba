#pragma once
// Internals shared by the files of AuditLog (not part of its interface):
//   AuditLogRecordFormat.cpp  the record line: hashing, time stamps, classify() for readers
//   AuditLogBounds.cpp        scrubbing and bounding of data (AuditLog::scrub)
//   AuditLogFile.cpp       file safety: O_NOFOLLOW opens, locks, the .head file, replacement
//   AuditLog.cpp           the writer: open, record, the hash chain
//   AuditLogVerify.cpp        verify() and readRecords()
#include "core/AuditLog.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace fb::auditdetail {

constexpr qint64 MaxSafeInteger = 9007199254740992LL; // 2^53

QString errnoText(int err);
QByteArray sha256Hex(const QByteArray &bytes);
// ISO-8601 UTC with milliseconds ("...Z").
QString isoUtc(qint64 ms);
bool isLowerHex64(const QString &s);

// ---- reading record lines (AuditLogRecordFormat.cpp) ----

enum class LineKind { Record, Torn, BadJson, Malformed };

struct ParsedLine {
    LineKind kind = LineKind::Malformed;
    QString why;
    QJsonObject record;
    qint64 seq = 0;
    QByteArray prev;
};

// What one line of the log is: a well-formed record (canonical, five members, valid seq, prev,
// time, type and data), the start of a record cut short by an interrupted write, or neither.
ParsedLine classify(const QByteArray &line);

// ---- files (AuditLogFile.cpp) ----

// $XDG_DATA_HOME/fabric-broker (the generic data location).
QString defaultDirectory();
// Creates the missing directories of dir with mode 0700. Existing ones are left as they are.
bool ensureDirectory(const QString &dir, QString *error);
bool preadAll(int fd, qint64 offset, qint64 size, QByteArray *out, QString *error);
// Takes flock(LOCK_EX | LOCK_NB) on fd, retrying at most LockAttempts times LockRetryMicroseconds
// apart while another process holds it. False when it stayed locked (lockFailure() says so).
// Where flock is unsupported it answers true: the single-process guarantees still hold.
constexpr int LockAttempts = 40;
constexpr int LockRetryMicroseconds = 5000;
bool lockFile(int fd);
QString lockFailure();

// lockFile() for a scope. Serializes writers of other processes on the same log.
class FileLock {
public:
    explicit FileLock(int fd);
    ~FileLock();
    FileLock(const FileLock &) = delete;
    FileLock &operator=(const FileLock &) = delete;
    bool locked() const { return m_locked; }

private:
    int m_fd;
    bool m_locked;
};

// The first maxBytes + 1 bytes of a small file (a head file, the day marker), opened with
// O_NOFOLLOW: nullopt with why empty when there is none, with why set when unreadable.
std::optional<QByteArray> readSmallFile(const QString &path, qsizetype maxBytes, QString *why);
// The fixed-size content of the head file for this head.
QByteArray headFileContent(qint64 seq, const QByteArray &sha256);
// Reads a head file: nullopt with why empty when there is none, with why set when unreadable.
std::optional<AuditHead> readHeadFile(const QString &path, QString *why);
// The sentence a log_continued record gives for a change nobody announced.
QString sameUserNote();

} // namespace fb::auditdetail
