#pragma once
// Helpers for the hostile-client tests: raw AF_UNIX clients that do what QLocalSocket users
// would not (never read, trickle, write megabytes), process memory readings, and a prober that
// keeps a well-behaved session busy with pings and records how long each answer took.
#include "../mcp/SocketClient.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTest>
#include <QTimer>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <malloc.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace fbtest {

// VmRSS / VmHWM of this process in KiB (0 when /proc is unavailable).
inline qint64 procStatusKiB(const char *field)
{
    QFile f("/proc/self/status");
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray prefix = QByteArray(field) + ':';
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed().split(' ').value(0).toLongLong();
    }
    return 0;
}
inline qint64 rssKiB()
{
    return procStatusKiB("VmRSS");
}

#if defined(__SANITIZE_ADDRESS__)
#define FB_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FB_TEST_ASAN 1
#endif
#endif
#ifdef FB_TEST_ASAN
extern "C" void __sanitizer_purge_allocator(void);
#endif

// VmRSS after the allocator gave back what it merely caches: under ASan the quarantine of freed
// blocks (up to 256 MiB by default) is drained, otherwise glibc's free lists are trimmed. What
// remains is memory the process actually retains.
inline qint64 retainedRssKiB()
{
#ifdef FB_TEST_ASAN
    __sanitizer_purge_allocator();
#else
    ::malloc_trim(0);
#endif
    return rssKiB();
}
inline qint64 hwmKiB()
{
    return procStatusKiB("VmHWM");
}

inline int rawConnect(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const QByteArray p = QFile::encodeName(path);
    std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

// Writes everything, running the event loop while the socket buffer is full. False when the
// peer is gone or the deadline passes.
inline bool rawWrite(int fd, const QByteArray &data, int deadlineMs = 20000)
{
    qsizetype off = 0;
    QElapsedTimer t;
    t.start();
    while (off < data.size() && t.elapsed() < deadlineMs) {
        const ssize_t n =
            ::send(fd, data.constData() + off, size_t(data.size() - off), MSG_NOSIGNAL);
        if (n > 0)
            off += n;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            QTest::qWait(2);
        else
            return false;
    }
    return off == data.size();
}

// Reads what is available (non-blocking); returns false at EOF/error.
inline bool rawDrain(int fd, QByteArray *into)
{
    char buf[65536];
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            into->append(buf, n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        return false;
    }
}

// Reads lines from fd until pred(lines) or the timeout; returns the parsed objects.
inline QList<QJsonObject> rawReadUntil(int fd,
                                       const std::function<bool(const QList<QJsonObject> &)> &pred,
                                       int timeoutMs, QByteArray *partial)
{
    QList<QJsonObject> out;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        const bool open = rawDrain(fd, partial);
        qsizetype nl;
        while ((nl = partial->indexOf('\n')) >= 0) {
            out.append(QJsonDocument::fromJson(partial->left(nl)).object());
            partial->remove(0, nl + 1);
        }
        if (pred(out) || !open)
            break;
        QTest::qWait(2);
    }
    return out;
}

// A well-behaved session that pings every intervalMs, one ping outstanding at a time, and
// records each round trip. A ping unanswered for longer than the bound counts as a miss.
class Prober {
public:
    SocketClient client;
    QTimer timer;
    qint64 maxLatencyMs = 0;
    int answered = 0;
    int nextId = 1000;
    int outstanding = -1;
    QElapsedTimer sentAt;

    bool start(const QString &path, int intervalMs = 20)
    {
        if (!client.connectTo(path) || !client.initialize())
            return false;
        QObject::connect(&client.socket, &QLocalSocket::readyRead, [this] { check(); });
        QObject::connect(&timer, &QTimer::timeout, [this] { tick(); });
        timer.start(intervalMs);
        return true;
    }
    void tick()
    {
        check();
        if (outstanding >= 0) {
            maxLatencyMs = qMax(maxLatencyMs, sentAt.elapsed());
            return;
        }
        outstanding = nextId++;
        sentAt.start();
        client.request(outstanding, "ping");
    }
    void check()
    {
        if (outstanding < 0)
            return;
        for (qsizetype i = client.messages.size() - 1; i >= 0; --i) {
            const QJsonObject &o = client.messages.at(i);
            if (!o.contains("method") && o.value("id").toInt(-1) == outstanding) {
                maxLatencyMs = qMax(maxLatencyMs, sentAt.elapsed());
                ++answered;
                outstanding = -1;
                client.messages.clear();
                return;
            }
        }
    }
    // Waits until at least one more ping was answered.
    bool waitAnswer(int timeoutMs)
    {
        const int before = answered;
        return QTest::qWaitFor([&] { return answered > before; }, timeoutMs);
    }
};

} // namespace fbtest
