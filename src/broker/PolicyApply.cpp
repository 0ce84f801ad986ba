#include "broker/PolicyApply.h"

#include "broker/MutationBroker.h"
#include "fabric/FabricClient.h"
#include "mcp/ToolRegistry.h"

#include "core/Sha256.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QJsonArray>
#include <QLoggingCategory>
#include <QTimer>

Q_LOGGING_CATEGORY(lcPolicyApply, "fabricbroker.broker.policy")

using namespace Qt::StringLiterals;

namespace fb {

QString MutateLock::text() const
{
    const QString by =
        administrator ? u"set by your administrator"_s : u"set by your policy file"_s;
    if (rule == u"policy file")
        return u"%1: %2 cannot be applied (%3)"_s.arg(by, source, why);
    return u"%1: %2 in %3"_s.arg(by, rule, source);
}

namespace {

// Why the policy's audit.syslog is not what this process exports to, or empty when it is.
QString auditExportMismatch(const Policy &p, const std::optional<QString> &auditExport)
{
    if (!auditExport || !p.auditSyslog || p.auditSyslog->trimmed() == *auditExport)
        return {};
    return u"it names %1 for the audit records, but this process sends them %2 since it "
           "started: restart Fabric Broker to apply it"_s.arg(
               p.auditSyslog->trimmed(),
               auditExport->isEmpty() ? u"nowhere"_s : u"to "_s + *auditExport);
}

} // namespace

std::optional<MutateLock> mutateLock(const PolicyLoadResult &policy, const QString &endpoint,
                                     const std::optional<QString> &auditExport)
{
    const Policy &p = policy.effective;
    auto lockFor = [&](const QString &key, const QString &why) {
        const QString source = p.sources.value(key);
        return MutateLock{key, source, policy.adminFiles.contains(source), why};
    };
    if (policy.refuseMutate) {
        const QString file = policy.failedFiles.value(0);
        QString why;
        for (const QString &e : policy.errors) {
            if (e.contains(file)) {
                why = e;
                break;
            }
        }
        const qsizetype at = why.indexOf(u"IGNORED: "_s);
        if (at >= 0)
            why = why.mid(at + 9).section(u"; the mutate toolset is refused"_s, 0, 0);
        const bool admin = !policy.failedAdminFiles.isEmpty();
        return MutateLock{u"policy file"_s, admin ? policy.failedAdminFiles.first() : file, admin,
                          why};
    }
    if (p.toolsetsAllowed && !p.toolsetsAllowed->contains(u"mutate"_s))
        return lockFor(u"toolsets.allowed"_s, u"it does not list mutate"_s);
    if (p.fabricEndpoint && *p.fabricEndpoint != endpoint)
        return lockFor(u"fabric.endpoint"_s,
                       u"it locks the endpoint to %1, but the broker uses %2"_s.arg(
                           *p.fabricEndpoint, endpoint));
    if (const QString why = auditExportMismatch(p, auditExport); !why.isEmpty())
        return lockFor(u"audit.syslog"_s, why);
    return std::nullopt;
}

QStringList applyPolicy(const PolicyLoadResult &policy, const QString &endpoint,
                        BrokerSettings *settings, const std::optional<QString> &auditExport)
{
    QStringList lines;
    for (const QString &e : policy.errors)
        lines << QStringLiteral("POLICY ERROR: ") + e;
    for (const QString &i : policy.ignored)
        lines << QStringLiteral("policy: ") + i;
    const Policy &p = policy.effective;
    settings->policy = p;
    auto dropMutate = [&](const QString &why) {
        if (settings->toolsets.removeAll(QStringLiteral("mutate")) > 0)
            lines << QStringLiteral("policy: the mutate toolset is NOT served: ") + why;
    };
    if (policy.refuseMutate) {
        dropMutate(QStringLiteral("a policy file could not be applied (see above)"));
        // Never a looser policy because a file was broken: it may have allowed only "read".
        const QStringList before = settings->toolsets;
        for (const QString &t : before) {
            if (t == u"read")
                continue;
            settings->toolsets.removeAll(t);
            lines << QStringLiteral("policy: the %1 toolset is not served: a policy file could not "
                                    "be applied (see above)")
                         .arg(t);
        }
    }
    if (p.toolsetsAllowed) {
        const QStringList before = settings->toolsets;
        for (const QString &t : before) {
            if (!p.toolsetsAllowed->contains(t)) {
                settings->toolsets.removeAll(t);
                lines << QStringLiteral("policy: the %1 toolset is not served: toolsets.allowed "
                                        "(%2) does not list it")
                             .arg(t, p.sources.value(QStringLiteral("toolsets.allowed")));
            }
        }
    }
    if (p.fabricEndpoint && *p.fabricEndpoint != endpoint)
        dropMutate(QStringLiteral("fabric.endpoint (%1) locks the endpoint to %2, but the broker "
                                  "uses %3")
                       .arg(p.sources.value(QStringLiteral("fabric.endpoint")), *p.fabricEndpoint,
                            endpoint));
    if (const QString why = auditExportMismatch(p, auditExport); !why.isEmpty())
        dropMutate(QStringLiteral("audit.syslog (%1): %2")
                       .arg(p.sources.value(QStringLiteral("audit.syslog")), why));
    // Team mode is the administrator's alone (docs/team.md, "Who turns team mode on"): only an
    // administrator-layer file's team.database is taken (the settings table has no other
    // source); the URI is never logged.
    const QString adminTeam = p.teamDatabase && policy.lockedByAdministrator(u"team.database"_s)
                                  ? *p.teamDatabase
                                  : QString();
    if (!adminTeam.isEmpty() && settings->teamDatabase != adminTeam)
        lines << QStringLiteral("policy: the team database is the one team.database (%1) names")
                     .arg(p.sources.value(QStringLiteral("team.database")));
    settings->teamDatabase = adminTeam;
    if (!adminTeam.isEmpty() && !p.teamApproverKeys)
        lines << QStringLiteral("POLICY ERROR: team.database is set but team.approver_keys is "
                                "not: team mode refuses every proposal (team_unavailable) until "
                                "the administrator's policy lists the approvers' keys");
    if (p.allowUnconfirmed && !*p.allowUnconfirmed && settings->allowUnconfirmedMutations) {
        settings->allowUnconfirmedMutations = false;
        lines << QStringLiteral("policy: EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true is "
                                "overridden: allow_unconfirmed_mutations is locked to false by %1")
                     .arg(p.sources.value(QStringLiteral("allow_unconfirmed_mutations")));
    }
    if (p.channel && *p.channel != PolicyChannel::Auto) {
        const ApprovalMode mode =
            *p.channel == PolicyChannel::Desktop ? ApprovalMode::Desktop : ApprovalMode::Client;
        if (settings->approvalMode != mode)
            lines << QStringLiteral("policy: approvals go through %1 (approval.channel, %2)")
                         .arg(Policy::channelName(*p.channel),
                              p.sources.value(QStringLiteral("approval.channel")));
        settings->approvalMode = mode;
    }
    return lines;
}

bool resolveSettings(const SettingSources &sources, const PolicyLoadResult &policy,
                     const QString &endpoint, ResolvedSettings *out, QString *error,
                     const std::optional<QString> &auditExport)
{
    ResolvedSettings r;
    if (!BrokerSettings::fromSources(sources, &r.settings, error, &r.winners))
        return false;
    const BrokerSettings asked = r.settings;
    r.policy = policy;
    r.lines = applyPolicy(policy, endpoint, &r.settings, auditExport);
    r.mutateLock = mutateLock(policy, endpoint, auditExport);
    // Saved values (QSettings, which any process of this user can write) that the policy
    // overrides: shown as overridden, never applied.
    if (r.winners.value(SettingId::Toolsets) == SettingSource::Saved &&
        asked.toolsets.contains(u"mutate"_s) && !r.settings.toolsets.contains(u"mutate"_s) &&
        r.mutateLock)
        r.overridden << u"the saved toolsets (%1) are overridden: mutate is not served, %2"_s.arg(
            asked.toolsets.join(u','), r.mutateLock->text());
    if (r.winners.value(SettingId::Approval) == SettingSource::Saved &&
        asked.approvalMode != r.settings.approvalMode) {
        const Policy &p = policy.effective;
        const QString source = p.sources.value(u"approval.channel"_s);
        r.overridden << u"the saved approval channel (%1) is overridden: approvals go through %2, "
                        "%3: approval.channel in %4"_s.arg(
                            BrokerSettings::approvalModeName(asked.approvalMode),
                            BrokerSettings::approvalModeName(r.settings.approvalMode),
                            policy.adminFiles.contains(source) ? u"set by your administrator"_s
                                                               : u"set by your policy file"_s,
                            source);
    }
    *out = r;
    return true;
}

namespace {

// approval.channel says desktop, but this process has no desktop dialog (headless, and the
// policy changed while it ran): nobody can approve here. Never the client's prompt instead.
class NoDesktopApprover : public Approver {
public:
    explicit NoDesktopApprover(QString source)
        : m_source(std::move(source))
    {
    }
    QString channel() const override { return u"desktop"_s; }
    void requestApproval(mcp::ToolCall *, const ApprovalContext &,
                         std::function<void(const HumanDecision &)> done) override
    {
        done(HumanDecision{
            HumanStatus::Failed, u"desktop"_s,
            u"approvals must go through the desktop app's dialog (%1), but this process has "
            "none (headless): nobody was asked and nothing was sent. Start the Fabric Broker "
            "desktop app, or have the policy changed"_s.arg(m_source),
            QDateTime::currentMSecsSinceEpoch()});
    }

private:
    QString m_source;
};

} // namespace

LiveSettings::LiveSettings(SettingSources sources, PolicyPaths paths, QObject *parent)
    : QObject(parent)
    , m_sources(std::move(sources))
    , m_paths(std::move(paths))
{
}

LiveSettings::~LiveSettings()
{
    // The broker may outlive this object: it must not keep asking an approver owned here.
    if (m_broker && m_noDesktop && m_broker->approver() == m_noDesktop.get())
        m_broker->setApprover(nullptr);
}

bool LiveSettings::start(const QString &endpoint, QString *error)
{
    m_endpoint = endpoint;
    m_policy = loadPolicy(m_paths);
    m_digests = policyFileDigests(m_paths);
    if (!resolveSettings(m_sources, m_policy, m_endpoint, &m_current, error, m_auditExport))
        return false;
    for (const QString &line : m_current.lines)
        qCCritical(lcPolicyApply).noquote() << line;
    return true;
}

void LiveSettings::attach(mcp::ToolRegistry *registry, MutationBroker *broker)
{
    m_registry = registry;
    m_broker = broker;
    push();
}

void LiveSettings::setDesktopApprover(Approver *desktop)
{
    m_desktop = desktop;
    m_desktopObject = dynamic_cast<QObject *>(desktop);
    m_desktopIsObject = m_desktopObject != nullptr;
    push();
}

void LiveSettings::setSaved(const QMap<SettingId, QString> &values)
{
    for (auto it = values.cbegin(); it != values.cend(); ++it) {
        if (it.value().isEmpty())
            m_sources.saved.remove(it.key());
        else
            m_sources.saved.insert(it.key(), it.value());
    }
    apply();
}

void LiveSettings::setAuditExport(const QString &target)
{
    m_auditExport = target;
    apply();
}

void LiveSettings::setEndpoint(const QString &endpoint)
{
    m_endpoint = endpoint;
    apply();
}

void LiveSettings::reloadPolicy()
{
    m_policy = loadPolicy(m_paths);
    const QMap<QString, QString> digests = policyFileDigests(m_paths);
    const bool filesChanged = digests != m_digests;
    m_digests = digests;
    apply();
    if (!filesChanged || !m_broker)
        return;
    QJsonArray files;
    for (auto it = digests.cbegin(); it != digests.cend(); ++it) {
        const bool admin = it.key() != m_paths.user;
        QJsonObject f{{u"path"_s, it.key()},
                      {u"layer"_s, admin ? u"administrator"_s : u"user"_s},
                      {u"sha256"_s, it.value().size() == 64 ? QJsonValue(it.value())
                                                            : QJsonValue(QJsonValue::Null)}};
        if (m_policy.failedFiles.contains(it.key())) {
            for (const QString &e : std::as_const(m_policy.errors)) {
                if (e.contains(it.key()))
                    f.insert(u"error"_s, e.left(1024));
            }
        }
        files.append(f);
    }
    m_broker->audit(
        AuditEventType::PolicyChanged,
        {{u"files"_s, files},
         {u"refuse_mutate"_s, m_policy.refuseMutate},
         {u"toolsets"_s, m_current.settings.toolsets.join(u',')},
         {u"approval"_s, BrokerSettings::approvalModeName(m_current.settings.approvalMode)}});
}

void LiveSettings::watchPolicyFiles()
{
    if (m_watcher)
        return;
    m_watcher = new QFileSystemWatcher(this);
    m_reload = new QTimer(this);
    m_reload->setSingleShot(true);
    m_reload->setInterval(kReloadDelayMs);
    // Several events for one save (truncate, write, rename) become one reload.
    auto changed = [this] { m_reload->start(); };
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, changed);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, changed);
    connect(m_reload, &QTimer::timeout, this, [this] {
        rearm(); // an editor's rename replaced the watched inode
        reloadPolicy();
    });
    rearm();
}

void LiveSettings::rearm()
{
    QStringList wanted;
    for (const QString &path : {m_paths.system, m_paths.extraAdmin, m_paths.user}) {
        if (path.isEmpty())
            continue;
        if (QFileInfo::exists(path))
            wanted << path;
        const QString dir = QFileInfo(path).absolutePath();
        if (QFileInfo(dir).isDir())
            wanted << dir;
    }
    // A file watch follows the inode, which an editor's save-by-rename replaces: watch the
    // files afresh each time (the directories see the rename and files that appear later).
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    const QStringList watched = m_watcher->directories();
    QStringList add;
    for (const QString &p : std::as_const(wanted)) {
        if (!watched.contains(p) && !add.contains(p))
            add << p;
    }
    if (!add.isEmpty())
        m_watcher->addPaths(add);
}

void LiveSettings::apply()
{
    ResolvedSettings next;
    QString error;
    if (!resolveSettings(m_sources, m_policy, m_endpoint, &next, &error, m_auditExport)) {
        // Only a flag or the environment can be invalid, and both were checked at startup.
        qCCritical(lcPolicyApply).noquote() << "settings not applied:" << error;
        return;
    }
    for (const QString &line : next.lines) {
        if (!m_current.lines.contains(line))
            qCCritical(lcPolicyApply).noquote() << line;
    }
    m_current = next;
    push();
    emit changed();
}

void LiveSettings::push()
{
    const BrokerSettings &s = m_current.settings;
    if (m_broker) {
        m_broker->setSettings(s);
        // This process's desktop dialog (when it has one) asks for "auto" and "desktop";
        // "client" asks through each client's elicitation. "desktop" without a dialog fails
        // closed (NoDesktopApprover), it never falls back to the client.
        Approver *desktop = m_desktopIsObject && !m_desktopObject ? nullptr : m_desktop;
        Approver *approver = s.approvalMode == ApprovalMode::Client ? nullptr : desktop;
        if (s.approvalMode == ApprovalMode::Desktop && !desktop) {
            const bool byPolicy = s.policy.channel && *s.policy.channel == PolicyChannel::Desktop;
            const QString source =
                byPolicy ? u"approval.channel in "_s + s.policy.sources.value(u"approval.channel"_s)
                         : u"EQUINIX_MCP_APPROVAL=desktop"_s;
            m_noDesktop = std::make_unique<NoDesktopApprover>(source);
            approver = m_noDesktop.get();
        }
        m_broker->setApprover(approver);
    }
    if (m_registry)
        m_registry->setServedToolsets(s.toolsets);
    // fabric.endpoint also holds every read and every token request to its endpoint.
    if (m_broker && m_broker->fabric())
        m_broker->fabric()->setEndpointLock(s.policy.fabricEndpoint.value_or(QString()),
                                            s.policy.sources.value(u"fabric.endpoint"_s));
}

} // namespace fb
