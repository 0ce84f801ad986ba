#include "core/CanonicalJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QList>
#include <QVarLengthArray>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <utility>

namespace fb {

namespace {

void appendValue(QByteArray &out, const QJsonValue &value);
bool utf16Less(const QString &a, const QString &b);

bool utf16Less(const QString &a, const QString &b)
{
    const auto *pa = reinterpret_cast<const char16_t *>(a.utf16());
    const auto *pb = reinterpret_cast<const char16_t *>(b.utf16());
    return std::lexicographical_compare(pa, pa + a.size(), pb, pb + b.size());
}

void appendEscapedUtf8(QByteArray &out, const char *p, qsizetype n)
{
    static const char hex[] = "0123456789abcdef";
    // The characters JSON escapes with a letter, and their letters in the same order.
    static constexpr std::string_view lettered = "\"\\\b\f\n\r\t";
    static constexpr std::string_view letters = "\"\\bfnrt";
    for (qsizetype i = 0; i < n; ++i) {
        const auto u = static_cast<unsigned char>(p[i]);
        if (u >= 0x20 && u != '"' && u != '\\') {
            out.append(static_cast<char>(u));
        } else if (const size_t k = lettered.find(static_cast<char>(u));
                   k != std::string_view::npos) {
            const char esc[2] = {'\\', letters[k]};
            out.append(esc, 2);
        } else {
            const char esc[6] = {'\\', 'u', '0', '0', hex[u >> 4], hex[u & 0xf]};
            out.append(esc, 6);
        }
    }
}

void appendString(QByteArray &out, const QString &s)
{
    out.append('"');
    // Fast path: ASCII strings (almost every key and value of a Fabric request) are escaped
    // straight from UTF-16 without an intermediate UTF-8 copy.
    const char16_t *p = reinterpret_cast<const char16_t *>(s.utf16());
    const qsizetype n = s.size();
    bool ascii = true;
    for (qsizetype i = 0; i < n; ++i) {
        if (p[i] >= 0x80) {
            ascii = false;
            break;
        }
    }
    if (ascii) {
        char buf[256];
        qsizetype done = 0;
        while (done < n) {
            const qsizetype chunk = std::min<qsizetype>(n - done, sizeof buf);
            for (qsizetype i = 0; i < chunk; ++i)
                buf[i] = static_cast<char>(p[done + i]);
            appendEscapedUtf8(out, buf, chunk);
            done += chunk;
        }
    } else {
        const QByteArray utf8 = s.toUtf8();
        appendEscapedUtf8(out, utf8.constData(), utf8.size());
    }
    out.append('"');
}

void appendNumber(QByteArray &out, double v)
{
    if (!std::isfinite(v)) {
        out.append("null");
        return;
    }
    if (v == 0) { // also -0
        out.append('0');
        return;
    }
    // Shortest round-trip digits in scientific form: "-d.ddde+XX".
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    const std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
    size_t pos = 0;
    if (sci[0] == '-') {
        out.append('-');
        pos = 1;
    }
    const size_t ePos = sci.find('e');
    std::string digits;
    for (size_t i = pos; i < ePos; ++i) {
        if (sci[i] != '.')
            digits.push_back(sci[i]);
    }
    while (digits.size() > 1 && digits.back() == '0')
        digits.pop_back();
    int exp10 = 0;
    std::from_chars(sci.data() + ePos + 1 + (sci[ePos + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                    exp10);
    const int k = static_cast<int>(digits.size());
    const int n = exp10 + 1; // value = 0.digits * 10^n
    if (k <= n && n <= 21) {
        out.append(digits.data(), k);
        out.append(QByteArray(n - k, '0'));
    } else if (0 < n && n <= 21) {
        out.append(digits.data(), n);
        out.append('.');
        out.append(digits.data() + n, k - n);
    } else if (-6 < n && n <= 0) {
        out.append("0.");
        out.append(QByteArray(-n, '0'));
        out.append(digits.data(), k);
    } else {
        out.append(digits[0]);
        if (k > 1) {
            out.append('.');
            out.append(digits.data() + 1, k - 1);
        }
        out.append('e');
        out.append(n - 1 >= 0 ? '+' : '-');
        out.append(QByteArray::number(std::abs(n - 1)));
    }
}

void appendObject(QByteArray &out, const QJsonObject &obj)
{
    // QJsonObject iterates its members sorted by key; RFC 8785 wants UTF-16 code unit order,
    // which can differ only around surrogates, so the order is checked and fixed if needed.
    using Member = std::pair<QString, QJsonValue>;
    QVarLengthArray<Member, 16> members;
    members.reserve(obj.size());
    bool sorted = true;
    for (auto it = obj.constBegin(); it != obj.constEnd(); ++it) {
        QString key = it.key();
        if (!members.isEmpty() && !utf16Less(members.back().first, key))
            sorted = false;
        members.append({std::move(key), it.value()});
    }
    if (!sorted)
        std::sort(members.begin(), members.end(),
                  [](const Member &a, const Member &b) { return utf16Less(a.first, b.first); });
    out.append('{');
    bool first = true;
    for (const Member &m : members) {
        if (!first)
            out.append(',');
        first = false;
        appendString(out, m.first);
        out.append(':');
        appendValue(out, m.second);
    }
    out.append('}');
}

void appendValue(QByteArray &out, const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        out.append("null");
        break;
    case QJsonValue::Bool:
        out.append(value.toBool() ? "true" : "false");
        break;
    case QJsonValue::Double:
        appendNumber(out, value.toDouble());
        break;
    case QJsonValue::String:
        appendString(out, value.toString());
        break;
    case QJsonValue::Array: {
        out.append('[');
        bool first = true;
        for (const QJsonValue &item : value.toArray()) {
            if (!first)
                out.append(',');
            first = false;
            appendValue(out, item);
        }
        out.append(']');
        break;
    }
    case QJsonValue::Object:
        appendObject(out, value.toObject());
        break;
    }
}

// Scans JSON text for duplicate keys and nesting depth, which QJsonDocument does not report.
// Assumes the text already parsed as valid JSON.
bool checkStructure(const QByteArray &json, int maxDepth, QString *error)
{
    struct Frame {
        bool isObject;
        QList<QByteArray> keys;
        bool expectKey;
    };
    QList<Frame> stack;
    const qsizetype n = json.size();
    for (qsizetype i = 0; i < n; ++i) {
        const char c = json[i];
        if (c == '"') {
            const qsizetype start = i;
            ++i;
            while (i < n && json[i] != '"') {
                // RFC 8259 section 7: control characters must be escaped (Qt's parser lets them
                // in).
                if (static_cast<unsigned char>(json[i]) < 0x20) {
                    if (error)
                        *error = QStringLiteral("unescaped control character in a string");
                    return false;
                }
                if (json[i] == '\\')
                    ++i;
                ++i;
            }
            if (!stack.isEmpty() && stack.last().isObject && stack.last().expectKey) {
                QByteArray raw = json.mid(start, i - start + 1);
                // Compare decoded keys, so "a" and "\u0061" are duplicates too.
                const QJsonDocument d = QJsonDocument::fromJson("[" + raw + "]");
                const QByteArray key = d.array().at(0).toString().toUtf8();
                if (stack.last().keys.contains(key)) {
                    if (error)
                        *error = QStringLiteral("duplicate object key \"%1\"")
                                     .arg(QString::fromUtf8(key));
                    return false;
                }
                stack.last().keys.append(key);
                stack.last().expectKey = false;
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            // QJsonDocument accepts numbers beyond the double range; JSON for us does not.
            qsizetype end = i;
            while (end < n && QByteArrayView("+-.eE0123456789").contains(json[end]))
                ++end;
            double v = 0;
            const auto res = std::from_chars(json.constData() + i, json.constData() + end, v);
            if (res.ec != std::errc() || !std::isfinite(v)) {
                if (error)
                    *error = QStringLiteral("number out of range: %1")
                                 .arg(QString::fromLatin1(
                                     json.mid(i, std::min<qsizetype>(end - i, 40))));
                return false;
            }
            i = end - 1;
        } else if (c == '{' || c == '[') {
            stack.append({c == '{', {}, c == '{'});
            if (stack.size() > maxDepth) {
                if (error)
                    *error = QStringLiteral("JSON nesting deeper than %1 levels").arg(maxDepth);
                return false;
            }
        } else if (c == '}' || c == ']') {
            if (!stack.isEmpty())
                stack.removeLast();
        } else if (c == ',') {
            if (!stack.isEmpty() && stack.last().isObject)
                stack.last().expectKey = true;
        }
    }
    return true;
}

// RFC 8785 section 3.2.2.2: lone surrogates (which "\\ud800" escapes can produce) are not
// Unicode and cannot be serialized as UTF-8. Depth is bounded by checkStructure() first.
bool hasLoneSurrogate(const QJsonValue &value)
{
    if (value.isString())
        return !QStringView(value.toString()).isValidUtf16();
    if (value.isArray()) {
        const QJsonArray a = value.toArray();
        return std::any_of(a.begin(), a.end(),
                           [](const QJsonValue &v) { return hasLoneSurrogate(v); });
    }
    if (value.isObject()) {
        const QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (!QStringView(it.key()).isValidUtf16() || hasLoneSurrogate(it.value()))
                return true;
        }
    }
    return false;
}

} // namespace

QByteArray canonicalJson(const QJsonValue &value)
{
    QByteArray out;
    out.reserve(256);
    appendValue(out, value);
    return out;
}

QByteArray canonicalNumber(double value)
{
    QByteArray out;
    appendNumber(out, value);
    return out;
}

QByteArray canonicalString(const QString &value)
{
    QByteArray out;
    appendString(out, value);
    return out;
}

std::optional<QByteArray> canonicalizeText(const QByteArray &json, QString *error, int maxDepth)
{
    QJsonParseError pe{};
    // Wrap so scalars parse too; QJsonDocument only accepts arrays and objects at top level.
    const QJsonDocument doc = QJsonDocument::fromJson("[" + json + "]", &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isArray() || doc.array().size() != 1) {
        if (error)
            *error = pe.error != QJsonParseError::NoError ? pe.errorString()
                                                          : QStringLiteral("not one JSON value");
        return std::nullopt;
    }
    if (!checkStructure(json, maxDepth, error))
        return std::nullopt;
    if (hasLoneSurrogate(doc.array().at(0))) {
        if (error)
            *error = QStringLiteral("a string contains a lone UTF-16 surrogate (not Unicode)");
        return std::nullopt;
    }
    return canonicalJson(doc.array().at(0));
}

} // namespace fb
