#include "core/AuditLogDetail.h"

#include <QFile>
#include <QFileInfo>

// Reading the log: verify() checks the whole chain (and the tail against the head file or a
// kept head); readRecords() returns the well-formed records for export, the viewer and policy.

namespace fb {

using namespace auditdetail;

namespace {

// Reads the next line (without its newline) of at most AuditLog::MaxLineBytes; a longer line is
// consumed and reported through overlong. False at the end of the file or on a read error.
bool nextLine(QFile &file, QByteArray *line, bool *overlong, bool *ioError)
{
    *overlong = false;
    *ioError = false;
    if (file.atEnd())
        return false;
    *line = file.readLine(AuditLog::MaxLineBytes + 2);
    if (line->isEmpty() && file.error() != QFileDevice::NoError) {
        *ioError = true;
        return false;
    }
    if (line->endsWith('\n')) {
        line->chop(1);
        return true;
    }
    if (line->size() > AuditLog::MaxLineBytes) {
        *overlong = true;
        line->clear();
        // Skip the rest of the line in bounded chunks.
        while (!file.atEnd()) {
            const QByteArray chunk = file.readLine(1024 * 1024);
            if (chunk.isEmpty() && file.error() != QFileDevice::NoError) {
                *ioError = true;
                return false;
            }
            if (chunk.endsWith('\n'))
                break;
        }
    }
    return true;
}

} // namespace

AuditLog::VerifyResult AuditLog::verify(const QString &path)
{
    return verify(path, AuditVerifyOptions{});
}

AuditLog::VerifyResult AuditLog::verify(const QString &path, const AuditVerifyOptions &options)
{
    VerifyResult r;
    r.headSha256 = zeroHash();
    if (const QFileInfo info(path); info.exists() && !info.isFile()) {
        // A device or a FIFO would never end (or block): not an audit log.
        r.ioError = true;
        r.problem = QStringLiteral("cannot read %1: not a regular file").arg(path);
        return r;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        r.ioError = true;
        r.problem = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return r;
    }

    QByteArray prevHash = zeroHash().toLatin1();
    qint64 prevLine = 0;
    qint64 lineNo = 0;
    QList<qint64> pending; // unparseable, torn-looking lines awaiting the next record

    // The head file, and the hash of the record at its seq once seen.
    QString headFileWhy;
    const std::optional<AuditHead> headFile =
        options.useHeadFile ? readHeadFile(headFilePath(path), &headFileWhy) : std::nullopt;
    QByteArray hashAtHeadFileSeq;
    if (headFile && headFile->seq == 0)
        hashAtHeadFileSeq = zeroHash().toLatin1();
    const std::optional<AuditHead> &kept = options.keptHead;
    if (kept && kept->sha256 == zeroHash()) {
        r.keptHeadFound = true; // the empty chain: everything is after it
        r.keptHeadNote = QStringLiteral("the kept head is the start of the log");
    }

    auto broken = [&](qint64 line, const QString &problem) {
        r.ok = false;
        r.firstBadLine = line;
        r.problem = problem;
        r.headSha256 = QString::fromLatin1(prevHash);
        return r;
    };
    auto notTorn = [&](qint64 recordLine) {
        return broken(pending.first(),
                      QStringLiteral("bad JSON at line %1, and not an interrupted write: the "
                                     "record at line %2 does not continue the chain from %3")
                          .arg(pending.first())
                          .arg(recordLine)
                          .arg(prevLine ? QStringLiteral("line %1").arg(prevLine)
                                        : QStringLiteral("the start of the log")));
    };

    QByteArray line;
    bool overlong = false;
    bool readError = false;
    while (nextLine(file, &line, &overlong, &readError)) {
        ++lineNo;
        if (overlong)
            return broken(lineNo, QStringLiteral("line longer than %1 bytes: not a record Fabric "
                                                 "Broker writes (verification does not parse it)")
                                      .arg(MaxLineBytes));
        const ParsedLine p = classify(line);
        switch (p.kind) {
        case LineKind::Torn:
            pending.append(lineNo);
            continue;
        case LineKind::BadJson:
        case LineKind::Malformed:
            return broken(lineNo, p.why);
        case LineKind::Record:
            break;
        }
        if (p.seq != r.lastSeq + 1) {
            if (!pending.isEmpty())
                return notTorn(lineNo);
            if (p.seq <= r.lastSeq)
                return broken(lineNo, QStringLiteral("seq %1 does not follow seq %2: records are "
                                                     "out of order or duplicated")
                                          .arg(p.seq)
                                          .arg(r.lastSeq));
            return broken(lineNo, QStringLiteral("seq gap: expected %1, found %2 (%3 record(s) "
                                                 "missing)")
                                      .arg(r.lastSeq + 1)
                                      .arg(p.seq)
                                      .arg(p.seq - r.lastSeq - 1));
        }
        if (p.prev != prevHash) {
            if (!pending.isEmpty())
                return notTorn(lineNo);
            return broken(lineNo,
                          prevLine == 0
                              ? QStringLiteral("prev mismatch: the first record's prev must be 64 "
                                               "zeros, found %1")
                                    .arg(QString::fromLatin1(p.prev))
                              : QStringLiteral("prev mismatch: prev is %1 but the SHA-256 of the "
                                               "previous record (line %2) is %3: that record was "
                                               "altered, or one between them removed")
                                    .arg(QString::fromLatin1(p.prev))
                                    .arg(prevLine)
                                    .arg(QString::fromLatin1(prevHash)));
        }
        r.tornLines += pending;
        pending.clear();
        prevHash = sha256Hex(line);
        prevLine = lineNo;
        r.lastSeq = p.seq;
        ++r.records;
        if (r.keptHeadFound)
            ++r.recordsAfterKeptHead;
        if (auditEventFromName(p.record.value(QStringLiteral("type")).toString()) ==
            AuditEventType::LogContinued) {
            const QJsonObject d = p.record.value(QStringLiteral("data")).toObject();
            const QJsonObject prev = d.value(QStringLiteral("previous")).toObject();
            VerifyResult::Continuation c{
                lineNo, p.seq, d.value(QStringLiteral("reason")).toString(),
                AuditHead{static_cast<qint64>(prev.value(QStringLiteral("seq")).toDouble()),
                          prev.value(QStringLiteral("sha256")).toString()}};
            if (kept && !r.keptHeadFound && c.previous.sha256 == kept->sha256) {
                r.keptHeadFound = true;
                r.recordsAfterKeptHead = 1;
                r.keptHeadNote =
                    QStringLiteral("the kept head is the head of the previous log file this one "
                                   "continues from (line %1, reason: %2)")
                        .arg(lineNo)
                        .arg(c.reason);
            }
            r.continuations.append(c);
        }
        if (headFile && p.seq == headFile->seq)
            hashAtHeadFileSeq = prevHash;
        if (kept && !r.keptHeadFound && prevHash == kept->sha256.toLatin1()) {
            r.keptHeadFound = true;
            r.keptHeadLine = lineNo;
            r.recordsAfterKeptHead = 0;
            r.keptHeadNote = QStringLiteral("the kept head is the record at line %1 (seq %2)")
                                 .arg(lineNo)
                                 .arg(p.seq);
        }
    }
    if (readError) {
        r.ioError = true;
        r.problem = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return r;
    }
    r.tornLines += pending;
    r.ok = true;
    r.headSha256 = QString::fromLatin1(prevHash);
    if (!r.tornLines.isEmpty()) {
        const qint64 torn = r.tornLines.first();
        r.firstBadLine = torn;
        r.problem = torn > prevLine
                        ? QStringLiteral("truncated/torn record at line %1: the last write was "
                                         "interrupted; it is not part of the chain")
                              .arg(torn)
                        : QStringLiteral("truncated/torn record at line %1: an interrupted write "
                                         "that the next writer skipped; the chain continues "
                                         "across it")
                              .arg(torn);
    }

    // The tail, against the head file the writer keeps next to the log.
    if (options.useHeadFile) {
        const QString headPath = headFilePath(path);
        if (!headFile) {
            r.headFileNote =
                headFileWhy.isEmpty()
                    ? QStringLiteral("no head file (%1): a truncated tail cannot be detected "
                                     "without a kept head")
                          .arg(headPath)
                    : QStringLiteral("head file %1 unreadable (%2): the tail is not checked")
                          .arg(headPath, headFileWhy);
        } else if (headFile->seq > r.lastSeq) {
            r.ok = false;
            r.truncated = true;
            r.firstBadLine = lineNo + 1;
            r.problem = QStringLiteral("truncated tail: the log ends at seq %1 but its head file "
                                       "%2 records seq %3 (sha256 %4): %5 record(s) were "
                                       "removed from the end")
                            .arg(r.lastSeq)
                            .arg(headPath)
                            .arg(headFile->seq)
                            .arg(headFile->sha256)
                            .arg(headFile->seq - r.lastSeq);
            return r;
        } else if (hashAtHeadFileSeq != headFile->sha256.toLatin1()) {
            r.ok = false;
            r.firstBadLine = 0;
            r.problem = QStringLiteral("the record at seq %1 does not match the head file %2 "
                                       "(sha256 %3): the log was rewritten or replaced after "
                                       "that head was written")
                            .arg(headFile->seq)
                            .arg(headPath, headFile->sha256);
            return r;
        } else {
            r.headFileChecked = true;
            r.headFileNote =
                headFile->seq == r.lastSeq
                    ? QStringLiteral("head file %1 matches the last record (seq %2)")
                          .arg(headPath)
                          .arg(r.lastSeq)
                    : QStringLiteral("head file %1 matches seq %2, %3 record(s) behind the log "
                                     "(the writer stopped before updating it, or another "
                                     "writer without one appended); those record(s) are "
                                     "checked by the chain only")
                          .arg(headPath)
                          .arg(headFile->seq)
                          .arg(r.lastSeq - headFile->seq);
        }
    }

    // Against a head the user kept elsewhere.
    if (kept && !r.keptHeadFound) {
        r.ok = false;
        if (kept->seq > r.lastSeq && r.continuations.isEmpty()) {
            r.truncated = true;
            r.firstBadLine = lineNo + 1;
            r.problem = QStringLiteral("truncated: the kept head is seq %1 but the log ends at "
                                       "seq %2: at least %3 record(s) after seq %2 were deleted")
                            .arg(kept->seq)
                            .arg(r.lastSeq)
                            .arg(kept->seq - r.lastSeq);
        } else {
            r.firstBadLine = 0;
            r.problem =
                r.continuations.isEmpty()
                    ? QStringLiteral("the kept head %1 is not in this log: the record it names "
                                     "was deleted or altered, or the log was rewritten")
                          .arg(kept->toString())
                    : QStringLiteral("the kept head %1 is not in this log, which continues from "
                                     "a previous log file (seq %2 sha256 %3): verify that file "
                                     "with --head, or the record was deleted or altered")
                          .arg(kept->toString())
                          .arg(r.continuations.first().previous.seq)
                          .arg(r.continuations.first().previous.sha256);
        }
    }
    return r;
}

bool AuditLog::readRecords(const QString &path, QList<QJsonObject> *out, QString *error)
{
    if (const QFileInfo info(path); info.exists() && !info.isFile()) {
        if (error)
            *error = QStringLiteral("cannot read %1: not a regular file").arg(path);
        return false;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    QByteArray line;
    bool overlong = false;
    bool readError = false;
    while (nextLine(file, &line, &overlong, &readError)) {
        if (overlong)
            continue;
        const ParsedLine p = classify(line);
        if (p.kind == LineKind::Record && out)
            out->append(p.record);
    }
    if (readError) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace fb
