#include "RawSocket.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTest>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace fbtest {

int rawConnect(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const QByteArray p = QFile::encodeName(path);
    if (size_t(p.size()) >= sizeof addr.sun_path) {
        ::close(fd);
        return -1;
    }
    std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

bool rawWrite(int fd, const QByteArray &data, int deadlineMs)
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

bool rawDrain(int fd, QByteArray *into)
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

} // namespace fbtest
