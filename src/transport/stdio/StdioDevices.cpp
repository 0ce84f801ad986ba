#include "transport/stdio/StdioDevices.h"
#include "mcp/Logging.h"

#include <QMetaObject>
#include <QSocketNotifier>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fb::transport {

using mcp::lcMcpTransport;

namespace {
constexpr int ReadChunk = 64 * 1024;
constexpr int PollIntervalMs = 100;
// What the reader thread may have read ahead of the session: a source that never blocks
// (/dev/zero, a huge file) is read only as fast as the session consumes it, so it can neither
// grow memory nor flood the event loop with posted chunks.
constexpr qint64 ReadAheadLimit = 1024 * 1024;
} // namespace

// ---------------------------------------------------------------------------- StdinDevice

struct StdinDevice::ThreadState {
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable consumed; // readData took bytes, or stop
    qint64 ahead = 0;                 // read by the thread, not yet read by the session
    std::thread thread;
};

StdinDevice::StdinDevice(int fd, QObject *parent)
    : QIODevice(parent)
    , m_fd(fd)
{
    QIODevice::open(QIODevice::ReadOnly | QIODevice::Unbuffered);
    struct stat st {};
    const bool selectable = ::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
    if (selectable) {
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags >= 0)
            ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        m_notifier = new QSocketNotifier(static_cast<qintptr>(fd), QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, &StdinDevice::onNotifier);
        qCDebug(lcMcpTransport) << "stdin fd" << fd << "read with a socket notifier";
        return;
    }
    qCDebug(lcMcpTransport) << "stdin fd" << fd << "read by a reader thread";
    m_thread = std::make_shared<ThreadState>();
    auto state = m_thread;
    m_thread->thread = std::thread([state, fd, this] {
        QByteArray buffer(ReadChunk, Qt::Uninitialized);
        while (!state->stop.load()) {
            {
                std::unique_lock lock(state->mutex);
                if (state->ahead >= ReadAheadLimit) {
                    state->consumed.wait_for(lock, std::chrono::milliseconds(PollIntervalMs));
                    continue;
                }
            }
            pollfd pfd{fd, POLLIN, 0};
            const int ready = ::poll(&pfd, 1, PollIntervalMs);
            if (ready < 0 && errno != EINTR)
                break;
            if (ready <= 0)
                continue;
            const ssize_t n = ::read(fd, buffer.data(), ReadChunk);
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (n <= 0)
                break;
            QByteArray chunk(buffer.constData(), n);
            {
                std::lock_guard lock(state->mutex);
                state->ahead += n;
            }
            // The device joins this thread before it dies, so `this` outlives the post.
            QMetaObject::invokeMethod(
                this, [this, chunk] { appendData(chunk); }, Qt::QueuedConnection);
        }
        if (!state->stop.load())
            QMetaObject::invokeMethod(
                this, [this] { markEof(); }, Qt::QueuedConnection);
    });
}

StdinDevice::~StdinDevice()
{
    if (m_thread) {
        {
            std::lock_guard lock(m_thread->mutex);
            m_thread->stop.store(true);
        }
        m_thread->consumed.notify_all();
        if (m_thread->thread.joinable())
            m_thread->thread.join(); // bounded by the poll interval
    }
}

bool StdinDevice::usesReaderThread() const
{
    return m_thread != nullptr;
}

qint64 StdinDevice::bytesAvailable() const
{
    return m_buffer.size() + QIODevice::bytesAvailable();
}

bool StdinDevice::atEnd() const
{
    return m_eof && m_buffer.isEmpty();
}

qint64 StdinDevice::readData(char *data, qint64 maxSize)
{
    if (m_buffer.isEmpty())
        return m_eof ? -1 : 0;
    const qint64 n = qMin<qint64>(maxSize, m_buffer.size());
    std::memcpy(data, m_buffer.constData(), static_cast<size_t>(n));
    if (n == m_buffer.size())
        m_buffer.clear();
    else
        m_buffer.remove(0, n);
    if (m_thread) {
        {
            std::lock_guard lock(m_thread->mutex);
            m_thread->ahead = qMax<qint64>(0, m_thread->ahead - n);
        }
        m_thread->consumed.notify_one();
    }
    return n;
}

void StdinDevice::appendData(const QByteArray &data)
{
    m_buffer.append(data);
    emit readyRead();
}

void StdinDevice::markEof()
{
    if (m_eof)
        return;
    m_eof = true;
    if (m_notifier)
        m_notifier->setEnabled(false);
    qCDebug(lcMcpTransport) << "stdin: end of input";
    emit readChannelFinished();
}

void StdinDevice::onNotifier()
{
    char buffer[ReadChunk];
    bool got = false;
    for (;;) {
        const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
        if (n > 0) {
            m_buffer.append(buffer, n);
            got = true;
            // A short read emptied the pipe (or socket): reading on would only return EAGAIN.
            // What arrives meanwhile, and the end of input, wake the notifier again.
            if (n < ssize_t(sizeof buffer))
                break;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n < 0)
            qCWarning(lcMcpTransport) << "stdin read error:" << strerror(errno);
        if (got)
            emit readyRead();
        markEof();
        return;
    }
    if (got)
        emit readyRead();
}

// ---------------------------------------------------------------------------- StdoutDevice

struct StdoutDevice::WriterState {
    std::mutex mutex;
    std::condition_variable wake;    // data or stop
    std::condition_variable drained; // queue empty
    QByteArray queue;
    qint64 inProgress = 0;
    bool stop = false;
    bool failed = false;
    std::atomic<bool> abandoned{false}; // the device is gone: drop whatever is left
    int fd = -1;                        // the writer's private duplicate
    bool direct = false;                // fd is non-blocking: writeData may write it directly
    std::thread thread;
};

StdoutDevice::StdoutDevice(int fd, QObject *parent)
    : QIODevice(parent)
    , m_state(std::make_shared<WriterState>())
{
    std::signal(SIGPIPE, SIG_IGN);
    QIODevice::open(QIODevice::WriteOnly | QIODevice::Unbuffered);
    auto state = m_state;
    // The writer owns a private duplicate of the descriptor: if the device is destroyed while a
    // write is stuck and the owner then closes its fd, that number may be reused for another
    // file or pipe, and a thread still writing to it would corrupt that. The duplicate keeps
    // the original pipe (and only it) for as long as the thread lives.
    const int ownFd = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    // Non-blocking, so writeData can try the write on the caller's thread first and leave only
    // what does not fit to the writer thread (no thread hop per response).
    // Only for pipes and sockets: on a terminal the flag would be shared with the shell's
    // own descriptor and outlive us.
    struct stat st {};
    if (ownFd >= 0 && ::fstat(ownFd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
        const int flags = ::fcntl(ownFd, F_GETFL);
        if (flags >= 0 && ::fcntl(ownFd, F_SETFL, flags | O_NONBLOCK) == 0)
            m_state->direct = true;
    }
    m_state->fd = ownFd;
    m_state->thread = std::thread([state, fd = ownFd] {
        std::unique_lock lock(state->mutex);
        for (;;) {
            state->wake.wait(lock, [&] { return state->stop || !state->queue.isEmpty(); });
            if (state->queue.isEmpty() && state->stop)
                break;
            const QByteArray data = std::exchange(state->queue, QByteArray());
            state->inProgress = data.size();
            lock.unlock();
            const char *p = data.constData();
            qsizetype left = data.size();
            bool failed = false;
            while (left > 0) {
                if (fd < 0 || state->abandoned.load()) {
                    failed = true;
                    break;
                }
                const ssize_t n = ::write(fd, p, static_cast<size_t>(left));
                if (n < 0 && errno == EINTR)
                    continue;
                if (n < 0 && errno == EAGAIN) {
                    pollfd pfd{fd, POLLOUT, 0};
                    ::poll(&pfd, 1, PollIntervalMs);
                    continue;
                }
                if (n <= 0) {
                    failed = true;
                    break;
                }
                p += n;
                left -= n;
            }
            lock.lock();
            state->inProgress = 0;
            if (failed) {
                state->failed = true;
                state->queue.clear();
            }
            if (state->queue.isEmpty())
                state->drained.notify_all();
        }
        state->drained.notify_all();
        lock.unlock();
        if (fd >= 0)
            ::close(fd);
    });
}

StdoutDevice::~StdoutDevice()
{
    waitForBytesWritten(1000);
    {
        std::lock_guard lock(m_state->mutex);
        m_state->stop = true;
        if (m_state->inProgress > 0 || !m_state->queue.isEmpty()) {
            // The reader does not read: do not hang the exit on it.
            m_state->queue.clear();
            m_state->abandoned.store(true);
            m_state->wake.notify_all();
            m_state->thread.detach();
            return;
        }
        m_state->wake.notify_all();
    }
    m_state->thread.join();
}

qint64 StdoutDevice::writeData(const char *data, qint64 len)
{
    std::lock_guard lock(m_state->mutex);
    if (m_state->failed) {
        setErrorString(QStringLiteral("standard output is closed"));
        return -1;
    }
    qint64 done = 0;
    if (m_state->direct && m_state->queue.isEmpty() && m_state->inProgress == 0) {
        // Nothing queued: write directly; EAGAIN or a short write hands the rest to the thread.
        while (done < len) {
            const ssize_t n = ::write(m_state->fd, data + done, static_cast<size_t>(len - done));
            if (n > 0) {
                done += n;
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                break;
            m_state->failed = true;
            setErrorString(QStringLiteral("standard output is closed"));
            return -1;
        }
    }
    if (done < len) {
        m_state->queue.append(data + done, len - done);
        m_state->wake.notify_one();
    }
    return len;
}

qint64 StdoutDevice::bytesToWrite() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->queue.size() + m_state->inProgress;
}

bool StdoutDevice::waitForBytesWritten(int msecs)
{
    std::unique_lock lock(m_state->mutex);
    return m_state->drained.wait_for(lock, std::chrono::milliseconds(qMax(0, msecs)), [&] {
        return m_state->failed || (m_state->queue.isEmpty() && m_state->inProgress == 0);
    }) && !m_state->failed;
}

bool StdoutDevice::hasFailed() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->failed;
}

// ---------------------------------------------------------------------------- StdioDevices

StdioDevices::StdioDevices(int inFd, int outFd, QObject *parent)
    : QObject(parent)
    , m_in(new StdinDevice(inFd, this))
    , m_out(new StdoutDevice(outFd, this))
{
    connect(m_in, &QIODevice::readChannelFinished, this, &StdioDevices::inputFinished);
}

StdioDevices::~StdioDevices() = default;

} // namespace fb::transport
