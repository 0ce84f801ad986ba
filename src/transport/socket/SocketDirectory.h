#pragma once
// SocketDirectory: where the per-user MCP socket lives, found from the uid alone, and the checks
// a client makes before it trusts what listens there. The desktop app and every relayed
// `--stdio` must agree on the directory even when an MCP client spawned the relay with a short
// environment (no XDG_RUNTIME_DIR), so the order is:
//   1. $XDG_RUNTIME_DIR when set (absolute, an existing directory);
//   2. /run/user/<uid> when it exists, is a real directory owned by the user and has mode 0700;
//   3. the private fallback /tmp/fabric-broker-<uid>: created 0700 by the server; an existing
//      one that belongs to someone else, grants group/world access or is a symlink is refused
//      (never used, never chmod'ed behind the user's back).
// Before a client sends a byte it checks that the socket file is a socket owned by the user
// and that the listening peer (SO_PEERCRED) runs as the user.
#include <QString>

#include <sys/types.h>

namespace fb::transport {

class SocketDirectory {
public:
    enum class Source { XdgRuntimeDir, RunUser, Fallback };

    // From the process environment and getuid().
    static SocketDirectory resolve();
    // The same rule with every input explicit (tests point the roots at scratch directories).
    static SocketDirectory resolve(const QString &xdgRuntimeDir, uid_t uid,
                                   const QString &runUserRoot = QStringLiteral("/run/user"),
                                   const QString &fallbackRoot = QStringLiteral("/tmp"));

    QString path() const { return m_path; }
    Source source() const { return m_source; }
    QString sourceDescription() const; // for log lines and errors

    // The fallback must be private. create: make it 0700 when missing (the server does; a client
    // only checks). False with a clear reason when it is missing (and !create), not a real
    // directory, another user's, or open to group/others.
    static bool checkPrivateDirectory(const QString &dir, uid_t uid, bool create, QString *error);

private:
    QString m_path;
    Source m_source = Source::Fallback;
};

// What a client found at a socket path before and after connecting.
enum class ListenerCheck {
    Absent,  // nothing to connect to (no file, or nobody listening): start an instance
    Trusted, // a socket owned by the user, with a peer running as the user
    Refused, // something else: never talk to it
};

// Before connecting: the path must be a socket (not a symlink) owned by uid.
ListenerCheck checkSocketFile(const QString &path, uid_t uid, QString *why);
// The process on the other end (SO_PEERCRED: for a client, the one that called listen()) must
// run as uid. A client checks it after connecting, before writing a byte.
bool peerRunsAs(qintptr fd, uid_t uid, QString *why);

} // namespace fb::transport
