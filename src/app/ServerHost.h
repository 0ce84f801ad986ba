#pragma once
// ServerHost: composes one broker process: Fabric client (real or embedded sandbox), proposal
// store, the broker and catalog tools, and the MCP server with its transports. Shared by the
// headless modes and the desktop app.
#include "broker/BrokerSettings.h"
#include "core/ObservabilityTargets.h"
#include "fabric/FabricClient.h"

#include <QObject>
#include <functional>
#include <memory>
#include <optional>

namespace fb {
class FabricSandbox;
class AuditLog;
class Approver;
class ProposalStore;
class MutationBroker;
class Catalog;
class LiveSettings;
struct RelayRequest;
namespace team {
class TeamQueue;
}
namespace telemetry {
class Telemetry;
class SyslogSink;
} // namespace telemetry
namespace notify {
class WebhookNotifier;
}
namespace mcp {
class McpServer;
class ToolRegistry;
struct SessionPolicy;
} // namespace mcp
namespace transport {
class LocalSocketServer;
class HttpServer;
struct HttpServerOptions;
class StdioDevices;
class FastRelayConnection;
} // namespace transport

class ServerHost : public QObject {
    Q_OBJECT
public:
    struct Options {
        bool stdio = false;
        bool listen = false;
        QString socket; // name or path; empty = default
        QString http;   // --http: "127.0.0.1:PORT" or "[::1]:PORT"; empty = no HTTP endpoint
        bool forceSandbox = false;
        QString toolsets; // --toolsets; empty = EQUINIX_MCP_TOOLSETS or "read"
        // The desktop app's saved settings, used where the command line and the environment
        // say nothing: a Fabric config (endpoint + keychain credentials), toolsets, approval.
        std::optional<FabricConfig> savedFabricConfig;
        QStringList savedToolsets;
        std::optional<ApprovalMode> savedApprovalMode;
        // A team/database saved by an earlier version: ignored and reported (team mode is the
        // administrator's policy's alone, docs/team.md).
        bool savedTeamDatabase = false;
        // Settings > Observability (docs/observability.md): used where neither the policy nor
        // the environment sets them. Empty: not saved.
        QString savedAuditSyslog;
        QString savedOtlpEndpoint;
        QString teamPassword; // the team role's password, from the keychain; never logged
        // Appended to initialize.instructions (e.g. that no desktop app runs).
        QString instructionsNote;
        // Also appended when the mutate toolset is not served (how to turn proposals on).
        QString readOnlyNote;
        // stdio: the process's stdio devices when answerDiscoverFirst made them.
        transport::StdioDevices *stdioDevices = nullptr;
    };

    explicit ServerHost(QObject *parent = nullptr);
    ~ServerHost() override;

    // Builds everything and starts the requested transports. On failure says why.
    bool start(const Options &options, QString *error);

    bool isSandbox() const;
    FabricClient *fabric() const;
    ProposalStore *store() const;
    MutationBroker *broker() const;
    mcp::McpServer *server() const;
    mcp::ToolRegistry *registry() const;
    FabricSandbox *sandbox() const;
    const BrokerSettings &settings() const;
    QString socketPath() const;
    QString httpUrl() const; // the HTTP endpoint's URL; empty when not serving HTTP
    // Why --http / the HTTP setting is not served (the port was taken, ...); empty otherwise.
    QString httpWarning() const { return m_httpWarning; }
    AuditLog *auditLog() const;
    // What operations teams see (docs/observability.md): null when nothing is observed (no
    // OTLP endpoint, no HTTP endpoint for /metrics, no audit sink).
    telemetry::Telemetry *telemetry() const { return m_telemetry.get(); }
    // The audit trail's syslog sink (FABRIC_BROKER_AUDIT_SYSLOG), or null.
    telemetry::SyslogSink *auditSink() const { return m_auditSink.get(); }
    // Settings > Observability: one (label, text) row per export, what it does now.
    QList<QPair<QString, QString>> observabilityStatus() const;
    // The notify-only webhooks of the administrator's policy (notify.webhooks, docs/notify.md):
    // made at start, with no target while the policy names none.
    notify::WebhookNotifier *notifier() const { return m_notifier.get(); }
    // Team mode's queue (the broker's connection to the team database), or null.
    team::TeamQueue *team() const { return m_team.get(); }
    // The one path from a setting (saved, policy) to the running broker.
    LiveSettings *liveSettings() const;

    // Chooses who asks people (desktop: the UI's approver, or null without a UI) and refuses
    // EQUINIX_MCP_APPROVAL=desktop when there is no UI to ask.
    bool applyApprovalMode(Approver *desktop, QString *error);

    static QString serverInstructions(bool sandbox, const BrokerSettings &settings = {});
    // Whether start(options) serves the embedded sandbox: forced, or no credentials in the
    // environment nor in options.savedFabricConfig. The one rule discover and start() share.
    static bool usesSandbox(const Options &options);
    // --stdio: answers the server/discover requests that come first (a 2026-07-28 client's probe
    // process) before anything is started, then runs open with the devices for
    // Options::stdioDevices. Input that ends after discover requests only ends the process.
    static void answerDiscoverFirst(const Options &options,
                                    std::function<void(transport::StdioDevices *)> open);
    static constexpr int kDiscoverGateIdleMs = 250;

    // How long EOF and SIGTERM wait for the outcome of creates in flight: about what MCP
    // clients give a stdio server between closing its input and SIGTERM/SIGKILL.
    static constexpr int kShutdownGraceMs = 2000;
    // The desktop quit says that it waits, so it may wait longer.
    static constexpr int kDesktopQuitGraceMs = 10000;
    // How long the exit waits for the last OTLP export (docs/observability.md) and for the
    // webhooks still on their way (docs/notify.md).
    static constexpr int kTelemetryFlushMs = 1000;

    // Ends the work of this process in order: from now on no create is sent; creates already
    // in flight get up to graceMs for their outcome; whatever is still open then is recorded
    // as sent with outcome unknown (and its client answered if still connected). Then `done`
    // runs from the event loop (typically QCoreApplication::exit). Without a create in flight
    // `done` runs at once. A second call while one is under way only adds nothing.
    void shutdown(int graceMs, std::function<void()> done);
    bool isShuttingDown() const { return m_shuttingDown; }

signals:
    // The stdio session reached end of input: the process should exit.
    void stdioFinished();

private:
    void startHttp(transport::HttpServerOptions http);
    // Telemetry and the audit export, from the environment (docs/observability.md).
    bool startObservability(const Options &options, const SettingSources &sources, QString *error);
    void addBrokerMetrics();
    // The webhooks: wired to the broker's signals, each delivery audited (docs/notify.md).
    void startNotifier();
    // The policy's notify.webhooks, again after each policy change.
    void applyWebhooks();
    void flushTelemetryThen(std::function<void()> done);
    // A launcher's fd-passing relay: its command line and environment decide the session
    // exactly as a relayed hello would (RelayHello.h).
    void serveRelay(transport::FastRelayConnection *relay);
    mcp::SessionPolicy decideRelay(const RelayRequest &request) const;
    BrokerSettings m_settings; // a copy of m_live's, kept current
    std::unique_ptr<LiveSettings> m_live;
    std::unique_ptr<AuditLog> m_audit;
    std::unique_ptr<telemetry::Telemetry> m_telemetry; // destroyed after the server
    std::unique_ptr<telemetry::SyslogSink> m_auditSink;
    ObservabilityTarget m_syslogTarget; // where the audit sink's target came from
    ObservabilityTarget m_otlpTarget;   // where the OTLP endpoint came from
    std::unique_ptr<FabricSandbox> m_sandbox;
    std::unique_ptr<FabricClient> m_fabric;
    std::unique_ptr<ProposalStore> m_store;
    std::unique_ptr<mcp::ToolRegistry> m_registry;
    std::unique_ptr<MutationBroker> m_broker;
    std::unique_ptr<team::TeamQueue> m_team; // team mode only
    std::unique_ptr<notify::WebhookNotifier> m_notifier;
    std::unique_ptr<Catalog> m_catalog;
    std::unique_ptr<mcp::McpServer> m_server;
    std::unique_ptr<transport::LocalSocketServer> m_socketServer;
    QString m_socketPath;
    std::unique_ptr<transport::HttpServer> m_httpServer;
    QString m_httpWarning;
    bool m_shuttingDown = false;
};

} // namespace fb
