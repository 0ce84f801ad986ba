#pragma once
// AuditLog: the tamper-evident, append-only JSON Lines audit trail of the Safe Mutation Broker.
//
// Every record is one line, the RFC 8785 canonical form of
//   {"data": {...}, "prev": "<hex>", "seq": n, "time": "<ISO-8601 UTC, ms>", "type": "..."}
// where prev is the SHA-256 (lowercase hex) of the previous record's line bytes (without the
// newline), or 64 zeros for the first record. record() appends the whole line with one write on
// an O_APPEND descriptor and fdatasync()s before it returns true.
//
// Safety net: before a record is written, every string matching chg-[0-9a-f]{32} (a confirm
// token) is replaced by "sha256:<hex of the token>", and every member whose key names a secret
// (access_token, client_secret, authorization, password, anything containing "secret" or
// "password", ...) is dropped, at any depth.
//
// Torn writes: a crash in the middle of a write leaves an incomplete last line. Such a line is
// never an acknowledged record (record() had not returned). verify() reports it as a
// "truncated/torn record" and still verifies every complete record. A writer that reopens the
// log terminates the torn line with a newline and chains its next record from the last valid
// record, skipping the torn line; verify() accepts such a torn line in the middle of the log only
// when the record after it continues the chain from the record before it. See docs/audit.md.
//
// Bounds: every value of data is bounded before it enters a record (nesting depth, string and
// key length, members per object, elements per array, total size; tighter for the
// client-supplied "client" member). What was cut is marked in place and listed in
// data.audit_truncated, so a hostile clientInfo can neither break nor stall verification.
//
// Replacement: the log is opened with O_NOFOLLOW. Before each append the writer compares the
// path with its open descriptor (st_dev/st_ino, st_nlink, size). When the file was replaced,
// moved, unlinked or truncated, it continues in the file now at the path (created if missing)
// and the first record it writes there is a "log_continued" record naming the reason and the
// last head (seq, sha256) of the old file.
//
// Head file: after each durable record the writer overwrites <log>.head (one pwrite, not
// synced) with the head it just wrote. verify() compares the log with it and reports a log
// that ends before that head as truncated. The guarantee and its limits are in docs/audit.md.
//
// Files: AuditLog.cpp (the writer and its hash chain), AuditLogBounds.cpp (scrub), AuditLogFile.cpp
// (file safety and the head file), AuditLogRecordFormat.cpp (the record line), AuditLogVerify.cpp
// (verify, readRecords); AuditLogDetail.h holds what they share.
#include "core/AuditSink.h"
#include "core/Clock.h"

#include <QJsonObject>
#include <QList>
#include <QMutex>
#include <QString>
#include <functional>
#include <sys/stat.h>
#include <sys/types.h>

#include <optional>

namespace fb {

struct Proposal;

// A head of the chain: the seq of a record and the SHA-256 of its line. seq 0 with a hash means
// "seq unknown" (a head given as the hash alone).
struct AuditHead {
    qint64 seq = 0;
    QString sha256;
    // "SEQ:SHA256" or "SHA256" (64 lowercase hex digits). nullopt when malformed.
    static std::optional<AuditHead> parse(const QString &text);
    QString toString() const; // "SEQ:SHA256"
};

struct AuditVerifyOptions {
    bool useHeadFile = true;           // compare with <log>.head when it exists
    std::optional<AuditHead> keptHead; // a head kept elsewhere (audit verify --head)
};

class AuditLog final : public AuditSink {
public:
    // $EQUINIX_MCP_AUDIT_LOG when set, else $XDG_DATA_HOME/fabric-broker/audit.jsonl (the
    // generic data location, ~/.local/share by default).
    static QString defaultPath();
    static constexpr const char *PathEnvironmentVariable = "EQUINIX_MCP_AUDIT_LOG";
    // <log>.head: the head file written next to the log.
    static QString headFilePath(const QString &logPath);

    // Bounds applied to data before a record is written (levels count containers below data).
    struct Bounds {
        int depth;
        qsizetype stringChars;
        qsizetype keyChars;
        qsizetype members;
        qsizetype elements;
        qint64 totalBytes;
    };
    static constexpr Bounds DataBounds{16, 8192, 256, 256, 256, 256 * 1024};
    static constexpr Bounds ClientBounds{6, 512, 128, 64, 64, 8 * 1024};
    // verify() refuses to parse records nested deeper than this (the writer never gets close)
    // and lines longer than MaxLineBytes.
    static constexpr int MaxVerifyDepth = 256;
    static constexpr qint64 MaxLineBytes = 16 * 1024 * 1024;

    explicit AuditLog(Clock *clock = Clock::system());
    ~AuditLog() override;
    AuditLog(const AuditLog &) = delete;
    AuditLog &operator=(const AuditLog &) = delete;

    // The day's marker (core/AuditDayMarker.h), kept at markerPath: set before open(). open()
    // then checks that the log continues it (dayMarkerProblem() says why not), and each record
    // updates it while the log does, or when it is a ledger_reset.
    void setDayMarker(const QString &markerPath) { m_markerPath = markerPath; }
    // Why the log opened does not hold the last 24 hours the marker knows of; empty when it does
    // (or no marker is kept).
    QString dayMarkerProblem() const;

    // Opens (creating it 0600, and missing directories 0700) the log at path and positions the
    // chain after its last valid record. Fails when the path is not a regular file or when the
    // last complete line is not a valid audit record (the log needs an operator: run
    // "fabric-broker audit verify").
    bool open(const QString &path, QString *error = nullptr);
    bool isOpen() const;
    void close();

    // Appends one record of this type (its name from core/AuditEvent.h) and syncs it. False
    // when the log is not open or the record could not be written and synced in full (the caller
    // must then not proceed with what it was recording).
    bool record(AuditEventType type, const QJsonObject &data) override;

    // Convenience records for ProposalStore::proposalEvicted / proposalExpired (types Evicted
    // and Expired); the token appears only as its SHA-256.
    bool recordEviction(const Proposal &proposal);
    bool recordExpiry(const Proposal &proposal);

    // Called after each durable record with its chain position and line (the audit export,
    // docs/observability.md), on the thread that wrote it, with the log's lock released. It must
    // not block; it may write another record.
    struct Written {
        qint64 seq = 0;
        QString type;
        QString time;
        QString prev;
        QString sha256;
        QByteArray line;
    };
    void setObserver(std::function<void(const Written &)> observer);
    // When the last record was written (ms since the epoch; 0 before the first of this process).
    qint64 lastRecordMs() const;

    QString path() const;
    // The seq of the last record in the chain (the number of records the log holds).
    qint64 recordCount() const;
    // SHA-256 of the last record's line: the value the next record's "prev" will carry.
    QString headSha256() const;
    // The last error of open() or record(), for logs and the GUI.
    QString lastError() const;

    // What record() stores for data: tokens hashed, secrets dropped, values bounded (DataBounds,
    // ClientBounds for the member "client"), truncation marked. Exposed for tests and tools.
    static QJsonObject scrub(const QJsonObject &data);

    struct VerifyResult {
        bool ok = false;         // every complete record verifies (torn lines do not count)
        qint64 records = 0;      // records verified (the valid prefix when !ok)
        qint64 firstBadLine = 0; // 1-based line of the first broken record; when ok, the first
                                 // torn line, or 0 when the log is clean; when truncated, the
                                 // line after the last; 0 when no line is to blame (the head
                                 // file or kept head names a record the log does not have)
        QString problem;         // what is wrong at firstBadLine (when ok: the torn warning)
        QList<qint64> tornLines; // lines recognised as interrupted writes (not in the chain)
        qint64 lastSeq = 0;      // seq of the last verified record
        QString headSha256;      // SHA-256 of the last verified record's line (or 64 zeros)
        bool ioError = false;    // the file could not be read at all
        bool truncated = false;  // the log ends before a head it must contain (head file or
                                 // kept head): !ok, problem says how many records are missing
        // "log_continued" records: where the writer found the log replaced, moved, unlinked or
        // truncated and went on; each links to the last head of the file before.
        struct Continuation {
            qint64 line = 0;
            qint64 seq = 0;
            QString reason;
            AuditHead previous;
        };
        QList<Continuation> continuations;
        // The comparison with <log>.head: empty when not checked; otherwise one sentence.
        QString headFileNote;
        bool headFileChecked = false; // a head file was found and the log contains its head
        // The comparison with AuditVerifyOptions::keptHead (when given and the chain is intact).
        bool keptHeadFound = false; // the kept head is a record of this log, or the head this
                                    // log continues from
        qint64 keptHeadLine = 0;    // its line (0 when it is the head of a previous file)
        qint64 recordsAfterKeptHead = 0;
        QString keptHeadNote;
    };
    static VerifyResult verify(const QString &path);
    static VerifyResult verify(const QString &path, const AuditVerifyOptions &options);
    // Every complete, well-formed record of the log in file order (torn and malformed lines are
    // skipped; use verify() for integrity). False only when the file cannot be read.
    static bool readRecords(const QString &path, QList<QJsonObject> *out, QString *error = nullptr);

    static QString zeroHash();

    // Test seams: replace write(2) and fdatasync(2). Pass nullptr to restore the real calls.
    using WriteFn = std::function<qint64(int fd, const char *data, qint64 size)>;
    using SyncFn = std::function<int(int fd)>;
    void setIoHooksForTesting(WriteFn writeFn, SyncFn syncFn);
    // Test seam: a record whose type is any name (the chain and file tests write "step").
    bool recordForTesting(const QString &typeName, const QJsonObject &data);

private:
    bool appendRecord(const QString &type, const QJsonObject &data);
    bool loadTail(QString *error);
    bool fail(const QString &message, QString *error = nullptr);
    int openLogFd(QString *error);
    bool openHeadFd(QString *error);
    bool checkPathLocked(const struct stat &fdStat, QString *error);
    bool appendAndNotify(const QString &type, const QJsonObject &data);
    bool appendLocked(const QString &type, const QJsonObject &data, const struct stat *known);
    void writeHeadLocked();
    void checkMarkerLocked();
    void writeMarkerLocked(const QString &type);

    Clock *m_clock;
    mutable QMutex m_mutex;
    QString m_path;
    int m_fd = -1;
    qint64 m_seq = 0;
    QByteArray m_prevHash;
    qint64 m_expectedSize = 0; // file size after our last write; another writer changes it
    bool m_needsNewline = false;
    int m_headFd = -1;
    dev_t m_dev = 0;
    ino_t m_ino = 0;
    // Set when the log was found replaced/truncated: written as a "log_continued" record before
    // the next record.
    std::optional<QJsonObject> m_continuation;
    QString m_lastError;
    QString m_markerPath;
    int m_markerFd = -1;
    bool m_markerContinues = true;
    bool m_markerWarned = false;
    QString m_markerProblem;
    WriteFn m_write;
    SyncFn m_sync;
    std::function<void(const Written &)> m_observer;
    QList<Written> m_written; // records appended for the observer (a continuation, then its record)
    qint64 m_lastRecordMs = 0;
};

} // namespace fb
