#pragma once
// StdioDevices: QIODevices over the process's stdin/stdout file descriptors that never block
// the event loop.
//  - StdinDevice: a QSocketNotifier with non-blocking reads when fd 0 is a pipe or a socket;
//    otherwise (regular file, tty, character device) a reader thread that polls the fd and
//    posts the bytes to the owning thread. End of input emits readChannelFinished().
//  - StdoutDevice: writes are queued and a writer thread performs the blocking write(2)
//    calls; bytesToWrite() is the queued amount (used for the per-session backlog bound).
//    SIGPIPE is ignored so that a vanished reader becomes a write error, not a crash.
// Only MCP frames are ever written to the output: process logging goes to stderr.
#include <QIODevice>
#include <QObject>
#include <memory>

class QSocketNotifier;

namespace fb::transport {

class StdinDevice : public QIODevice {
    Q_OBJECT
public:
    explicit StdinDevice(int fd = 0, QObject *parent = nullptr);
    ~StdinDevice() override;

    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override;
    bool atEnd() const override;
    bool usesReaderThread() const;
    bool isFinished() const { return m_eof; }
    // Puts bytes back in front of what is still to be read (StdioDiscoverGate).
    void unread(const QByteArray &bytes) { m_buffer.prepend(bytes); }

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    void onNotifier();
    void appendData(const QByteArray &data);
    void markEof();

    struct ThreadState;
    int m_fd;
    QByteArray m_buffer;
    bool m_eof = false;
    QSocketNotifier *m_notifier = nullptr;
    std::shared_ptr<ThreadState> m_thread;
};

class StdoutDevice : public QIODevice {
    Q_OBJECT
public:
    explicit StdoutDevice(int fd = 1, QObject *parent = nullptr);
    ~StdoutDevice() override; // flushes for at most one second

    bool isSequential() const override { return true; }
    qint64 bytesToWrite() const override;
    bool waitForBytesWritten(int msecs) override;
    bool hasFailed() const; // a write error happened (e.g. the reader went away)

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 len) override;

private:
    struct WriterState;
    std::shared_ptr<WriterState> m_state;
};

class StdioDevices : public QObject {
    Q_OBJECT
public:
    explicit StdioDevices(int inFd = 0, int outFd = 1, QObject *parent = nullptr);
    ~StdioDevices() override;

    StdinDevice *input() const { return m_in; }
    StdoutDevice *output() const { return m_out; }

signals:
    void inputFinished();

private:
    StdinDevice *m_in;
    StdoutDevice *m_out;
};

} // namespace fb::transport
