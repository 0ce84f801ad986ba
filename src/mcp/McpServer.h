#pragma once
// McpServer: the MCP engine. Owns the sessions (one per stdio stream or local socket
// connection), dispatches JSON-RPC to the lifecycle methods and the ToolRegistry, and
// broadcasts logging and list_changed notifications.
#include "mcp/ClientInfo.h"
#include "mcp/ToolRegistry.h"

#include <QObject>
#include <functional>

class QIODevice;
class QLocalSocket;

namespace fb::mcp {

class Session;
class StdioDevices;

// A relayed session (`fabric-broker --stdio` copying bytes to the instance's socket) starts with
// one hello line before the MCP bytes: {"fabricBrokerRelayHello": {...what its command line and
// environment ask for...}}. The handler decides; the instance answers with one welcome line
// {"fabricBrokerRelayWelcome": {...}} that the relay consumes (docs/architecture.md).
inline constexpr char RelayHelloKey[] = "fabricBrokerRelayHello";
inline constexpr char RelayWelcomeKey[] = "fabricBrokerRelayWelcome";

struct SessionPolicy {
    QStringList toolsets; // non-empty: the session sees only these toolsets (a narrowing)
    // Non-empty: every request but ping is answered with SessionSettingsConflict, this message
    // and refusalData as error.data; nothing is served with settings the session did not ask.
    QString refusal;
    QJsonObject refusalData;
    QJsonObject welcome; // the welcome line's object
    // The relay's own environment asked for EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true and
    // the instance allows it (ClientInfo::asksUnconfirmedMutations).
    bool allowUnconfirmedMutations = false;
};
using RelayHelloHandler = std::function<SessionPolicy(const QJsonObject &hello)>;

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
    // When over maxSessions the socket is aborted and deleted; otherwise the session owns it.
    Session *serveSocket(QLocalSocket *socket);
    // Serve one session of the HTTP transport (HttpChannel's device pair); nullptr if over
    // maxSessions. The session does not own the devices.
    Session *serveHttp(QIODevice *input, QIODevice *output);
    // The real process: a session on fd 0 / fd 1 through StdioDevices (non-blocking stdin,
    // buffered stdout written by a writer thread). stdioFinished() is emitted when input ends
    // and the session has closed; connect it to QCoreApplication::quit. Stdout is flushed (at
    // most one second) when the server is destroyed. devices: ones already made for fd 0 / 1
    // (StdioDiscoverGate), taken over by the server.
    Session *serveProcessStdio(StdioDevices *devices = nullptr);

    // Decides what a relayed session gets from its hello line. Without a handler a hello line
    // is not recognised (it is answered like any other invalid message).
    void setRelayHelloHandler(RelayHelloHandler handler);
    const RelayHelloHandler &relayHelloHandler() const;

    QList<ClientInfo> sessions() const;
    Session *session(quint64 sessionId) const; // nullptr when unknown or closed
    int sessionCount() const;
    // notifications/message to every session whose level admits it.
    void broadcastLog(const QString &level, const QString &logger, const QJsonValue &data);

signals:
    void sessionOpened(const fb::mcp::ClientInfo &client);
    void sessionInitialized(const fb::mcp::ClientInfo &client);
    void sessionClosed(const fb::mcp::ClientInfo &client);
    // The process stdio session ended (end of input): the app should exit.
    void stdioFinished();

private:
    class Private;
    Private *d;
};

} // namespace fb::mcp
