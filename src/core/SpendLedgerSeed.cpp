// seedSpendLedger: the last 24 hours of the audit log, read backwards (see SpendLedger.h).
#include "core/AuditLogDetail.h"
#include "core/SpendLedger.h"

#include <QDateTime>
#include <QFile>
#include <QHash>
#include <QSet>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fb {

using namespace Qt::StringLiterals;
using namespace auditdetail;

namespace {

constexpr qint64 ChunkBytes = 256 * 1024;
constexpr int MaxFiles = 8; // log_continued links followed at most

const QString &restoreHint()
{
    static const QString hint =
        u"Daily-limit confirms are refused until the day can be counted: restore the previous "
        "log file, or have the administrator run `fabric-broker policy reset-ledger` (audited)."_s;
    return hint;
}

struct Sent {
    qint64 atMs = 0;
    std::optional<Money> price;
    bool priceKnown = false;
};

struct Scan {
    qint64 nowMs = 0;
    qint64 stopBeforeMs = 0;                             // records older than this end the scan
    QHash<QString, Sent> sent;                           // sha -> the "sending" record
    QHash<QString, std::pair<QString, qint64>> executed; // sha -> {outcome, time}
    QHash<QString, std::optional<Money>> proposedPrice;  // sha -> price (nullopt: unpriced)
    LedgerSeed seed;
    QString why;
    qint64 lastSeq = 0; // the last record of the current file (0: none)
    QByteArray lastHash;
    bool done = false; // the window (or a reset, or the first record) was reached
};

qint64 recordTime(const QJsonObject &record)
{
    const QDateTime at =
        QDateTime::fromString(record.value(u"time"_s).toString(), Qt::ISODateWithMs);
    return at.isValid() ? at.toMSecsSinceEpoch() : -1;
}

std::optional<Money> priceOf(const QJsonValue &v, bool *known)
{
    *known = v.isObject();
    return monthlyPrice(v.toObject());
}

// Reads the file at path backwards; follows a log_continued record into the previous file when
// it is the one the record names. Returns false (with scan->why) when the window cannot be
// established.
bool scanFile(const QString &path, Scan *scan, int depth, const AuditHead *mustEndAt)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT && depth == 0 && !mustEndAt) {
            scan->done = true; // no log yet: an empty day (the head file is checked by the caller)
            scan->seed.reachedStart = true;
            return true;
        }
        scan->why = u"the audit log %1 cannot be read (%2)"_s.arg(path, errnoText(errno));
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        scan->why = u"the audit log %1 is not a regular file"_s.arg(path);
        return false;
    }
    qint64 start = st.st_size; // tail holds the bytes [start, the end of what is unread)
    QByteArray tail;
    QByteArray laterPrev; // prev of the later record of the chain (empty: none yet)
    qint64 laterSeq = -1;
    bool first = true; // the next complete line is the last one of the file
    bool ok = true;
    auto fail = [&](const QString &why) {
        scan->why = why;
        ok = false;
    };
    std::optional<QJsonObject> continued; // a log_continued record that needs its previous file

    auto handleLine = [&](const QByteArray &line) {
        if (line.isEmpty())
            return;
        const ParsedLine p = classify(line);
        if (p.kind == LineKind::Torn)
            return; // an interrupted write is not in the chain; the chain check spans it
        if (p.kind != LineKind::Record)
            return fail(u"a record of the audit log %1 is unreadable (%2)"_s.arg(path, p.why));
        const QByteArray hash = sha256Hex(line);
        if (first && mustEndAt &&
            (p.seq != mustEndAt->seq || QString::fromLatin1(hash) != mustEndAt->sha256))
            return fail(
                u"the file at %1 is not the log that a log_continued record names"_s.arg(path));
        if (!laterPrev.isEmpty() && (hash != laterPrev || p.seq + 1 != laterSeq))
            return fail(
                u"the audit log %1 has a gap in its chain before seq %2"_s.arg(path).arg(laterSeq));
        if (first && depth == 0) {
            scan->lastSeq = p.seq;
            scan->lastHash = hash;
        }
        first = false;
        laterPrev = p.prev;
        laterSeq = p.seq;
        ++scan->seed.recordsRead;
        const QJsonObject &rec = p.record;
        const qint64 at = recordTime(rec);
        const QString type = rec.value(u"type"_s).toString();
        const QJsonObject data = rec.value(u"data"_s).toObject();
        const QString sha = data.value(u"request_sha256"_s).toString();
        if (type == u"ledger_reset") {
            scan->done = true;
            scan->seed.reachedStart = true;
            return;
        }
        if (at >= 0 && at < scan->stopBeforeMs) {
            scan->done = true;
            return;
        }
        if (type == u"sending" && !sha.isEmpty() && !scan->sent.contains(sha)) {
            Sent s;
            s.atMs = at;
            s.price = priceOf(data.value(u"price"_s), &s.priceKnown);
            scan->sent.insert(sha, s);
        } else if (type == u"executed" && !sha.isEmpty() && !scan->executed.contains(sha)) {
            scan->executed.insert(sha, {data.value(u"outcome"_s).toString(), at});
        } else if (type == u"proposed" && !sha.isEmpty() && !scan->proposedPrice.contains(sha)) {
            bool known = false;
            scan->proposedPrice.insert(sha, priceOf(data.value(u"price"_s), &known));
        } else if (type == u"log_continued") {
            continued = data;
        }
        if (p.seq == 1) {
            if (p.prev != AuditLog::zeroHash().toLatin1())
                return fail(u"the first record of %1 does not start a chain"_s.arg(path));
            if (!continued) {
                scan->done = true;
                scan->seed.reachedStart = true;
            }
        }
    };

    auto readMore = [&]() -> bool {
        if (start == 0 || !ok)
            return false;
        if (tail.size() > AuditLog::MaxLineBytes) {
            fail(u"a line of the audit log %1 is longer than %2 bytes"_s.arg(path).arg(
                AuditLog::MaxLineBytes));
            return false;
        }
        const qint64 from = qMax<qint64>(0, start - ChunkBytes);
        QByteArray chunk;
        QString error;
        if (!preadAll(fd, from, start - from, &chunk, &error)) {
            fail(u"the audit log %1 cannot be read (%2)"_s.arg(path, error));
            return false;
        }
        scan->seed.bytesRead += chunk.size();
        tail.prepend(chunk);
        start = from;
        return true;
    };
    // A last line without its newline is an interrupted write, never a record: drop it.
    bool trailingDropped = st.st_size == 0;
    while (ok && !trailingDropped) {
        if (!readMore())
            break;
        const qsizetype nl = tail.lastIndexOf('\n');
        if (nl >= 0 || start == 0) {
            tail.truncate(nl + 1);
            trailingDropped = true;
        }
    }
    while (ok && !scan->done && !continued) {
        if (tail.isEmpty()) {
            if (!readMore())
                break;
            continue;
        }
        const qsizetype nl = tail.size() >= 2 ? tail.lastIndexOf('\n', tail.size() - 2) : -1;
        if (nl < 0 && start > 0) {
            if (!readMore())
                break;
            continue;
        }
        handleLine(tail.mid(nl + 1, tail.size() - nl - 2));
        tail.truncate(nl + 1);
    }
    ::close(fd);
    if (!ok)
        return false;
    if (continued) {
        const QJsonObject link = *continued;
        const QJsonObject previous = link.value(u"previous"_s).toObject();
        AuditHead head{qint64(previous.value(u"seq"_s).toDouble()),
                       previous.value(u"sha256"_s).toString()};
        const QString prevPath = previous.value(u"path"_s).toString();
        if (depth + 1 < MaxFiles && !prevPath.isEmpty() && head.seq > 0) {
            Scan trial = *scan;
            if (scanFile(prevPath, &trial, depth + 1, &head)) {
                *scan = trial;
                return true;
            }
        }
        scan->why = u"the audit log was %1 (%2) within the last 24 hours, and the file "
                    "before it (seq %3, sha256 %4) is not readable"_s
                        .arg(link.value(u"reason"_s).toString(), link.value(u"detail"_s).toString())
                        .arg(head.seq)
                        .arg(head.sha256.left(16));
        return false;
    }
    if (!scan->done) {
        if (laterSeq > 1 || (laterSeq == -1 && mustEndAt)) {
            scan->why =
                u"the audit log %1 starts at seq %2, not at its first record"_s.arg(path).arg(
                    laterSeq);
            return false;
        }
        scan->done = true;
        scan->seed.reachedStart = true;
    }
    return true;
}

} // namespace

LedgerSeed seedSpendLedger(const QString &path, qint64 nowMs, SpendLedger *ledger,
                           qint64 priceMarginMs)
{
    Scan scan;
    scan.nowMs = nowMs;
    scan.stopBeforeMs = nowMs - SpendLedger::WindowMs - priceMarginMs;
    bool ok = scanFile(path, &scan, 0, nullptr);

    // The log must not end before the head its writer last recorded.
    if (ok) {
        QString why;
        const std::optional<AuditHead> head = readHeadFile(AuditLog::headFilePath(path), &why);
        if (!why.isEmpty()) {
            scan.why =
                u"the head file %1 is unreadable (%2)"_s.arg(AuditLog::headFilePath(path), why);
            ok = false;
        } else if (head && (head->seq > scan.lastSeq ||
                            (head->seq > 0 && head->seq == scan.lastSeq &&
                             head->sha256 != QString::fromLatin1(scan.lastHash)))) {
            scan.why = u"the audit log %1 ends at seq %2, before the head its writer last "
                       "recorded in %3 (seq %4): records were removed"_s.arg(path)
                           .arg(scan.lastSeq)
                           .arg(AuditLog::headFilePath(path))
                           .arg(head->seq);
            ok = false;
        }
    }

    if (ok) {
        // Every create sent in the window counts unless its outcome says nothing was created.
        QSet<QString> keys;
        for (auto it = scan.sent.cbegin(); it != scan.sent.cend(); ++it)
            keys.insert(it.key());
        for (auto it = scan.executed.cbegin(); it != scan.executed.cend(); ++it)
            if (it->first == u"created" || it->first == u"unknown")
                keys.insert(it.key());
        for (const QString &sha : std::as_const(keys)) {
            const auto ex = scan.executed.constFind(sha);
            if (ex != scan.executed.cend() && ex->first != u"created" && ex->first != u"unknown")
                continue;
            const auto se = scan.sent.constFind(sha);
            const qint64 at = ex != scan.executed.cend() && ex->second >= 0
                                  ? ex->second
                                  : (se != scan.sent.cend() ? se->atMs : -1);
            if (at >= 0 && at < nowMs - SpendLedger::WindowMs)
                continue;
            std::optional<Money> price;
            if (se != scan.sent.cend() && se->priceKnown) {
                price = se->price;
            } else if (const auto pp = scan.proposedPrice.constFind(sha);
                       pp != scan.proposedPrice.cend()) {
                price = *pp;
            } else {
                scan.why = u"a create (request %1) was sent in the last 24 hours, but its price "
                           "is not in the audit log"_s.arg(sha.left(16));
                ok = false;
                break;
            }
            if (price)
                ledger->addExecuted(sha, *price, at >= 0 ? at : nowMs);
        }
    }
    scan.seed.established = ok;
    if (!ok) {
        scan.seed.why = scan.why + u". "_s + restoreHint();
        ledger->markUnestablished(scan.seed.why);
    }
    return scan.seed;
}

} // namespace fb
