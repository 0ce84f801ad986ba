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
#include "notify/WebhookNotifier.h"
#include "sandbox/FabricSandbox.h"
#include "team/TeamQueue.h"
#include "telemetry/SyslogSink.h"
#include "telemetry/Telemetry.h"
#include "transport/http/HttpAddress.h"
#include "transport/http/HttpServer.h"
#include "transport/http/HttpToken.h"
#include "transport/socket/FastRelayConnection.h"
#include "transport/socket/LocalSocketServer.h"
#include "transport/stdio/StdioDevices.h"
#include "transport/stdio/StdioDiscoverGate.h"
#include "transport/stdio/StdioTransport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
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
    // 3b) Webhooks still on their way end as failed, audited while the broker can record them.
    if (m_notifier)
        m_notifier->cancelPending(QStringLiteral("the broker ended before the receiver answered"));
    m_notifier.reset();
    // 4) Then the tools, the store, the sandbox, and the audit trail last.
    m_catalog.reset();
    m_broker.reset();
    m_registry.reset();
    m_store.reset();
    m_sandbox.reset();
    // 5) The audit export stops taking records, then the audit trail goes.
    if (m_audit)
        m_audit->setObserver({});
    m_auditSink.reset();
    m_telemetry.reset();
    m_audit.reset();
}

void ServerHost::shutdown(int graceMs, std::function<void()> done)
{
    if (m_shuttingDown)
        return;
    m_shuttingDown = true;
    // Last of all, what telemetry holds leaves (bounded: a collector that hangs costs at most
    // kTelemetryFlushMs of the exit).
    done = [this, done = std::move(done)]() mutable { flushTelemetryThen(std::move(done)); };
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

void ServerHost::flushTelemetryThen(std::function<void()> done)
{
    telemetry::OtlpExporter *exporter = m_telemetry ? m_telemetry->exporter() : nullptr;
    if (exporter)
        exporter->flush();
    // What is still to leave: an OTLP export, audit records a connected sink has not taken, and
    // webhooks (those still waiting then end as failed, each audited).
    const QPointer<telemetry::OtlpExporter> otlp(exporter);
    const QPointer<telemetry::SyslogSink> sink(m_auditSink.get());
    const QPointer<notify::WebhookNotifier> hooks(m_notifier.get());
    auto busy = [otlp, sink, hooks] {
        return (otlp && otlp->isBusy()) || (sink && sink->isConnected() && sink->queued() > 0) ||
               (hooks && !hooks->isIdle());
    };
    auto endHooks = [hooks] {
        if (hooks)
            hooks->cancelPending(QStringLiteral("the broker exited before the receiver answered"));
    };
    if (!busy()) {
        done();
        return;
    }
    auto *poll = new QTimer(this);
    QElapsedTimer waited;
    waited.start();
    connect(poll, &QTimer::timeout, this,
            [poll, waited, busy, endHooks, done = std::move(done)]() mutable {
                if (busy() && waited.elapsed() < kTelemetryFlushMs)
                    return;
                poll->stop();
                poll->deleteLater();
                endHooks();
                done();
            });
    poll->start(20);
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
    if (!options.savedAuditSyslog.isEmpty())
        sources.saved.insert(SettingId::AuditSyslog, options.savedAuditSyslog);
    if (!options.savedOtlpEndpoint.isEmpty())
        sources.saved.insert(SettingId::OtlpEndpoint, options.savedOtlpEndpoint);
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
    // After the policy (it may name the exports), before anything is recorded or served.
    if (!startObservability(options, sources, error))
        return false;
    m_live->setAuditExport(m_syslogTarget.value);
    m_settings = m_live->settings();
    m_fabric = std::make_unique<FabricClient>(config);
    m_store = std::make_unique<ProposalStore>();
    m_registry = std::make_unique<mcp::ToolRegistry>();
    m_catalog = std::make_unique<Catalog>(m_fabric.get(), m_store.get(), Clock::system());
    m_broker = std::make_unique<MutationBroker>(m_store.get(), m_fabric.get(), m_settings);
    m_broker->setAuditSink(m_audit.get());
    startNotifier();
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
    connect(m_live.get(), &LiveSettings::changed, this, [this] {
        m_settings = m_live->settings();
        applyWebhooks();
    });
    qCInfo(lcHost).noquote() << "serving toolsets" << m_settings.toolsets.join(u',');

    mcp::ServerOptions serverOptions;
    serverOptions.version = QCoreApplication::applicationVersion();
    serverOptions.instructions =
        serverInstructions(config.sandbox, m_settings) + options.instructionsNote +
        (m_settings.toolsets.contains(QStringLiteral("mutate")) ? QString() : options.readOnlyNote);
    if (config.sandbox)
        serverOptions.title = QStringLiteral("Fabric Broker (SANDBOX)");
    m_server = std::make_unique<mcp::McpServer>(m_registry.get(), serverOptions);
    if (m_telemetry) {
        m_server->setTelemetry(m_telemetry.get());
        m_broker->setTelemetry(m_telemetry.get());
        addBrokerMetrics();
    }
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

// The proposing broker's notify-only webhooks (docs/notify.md). Queued connections: the broker's
// signals only post an event, and the notifier renders and sends on a later turn of the event
// loop, so no webhook is ever on a request's path. Only the confirm flow of this process emits
// these signals: in team mode the proposing broker notifies, the approvers' brokers do not.
void ServerHost::startNotifier()
{
    m_notifier = std::make_unique<notify::WebhookNotifier>();
    notify::WebhookNotifier *n = m_notifier.get();
    connect(m_broker.get(), &MutationBroker::approvalStarted, n,
            &notify::WebhookNotifier::approvalStarted, Qt::QueuedConnection);
    connect(m_broker.get(), &MutationBroker::approvalFinished, n,
            &notify::WebhookNotifier::approvalFinished, Qt::QueuedConnection);
    connect(m_broker.get(), &MutationBroker::executionFinished, n,
            &notify::WebhookNotifier::executionFinished, Qt::QueuedConnection);
    // Each delivery audited: target index and origin, never the URL (it may be the secret).
    connect(n, &notify::WebhookNotifier::delivered, this, [this](const notify::WebhookDelivery &d) {
        if (m_broker)
            m_broker->audit(AuditEventType::WebhookDelivered, d.auditRecord());
    });
    connect(n, &notify::WebhookNotifier::failed, this, [this](const notify::WebhookDelivery &d) {
        if (m_broker)
            m_broker->audit(AuditEventType::WebhookFailed, d.auditRecord());
    });
    applyWebhooks();
}

void ServerHost::applyWebhooks()
{
    if (!m_notifier)
        return;
    // The merge takes notify.webhooks from an administrator-layer file only (core/Policy).
    const QList<WebhookTarget> targets =
        m_settings.policy.notifyWebhooks.value_or(QList<WebhookTarget>{});
    if (targets == m_notifier->targets())
        return;
    m_notifier->setTargets(targets);
    QStringList where;
    for (const WebhookTarget &t : targets)
        where << QStringLiteral("%1 (%2)").arg(t.origin(), webhookFormatName(t.format));
    if (targets.isEmpty())
        qCInfo(lcHost) << "webhooks: none";
    else
        qCInfo(lcHost).noquote() << QStringLiteral("webhooks (notify.webhooks in %1): %2")
                                        .arg(m_settings.policy.sources.value(
                                                 QStringLiteral("notify.webhooks")),
                                             where.join(QStringLiteral(", ")));
}

// Observed only when someone looks: an OTLP endpoint (OTEL_*), the HTTP endpoint (its /metrics)
// or an audit sink. Otherwise nothing is recorded and the MCP engine pays one null check.
bool ServerHost::startObservability(const Options &options, const SettingSources &sources,
                                    QString *error)
{
    // Where to: the policy > the environment > Settings (core/ObservabilityTargets).
    const Policy &policy = m_settings.policy;
    m_otlpTarget = observabilityTarget(SettingId::OtlpEndpoint, policy, sources);
    m_syslogTarget = observabilityTarget(SettingId::AuditSyslog, policy, sources);
    const QString otlpEnv = Settings::envName(SettingId::OtlpEndpoint);
    for (const QString &line : std::as_const(m_otlpTarget.ignored)) {
        if (!line.startsWith(otlpEnv)) // the exporter's own warnings name the variables
            qCWarning(lcHost).noquote() << "OpenTelemetry:" << line;
    }
    for (const QString &line : std::as_const(m_syslogTarget.ignored))
        qCWarning(lcHost).noquote() << "audit export:" << line;
    // An administrator's file that could not be applied may name the audit export: what the
    // environment or Settings say is not taken in its place (attack review of #38). Mutate is
    // refused meanwhile, and once the file is fixed its audit.syslog differs from this process's
    // export, which keeps mutate refused until a restart (LiveSettings::setAuditExport).
    if (!m_syslogTarget.fromPolicy && !m_syslogTarget.value.isEmpty() &&
        !m_live->current().policy.failedAdminFiles.isEmpty()) {
        qCWarning(lcHost).noquote()
            << "audit export:" << m_syslogTarget.describeSource(SettingId::AuditSyslog)
            << "is NOT used: the administrator's policy file"
            << m_live->current().policy.failedAdminFiles.first()
            << "could not be applied, and it may name the audit export";
        m_syslogTarget = ObservabilityTarget{};
    }

    const QString version = QCoreApplication::applicationVersion();
    const telemetry::OtlpConfig otlp = telemetry::OtlpConfig::fromEnvironment(
        sources.environment, m_otlpTarget.value, version, m_otlpTarget.fromPolicy);
    for (const QString &warning : otlp.warnings)
        qCWarning(lcHost).noquote() << "OpenTelemetry:" << warning;
    std::optional<telemetry::SyslogConfig> sink;
    if (!m_syslogTarget.value.isEmpty()) {
        QString why;
        sink = telemetry::SyslogConfig::parse(m_syslogTarget.value, &why);
        if (!sink) {
            // An audit export the administrator asked for and cannot have is a failed start,
            // not a silent gap.
            *error = QStringLiteral("%1: %2").arg(
                m_syslogTarget.describeSource(SettingId::AuditSyslog), why);
            return false;
        }
    }
    if (!otlp.anyEnabled() && options.http.isEmpty() && !sink)
        return true;
    m_telemetry = std::make_unique<telemetry::Telemetry>(version);
    m_telemetry->configureExport(otlp);
    if (otlp.anyEnabled())
        qCInfo(lcHost).noquote() << "OpenTelemetry export to" << otlp.describe();
    if (sink) {
        m_auditSink = std::make_unique<telemetry::SyslogSink>(*sink);
        qCInfo(lcHost).noquote() << "audit records also to syslog at" << sink->describe();
        telemetry::SyslogSink *s = m_auditSink.get();
        AuditLog *audit = m_audit.get();
        const QString where = sink->describe();
        audit->setObserver([s](const AuditLog::Written &w) {
            s->submit(
                telemetry::AuditExportRecord{w.seq, w.type, w.time, w.prev, w.sha256, w.line});
        });
        // What the sink cannot deliver is recorded in the local chain (and so, later, exported).
        // Through the broker when it exists: the desktop app's activity list shows them too.
        auto record = [this, audit](AuditEventType type, const QJsonObject &data) {
            if (m_broker)
                m_broker->audit(type, data);
            else
                audit->record(type, data);
        };
        connect(s, &telemetry::SyslogSink::interrupted, this,
                [record, where](const QString &reason, qint64 lastSent, qint64 pending) {
                    qCWarning(lcHost).noquote()
                        << "audit export to" << where << "interrupted:" << reason;
                    record(AuditEventType::ExportInterrupted,
                           {{QStringLiteral("sink"), where},
                            {QStringLiteral("reason"), reason.left(300)},
                            {QStringLiteral("last_sent_seq"), double(lastSent)},
                            {QStringLiteral("pending"), double(pending)}});
                });
        connect(s, &telemetry::SyslogSink::resumed, this, [record, where](qint64 from) {
            qCInfo(lcHost).noquote() << "audit export to" << where << "resumed";
            record(AuditEventType::ExportResumed,
                   {{QStringLiteral("sink"), where},
                    {QStringLiteral("resent_from_seq"), double(from)}});
        });
        connect(s, &telemetry::SyslogSink::gap, this,
                [record, where](qint64 from, qint64 to, const QString &reason) {
                    qCWarning(lcHost).noquote() << "audit export to" << where << "lost records"
                                                << from << "to" << to << ":" << reason;
                    record(AuditEventType::ExportGap, {{QStringLiteral("sink"), where},
                                                       {QStringLiteral("from_seq"), double(from)},
                                                       {QStringLiteral("to_seq"), double(to)},
                                                       {QStringLiteral("reason"), reason}});
                });
    }
    return true;
}

QList<QPair<QString, QString>> ServerHost::observabilityStatus() const
{
    QList<QPair<QString, QString>> rows;
    const telemetry::OtlpExporter *exporter = m_telemetry ? m_telemetry->exporter() : nullptr;
    if (!exporter) {
        rows.append({tr("OpenTelemetry"), tr("off")});
    } else {
        const telemetry::OtlpExporter::Stats &stats = exporter->stats();
        const QString from = m_otlpTarget.describeSource(SettingId::OtlpEndpoint);
        QString text =
            tr("%1 (set by %2); %3 spans exported, %4 dropped")
                .arg(exporter->config().describe(), from.isEmpty() ? tr("OTEL_* variables") : from)
                .arg(stats.spansExported)
                .arg(stats.spansDropped);
        if (stats.lastSuccessUnixMs > 0)
            text += tr("; last export %1")
                        .arg(QDateTime::fromMSecsSinceEpoch(stats.lastSuccessUnixMs)
                                 .toLocalTime()
                                 .toString(Qt::ISODate));
        if (!stats.lastError.isEmpty())
            text += tr("; last error: %1").arg(stats.lastError.left(200));
        rows.append({tr("OpenTelemetry"), text});
    }
    rows.append(
        {tr("Prometheus"),
         m_httpServer && m_telemetry
             ? tr("%1 (GET /metrics with the HTTP bearer token)")
                   .arg(m_httpServer->url().resolved(QUrl(QStringLiteral("/metrics"))).toString())
             : tr("off (serve MCP over HTTP to get /metrics)")});
    if (!m_auditSink) {
        rows.append({tr("Audit records to syslog"), tr("off")});
    } else {
        QString text = tr("%1 (set by %2), %3; %4 records sent, %5 waiting, %6 lost")
                           .arg(m_auditSink->config().describe(),
                                m_syslogTarget.describeSource(SettingId::AuditSyslog),
                                m_auditSink->isConnected() ? tr("connected") : tr("not connected"))
                           .arg(m_auditSink->sent())
                           .arg(m_auditSink->queued())
                           .arg(m_auditSink->dropped());
        if (!m_auditSink->isConnected() && !m_auditSink->lastError().isEmpty())
            text += tr("; %1").arg(m_auditSink->lastError().left(200));
        rows.append({tr("Audit records to syslog"), text});
    }
    return rows;
}

// The broker's own gauges (docs/observability.md), read when metrics are collected.
void ServerHost::addBrokerMetrics()
{
    namespace names = telemetry::names;
    telemetry::MetricRegistry *metrics = m_telemetry->metrics();
    QPointer<ServerHost> self(this);
    metrics->gauge(QString::fromLatin1(names::ProposalsWaiting),
                   QStringLiteral("Proposals whose token is pending (not yet confirmed, expired "
                                  "or evicted)"),
                   QStringLiteral("{proposal}"), [self]() -> QList<telemetry::GaugePoint> {
                       if (!self || !self->m_store)
                           return {};
                       return {{{}, double(self->m_store->pendingCount())}};
                   });
    metrics->gauge(QString::fromLatin1(names::CreatesInFlight),
                   QStringLiteral("Creates whose bytes left and whose outcome is not in yet"),
                   QStringLiteral("{create}"), [self]() -> QList<telemetry::GaugePoint> {
                       if (!self || !self->m_broker)
                           return {};
                       return {{{}, double(self->m_broker->createsInFlight())}};
                   });
    metrics->gauge(QString::fromLatin1(names::SpendUsed),
                   QStringLiteral("Monthly recurring price of the creates of the last 24 hours "
                                  "(executed and reserved), per currency"),
                   QStringLiteral("{currency_unit}"), [self]() -> QList<telemetry::GaugePoint> {
                       QList<telemetry::GaugePoint> points;
                       if (!self || !self->m_broker)
                           return points;
                       for (const Money &m : self->m_broker->spendTotals().all())
                           points.append(
                               {telemetry::Attributes::of(
                                    {{QStringLiteral("fabric_broker.currency"), m.currency}}),
                                m.amount});
                       return points;
                   });
    metrics->gauge(QString::fromLatin1(names::SpendLimit),
                   QStringLiteral("spend.max_monthly_recurring_per_day of the policy"),
                   QStringLiteral("{currency_unit}"), [self]() -> QList<telemetry::GaugePoint> {
                       if (!self || !self->m_settings.policy.maxPerDay)
                           return {};
                       const Money &limit = *self->m_settings.policy.maxPerDay;
                       return {{telemetry::Attributes::of(
                                    {{QStringLiteral("fabric_broker.currency"), limit.currency}}),
                                limit.amount}};
                   });
    // Team mode: each confirm waiting for its quorum (at most the pending proposals), by the
    // first 16 hex digits of its request's SHA-256.
    auto quorum = [self](bool required) -> QList<telemetry::GaugePoint> {
        QList<telemetry::GaugePoint> points;
        if (!self || !self->m_broker)
            return points;
        for (const MutationBroker::QuorumProgress &p : self->m_broker->teamQuorumProgress())
            points.append(
                {telemetry::Attributes::of(
                     {{QStringLiteral("fabric_broker.request.sha256"), p.requestSha256.left(16)}}),
                 double(required ? p.required : p.counted)});
        return points;
    };
    metrics->gauge(QString::fromLatin1(names::QuorumApprovals),
                   QStringLiteral("Team mode: approvals that count so far, per confirm waiting for "
                                  "its quorum"),
                   QStringLiteral("{approval}"), [quorum] { return quorum(false); });
    metrics->gauge(QString::fromLatin1(names::QuorumRequired),
                   QStringLiteral("Team mode: approvals required, per confirm waiting for its "
                                  "quorum"),
                   QStringLiteral("{approval}"), [quorum] { return quorum(true); });
    metrics->gauge(QString::fromLatin1(names::AuditRecords),
                   QStringLiteral("Records in the local audit chain (the seq of its head)"),
                   QStringLiteral("{record}"), [self]() -> QList<telemetry::GaugePoint> {
                       if (!self || !self->m_audit)
                           return {};
                       return {{{}, double(self->m_audit->recordCount())}};
                   });
    metrics->gauge(
        QString::fromLatin1(names::AuditHeadAge),
        QStringLiteral("Seconds since this process last wrote an audit record"),
        QStringLiteral("s"), [self]() -> QList<telemetry::GaugePoint> {
            if (!self || !self->m_audit || self->m_audit->lastRecordMs() == 0)
                return {};
            return {{{},
                     double(QDateTime::currentMSecsSinceEpoch() - self->m_audit->lastRecordMs()) /
                         1000.0}};
        });
    if (m_auditSink) {
        const QString where = m_auditSink->config().describe();
        metrics->gauge(
            QString::fromLatin1(names::ExportLag),
            QStringLiteral("Audit records written locally and not yet sent to the sink"),
            QStringLiteral("{record}"), [self, where]() -> QList<telemetry::GaugePoint> {
                if (!self || !self->m_auditSink)
                    return {};
                return {{telemetry::Attributes::of({{QStringLiteral("fabric_broker.sink"), where}}),
                         double(self->m_auditSink->queued())}};
            });
        metrics->gauge(
            QString::fromLatin1(names::ExportGaps),
            QStringLiteral("Audit records that will never reach the sink"),
            QStringLiteral("{record}"), [self, where]() -> QList<telemetry::GaugePoint> {
                if (!self || !self->m_auditSink)
                    return {};
                return {{telemetry::Attributes::of({{QStringLiteral("fabric_broker.sink"), where}}),
                         double(self->m_auditSink->dropped())}};
            });
    }
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
