#pragma once
// AuditDayMarker: where the last audit record went, kept outside the log's folder (issue #34,
// item 8; docs/audit.md, "The day's marker"). The daily spend limit counts the creates of the
// last 24 hours from the audit log; deleting the log and its head file, or pointing
// EQUINIX_MCP_AUDIT_LOG at a fresh path, used to start the day over. The marker,
// $XDG_STATE_HOME/fabric-broker/audit-day (~/.local/state by default), holds the path of the log
// the last record went to, that record's seq and SHA-256, and its time. A log that does not
// continue it while its record is younger than the day leaves the day "unestablished": confirms
// under a daily limit are refused until the log is restored or `fabric-broker policy
// reset-ledger` (audited, the administrator's when the limit is theirs) records a reset.
//
// Limits: the marker is the same user's file. Deleting it too (three files in two folders)
// still starts the day over; a log that a forger extends past the marker's seq with a chain of
// its own is not detected here (the chain has no key). An administrator who needs more keeps the
// limit in team mode, where the team's day lives in the database.
#include <QByteArray>
#include <QString>
#include <optional>

namespace fb {

struct AuditDayMarker {
    static constexpr const char *Format = "fabric-broker audit day 1";
    static constexpr qint64 FileBytes = 4096; // fixed size: each update is one pwrite

    QString log; // absolute path of the log
    qint64 seq = 0;
    QString sha256; // 64 lowercase hex digits
    qint64 atMs = 0;

    // $XDG_STATE_HOME/fabric-broker/audit-day, else $HOME/.local/state/fabric-broker/audit-day.
    static QString defaultPath();
    // nullopt with why empty: there is none; with why set: unreadable or malformed.
    static std::optional<AuditDayMarker> read(const QString &path, QString *why);
    // The file's content: canonical JSON padded to FileBytes - 1, then "\n".
    QByteArray content() const;

    // Why a log at logPath whose last record is (seq, sha256) does not continue this marker, in
    // words with the fix; empty when it does, or when the marker's record is older than
    // windowMs (then nothing of the day can be missing).
    QString discontinuity(const QString &logPath, qint64 logSeq, const QString &logSha256,
                          qint64 nowMs, qint64 windowMs, const QString &markerPath) const;
};

} // namespace fb
