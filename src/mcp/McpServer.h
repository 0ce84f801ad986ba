#pragma once
// McpServer: the MCP engine. Owns the sessions (one per connection of a transport: src/transport
// makes the devices and calls serve()), dispatches JSON-RPC to the lifecycle methods and the
// ToolRegistry, and broadcasts logging and list_changed notifications.
#include "mcp/ClientInfo.h"
#include "mcp/ToolRegistry.h"

#include <QObject>
#include <functional>

class QIODevice;

namespace fb::telemetry {
class Telemetry;
}

namespace fb::mcp {

class Session;
class TaskStore;

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

// What a transport hands to serve() for one connection: the devices the session reads and
// writes (input and output may be the same device, e.g. a socket) and the transport's name
// (ClientInfo::transport: "stdio", "socket", "http").
struct Peer {
    QString transport;
    QIODevice *input = nullptr;
    QIODevice *output = nullptr;
    // Counts against ServerOptions::maxSessions (connections); false: always served (a pair of
    // devices the process itself holds, such as its stdin/stdout).
    bool limited = true;
    // A session relayed by the launcher, decided before it starts (FastRelayWire.h): no hello
    // line is read, the policy applies from the first byte.
    std::optional<SessionPolicy> relayPolicy = std::nullopt;
};

class McpServer : public QObject {
    Q_OBJECT
public:
    McpServer(ToolRegistry *registry, ServerOptions options, QObject *parent = nullptr);
    ~McpServer() override;

    ToolRegistry *registry() const;
    const ServerOptions &options() const;

    // Serves one session on the peer's devices; the session does not own them (a transport
    // that wants the session to own them reparents them). nullptr when the peer is limited and
    // the server already holds maxSessions (logged; the transport then drops the connection).
    // The session ends at end of input; sessionClosed is emitted.
    Session *serve(const Peer &peer);

    // Decides what a relayed session gets from its hello line. Without a handler a hello line
    // is not recognised (it is answered like any other invalid message).
    void setRelayHelloHandler(RelayHelloHandler handler);
    const RelayHelloHandler &relayHelloHandler() const;

    // Spans and duration metrics of every request (docs/observability.md); null = none (the
    // default). Not owned; it must outlive the server or be reset first.
    void setTelemetry(telemetry::Telemetry *telemetry);
    telemetry::Telemetry *telemetry() const;

    // The tasks of task-augmented calls, kept beyond their sessions (TaskStore.h).
    TaskStore *tasks() const;

    QList<ClientInfo> sessions() const;
    Session *session(quint64 sessionId) const; // nullptr when unknown or closed
    int sessionCount() const;
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
