#include "mcp/Protocol.h"
#include "mcp/Logging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <charconv>
#include <cmath>

namespace fb::mcp {
Q_LOGGING_CATEGORY(lcMcpServer, "fabricbroker.mcp.server")
Q_LOGGING_CATEGORY(lcMcpSession, "fabricbroker.mcp.session")
Q_LOGGING_CATEGORY(lcMcpTransport, "fabricbroker.mcp.transport")
} // namespace fb::mcp

using namespace Qt::StringLiterals;

namespace fb::mcp::protocol {

const QStringList &supportedVersions()
{
    static const QStringList versions{u"2025-11-25"_s, u"2025-06-18"_s, u"2025-03-26"_s,
                                      u"2024-11-05"_s};
    return versions;
}

QString latestVersion()
{
    return supportedVersions().constFirst();
}

QString batchVersion()
{
    return u"2025-03-26"_s;
}

bool isValidRequestId(const QJsonValue &id)
{
    return id.isString() || id.isDouble();
}

QString idKey(const QJsonValue &id)
{
    if (id.isString())
        return u's' + id.toString();
    const double d = id.toDouble();
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.2e18) {
        const qint64 i = id.toInteger(static_cast<qint64>(d));
        return u'i' + QString::number(i);
    }
    return u'd' + QString::number(d, 'g', 17);
}

QByteArray valueToJson(const QJsonValue &value)
{
    QByteArray out;
    appendValueJson(out, value);
    return out;
}

void appendValueJson(QByteArray &out, const QJsonValue &value)
{
    // Integer ids are by far the most common: no document round trip for them.
    if (value.isDouble()) {
        const double d = value.toDouble();
        if (d == std::floor(d) && std::fabs(d) < 9007199254740992.0) {
            char digits[24];
            const auto result =
                std::to_chars(digits, digits + sizeof digits, static_cast<qint64>(d));
            out.append(digits, result.ptr - digits);
            return;
        }
    }
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    out.append(array.constData() + 1, array.size() - 2);
}

namespace {

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The flat subset's grammar, over [p, end): every byte it does not know ends the scan (false).
class FlatScanner {
public:
    explicit FlatScanner(QByteArrayView frame)
        : m_p(frame.data())
        , m_end(frame.data() + frame.size())
    {
    }

    void skipSpace()
    {
        while (m_p < m_end && isJsonSpace(*m_p))
            ++m_p;
    }
    bool take(char c)
    {
        if (m_p >= m_end || *m_p != c)
            return false;
        ++m_p;
        return true;
    }
    bool at(char c) const { return m_p < m_end && *m_p == c; }
    bool atEnd() const { return m_p == m_end; }

    // A string of printable ASCII without escapes; its content in *out.
    bool plainString(QByteArrayView *out)
    {
        if (!take('"'))
            return false;
        const char *begin = m_p;
        while (m_p < m_end && *m_p != '"') {
            const auto c = static_cast<unsigned char>(*m_p);
            if (c < 0x20 || c > 0x7e || c == '\\')
                return false;
            ++m_p;
        }
        if (m_p >= m_end)
            return false;
        *out = QByteArrayView(begin, m_p - begin);
        ++m_p;
        return true;
    }

    // An integer of 1..15 digits: no leading zero, no "-0", no fraction or exponent (those go
    // through the document, which has its own rules for them).
    bool smallInteger(QByteArrayView *out)
    {
        const char *begin = m_p;
        const bool negative = take('-');
        const char *digits = m_p;
        while (m_p < m_end && *m_p >= '0' && *m_p <= '9')
            ++m_p;
        const qsizetype n = m_p - digits;
        if (n == 0 || n > 15 || (*digits == '0' && (n > 1 || negative)))
            return false;
        if (at('.') || at('e') || at('E'))
            return false;
        *out = QByteArrayView(begin, m_p - begin);
        return true;
    }

private:
    const char *m_p;
    const char *m_end;
};

} // namespace

bool scanFlatRequest(QByteArrayView frame, FlatRequest *out)
{
    FlatScanner in(frame);
    bool jsonrpc = false;
    bool id = false;
    bool method = false;
    in.skipSpace();
    if (!in.take('{'))
        return false;
    for (;;) {
        in.skipSpace();
        QByteArrayView key;
        if (!in.plainString(&key))
            return false;
        in.skipSpace();
        if (!in.take(':'))
            return false;
        in.skipSpace();
        if (key == "jsonrpc") {
            QByteArrayView version;
            if (jsonrpc || !in.plainString(&version) || version != "2.0")
                return false;
            jsonrpc = true;
        } else if (key == "method") {
            if (method || !in.plainString(&out->method))
                return false;
            method = true;
        } else if (key == "id") {
            if (id)
                return false;
            out->idIsString = in.at('"');
            if (!(out->idIsString ? in.plainString(&out->id) : in.smallInteger(&out->id)))
                return false;
            id = true;
        } else {
            return false;
        }
        in.skipSpace();
        if (in.take(','))
            continue;
        if (!in.take('}'))
            return false;
        break;
    }
    in.skipSpace();
    return in.atEnd() && jsonrpc && id && method;
}

const QStringList &logLevels()
{
    static const QStringList levels{u"debug"_s, u"info"_s,     u"notice"_s, u"warning"_s,
                                    u"error"_s, u"critical"_s, u"alert"_s,  u"emergency"_s};
    return levels;
}

int logLevelIndex(QStringView level)
{
    const QStringList &levels = logLevels();
    for (int i = 0; i < levels.size(); ++i) {
        if (levels.at(i) == level)
            return i;
    }
    return -1;
}

} // namespace fb::mcp::protocol
