#include "core/AuditLogDetail.h"

#include "core/CanonicalJson.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonDocument>
#include <QStringList>

#include <cmath>
#include <cstring>

// The record line: hashing, time stamps, the head notation, and classify(), which says what
// one line of the log is. Shared by the writer (its tail) and the readers (verify, export).

namespace fb {

namespace auditdetail {

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

namespace {

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

} // namespace

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
} // namespace auditdetail

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
    if (!auditdetail::isLowerHex64(head.sha256))
        return std::nullopt;
    return head;
}

QString AuditHead::toString() const
{
    return QStringLiteral("%1:%2").arg(seq).arg(sha256);
}

QString AuditLog::zeroHash()
{
    return QString(64, u'0');
}

} // namespace fb
