#pragma once
// The suites of units that use this process's own stdin, stdout and stderr (StdioRelay, the run
// modes): while a SwappedStdio lives, fds 0, 1 and 2 are pipes the test holds.
#include <QByteArray>
#include <QTest>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
#include <utility>

namespace fbtest {

// Pipes on fds 0, 1 and 2 while it lives: the test writes the relay's stdin and reads its stdout
// and stderr. What is left unread goes to the real stdout afterwards (a failure's message too).
class SwappedStdio {
public:
    SwappedStdio()
    {
        std::fflush(stdout);
        std::fflush(stderr);
        for (int fd = 0; fd < 3; ++fd) {
            int p[2];
            QVERIFY(::pipe(p) == 0);
            m_saved[fd] = ::dup(fd);
            const int relaySide = fd == 0 ? p[0] : p[1];
            m_test[fd] = fd == 0 ? p[1] : p[0];
            QVERIFY(::dup2(relaySide, fd) == fd);
            ::close(relaySide);
            if (fd != 0)
                ::fcntl(m_test[fd], F_SETFL, ::fcntl(m_test[fd], F_GETFL) | O_NONBLOCK);
        }
    }
    ~SwappedStdio()
    {
        std::fflush(stdout);
        std::fflush(stderr);
        for (int fd = 0; fd < 3; ++fd) {
            ::dup2(m_saved[fd], fd);
            ::close(m_saved[fd]);
        }
        const QByteArray left = m_out + drain(1) + m_err + drain(2);
        closeInput();
        ::close(m_test[1]);
        ::close(m_test[2]);
        if (!left.isEmpty())
            std::fprintf(stdout, "relay output left unread: %s\n", left.constData());
    }
    SwappedStdio(const SwappedStdio &) = delete;
    SwappedStdio &operator=(const SwappedStdio &) = delete;

    void write(const QByteArray &bytes)
    {
        QCOMPARE(::write(m_test[0], bytes.constData(), bytes.size()), bytes.size());
    }
    void closeInput()
    {
        if (m_test[0] >= 0)
            ::close(m_test[0]);
        m_test[0] = -1;
    }
    // Everything the relay wrote to stdout (2: stderr) so far, taken.
    QByteArray takeOutput(int fd = 1)
    {
        QByteArray &buffer = fd == 1 ? m_out : m_err;
        buffer += drain(fd);
        return std::exchange(buffer, {});
    }
    // Waits until stdout (2: stderr) holds expected, then takes it.
    bool waitForOutput(const QByteArray &expected, int fd = 1)
    {
        QByteArray &buffer = fd == 1 ? m_out : m_err;
        const bool seen = QTest::qWaitFor(
            [&] {
                buffer += drain(fd);
                return buffer.size() >= expected.size();
            },
            10000);
        if (!seen || !buffer.startsWith(expected))
            qWarning("expected %s, got %s", expected.constData(), buffer.constData());
        return seen && std::exchange(buffer, {}) == expected;
    }

private:
    QByteArray drain(int fd)
    {
        QByteArray all;
        char chunk[4096];
        ssize_t n;
        while ((n = ::read(m_test[fd], chunk, sizeof chunk)) > 0)
            all.append(chunk, n);
        return all;
    }
    int m_saved[3] = {-1, -1, -1};
    int m_test[3] = {-1, -1, -1};
    QByteArray m_out;
    QByteArray m_err;
};

} // namespace fbtest
