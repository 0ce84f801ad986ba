#include "transport/http/SseStream.h"

#include <cstring>

using namespace Qt::StringLiterals;

namespace fb::transport {

SseStream::SseStream(QByteArray key, SseLimits limits)
    : m_key(std::move(key))
    , m_limits(limits)
{
}

QByteArray SseStream::frame(const QByteArray &id, const QByteArray &data, int retryMs)
{
    QByteArray out = "id: " + id + '\n';
    if (retryMs >= 0)
        out += "retry: " + QByteArray::number(retryMs) + '\n';
    qsizetype start = 0;
    for (;;) {
        // A line ends at CR, LF or CRLF: each line of the data is its own data field.
        qsizetype end = start;
        while (end < data.size() && data[end] != '\n' && data[end] != '\r')
            ++end;
        out += "data: " + data.mid(start, end - start) + '\n';
        if (end >= data.size())
            break;
        start = end + (data[end] == '\r' && end + 1 < data.size() && data[end + 1] == '\n' ? 2 : 1);
        if (start >= data.size())
            break;
    }
    return out + '\n';
}

std::optional<std::pair<QByteArray, quint64>> SseStream::parseId(const QByteArray &id)
{
    const qsizetype dot = id.lastIndexOf('.');
    if (dot <= 0 || dot > 64 || id.size() - dot > 21)
        return std::nullopt;
    const QByteArray digits = id.mid(dot + 1);
    for (const char c : digits) {
        if (c < '0' || c > '9')
            return std::nullopt;
    }
    bool ok = false;
    const quint64 seq = digits.toULongLong(&ok);
    if (!ok)
        return std::nullopt;
    return std::make_pair(id.left(dot), seq);
}

void SseStream::prime()
{
    if (m_primed || m_nextSeq != 1 || m_finished || hasFailed())
        return;
    m_primed = true;
    append(0, frame(m_key + ".0", QByteArray(), m_limits.retryMs));
}

bool SseStream::push(const QByteArray &json)
{
    if (m_finished || hasFailed())
        return false;
    const quint64 seq = m_nextSeq++;
    QByteArray bytes = frame(m_key + '.' + QByteArray::number(seq), json);
    if (m_backlog + bytes.size() > m_limits.maxBacklogBytes) {
        fail(u"the client read the event stream too slowly (more than %1 bytes behind)"_s.arg(
            m_limits.maxBacklogBytes));
        return false;
    }
    append(seq, std::move(bytes));
    return true;
}

void SseStream::append(quint64 seq, QByteArray bytes)
{
    m_backlog += bytes.size();
    m_retained += bytes.size();
    m_events.push_back(Event{seq, std::move(bytes)});
    trim();
    wake();
}

// Drops the oldest events already handed out while over the retention cap.
void SseStream::trim()
{
    while (m_retained > m_limits.maxRetainedBytes && m_cursor > 0) {
        m_retained -= m_events.front().bytes.size();
        m_events.pop_front();
        --m_cursor;
    }
}

void SseStream::finish()
{
    if (m_finished)
        return;
    m_finished = true;
    wake();
}

void SseStream::fail(const QString &why)
{
    if (hasFailed())
        return;
    m_failure = why.isEmpty() ? u"the event stream failed"_s : why;
    m_events.clear();
    m_cursor = 0;
    m_offset = 0;
    m_backlog = 0;
    m_retained = 0;
    wake();
}

quint64 SseStream::attach(std::optional<quint64> afterSeq, QString *why)
{
    if (hasFailed()) {
        if (why)
            *why = m_failure;
        return 0;
    }
    size_t index = 0;
    if (afterSeq) {
        if (*afterSeq >= m_nextSeq) {
            if (why)
                *why = u"the event id was never sent on this stream"_s;
            return 0;
        }
        // The first kept event must be at or before the one after afterSeq.
        const quint64 want = *afterSeq + 1;
        if (!m_events.empty() && m_events.front().seq > want && want < m_nextSeq) {
            if (why)
                *why = u"the events after it are no longer kept"_s;
            return 0;
        }
        while (index < m_events.size() && m_events[index].seq <= *afterSeq)
            ++index;
    }
    m_cursor = index;
    m_offset = 0;
    m_backlog = 0;
    for (size_t i = index; i < m_events.size(); ++i)
        m_backlog += m_events[i].bytes.size();
    m_attached = ++m_epochs;
    wake(); // a previous connection, if waiting, learns that it lost the stream
    return m_attached;
}

void SseStream::detach(quint64 epoch)
{
    if (epoch != m_attached || epoch == 0)
        return;
    m_attached = 0;
    if (!m_finished && m_onDetach) {
        const auto hook = std::exchange(m_onDetach, {});
        hook();
    }
}

SseStream::Read SseStream::read(quint64 epoch, char *out, qsizetype max, qsizetype *n)
{
    *n = 0;
    if (hasFailed())
        return Read::Error;
    if (epoch != m_attached)
        return Read::End;
    while (*n < max && m_cursor < m_events.size()) {
        const QByteArray &bytes = m_events[m_cursor].bytes;
        const qsizetype take = qMin(max - *n, bytes.size() - m_offset);
        std::memcpy(out + *n, bytes.constData() + m_offset, static_cast<size_t>(take));
        *n += take;
        m_offset += take;
        m_backlog -= take;
        if (m_offset == bytes.size()) {
            ++m_cursor;
            m_offset = 0;
        }
    }
    if (*n > 0) {
        trim();
        return Read::Data;
    }
    return m_finished ? Read::End : Read::Wait;
}

void SseStream::wake()
{
    if (m_wake) {
        const auto w = std::exchange(m_wake, {});
        w();
    }
}

} // namespace fb::transport
