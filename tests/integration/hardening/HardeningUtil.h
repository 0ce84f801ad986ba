#pragma once
// Helpers for the hostile-client tests: raw AF_UNIX clients that do what QLocalSocket users
// would not (never read, trickle, write megabytes), process memory readings, and a prober that
// keeps a well-behaved session busy with pings and records how long each answer took.
#include "../transport/SocketClient.h"
#include "JsonRpc.h"
#include "RawSocket.h"

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
        takeJsonLines(partial, &out);
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
