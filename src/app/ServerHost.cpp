#include "app/ServerHost.h"
#include "app/FastRelayServe.h"

#include "broker/Catalog.h"
#include "broker/MutationBroker.h"
#include "broker/PolicyApply.h"
#include "broker/RelayHello.h"
#include "broker/TeamMode.h"
#include "core/AuditDayMarker.h"
#include "core/AuditLog.h"
#include "core/AuditProposalEvents.h"
#include "core/ChangeType.h"
#include "core/ProposalStore.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/FabricSandbox.h"
#include "team/TeamQueue.h"
#include "transport/http/HttpAddress.h"
#include "transport/http/HttpServer.h"
#include "transport/http/HttpToken.h"
#include "transport/socket/FastRelayConnection.h"
#include "transport/socket/LocalSocketServer.h"
#include "transport/stdio/StdioDevices.h"
#include "transport/stdio/StdioDiscoverGate.h"
#include "transport/stdio/StdioTransport.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

Q_LOGGING_CATEGORY(lcHost, "fabricbroker.app.host")

using namespace Qt::StringLiterals;

namespace fb {

ServerHost::ServerHost(QObject *parent)
    : QObject(parent)
{
}

ServerHost::~ServerHost()
{
    if (m_live)
        m_live->attach(nullptr, nullptr); // settings no longer reach what is about to go
    // Explicit teardown order. 1) A create still in flight ends first, while the broker, the
    // Fabric client and the audit log all exist: its final "executed" record is written.
    if (m_broker)
        m_broker->abandonInFlight(QStringLiteral("the process exited before Fabric answered"));
    // 2) Sessions end: calls are cancelled and answered, their operations finish.
    m_socketServer.reset();
    m_httpServer.reset();
    m_server.reset();
    // 3) The Fabric client aborts whatever is still running while every tool that waits on it
    //    (catalog, propose) still exists to receive the result.
    m_fabric.reset();
    // 4) Then the tools, the store, the sandbox, and the audit trail last.
    m_catalog.reset();
    m_broker.reset();
    m_registry.reset();
    m_store.reset();
    m_sandbox.reset();
    m_audit.reset();
}

void ServerHost::shutdown(int graceMs, std::function<void()> done)
{
    if (m_shuttingDown)
        return;
    m_shuttingDown = true;
    const int inFlight = m_broker ? m_broker->createsInFlight() : 0;
    if (m_broker)
        m_broker->beginShutdown();
    if (inFlight == 0) {
        QTimer::singleShot(0, this, std::move(done));
        return;
    }
    qCWarning(lcHost).noquote() << "waiting up to" << graceMs << "ms for the outcome of" << inFlight
                                << "create(s) in flight";
    auto over = std::make_shared<bool>(false);
    auto finish = [this, over, done = std::move(done), graceMs](bool graceElapsed) {
        if (*over)
            return;
        *over = true;
        if (graceElapsed && m_broker)
            m_broker->abandonInFlight(
                QStringLiteral("the process was ending and Fabric had not answered within %1 ms")
                    .arg(graceMs));
        // The answers just made leave before the process does.
        QTimer::singleShot(0, this, done);
    };
    connect(m_broker.get(), &MutationBroker::createsInFlightChanged, this, [finish](int count) {
        if (count == 0)
            finish(false);
    });
    QTimer::singleShot(graceMs, this, [finish] { finish(true); });
}

QString ServerHost::serverInstructions(bool sandbox, const BrokerSettings &settings)
{
    QString text = QStringLiteral(
        "Fabric Broker serves Equinix Fabric. Read tools (fabric_search_*, fabric_get_*, "
        "fabric_list_*) are safe to call freely. Creating anything is a two-step flow and only "
        "available when the operator enabled the mutate toolset: 1) fabric_propose_change with "
        "change_type (%3) and a spec in "
        "Fabric v4 request field names; Fabric's real dry run validates it and you get a "
        "single-use confirm_token, the exact request, its request_sha256 and price context. "
        "Show these to the user. 2) fabric_confirm_change with only the confirm_token; a person "
        "approves or refuses in a prompt, and only on approval is the request sent, once. Tokens "
        "expire after %1 (at most %2 are pending) and are consumed by the first confirm attempt "
        "whatever its outcome: on any token error, propose again. There are no update or delete "
        "tools.");
    // "connection_create, network_create or service_token_create": the change types' table.
    QStringList types = changeTypeNames();
    const QString last = types.takeLast();
    text = text.arg(MutationBroker::durationText(settings.proposalTtlMs))
               .arg(settings.maxPending)
               .arg(types.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last);
    if (sandbox)
        text.prepend(QStringLiteral("SANDBOX: this broker is connected to its embedded Fabric "
                                    "sandbox, not to Equinix; nothing real is created. "));
    return text;
}

bool ServerHost::start(const Options &options, QString *error)
{
    // One resolution by the settings table: --toolsets over the environment over the desktop
    // app's saved values over the defaults.
    SettingSources sources;
    sources.environment = QProcessEnvironment::systemEnvironment();
    if (!options.toolsets.isEmpty())
        sources.flags.insert(SettingId::Toolsets, options.toolsets);
    if (!options.savedToolsets.isEmpty())
        sources.saved.insert(SettingId::Toolsets, options.savedToolsets.join(u','));
    if (options.savedApprovalMode)
        sources.saved.insert(SettingId::Approval,
                             BrokerSettings::approvalModeName(*options.savedApprovalMode));
    // Team mode is the administrator's policy's alone (issue #34): what else names a database
    // is ignored, loudly.
    if (!qEnvironmentVariable("FABRIC_BROKER_TEAM_DATABASE").trimmed().isEmpty())
        qCWarning(lcHost) << "FABRIC_BROKER_TEAM_DATABASE is IGNORED: team mode is set by the "
                             "administrator's policy alone (team.database, docs/team.md)";
    if (options.savedTeamDatabase)
        qCWarning(lcHost) << "the saved team/database setting is IGNORED: team mode is set by the "
                             "administrator's policy alone (team.database, docs/team.md)";
    m_live = std::make_unique<LiveSettings>(sources, PolicyPaths::fromEnvironment());
    // The environment and flags are checked before anything starts; the policy comes once
    // the Fabric endpoint is known.
    if (!BrokerSettings::fromSources(sources, &m_settings, error))
        return false;
    // What this process's own command line and environment ask for, before the policy: the
    // exemption from the person belongs to its own stdio session only.
    const bool stdioAsksUnconfirmed = m_settings.allowUnconfirmedMutations;

    // The audit trail comes first: without a durable log nothing may be created.
    m_audit = std::make_unique<AuditLog>();
    m_audit->setDayMarker(AuditDayMarker::defaultPath());
    const QString auditPath = AuditLog::defaultPath();
    if (!m_audit->open(auditPath, error)) {
        *error = QStringLiteral("audit log %1: %2").arg(auditPath, *error);
        return false;
    }
    qCInfo(lcHost).noquote() << "audit log" << auditPath;

    FabricConfig config = FabricConfig::withSaved(QProcessEnvironment::systemEnvironment(),
                                                  options.savedFabricConfig);
    const bool savedCredentials =
        !FabricConfig::fromEnvironment().hasCredentials() && config.hasCredentials();
    if (usesSandbox(options)) {
        m_sandbox = std::make_unique<FabricSandbox>();
        if (!m_sandbox->listen(0)) {
            *error = QStringLiteral("could not start the embedded Fabric sandbox on 127.0.0.1");
            return false;
        }
        config = FabricConfig{};
        config.endpoint = m_sandbox->baseUrl();
        // The sandbox accepts any non-empty client id and secret; these are not secrets.
        config.clientId = QStringLiteral("sandbox");
        config.clientSecret = QStringLiteral("sandbox");
        config.sandbox = true;
        qCWarning(lcHost).noquote()
            << "SANDBOX: using the embedded Fabric sandbox at" << m_sandbox->baseUrl().toString()
            << "- nothing real is created";
    } else {
        qCInfo(lcHost).noquote() << "Fabric endpoint" << config.endpoint.toString() << "with"
                                 << (savedCredentials
                                         ? QStringLiteral("client credentials (the keychain)")
                                         : config.credentialSource());
    }
    if (!m_live->start(MutationBroker::fabricBinding(config).endpoint, error))
        return false;
    m_settings = m_live->settings();
    m_fabric = std::make_unique<FabricClient>(config);
    m_store = std::make_unique<ProposalStore>();
    m_registry = std::make_unique<mcp::ToolRegistry>();
    m_catalog = std::make_unique<Catalog>(m_fabric.get(), m_store.get(), Clock::system());
    m_broker = std::make_unique<MutationBroker>(m_store.get(), m_fabric.get(), m_settings);
    m_broker->setAuditSink(m_audit.get());
    // Team mode (docs/team.md): every proposal goes through the team's queue. The URI is never
    // logged (it may name certificate files); the queue says what it connects to.
    if (const QString uri = m_settings.teamDatabase.trimmed(); !uri.isEmpty()) {
        m_team = std::make_unique<team::TeamQueue>(uri, team::TeamIdentity::local());
        m_team->setRecoversOwn(true);
        m_team->setPassword(options.teamPassword);
        connect(m_team.get(), &team::TeamQueue::availabilityChanged, this,
                [](bool available, const QString &reason) {
                    if (available)
                        qCInfo(lcHost) << "team mode: connected to the team database";
                    else
                        qCWarning(lcHost).noquote()
                            << "team mode: the team database is unreachable; proposals and "
                               "confirms are refused until it is back:"
                            << reason;
                });
        m_team->start();
        m_broker->setTeam(m_team.get());
        if (!m_settings.policy.teamApproverKeys)
            qCCritical(lcHost).noquote()
                << "team mode: every proposal is refused:" << TeamKeysMissing;
        qCInfo(lcHost) << "team mode: proposals are published to the team database";
    }
    auditProposalEvents(m_store.get(), m_audit.get());
    m_catalog->registerTools(m_registry.get());
    m_broker->registerTools(m_registry.get());
    m_live->attach(m_registry.get(), m_broker.get());
    m_live->watchPolicyFiles(); // a changed policy applies while running, audited
    connect(m_live.get(), &LiveSettings::changed, this,
            [this] { m_settings = m_live->settings(); });
    qCInfo(lcHost).noquote() << "serving toolsets" << m_settings.toolsets.join(u',');

    mcp::ServerOptions serverOptions;
    serverOptions.version = QCoreApplication::applicationVersion();
    serverOptions.instructions =
        serverInstructions(config.sandbox, m_settings) + options.instructionsNote +
        (m_settings.toolsets.contains(QStringLiteral("mutate")) ? QString() : options.readOnlyNote);
    if (config.sandbox)
        serverOptions.title = QStringLiteral("Fabric Broker (SANDBOX)");
    m_server = std::make_unique<mcp::McpServer>(m_registry.get(), serverOptions);
    // A relayed --stdio says what it asks for; decided against what this instance does now.
    m_server->setRelayHelloHandler(
        [this](const QJsonObject &hello) { return decideRelay(RelayRequest::fromJson(hello)); });

    if (options.listen) {
        m_socketPath = transport::LocalSocketServer::resolveSocketPath(options.socket);
        m_socketServer = std::make_unique<transport::LocalSocketServer>(m_server.get());
        m_socketServer->setRelayHandler(
            [this](transport::FastRelayConnection *relay) { serveRelay(relay); });
        if (!m_socketServer->listen(m_socketPath, error))
            return false;
        qCInfo(lcHost).noquote() << "listening on" << m_socketPath;
    }
    if (!options.http.isEmpty()) {
        transport::HttpServerOptions http;
        if (!transport::HttpAddress::parse(options.http, &http.address, &http.port, error))
            return false;
        startHttp(http);
    }
    if (options.stdio) {
        auto *stdio = transport::StdioTransport::serve(m_server.get(), options.stdioDevices);
        connect(stdio, &transport::StdioTransport::finished, this, &ServerHost::stdioFinished);
        stdio->session()->setAsksUnconfirmedMutations(stdioAsksUnconfirmed);
    }
    return true;
}

// A new token at every start, and another after a failed bind: whoever held the port may have
// collected the token from a configured client, and must be left with nothing that works. A
// failed bind (or token file) is a warning (log and window), never a failed start.
void ServerHost::startHttp(transport::HttpServerOptions http)
{
    const QString tokenPath = transport::HttpToken::defaultPath();
    QString why;
    http.token = transport::HttpToken::rotate(tokenPath, &why);
    if (!http.token.isEmpty()) {
        m_httpServer = std::make_unique<transport::HttpServer>(m_server.get(), http);
        if (m_httpServer->listen(&why)) {
            qCInfo(lcHost).noquote()
                << "MCP over HTTP at" << httpUrl() << "(bearer token in" << tokenPath << ")";
            return;
        }
        m_httpServer.reset();
        QString ignored;
        transport::HttpToken::rotate(tokenPath, &ignored);
    }
    m_httpWarning = QStringLiteral("MCP over HTTP is off: %1").arg(why);
    qCWarning(lcHost).noquote() << m_httpWarning
                                << "(the bearer token was replaced; the other transports run)";
}

bool ServerHost::usesSandbox(const Options &options)
{
    return options.forceSandbox ||
           !FabricConfig::withSaved(QProcessEnvironment::systemEnvironment(),
                                    options.savedFabricConfig)
                .hasCredentials();
}

void ServerHost::answerDiscoverFirst(const Options &options,
                                     std::function<void(transport::StdioDevices *)> open)
{
    // What start() will serve: the environment's credentials, else those the desktop read from
    // the keychain before calling this (options.savedFabricConfig), else the sandbox.
    const bool sandbox = usesSandbox(options);
    mcp::ServerOptions early;
    early.version = QCoreApplication::applicationVersion();
    BrokerSettings settings; // the TTL and capacity the instructions name; start() checks them
    QString invalid;
    if (!BrokerSettings::fromEnvironment(QProcessEnvironment::systemEnvironment(), &settings,
                                         &invalid))
        settings = BrokerSettings{};
    const QStringList toolsets =
        options.toolsets.isEmpty() ? settings.toolsets : options.toolsets.split(u',');
    early.instructions =
        serverInstructions(sandbox, settings) + options.instructionsNote +
        (toolsets.contains(QStringLiteral("mutate")) ? QString() : options.readOnlyNote);
    if (sandbox)
        early.title = QStringLiteral("Fabric Broker (SANDBOX)");
    auto *devices = new transport::StdioDevices(0, 1, QCoreApplication::instance());
    auto *gate = new transport::StdioDiscoverGate(devices, early, QCoreApplication::instance());
    connect(gate, &transport::StdioDiscoverGate::finishedEarly, QCoreApplication::instance(),
            [] { QCoreApplication::exit(0); });
    gate->start(kDiscoverGateIdleMs, [gate, devices, open = std::move(open)] {
        gate->deleteLater();
        open(devices);
    });
}

bool ServerHost::applyApprovalMode(Approver *desktop, QString *error)
{
    if (m_settings.approvalMode == ApprovalMode::Desktop && !desktop) {
        *error = QStringLiteral("EQUINIX_MCP_APPROVAL=desktop needs the desktop UI, but this "
                                "process has none (headless, or no display)");
        return false;
    }
    // auto and desktop ask through the desktop dialog when there is one (null: the client's
    // elicitation); client always through the client.
    m_live->setDesktopApprover(desktop);
    qCInfo(lcHost).noquote() << "approvals go through the" << m_broker->approver()->channel()
                             << "channel";
    return true;
}

LiveSettings *ServerHost::liveSettings() const
{
    return m_live.get();
}

bool ServerHost::isSandbox() const
{
    return m_fabric && m_fabric->config().sandbox;
}
FabricClient *ServerHost::fabric() const
{
    return m_fabric.get();
}
ProposalStore *ServerHost::store() const
{
    return m_store.get();
}
MutationBroker *ServerHost::broker() const
{
    return m_broker.get();
}
mcp::McpServer *ServerHost::server() const
{
    return m_server.get();
}
mcp::ToolRegistry *ServerHost::registry() const
{
    return m_registry.get();
}
FabricSandbox *ServerHost::sandbox() const
{
    return m_sandbox.get();
}
const BrokerSettings &ServerHost::settings() const
{
    return m_settings;
}
QString ServerHost::socketPath() const
{
    return m_socketPath;
}
QString ServerHost::httpUrl() const
{
    return m_httpServer ? m_httpServer->url().toString() : QString();
}
AuditLog *ServerHost::auditLog() const
{
    return m_audit.get();
}

mcp::SessionPolicy ServerHost::decideRelay(const RelayRequest &request) const
{
    RelayInstanceFacts facts;
    facts.toolsets = m_registry->servedToolsets();
    facts.sandbox = isSandbox();
    facts.endpoint = normalizedEndpoint(m_fabric->config().endpoint.toString());
    facts.credentialsFingerprint = credentialsFingerprint(m_fabric->config());
    facts.approvalChannel = m_broker->approver()->channel();
    facts.settings = m_live->settings();
    facts.policyFiles = m_live->policyDigests();
    facts.auditLog = m_audit->path();
    facts.pid = QCoreApplication::applicationPid();
    return decideRelayedSession(request, facts);
}

void ServerHost::serveRelay(transport::FastRelayConnection *relay)
{
    serveFastRelay(relay, m_server.get(), m_socketPath,
                   [this](const RelayRequest &request) { return decideRelay(request); });
}

} // namespace fb
