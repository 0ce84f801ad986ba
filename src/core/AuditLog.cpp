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
#include <QScopeGuard>
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

// The nesting depth of JSON text, counting only brackets outside strings; stops counting at
// limit + 1. Linear, no allocation.
int nestingDepth(const QByteArray &text, int limit)
{
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n; ++i) {
        const char c = text.at(i);
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > deepest) {
                deepest = depth;
                if (deepest > limit)
                    return deepest;
            }
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return deepest;
}

ParsedLine classify(const QByteArray &line)
{
    ParsedLine p;
    if (line.isEmpty()) {
        p.why = QStringLiteral("empty line");
        return p;
    }
    if (nestingDepth(line, AuditLog::MaxVerifyDepth) > AuditLog::MaxVerifyDepth) {
        // Not an interrupted write: this version never writes records nested this deep.
        p.why = QStringLiteral("record nested deeper than %1 levels: not a record Fabric Broker "
                               "writes (verification does not parse it)")
                    .arg(AuditLog::MaxVerifyDepth);
        return p;
    }
    QJsonParseError pe{};
    const QJsonDocument parsed = QJsonDocument::fromJson(line, &pe);
    if (pe.error != QJsonParseError::NoError) {
        p.kind = looksTorn(line) ? LineKind::Torn : LineKind::BadJson;
        p.why = QStringLiteral("bad JSON: %1").arg(pe.errorString());
        return p;
    }
    // Byte equality with the canonical form also rejects duplicate keys (the parsed object has
    // one member fewer), unescaped control characters, lone surrogates and out-of-range
    // numbers: none of them survive a canonical re-serialization unchanged. Linear-logarithmic
    // in the size of the line.
    if (!parsed.isObject() || canonicalJson(parsed.object()) != line) {
        p.why = QStringLiteral("record is not in canonical form (RFC 8785): the line was "
                               "re-serialized or edited");
        return p;
    }
    const QJsonObject o = parsed.object();
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

// Where a value sits below data: rendered ("client.capabilities.x[3]") only for a note.
struct ValuePath {
    const ValuePath *parent = nullptr;
    const QString *key = nullptr; // a member key, or nullptr for an array element
    qsizetype index = 0;

    QString render() const
    {
        if (!parent)
            return {};
        QString out = parent->render();
        if (key) {
            const QString shown = key->size() > 32 ? key->left(32) + u'…' : *key;
            out += (out.isEmpty() ? QString() : QStringLiteral(".")) + shown;
        } else {
            out += u'[' + QString::number(index) + u']';
        }
        return out;
    }
};

// Scrubs (tokens hashed, secret members dropped) and bounds one value tree in one pass. Every
// cut is marked where it happened and noted (by path) for data.audit_truncated.
class Sanitizer {
public:
    Sanitizer(const AuditLog::Bounds &bounds, QStringList *notes, qint64 *noteCount)
        : m_bounds(bounds)
        , m_budget(bounds.totalBytes)
        , m_notes(notes)
        , m_noteCount(noteCount)
    {
    }

    qint64 used() const { return m_bounds.totalBytes - m_budget; }

    // level: the container level of v's parent (data itself is level 0).
    QJsonValue value(const QJsonValue &v, int level, const ValuePath &path)
    {
        switch (v.type()) {
        case QJsonValue::String:
            return string(v.toString(), m_bounds.stringChars, path);
        case QJsonValue::Object:
            if (level + 1 > m_bounds.depth)
                return tooDeep(path);
            return object(v.toObject(), level + 1, path);
        case QJsonValue::Array:
            if (level + 1 > m_bounds.depth)
                return tooDeep(path);
            return array(v.toArray(), level + 1, path);
        default:
            m_budget -= 8;
            return v;
        }
    }

    // level: the container level of o (data itself is level 0).
    QJsonObject object(const QJsonObject &o, int level, const ValuePath &path,
                       const AuditLog::Bounds *clientBounds = nullptr)
    {
        QJsonObject out;
        qsizetype kept = 0;
        qsizetype dropped = 0;
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString rawKey = it.key();
            if (isSecretKey(rawKey))
                continue;
            if (kept >= m_bounds.members || m_budget <= 0) {
                ++dropped;
                continue;
            }
            const ValuePath memberPath{&path, &rawKey};
            const QString key = string(rawKey, m_bounds.keyChars, memberPath); // scrubs too
            if (clientBounds && rawKey == u"client") {
                // Client-supplied (MCP clientInfo and capabilities): tighter bounds of its own.
                Sanitizer client(*clientBounds, m_notes, m_noteCount);
                out.insert(key, client.value(it.value(), 0, memberPath));
                m_budget -= client.used();
            } else {
                out.insert(key, value(it.value(), level, memberPath));
            }
            ++kept;
        }
        if (dropped > 0) {
            out.insert(QStringLiteral("[truncated]"),
                       QStringLiteral("%1 more member(s) left out").arg(dropped));
            note(path, QStringLiteral("%1 member(s) left out").arg(dropped));
        }
        return out;
    }

private:
    QJsonArray array(const QJsonArray &a, int level, const ValuePath &path)
    {
        QJsonArray out;
        qsizetype index = 0;
        for (const QJsonValue &e : a) {
            if (index >= m_bounds.elements || m_budget <= 0)
                break;
            out.append(value(e, level, ValuePath{&path, nullptr, index}));
            ++index;
        }
        if (index < a.size()) {
            const qsizetype dropped = a.size() - index;
            out.append(QStringLiteral("[truncated: %1 more element(s) left out]").arg(dropped));
            note(path, QStringLiteral("%1 element(s) left out").arg(dropped));
        }
        return out;
    }

    QString string(const QString &raw, qsizetype limit, const ValuePath &path)
    {
        const QString s = scrubString(raw);
        limit = qMin<qsizetype>(limit, qMax<qint64>(m_budget, 16));
        if (s.size() <= limit) {
            m_budget -= s.size() + 3;
            return s;
        }
        qsizetype cut = limit;
        if (cut > 0 && s.at(cut - 1).isHighSurrogate())
            --cut; // never split a surrogate pair
        QString out =
            s.left(cut) + QStringLiteral("…[truncated: %1 more character(s)]").arg(s.size() - cut);
        m_budget -= out.size() + 3;
        note(path, QStringLiteral("string of %1 character(s) cut").arg(s.size()));
        return out;
    }

    QJsonValue tooDeep(const ValuePath &path)
    {
        m_budget -= 48;
        note(path, QStringLiteral("nested deeper than %1 level(s)").arg(m_bounds.depth));
        return QStringLiteral("[truncated: nested deeper than %1 level(s)]").arg(m_bounds.depth);
    }

    void note(const ValuePath &path, const QString &what)
    {
        constexpr qsizetype MaxNotes = 8;
        ++*m_noteCount;
        if (m_notes->size() < MaxNotes) {
            const QString rendered = path.render();
            const QString shown = rendered.size() > 160 ? rendered.left(160) + u'…' : rendered;
            m_notes->append((shown.isEmpty() ? QStringLiteral("data") : shown) +
                            QStringLiteral(": ") + what);
        }
    }

    const AuditLog::Bounds &m_bounds;
    qint64 m_budget;
    QStringList *m_notes;
    qint64 *m_noteCount;
};

QJsonObject sanitizeData(const QJsonObject &data)
{
    QStringList notes;
    qint64 count = 0;
    Sanitizer top(AuditLog::DataBounds, &notes, &count);
    const ValuePath root;
    QJsonObject out = top.object(data, 0, root, &AuditLog::ClientBounds);
    if (count > 0) {
        QJsonArray where;
        for (const QString &n : std::as_const(notes))
            where.append(scrubString(n));
        if (count > notes.size())
            where.append(QStringLiteral("and %1 more").arg(count - notes.size()));
        out.insert(QStringLiteral("audit_truncated"), where);
    }
    return out;
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
    if (m_headFd >= 0)
        ::close(m_headFd);
    m_headFd = -1;
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

QString AuditLog::headFilePath(const QString &logPath)
{
    return logPath + QStringLiteral(".head");
}

namespace {

constexpr qsizetype HeadFileBytes = 160;
const char HeadFormat[] = "fabric-broker-audit-head/1";

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

// Reads a head file: nullopt with why empty when there is none, with why set when unreadable.
std::optional<AuditHead> readHeadFile(const QString &path, QString *why)
{
    why->clear();
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            *why = errnoText(errno);
        return std::nullopt;
    }
    QByteArray buf(4096, '\0');
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
    return parseHeadFile(buf, why);
}

QString sameUserNote()
{
    return QStringLiteral("the log was replaced, moved, unlinked or truncated by something other "
                          "than this writer");
}

} // namespace

std::optional<AuditHead> AuditHead::parse(const QString &text)
{
    const QString t = text.trimmed();
    const qsizetype colon = t.indexOf(u':');
    AuditHead head;
    if (colon < 0) {
        head.sha256 = t;
    } else {
        bool ok = false;
        head.seq = t.left(colon).toLongLong(&ok);
        if (!ok || head.seq < 0 || t.left(colon).startsWith(u'+'))
            return std::nullopt;
        head.sha256 = t.mid(colon + 1);
    }
    if (!isLowerHex64(head.sha256))
        return std::nullopt;
    return head;
}

QString AuditHead::toString() const
{
    return QStringLiteral("%1:%2").arg(seq).arg(sha256);
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
        while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
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
    writeHeadLocked();
    return true;
}

bool AuditLog::record(const QString &type, const QJsonObject &data)
{
    QMutexLocker lock(&m_mutex);
    if (m_fd < 0)
        return fail(QStringLiteral("audit log is not open"));

    while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
    }
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
        if (!appendLocked(QLatin1String(ContinuedType), *m_continuation, nullptr))
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
    return sanitizeData(data);
}

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
        if (p.record.value(QStringLiteral("type")).toString() == QLatin1String(ContinuedType)) {
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
