#pragma once
// FrameWriter: the only writer of one session's output device. Every frame is one line handed
// to the device in one write call. Frames made while one read is handled are coalesced into one
// write (pipelined clients get their answers together, up to CoalesceLimit bytes), and a client
// that does not read (more than maxPendingWrite bytes queued on the device) is reported, so that
// the session can drop it instead of buffering without bound.
#include <QByteArray>
#include <QIODevice>
#include <QPointer>
#include <QString>
#include <functional>
#include <utility>

namespace fb::mcp {

class FrameWriter {
public:
    enum class Failure {
        WriteFailed, // the device refused the bytes
        NotReading,  // the backlog passed maxPendingWrite
    };
    using FailureHandler = std::function<void(Failure, const QString &detail)>;

    FrameWriter(QIODevice *output, qint64 maxPendingWrite, FailureHandler onFailure);

    // Writes one frame (a newline is appended). Nothing is written once stopped.
    void write(QByteArray frame);
    // The same, for a frame that fill(QByteArray &) appends: while coalescing it is built in
    // place in the coalesced bytes (no buffer of its own per frame).
    template <typename Fill> void writeWith(Fill &&fill)
    {
        if (m_stopped || !m_output)
            return;
        if (m_coalesceDepth > 0) {
            fill(m_pending);
            m_pending.append('\n');
            if (m_pending.size() >= CoalesceLimit)
                writeBlock();
            return;
        }
        QByteArray frame;
        fill(frame);
        frame.append('\n');
        writeOut(frame);
    }
    // The bytes of buffer this writer holds (coalesced frames and a kept block's capacity):
    // none outside a Coalesce scope, at most about 2 * CoalesceLimit kept within one.
    qsizetype heldBytes() const { return m_pending.capacity(); }
    // Hands the coalesced frames to the device now (e.g. at close); nothing when stopped.
    void flushPending();
    // No more writes; what is coalesced is discarded.
    void stop();
    bool isStopped() const { return m_stopped; }

    // Frames written while one of these lives leave together when the outermost one ends.
    class Coalesce {
    public:
        explicit Coalesce(FrameWriter &writer);
        ~Coalesce();
        Coalesce(const Coalesce &) = delete;
        Coalesce &operator=(const Coalesce &) = delete;

    private:
        FrameWriter &m_writer;
    };

    static constexpr qsizetype CoalesceLimit = 256 * 1024;

private:
    void writeOut(const QByteArray &bytes);
    // Writes the coalesced block that reached CoalesceLimit and keeps its buffer (emptied, its
    // capacity kept) for the next block of the same Coalesce scope: a pipelined burst fills one
    // buffer again instead of growing a new one from nothing every 256 KiB.
    void writeBlock();

    QPointer<QIODevice> m_output;
    qint64 m_maxPendingWrite;
    FailureHandler m_onFailure;
    int m_coalesceDepth = 0;
    QByteArray m_pending;
    bool m_stopped = false;
};

} // namespace fb::mcp
