#pragma once
// FrameReader: splits a byte stream into newline-delimited frames.
//  - partial lines are buffered until their newline arrives;
//  - a trailing CR is stripped (CRLF framing), blank lines are ignored;
//  - a line longer than the maximum is reported once as Oversized and then discarded WITHOUT
//    being buffered: the reader keeps scanning for the next newline and resumes after it.
// Frames that lie entirely inside one chunk are handed out without copying
// (QByteArray::fromRawData over the chunk), so the sink must not keep them beyond the call.
#include <QByteArray>
#include <cstring>

namespace fb::mcp {

class FrameReader {
public:
    enum class Event { Frame, Oversized };

    explicit FrameReader(qint64 maxFrameBytes)
        : m_max(maxFrameBytes)
    {
    }

    void setMaxFrameBytes(qint64 max) { m_max = max; }
    qint64 maxFrameBytes() const { return m_max; }
    qint64 bufferedBytes() const { return m_buf.size(); }
    bool isDiscarding() const { return m_discarding; }

    // sink(Event, const QByteArray &frame); frame is empty for Oversized.
    template <typename Sink> void feed(const QByteArray &chunk, Sink &&sink)
    {
        const char *data = chunk.constData();
        const qsizetype n = chunk.size();
        qsizetype pos = 0;
        while (pos < n) {
            const void *hit = std::memchr(data + pos, '\n', static_cast<size_t>(n - pos));
            if (!hit) {
                if (m_discarding)
                    return;
                const qsizetype rest = n - pos;
                // +1: a line of exactly max bytes may still be followed by its CR.
                if (m_buf.size() + rest > m_max + 1) {
                    m_buf = QByteArray();
                    m_discarding = true;
                    sink(Event::Oversized, QByteArray());
                    return;
                }
                m_buf.append(data + pos, rest);
                return;
            }
            const qsizetype end = static_cast<const char *>(hit) - data;
            if (m_discarding) {
                m_discarding = false;
                pos = end + 1;
                continue;
            }
            if (m_buf.isEmpty()) {
                qsizetype len = end - pos;
                if (len > 0 && data[pos + len - 1] == '\r')
                    --len;
                emitLine(data + pos, len, nullptr, sink);
            } else {
                m_buf.append(data + pos, end - pos);
                if (m_buf.endsWith('\r'))
                    m_buf.chop(1);
                const QByteArray line = std::exchange(m_buf, QByteArray());
                emitLine(line.constData(), line.size(), &line, sink);
            }
            pos = end + 1;
        }
    }

    // End of input: an unterminated last line is still a frame.
    template <typename Sink> void finish(Sink &&sink)
    {
        if (m_discarding) {
            m_discarding = false;
            return;
        }
        if (m_buf.isEmpty())
            return;
        QByteArray line = std::exchange(m_buf, QByteArray());
        if (line.endsWith('\r'))
            line.chop(1);
        emitLine(line.constData(), line.size(), &line, sink);
    }

private:
    template <typename Sink>
    void emitLine(const char *p, qsizetype len, const QByteArray *owned, Sink &&sink)
    {
        if (len > m_max) {
            sink(Event::Oversized, QByteArray());
            return;
        }
        if (isBlank(p, len))
            return;
        if (owned)
            sink(Event::Frame, *owned);
        else
            sink(Event::Frame, QByteArray::fromRawData(p, len));
    }

    static bool isBlank(const char *p, qsizetype len)
    {
        for (qsizetype i = 0; i < len; ++i) {
            if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
                return false;
        }
        return true;
    }

    qint64 m_max;
    QByteArray m_buf;
    bool m_discarding = false;
};

} // namespace fb::mcp
