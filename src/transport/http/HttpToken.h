#pragma once
// HttpToken: the per-user bearer token of the loopback HTTP endpoint. Any local user can reach a
// loopback port, so every request must carry "Authorization: Bearer <token>". The token is 32
// bytes from the system CSPRNG (base64url, 43 characters), kept in a 0600 file in the runtime
// directory SocketDirectory picks (the /tmp fallback through the socket's private-directory
// check). The server rotates it at every start and after a failed bind, so a token a client
// handed to whoever held the port is worthless. The file is read O_NOFOLLOW and checked with
// fstat on the descriptor; it is written to a fresh O_EXCL file renamed over the old one. It is
// never logged; only the file's path is.
#include <QByteArray>
#include <QString>

namespace fb::transport {

class HttpToken {
public:
    static QString fileName(); // "fabric-broker-http.token"
    // SocketDirectory::resolve().path() + "/" + fileName()
    static QString defaultPath();

    // The token stored at path, or a new one written there (0600, directory private). Empty with
    // a reason when the file cannot be read or written, or is open to group/others.
    static QByteArray loadOrCreate(const QString &path, QString *error);
    // The stored token, read-only (what `fabric-broker http-headers` hands a client): the
    // directory must be private (0700, this user's), the file is opened O_NOFOLLOW and must be
    // this user's 0600 regular file (fstat on the descriptor). Empty with a reason otherwise.
    static QByteArray read(const QString &path, QString *error);
    // A new token replaces the stored one (clients must be given the new one).
    static QByteArray rotate(const QString &path, QString *error);
    // A fresh token (not stored).
    static QByteArray generate();

    // Whether an Authorization header value is "Bearer <token>" (scheme case-insensitive); the
    // token is compared in constant time.
    static bool authorizationMatches(const QByteArray &token, const QByteArray &authorization);
};

} // namespace fb::transport
