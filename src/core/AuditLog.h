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
#include "core/AuditSink.h"
#include "core/Clock.h"

#include <QJsonObject>
#include <QList>
#include <QMutex>
#include <QString>
#include <functional>

namespace fb {

struct Proposal;

class AuditLog final : public AuditSink {
public:
    // $EQUINIX_MCP_AUDIT_LOG when set, else $XDG_DATA_HOME/fabric-broker/audit.jsonl (the
    // generic data location, ~/.local/share by default).
    static QString defaultPath();
    static constexpr const char *PathEnvironmentVariable = "EQUINIX_MCP_AUDIT_LOG";

    explicit AuditLog(Clock *clock = Clock::system());
    ~AuditLog() override;
    AuditLog(const AuditLog &) = delete;
    AuditLog &operator=(const AuditLog &) = delete;

    // Opens (creating it 0600, and missing directories 0700) the log at path and positions the
    // chain after its last valid record. Fails when the path is not a regular file or when the
    // last complete line is not a valid audit record (the log needs an operator: run
    // "fabric-broker audit verify").
    bool open(const QString &path, QString *error = nullptr);
    bool isOpen() const;
    void close();

    // Appends one record and syncs it. False when the log is not open or the record could not be
    // written and synced in full (the caller must then not proceed with what it was recording).
    bool record(const QString &type, const QJsonObject &data) override;

    // Convenience records for ProposalStore::proposalEvicted / proposalExpired (types "evicted"
    // and "expired"); the token appears only as its SHA-256.
    bool recordEviction(const Proposal &proposal);
    bool recordExpiry(const Proposal &proposal);

    QString path() const;
    // The seq of the last record in the chain (the number of records the log holds).
    qint64 recordCount() const;
    // SHA-256 of the last record's line: the value the next record's "prev" will carry.
    QString headSha256() const;
    // The last error of open() or record(), for logs and the GUI.
    QString lastError() const;

    // What record() stores for data: tokens hashed, secrets dropped. Exposed for tests and tools.
    static QJsonObject scrub(const QJsonObject &data);

    struct VerifyResult {
        bool ok = false;         // every complete record verifies (torn lines do not count)
        qint64 records = 0;      // records verified (the valid prefix when !ok)
        qint64 firstBadLine = 0; // 1-based line of the first broken record; when ok, the first
                                 // torn line, or 0 when the log is clean
        QString problem;         // what is wrong at firstBadLine (when ok: the torn warning)
        QList<qint64> tornLines; // lines recognised as interrupted writes (not in the chain)
        qint64 lastSeq = 0;      // seq of the last verified record
        QString headSha256;      // SHA-256 of the last verified record's line (or 64 zeros)
        bool ioError = false;    // the file could not be read at all
    };
    static VerifyResult verify(const QString &path);
    // Every complete, well-formed record of the log in file order (torn and malformed lines are
    // skipped; use verify() for integrity). False only when the file cannot be read.
    static bool readRecords(const QString &path, QList<QJsonObject> *out, QString *error = nullptr);

    static QString zeroHash();

    // Test seams: replace write(2) and fdatasync(2). Pass nullptr to restore the real calls.
    using WriteFn = std::function<qint64(int fd, const char *data, qint64 size)>;
    using SyncFn = std::function<int(int fd)>;
    void setIoHooksForTesting(WriteFn writeFn, SyncFn syncFn);

private:
    bool loadTail(QString *error);
    bool fail(const QString &message, QString *error = nullptr);

    Clock *m_clock;
    mutable QMutex m_mutex;
    QString m_path;
    int m_fd = -1;
    qint64 m_seq = 0;
    QByteArray m_prevHash;
    qint64 m_expectedSize = 0; // file size after our last write; another writer changes it
    bool m_needsNewline = false;
    QString m_lastError;
    WriteFn m_write;
    SyncFn m_sync;
};

} // namespace fb
