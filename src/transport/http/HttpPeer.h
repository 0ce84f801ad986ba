#pragma once
// HttpPeer: who is on the other end of a loopback TCP connection. Any local user can connect to
// a loopback port, and TCP carries no credentials (unlike SO_PEERCRED on the socket), so the
// kernel's socket table is asked which uid owns the client's end: NETLINK_SOCK_DIAG (inet_diag,
// one exact lookup by the four-tuple), or, where that is unavailable, /proc/net/tcp{,6}.
// HttpDaemon runs the check on accept, before it reads a byte.
#include <QString>
#include <optional>

#include <sys/types.h>

namespace fb::transport::HttpPeer {

// The uid owning the client end of the accepted loopback connection fd, or nullopt with why.
std::optional<uid_t> clientUid(int fd, QString *why);
// clientUid(fd) == uid; false (with why) for another user or when it cannot be told.
bool runsAs(qintptr fd, uid_t uid, QString *why);

} // namespace fb::transport::HttpPeer
