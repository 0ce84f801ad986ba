#pragma once
// LocalSocketServer: the per-user local socket transport. One QLocalServer on a path in the
// SocketDirectory ($XDG_RUNTIME_DIR, else /run/user/<uid>, else the private fallback
// /tmp/fabric-broker-<uid>/, created 0700 and refused when not private), guarded by a QLockFile
// "<socket>.lock" next to it:
//  - lock acquired: any socket file left at the path is stale and removed, then we listen;
//  - lock held by a live process: listen() fails with a clear "already running" error.
// Sockets are created with QLocalServer::UserAccessOption and every connection's peer uid is
// checked with SO_PEERCRED; connections from other users are rejected.
#include <QObject>
#include <QString>
#include <memory>

class QLocalServer;
class QLockFile;

namespace fb::mcp {
class McpServer;
} // namespace fb::mcp

namespace fb::transport {

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

signals:
    void connectionRejected(const QString &reason);

private:
    void onNewConnection();

    mcp::McpServer *m_server;
    QLocalServer *m_local = nullptr;
    std::unique_ptr<QLockFile> m_lock;
    QString m_path;
    int m_rejected = 0;
};

} // namespace fb::transport
