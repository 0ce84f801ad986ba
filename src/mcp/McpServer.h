#pragma once
// McpServer: the MCP engine. Owns the sessions (one per stdio stream or local socket
// connection), dispatches JSON-RPC to the lifecycle methods and the ToolRegistry, and
// broadcasts logging and list_changed notifications.
#include "mcp/ClientInfo.h"
#include "mcp/ToolRegistry.h"

#include <QObject>

class QIODevice;
class QLocalSocket;

namespace fb::mcp {

class Session;

struct ServerOptions {
    QString name = QStringLiteral("fabric-broker");
    QString title = QStringLiteral("Fabric Broker");
    QString version;
    QString instructions;
    qint64 maxFrameBytes = 4 * 1024 * 1024;
    int maxSessions = 64;
    qint64 maxPendingWriteBytes = 16 * 1024 * 1024; // per session; beyond it the client is dropped
};

class McpServer : public QObject {
    Q_OBJECT
public:
    McpServer(ToolRegistry *registry, ServerOptions options, QObject *parent = nullptr);
    ~McpServer() override;

    ToolRegistry *registry() const;
    const ServerOptions &options() const;

    // Serve one session on a pair of devices (stdin/stdout, or tests' buffers/pipes).
    // The session ends at end of input; sessionClosed is emitted.
    Session *serveStdio(QIODevice *input, QIODevice *output);
    // Serve one session on an accepted local socket; returns nullptr if over maxSessions.
    Session *serveSocket(QLocalSocket *socket);

    QList<ClientInfo> sessions() const;
    // notifications/message to every session whose level admits it.
    void broadcastLog(const QString &level, const QString &logger, const QJsonValue &data);

signals:
    void sessionOpened(const fb::mcp::ClientInfo &client);
    void sessionInitialized(const fb::mcp::ClientInfo &client);
    void sessionClosed(const fb::mcp::ClientInfo &client);

private:
    class Private;
    Private *d;
};

} // namespace fb::mcp
