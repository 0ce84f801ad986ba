#include "mcp/FrameWriter.h"

#include <utility>

namespace fb::mcp {

FrameWriter::FrameWriter(QIODevice *output, qint64 maxPendingWrite, FailureHandler onFailure)
    : m_output(output)
    , m_maxPendingWrite(maxPendingWrite)
    , m_onFailure(std::move(onFailure))
{
}

void FrameWriter::write(QByteArray frame)
{
    if (m_stopped || !m_output)
        return;
    frame.append('\n');
    if (m_coalesceDepth > 0) {
        m_pending.append(frame);
        if (m_pending.size() >= CoalesceLimit)
            writeBlock();
        return;
    }
    writeOut(frame);
}

void FrameWriter::writeBlock()
{
    QByteArray block = std::exchange(m_pending, QByteArray());
    writeOut(block); // the device copies what it keeps: block is not shared afterwards
    // Unless the failure handler wrote meanwhile (or stopped the writer), the buffer returns;
    // not one grown far past the limit by a single huge frame (the scope's end frees it anyway).
    if (m_pending.isEmpty() && !m_stopped && block.capacity() <= 2 * CoalesceLimit) {
        block.resize(0);
        m_pending = std::move(block);
    }
}

void FrameWriter::flushPending()
{
    if (!m_pending.isEmpty() && !m_stopped && m_output)
        m_output->write(std::exchange(m_pending, QByteArray()));
}

void FrameWriter::stop()
{
    m_stopped = true;
    m_pending.clear();
}

void FrameWriter::writeOut(const QByteArray &bytes)
{
    if (m_stopped || !m_output)
        return;
    const qint64 written = m_output->write(bytes);
    if (written != bytes.size()) {
        if (m_onFailure)
            m_onFailure(Failure::WriteFailed, m_output ? m_output->errorString() : QString());
        return;
    }
    if (m_maxPendingWrite > 0 && m_output->bytesToWrite() > m_maxPendingWrite && m_onFailure)
        m_onFailure(Failure::NotReading, QString::number(m_output->bytesToWrite()));
}

FrameWriter::Coalesce::Coalesce(FrameWriter &writer)
    : m_writer(writer)
{
    ++m_writer.m_coalesceDepth;
}

FrameWriter::Coalesce::~Coalesce()
{
    if (--m_writer.m_coalesceDepth > 0)
        return;
    // What is coalesced leaves now; a buffer kept by writeBlock is freed: an idle session holds
    // nothing.
    const QByteArray rest = std::exchange(m_writer.m_pending, QByteArray());
    if (!rest.isEmpty())
        m_writer.writeOut(rest);
}

} // namespace fb::mcp
