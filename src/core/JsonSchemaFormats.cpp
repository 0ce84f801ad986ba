// JsonSchema's formats (uuid, email, date-time) and the JSONPath-like instance paths its
// messages name.
#include "core/JsonSchema.h"

#include <QRegularExpression>

namespace fb {

using namespace Qt::StringLiterals;

namespace {

bool fullMatch(const QRegularExpression &re, const QString &s)
{
    return re.match(s).hasMatch();
}

int daysInMonth(int year, int month)
{
    static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month == 2) {
        const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        return leap ? 29 : 28;
    }
    return days[month - 1];
}

} // namespace

QString JsonSchema::childPath(const QString &parent, const QString &key)
{
    static const QRegularExpression identifier(
        QRegularExpression::anchoredPattern(u"[A-Za-z_][A-Za-z0-9_]*"_s));
    if (fullMatch(identifier, key))
        return parent + u'.' + key;
    QString escaped = key;
    escaped.replace(u'\\', u"\\\\"_s).replace(u'\'', u"\\'"_s);
    return parent + u"['"_s + escaped + u"']"_s;
}

QString JsonSchema::indexPath(const QString &parent, qsizetype index)
{
    return parent + u'[' + QString::number(index) + u']';
}

bool JsonSchema::isUuid(const QString &s)
{
    static const QRegularExpression re(QRegularExpression::anchoredPattern(
        u"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"_s));
    return fullMatch(re, s);
}

bool JsonSchema::isEmail(const QString &s)
{
    // The "full" e-mail format of ajv-formats (what MCP clients check), limited to 254 characters
    // (RFC 5321 path limit).
    static const QRegularExpression re(
        QRegularExpression::anchoredPattern(
            u"[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
            "@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"_s),
        QRegularExpression::CaseInsensitiveOption);
    return s.size() <= 254 && fullMatch(re, s);
}

bool JsonSchema::isDateTime(const QString &s)
{
    // RFC 3339 section 5.6 date-time.
    static const QRegularExpression re(QRegularExpression::anchoredPattern(
        u"(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)?"
        "(?:[Zz]|[+-](\\d{2}):(\\d{2}))"_s));
    const auto m = re.match(s);
    if (!m.hasMatch())
        return false;
    const int year = m.capturedView(1).toInt();
    const int month = m.capturedView(2).toInt();
    const int day = m.capturedView(3).toInt();
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
        return false;
    if (m.capturedView(4).toInt() > 23 || m.capturedView(5).toInt() > 59 ||
        m.capturedView(6).toInt() > 59)
        return false;
    if (m.lastCapturedIndex() >= 9 && !m.capturedView(8).isEmpty()) {
        if (m.capturedView(8).toInt() > 23 || m.capturedView(9).toInt() > 59)
            return false;
    }
    return true;
}

} // namespace fb
