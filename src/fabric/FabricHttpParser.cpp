#include "fabric/FabricHttpParser.h"

#include <algorithm>

namespace fb {

namespace {

bool isTchar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if ((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isOws(char c)
{
    return c == ' ' || c == '\t';
}

// Field values and reason phrases: no control characters but HTAB (obs-text is allowed).
QByteArrayView trimmedOws(QByteArrayView v)
{
    while (!v.isEmpty() && isOws(v.front()))
        v = v.sliced(1);
    while (!v.isEmpty() && isOws(v.back()))
        v.chop(1);
    return v;
}

QByteArray lower(QByteArrayView v)
{
    return v.toByteArray().toLower();
}

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

} // namespace

bool httpHasControl(QByteArrayView v)
{
    for (const char c : v) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\t') || u == 0x7f)
            return true;
    }
    return false;
}

HttpResponseParser::HttpResponseParser(qint64 maxBodyBytes)
    : m_maxBody(maxBodyBytes)
{
}

QByteArray HttpResponseParser::header(QByteArrayView lowerName) const
{
    for (const auto &[name, value] : m_headers) {
        if (name == lowerName)
            return value;
    }
    return {};
}

bool HttpResponseParser::reusable() const
{
    return m_result == Result::Done && !m_http10 && !m_close && !m_extra;
}

HttpResponseParser::Result HttpResponseParser::fail(const QString &error)
{
    m_result = Result::Failed;
    m_error = error;
    m_buf.clear();
    m_pos = 0;
    m_body.clear();
    return m_result;
}

HttpResponseParser::Result HttpResponseParser::feed(QByteArrayView bytes)
{
    if (bytes.isEmpty())
        return m_result;
    m_anyByte = true;
    if (m_result == Result::Failed)
        return m_result;
    if (m_result == Result::Done) {
        m_extra = true;
        return m_result;
    }
    // A body delimited by its length (or the close) goes straight into the body, unbuffered.
    if ((m_state == State::Length || m_state == State::UntilEof) && m_pos == m_buf.size()) {
        m_buf.clear();
        m_pos = 0;
        const qsizetype n = m_state == State::Length
                                ? qsizetype(std::min<qint64>(m_remaining, bytes.size()))
                                : bytes.size();
        if (!appendBody(bytes.first(n)))
            return m_result;
        bytes = bytes.sliced(n);
        if (m_state == State::Length) {
            m_remaining -= n;
            if (m_remaining == 0) {
                m_state = State::Done;
                m_result = Result::Done;
                if (!bytes.isEmpty())
                    m_extra = true;
                return m_result;
            }
        }
        if (bytes.isEmpty())
            return m_result;
    }
    m_buf.append(bytes.data(), bytes.size());
    const Result r = run();
    if (r == Result::NeedMore && m_pos > 0) {
        m_buf.remove(0, m_pos);
        m_pos = 0;
    }
    return r;
}

HttpResponseParser::Result HttpResponseParser::finishAtEof()
{
    if (m_result != Result::NeedMore)
        return m_result;
    if (m_state == State::UntilEof) {
        m_state = State::Done;
        m_result = Result::Done;
        return m_result;
    }
    if (!m_anyByte)
        return fail(QStringLiteral("the connection closed before a response arrived"));
    return fail(QStringLiteral("the connection closed before the response was complete"));
}

bool HttpResponseParser::nextLine(QByteArrayView *line, qsizetype limit, bool *failed)
{
    *failed = false;
    const qsizetype available = m_buf.size() - m_pos;
    const qsizetype nl = m_buf.indexOf('\n', m_pos);
    if (nl < 0) {
        if (available > limit) {
            *failed = true;
            fail(QStringLiteral("a line of the response is longer than %1 bytes").arg(limit));
        }
        return false;
    }
    qsizetype end = nl;
    if (end > m_pos && m_buf.at(end - 1) == '\r')
        --end;
    const qsizetype consumed = nl + 1 - m_pos;
    if (consumed > limit) {
        *failed = true;
        fail(QStringLiteral("a line of the response is longer than %1 bytes").arg(limit));
        return false;
    }
    *line = QByteArrayView(m_buf).sliced(m_pos, end - m_pos);
    if (line->contains('\r')) {
        *failed = true;
        fail(QStringLiteral("the response has a bare CR in a line"));
        return false;
    }
    // The chunked coding's framing is part of the body on the wire: it counts against the bound.
    if (m_state != State::Head && !countWire(consumed)) {
        *failed = true;
        return false;
    }
    m_pos = nl + 1;
    if (m_state == State::Head || m_state == State::Trailers)
        m_headBytes += consumed;
    return true;
}

HttpResponseParser::Result HttpResponseParser::run()
{
    while (m_result == Result::NeedMore) {
        const qsizetype available = m_buf.size() - m_pos;
        switch (m_state) {
        case State::Head:
        case State::Trailers: {
            QByteArrayView line;
            bool failed = false;
            if (!nextLine(&line, kMaxHeadBytes - m_headBytes, &failed)) {
                if (failed && m_error.startsWith(QLatin1StringView("a line of")))
                    fail(m_state == State::Head
                             ? QStringLiteral("the response's status line and header fields are "
                                              "larger than %1 bytes")
                                   .arg(kMaxHeadBytes)
                             : QStringLiteral("the response's trailer fields are larger than %1 "
                                              "bytes")
                                   .arg(kMaxHeadBytes));
                return m_result;
            }
            if (m_state == State::Head) {
                if (!headLine(line))
                    return m_result;
            } else if (line.isEmpty()) {
                m_state = State::Done;
                m_result = Result::Done;
            } else if (!field(line, true)) {
                return m_result;
            }
            break;
        }
        case State::Length: {
            const qsizetype n = qsizetype(std::min<qint64>(m_remaining, available));
            if (n == 0)
                return m_result;
            if (!appendBody(QByteArrayView(m_buf).sliced(m_pos, n)))
                return m_result;
            m_pos += n;
            m_remaining -= n;
            if (m_remaining == 0) {
                m_state = State::Done;
                m_result = Result::Done;
            }
            break;
        }
        case State::UntilEof:
            if (available == 0)
                return m_result;
            if (!appendBody(QByteArrayView(m_buf).sliced(m_pos)))
                return m_result;
            m_pos = m_buf.size();
            return m_result;
        case State::ChunkSize: {
            QByteArrayView line;
            bool failed = false;
            if (!nextLine(&line, kMaxChunkLine, &failed)) {
                if (failed && m_error.startsWith(QLatin1StringView("a line of")))
                    fail(QStringLiteral("a chunk-size line of the response (with its extensions) "
                                        "is longer than %1 bytes")
                             .arg(kMaxChunkLine));
                return m_result;
            }
            if (!chunkSizeLine(line))
                return m_result;
            break;
        }
        case State::ChunkData: {
            const qsizetype n = qsizetype(std::min<qint64>(m_remaining, available));
            if (n == 0)
                return m_result;
            if (!appendBody(QByteArrayView(m_buf).sliced(m_pos, n)))
                return m_result;
            m_pos += n;
            m_remaining -= n;
            if (m_remaining == 0)
                m_state = State::ChunkEnd;
            break;
        }
        case State::ChunkEnd: {
            QByteArrayView line;
            bool failed = false;
            if (!nextLine(&line, 2, &failed)) {
                if (failed && m_error.startsWith(QLatin1StringView("a line of")))
                    fail(QStringLiteral("a chunk of the response does not end with CRLF"));
                return m_result;
            }
            if (!line.isEmpty()) {
                fail(QStringLiteral("a chunk of the response does not end with CRLF"));
                return m_result;
            }
            m_state = State::ChunkSize;
            break;
        }
        case State::Done:
            m_result = Result::Done;
            break;
        }
    }
    if (m_result == Result::Done) {
        if (m_pos < m_buf.size())
            m_extra = true;
        m_buf.clear();
        m_pos = 0;
    }
    return m_result;
}

bool HttpResponseParser::headLine(QByteArrayView line)
{
    if (m_status == 0)
        return statusLine(line);
    if (!line.isEmpty())
        return field(line, false);
    return endOfHead();
}

bool HttpResponseParser::statusLine(QByteArrayView line)
{
    // HTTP/1.x SP 3DIGIT [SP reason-phrase]
    const bool ok = line.size() >= 12 && line.startsWith("HTTP/1.") &&
                    (line.at(7) == '0' || line.at(7) == '1') && line.at(8) == ' ' &&
                    line.at(9) >= '1' && line.at(9) <= '5' && line.at(10) >= '0' &&
                    line.at(10) <= '9' && line.at(11) >= '0' && line.at(11) <= '9' &&
                    (line.size() == 12 || line.at(12) == ' ') && !line.contains('\0');
    if (!ok) {
        fail(QStringLiteral("the response does not start with a valid HTTP/1.1 status line"));
        return false;
    }
    m_http10 = line.at(7) == '0';
    m_status = (line.at(9) - '0') * 100 + (line.at(10) - '0') * 10 + (line.at(11) - '0');
    return true;
}

bool HttpResponseParser::field(QByteArrayView line, bool trailer)
{
    if (isOws(line.front())) {
        fail(QStringLiteral("the response folds a header field over lines (obs-fold), which is "
                            "refused"));
        return false;
    }
    if (++m_fields > kMaxHeaders) {
        fail(QStringLiteral("the response has more than %1 header fields").arg(kMaxHeaders));
        return false;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0) {
        fail(QStringLiteral("the response has a malformed header field"));
        return false;
    }
    const QByteArrayView name = line.first(colon);
    for (const char c : name) {
        if (!isTchar(c)) {
            fail(QStringLiteral("the response has a malformed header field name"));
            return false;
        }
    }
    // NUL is refused (RFC 9110 5.5); other control characters are kept as they are, as
    // QNetworkAccessManager kept them: what the broker shows of a value is sanitized where it
    // is shown (mediaType(), sanitizeRemoteText()).
    const QByteArrayView value = trimmedOws(line.sliced(colon + 1));
    if (value.contains('\0')) {
        fail(QStringLiteral("the response has a NUL character in a header field"));
        return false;
    }
    if (!trailer)
        m_headers.append(qMakePair(lower(name), value.toByteArray()));
    return true;
}

bool HttpResponseParser::endOfHead()
{
    if (m_status < 200) {
        if (m_status == 101) {
            fail(QStringLiteral("the server tried to switch protocols (HTTP 101)"));
            return false;
        }
        if (++m_interim > kMaxInterim) {
            fail(QStringLiteral("the response has more than %1 interim (1xx) responses")
                     .arg(kMaxInterim));
            return false;
        }
        m_status = 0;
        m_fields = 0;
        m_headers.clear();
        return true;
    }
    QList<QByteArray> transferCodings;
    qint64 length = -1;
    for (const auto &[name, value] : std::as_const(m_headers)) {
        if (name == "connection") {
            for (const QByteArray &t : value.split(',')) {
                if (trimmedOws(t).compare("close", Qt::CaseInsensitive) == 0)
                    m_close = true;
            }
        } else if (name == "transfer-encoding") {
            for (const QByteArray &t : value.split(','))
                transferCodings.append(lower(trimmedOws(t)));
        } else if (name == "content-length") {
            for (const QByteArray &part : value.split(',')) {
                const QByteArrayView digits = trimmedOws(part);
                bool ok = !digits.isEmpty() && digits.size() <= 18;
                for (const char c : digits)
                    ok = ok && c >= '0' && c <= '9';
                const qint64 n = ok ? digits.toLongLong(&ok) : -1;
                if (!ok) {
                    fail(QStringLiteral("the response has an invalid Content-Length"));
                    return false;
                }
                if (length >= 0 && n != length) {
                    fail(QStringLiteral("the response has conflicting Content-Length values"));
                    return false;
                }
                length = n;
            }
        }
    }
    if (m_http10)
        m_close = true;
    if (m_status == 204 || m_status == 304) {
        m_state = State::Done;
        m_result = Result::Done;
        return true;
    }
    if (!transferCodings.isEmpty()) {
        if (length >= 0) {
            fail(QStringLiteral("the response has both Content-Length and Transfer-Encoding"));
            return false;
        }
        if (m_http10 || transferCodings != QList<QByteArray>{QByteArrayLiteral("chunked")}) {
            fail(QStringLiteral("the response uses a transfer coding other than chunked"));
            return false;
        }
        m_state = State::ChunkSize;
        return true;
    }
    if (length >= 0) {
        if (length > m_maxBody) {
            m_tooLarge = true;
            fail(QStringLiteral("the response announces %1 bytes, more than %2")
                     .arg(length)
                     .arg(m_maxBody));
            return false;
        }
        m_body.reserve(qsizetype(length));
        m_remaining = length;
        m_state = length == 0 ? State::Done : State::Length;
        if (length == 0)
            m_result = Result::Done;
        return true;
    }
    if (!m_close) {
        fail(QStringLiteral("the response has neither Content-Length nor chunked coding and "
                            "the connection stays open"));
        return false;
    }
    m_state = State::UntilEof;
    return true;
}

bool HttpResponseParser::chunkSizeLine(QByteArrayView line)
{
    qsizetype i = 0;
    qint64 size = 0;
    while (i < line.size() && hexDigit(line.at(i)) >= 0) {
        if (i >= 15) {
            fail(QStringLiteral("the response has a chunk size that is too long"));
            return false;
        }
        size = size * 16 + hexDigit(line.at(i));
        ++i;
    }
    if (i == 0) {
        fail(QStringLiteral("the response has a malformed chunk size"));
        return false;
    }
    QByteArrayView rest = line.sliced(i);
    while (!rest.isEmpty() && isOws(rest.front()))
        rest = rest.sliced(1);
    if (!rest.isEmpty() && (rest.front() != ';' || httpHasControl(rest))) {
        fail(QStringLiteral("the response has a malformed chunk size"));
        return false;
    }
    if (size > m_maxBody - m_wireBody) {
        m_tooLarge = true;
        fail(QStringLiteral("the response is larger than %1 bytes").arg(m_maxBody));
        return false;
    }
    if (size == 0) {
        m_state = State::Trailers;
        m_headBytes = 0;
        m_fields = 0;
        return true;
    }
    m_remaining = size;
    m_state = State::ChunkData;
    return true;
}

bool HttpResponseParser::appendBody(QByteArrayView bytes)
{
    if (!countWire(bytes.size()))
        return false;
    m_body.append(bytes.data(), bytes.size());
    return true;
}

bool HttpResponseParser::countWire(qsizetype n)
{
    if (n > m_maxBody - m_wireBody) {
        m_tooLarge = true;
        fail(QStringLiteral("the response is larger than %1 bytes").arg(m_maxBody));
        return false;
    }
    m_wireBody += n;
    return true;
}

} // namespace fb
