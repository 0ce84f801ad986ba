#include "transport/http/HttpPeer.h"

#include <QFile>

#include <arpa/inet.h>
#include <cstring>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::transport::HttpPeer {

namespace {

struct Tuple {
    int family = AF_INET;
    sockaddr_storage local = {}; // the server's end
    sockaddr_storage peer = {};  // the client's end
};

quint16 portOf(const sockaddr_storage &a)
{
    return a.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6 *>(&a)->sin6_port
                                   : reinterpret_cast<const sockaddr_in *>(&a)->sin_port;
}

const void *addrOf(const sockaddr_storage &a)
{
    return a.ss_family == AF_INET6
               ? static_cast<const void *>(&reinterpret_cast<const sockaddr_in6 *>(&a)->sin6_addr)
               : static_cast<const void *>(&reinterpret_cast<const sockaddr_in *>(&a)->sin_addr);
}

std::optional<uid_t> viaNetlink(const Tuple &t)
{
    const int nl = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return std::nullopt;
    struct {
        nlmsghdr header;
        inet_diag_req_v2 request;
    } message = {};
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST;
    message.request.sdiag_family = static_cast<__u8>(t.family);
    message.request.sdiag_protocol = IPPROTO_TCP;
    message.request.idiag_states = ~0U;
    // The client's socket: its source is the peer, its destination our end.
    message.request.id.idiag_sport = portOf(t.peer);
    message.request.id.idiag_dport = portOf(t.local);
    const size_t size = t.family == AF_INET6 ? 16 : 4;
    std::memcpy(message.request.id.idiag_src, addrOf(t.peer), size);
    std::memcpy(message.request.id.idiag_dst, addrOf(t.local), size);
    message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    sockaddr_nl kernel = {};
    kernel.nl_family = AF_NETLINK;
    std::optional<uid_t> uid;
    if (::sendto(nl, &message, sizeof message, 0, reinterpret_cast<sockaddr *>(&kernel),
                 sizeof kernel) == static_cast<ssize_t>(sizeof message)) {
        alignas(nlmsghdr) char buffer[8192];
        const ssize_t n = ::recv(nl, buffer, sizeof buffer, 0);
        const auto *reply = reinterpret_cast<const nlmsghdr *>(buffer);
        if (n >= static_cast<ssize_t>(NLMSG_LENGTH(sizeof(inet_diag_msg))) &&
            reply->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
            inet_diag_msg diag = {};
            std::memcpy(&diag, buffer + NLMSG_LENGTH(0), sizeof diag);
            uid = diag.idiag_uid;
        }
    }
    ::close(nl);
    return uid;
}

// /proc/net/tcp{,6}: "sl local_address rem_address st ... uid"; addresses are hex in host order
// words as the kernel prints them.
QByteArray procAddress(const sockaddr_storage &a)
{
    const auto *words = static_cast<const quint32 *>(addrOf(a));
    const int count = a.ss_family == AF_INET6 ? 4 : 1;
    QByteArray out;
    for (int i = 0; i < count; ++i)
        out += QByteArray::number(words[i], 16).rightJustified(8, '0').toUpper();
    return out + ':' + QByteArray::number(ntohs(portOf(a)), 16).rightJustified(4, '0').toUpper();
}

std::optional<uid_t> viaProc(const Tuple &t)
{
    QFile table(t.family == AF_INET6 ? u"/proc/net/tcp6"_s : u"/proc/net/tcp"_s);
    if (!table.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray local = procAddress(t.peer);
    const QByteArray remote = procAddress(t.local);
    table.readLine(); // the header
    while (!table.atEnd()) {
        const QList<QByteArray> f = table.readLine(512).simplified().split(' ');
        if (f.size() > 7 && f[1] == local && f[2] == remote) {
            bool ok = false;
            const uint uid = f[7].toUInt(&ok);
            if (ok)
                return static_cast<uid_t>(uid);
        }
    }
    return std::nullopt;
}

} // namespace

std::optional<uid_t> clientUid(int fd, QString *why)
{
    Tuple t;
    socklen_t length = sizeof t.local;
    socklen_t peerLength = sizeof t.peer;
    if (::getsockname(fd, reinterpret_cast<sockaddr *>(&t.local), &length) != 0 ||
        ::getpeername(fd, reinterpret_cast<sockaddr *>(&t.peer), &peerLength) != 0) {
        if (why)
            *why = u"the connection has no peer address"_s;
        return std::nullopt;
    }
    t.family = t.local.ss_family;
    if (t.family != AF_INET && t.family != AF_INET6) {
        if (why)
            *why = u"not a TCP connection"_s;
        return std::nullopt;
    }
    if (std::optional<uid_t> uid = viaNetlink(t))
        return uid;
    if (std::optional<uid_t> uid = viaProc(t))
        return uid;
    if (why)
        *why = u"the owner of the client's socket cannot be found (not a local client?)"_s;
    return std::nullopt;
}

bool runsAs(qintptr fd, uid_t uid, QString *why)
{
    const std::optional<uid_t> owner = clientUid(static_cast<int>(fd), why);
    if (!owner)
        return false;
    if (*owner != uid) {
        if (why)
            *why = u"the client runs as uid %1, not as this user"_s.arg(*owner);
        return false;
    }
    return true;
}

} // namespace fb::transport::HttpPeer
