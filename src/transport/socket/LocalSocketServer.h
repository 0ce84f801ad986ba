#pragma once
// LocalSocketServer: the per-user local socket transport. One QLocalServer on a path in the
// SocketDirectory ($XDG_RUNTIME_DIR, else /run/user/<uid>, else the private fallback
// /tmp/fabric-broker-<uid>/, created 0700 and refused when not private), guarded by a QLockFile
// "<socket>.lock" next to it:
//  - lock acquired: any socket file left at the path is stale and removed, then we listen;
//  - lock held by a live process: listen() fails with a clear "already running" error.
// Sockets are created with QLocalServer::UserAccessOption and every connection's peer uid is
// checked with SO_PEERCRED; connections from other users are rejected. A connection's first
// byte tells an MCP client (served as a session on the socket) from the launcher's fd-passing
// relay (FastRelayWire.h: a NUL first, the client's stdin and stdout attached), which is handed
// to the relay handler; without one, the relay is told to run the app itself.
#include <QHash>
#include <QObject>
#include <QString>
#include <functional>
#include <memory>

class QLocalServer;
class QLockFile;
class QSocketNotifier;

namespace fb::mcp {
class McpServer;
} // namespace fb::mcp

namespace fb::transport {

class FastRelayConnection;

class LocalSocketServer : public QObject {
    Q_OBJECT
public:
    explicit LocalSocketServer(mcp::McpServer *server, QObject *parent = nullptr);
    ~LocalSocketServer() override;

    static QString defaultSocketName(); // "fabric-broker.sock"
    // SocketDirectory::resolve().path(): $XDG_RUNTIME_DIR, /run/user/<uid> or the fallback.
    static QString runtimeDirectory();
    // --socket NAME|PATH: empty = the default name; a value containing '/' is a path (made
    // absolute), anything else a name inside runtimeDirectory().
    static QString resolveSocketPath(const QString &nameOrPath);
    static QString lockFilePathFor(const QString &socketPath); // "<socket>.lock"

    bool listen(const QString &nameOrPath, QString *error = nullptr);
    void close();
    bool isListening() const;
    QString socketPath() const;

    int rejectedConnections() const { return m_rejected; }
    // Receives each fd-passing relay (owns it from then on: it must notTaken(), or take() and
    // finish() it, and delete it).
    void setRelayHandler(std::function<void(FastRelayConnection *)> handler);

signals:
    void connectionRejected(const QString &reason);

private:
    void onIncoming(qintptr fd);
    void onFirstByte(qintptr fd);
    void serveSocket(qintptr fd);
    void acceptRelay(qintptr fd);
    void reject(const QString &why);

    mcp::McpServer *m_server;
    QLocalServer *m_local = nullptr;
    std::unique_ptr<QLockFile> m_lock;
    QString m_path;
    int m_rejected = 0;
    QHash<qintptr, QSocketNotifier *> m_undecided; // accepted, waiting for their first byte
    std::function<void(FastRelayConnection *)> m_relayHandler;
};

} // namespace fb::transport
