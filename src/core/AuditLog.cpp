#include "core/AuditLog.h"

#include "core/CanonicalJson.h"
#include "core/ChangeType.h"
#include "core/ProposalStore.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutexLocker>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fb {

namespace {

constexpr qint64 MaxSafeInteger = 9007199254740992LL; // 2^53
constexpr qint64 TailWindow = 64 * 1024;

QString errnoText(int err)
{
    return QString::fromLocal8Bit(std::strerror(err));
}

QByteArray sha256Hex(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

QString isoUtc(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs); // "...Z"
}

// Every record line starts with this: "data" sorts first among the five members.
const QByteArray &recordHead()
{
    static const QByteArray head = QByteArrayLiteral("{\"data\":");
    return head;
}

// Could this unparseable line be the beginning of a record cut short by an interrupted write?
bool looksTorn(const QByteArray &line)
{
    if (line.isEmpty())
        return false;
    if (line.size() <= recordHead().size())
        return recordHead().startsWith(line);
    return line.startsWith(recordHead());
}

bool isLowerHex64(const QString &s)
{
    if (s.size() != 64)
        return false;
    for (const QChar c : s) {
        if (!((c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f')))
            return false;
    }
    return true;
}

enum class LineKind { Record, Torn, BadJson, Malformed };

struct ParsedLine {
    LineKind kind = LineKind::Malformed;
    QString why;
    QJsonObject record;
    qint64 seq = 0;
    QByteArray prev;
};

ParsedLine classify(const QByteArray &line)
{
    ParsedLine p;
    if (line.isEmpty()) {
        p.why = QStringLiteral("empty line");
        return p;
    }
    QString parseError;
    const std::optional<QByteArray> canonical = canonicalizeText(line, &parseError, 1000);
    if (!canonical) {
        p.kind = looksTorn(line) ? LineKind::Torn : LineKind::BadJson;
        p.why = QStringLiteral("bad JSON: %1").arg(parseError);
        return p;
    }
    if (*canonical != line) {
        p.why = QStringLiteral("record is not in canonical form (RFC 8785): the line was "
                               "re-serialized or edited");
        return p;
    }
    const QJsonDocument doc = QJsonDocument::fromJson(line);
    if (!doc.isObject()) {
        p.why = QStringLiteral("record is not a JSON object");
        return p;
    }
    const QJsonObject o = doc.object();
    static const QStringList members{QStringLiteral("data"), QStringLiteral("prev"),
                                     QStringLiteral("seq"), QStringLiteral("time"),
                                     QStringLiteral("type")};
    if (o.keys() != members) {
        p.why = QStringLiteral("record members are {%1}, expected {%2}")
                    .arg(o.keys().join(u','), members.join(u','));
        return p;
    }
    const QJsonValue seq = o.value(QStringLiteral("seq"));
    const double seqValue = seq.toDouble(-1);
    if (!seq.isDouble() || seqValue < 1 || seqValue > static_cast<double>(MaxSafeInteger) ||
        std::floor(seqValue) != seqValue) {
        p.why = QStringLiteral("seq is not a positive integer");
        return p;
    }
    const QString prev = o.value(QStringLiteral("prev")).toString();
    if (!isLowerHex64(prev)) {
        p.why = QStringLiteral("prev is not 64 lowercase hex digits");
        return p;
    }
    const QJsonValue time = o.value(QStringLiteral("time"));
    if (!time.isString() || !QDateTime::fromString(time.toString(), Qt::ISODateWithMs).isValid()) {
        p.why = QStringLiteral("time is not an ISO-8601 timestamp");
        return p;
    }
    const QJsonValue type = o.value(QStringLiteral("type"));
    if (!type.isString() || type.toString().isEmpty()) {
        p.why = QStringLiteral("type is not a non-empty string");
        return p;
    }
    if (!o.value(QStringLiteral("data")).isObject()) {
        p.why = QStringLiteral("data is not an object");
        return p;
    }
    p.kind = LineKind::Record;
    p.record = o;
    p.seq = static_cast<qint64>(seqValue);
    p.prev = prev.toLatin1();
    return p;
}

// ---- scrubbing ----

bool isSecretKey(const QString &key)
{
    QString n;
    n.reserve(key.size());
    for (const QChar c : key) {
        if (c.isLetterOrNumber())
            n.append(c.toLower());
    }
    static const QSet<QString> exact{
        QStringLiteral("accesstoken"),   QStringLiteral("refreshtoken"),
        QStringLiteral("idtoken"),       QStringLiteral("sessiontoken"),
        QStringLiteral("bearertoken"),   QStringLiteral("clientsecret"),
        QStringLiteral("authorization"), QStringLiteral("proxyauthorization"),
        QStringLiteral("password"),      QStringLiteral("passwd"),
        QStringLiteral("secret"),        QStringLiteral("apikey"),
        QStringLiteral("xapikey"),       QStringLiteral("privatekey"),
        QStringLiteral("cookie"),        QStringLiteral("setcookie")};
    return exact.contains(n) || n.contains(u"secret") || n.contains(u"password");
}

QString scrubString(const QString &s)
{
    if (!s.contains(u"chg-"))
        return s;
    static const QRegularExpression token(
        QStringLiteral("(?<![0-9A-Za-z_-])chg-[0-9a-f]{32}(?![0-9A-Za-z_-])"));
    QString out;
    qsizetype last = 0;
    QRegularExpressionMatchIterator it = token.globalMatch(s);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        out += QStringView(s).mid(last, m.capturedStart() - last);
        out += QStringLiteral("sha256:") + tokenDigest(m.captured());
        last = m.capturedEnd();
    }
    out += QStringView(s).mid(last);
    return out;
}

QJsonValue scrubValue(const QJsonValue &v);

QJsonObject scrubObject(const QJsonObject &o)
{
    QJsonObject out;
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (isSecretKey(it.key()))
            continue;
        out.insert(scrubString(it.key()), scrubValue(it.value()));
    }
    return out;
}

QJsonValue scrubValue(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::String:
        return scrubString(v.toString());
    case QJsonValue::Object:
        return scrubObject(v.toObject());
    case QJsonValue::Array: {
        QJsonArray out;
        for (const QJsonValue &e : v.toArray())
            out.append(scrubValue(e));
        return out;
    }
    default:
        return v;
    }
}

// ---- files ----

// Creates the missing directories of dir with mode 0700. Existing ones are left as they are.
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

class FileLock {
public:
    explicit FileLock(int fd)
        : m_fd(fd)
    {
        // Best effort: serializes writers of other processes on the same log. Where flock is
        // unsupported the single-process guarantees still hold.
        while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
        }
    }
    ~FileLock() { ::flock(m_fd, LOCK_UN); }
    FileLock(const FileLock &) = delete;
    FileLock &operator=(const FileLock &) = delete;

private:
    int m_fd;
};

QString defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/fabric-broker");
}

} // namespace

QString AuditLog::zeroHash()
{
    return QString(64, u'0');
}

QString AuditLog::defaultPath()
{
    const QString fromEnv = qEnvironmentVariable(PathEnvironmentVariable);
    if (!fromEnv.isEmpty())
        return fromEnv;
    return defaultDirectory() + QStringLiteral("/audit.jsonl");
}

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
    if (path.isEmpty())
        return fail(QStringLiteral("no audit log path"), error);

    const QFileInfo info(path);
    QString dirError;
    if (!ensureDirectory(info.absolutePath(), &dirError))
        return fail(dirError, error);
    if (info.absolutePath() == defaultDirectory())
        ::chmod(QFile::encodeName(info.absolutePath()).constData(), 0700);

    const QByteArray native = QFile::encodeName(path);
    struct stat before {};
    const bool existed = ::stat(native.constData(), &before) == 0;
    const int fd = ::open(native.constData(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(QStringLiteral("cannot open audit log %1: %2").arg(path, errnoText(errno)),
                    error);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return fail(QStringLiteral("audit log %1 is not a regular file").arg(path), error);
    }
    if ((st.st_mode & 0777) != 0600 && ::fchmod(fd, 0600) != 0) {
        const int err = errno;
        ::close(fd);
        return fail(QStringLiteral("cannot restrict audit log %1 to mode 0600: %2")
                        .arg(path, errnoText(err)),
                    error);
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
    m_fd = fd;
    QString tailError;
    bool ok;
    {
        FileLock fileLock(m_fd);
        ok = loadTail(&tailError);
    }
    if (!ok) {
        ::close(m_fd);
        m_fd = -1;
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
    m_expectedSize = size;
    if (size == 0)
        return true;

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
            return true;
        }
        if (start == 0)
            return true; // only torn lines: the chain starts afresh
        window *= 4;
    }
}

bool AuditLog::record(const QString &type, const QJsonObject &data)
{
    QMutexLocker lock(&m_mutex);
    if (m_fd < 0)
        return fail(QStringLiteral("audit log is not open"));

    FileLock fileLock(m_fd);
    struct stat st {};
    if (::fstat(m_fd, &st) != 0)
        return fail(QStringLiteral("cannot stat audit log: %1").arg(errnoText(errno)));
    if (st.st_size != m_expectedSize) {
        // Another writer appended, or our last write failed part-way: resynchronize the chain
        // from what the file actually holds.
        QString tailError;
        if (!loadTail(&tailError))
            return fail(QStringLiteral("audit log %1: %2").arg(m_path, tailError));
    }

    const QJsonObject rec{{QStringLiteral("seq"), static_cast<double>(m_seq + 1)},
                          {QStringLiteral("time"), isoUtc(m_clock->nowMs())},
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
    return true;
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
    return record(QStringLiteral("evicted"), proposalRecord(proposal, m_clock->nowMs()));
}

bool AuditLog::recordExpiry(const Proposal &proposal)
{
    return record(QStringLiteral("expired"), proposalRecord(proposal, m_clock->nowMs()));
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

QJsonObject AuditLog::scrub(const QJsonObject &data)
{
    return scrubObject(data);
}

AuditLog::VerifyResult AuditLog::verify(const QString &path)
{
    VerifyResult r;
    r.headSha256 = zeroHash();
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

    while (!file.atEnd()) {
        QByteArray line = file.readLine();
        if (line.isEmpty() && file.error() != QFileDevice::NoError) {
            r.ioError = true;
            r.problem = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
            return r;
        }
        ++lineNo;
        if (line.endsWith('\n'))
            line.chop(1);
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
    return r;
}

bool AuditLog::readRecords(const QString &path, QList<QJsonObject> *out, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    while (!file.atEnd()) {
        QByteArray line = file.readLine();
        if (line.isEmpty() && file.error() != QFileDevice::NoError) {
            if (error)
                *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
            return false;
        }
        if (line.endsWith('\n'))
            line.chop(1);
        const ParsedLine p = classify(line);
        if (p.kind == LineKind::Record && out)
            out->append(p.record);
    }
    return true;
}

} // namespace fb
