#pragma once
// The one path from a setting to the running broker (docs/policy.md, "Enforcement"):
// resolveSettings() resolves the settings table (flag > environment > saved > default) and then
// applies the effective operator policy (applyPolicy); LiveSettings keeps the sources of a
// running process, runs that function again on every change (startup, Settings > Save, "Turn on
// proposals", a policy reload) and pushes the result to the tool registry and the broker, then
// emits changed(). Nothing else sets the served toolsets or the approver.
#include "broker/BrokerSettings.h"
#include "core/Policy.h"

#include <QMap>
#include <QObject>
#include <QPointer>
#include <memory>
#include <optional>

class QFileSystemWatcher;
class QTimer;

namespace fb {

class Approver;
class MutationBroker;
namespace mcp {
class ToolRegistry;
}

// Why the policy forbids the mutate toolset, for people: the rule, the file that set it and
// whether that file is the administrator's.
struct MutateLock {
    QString rule;   // "toolsets.allowed", "fabric.endpoint", "approval.channel" or "policy file"
    QString source; // the file
    bool administrator = false;
    QString why; // the detail ("the file is broken: ...")
    // "set by your administrator: toolsets.allowed in /etc/fabric-broker/policy.json"
    QString text() const;
};

// endpoint: the Fabric endpoint the broker will use (MutationBroker::fabricBinding form).
// Returns one line per change made or file problem, for the log (loud: these are operator
// errors or locks the operator should see).
// auditExport: where this process sends its audit records (audit.syslog), fixed when it started;
// nullopt while it starts. A policy that names another target then refuses mutate until a
// restart applies it: no create is recorded to a sink the policy no longer names, or to none.
QStringList applyPolicy(const PolicyLoadResult &policy, const QString &endpoint,
                        BrokerSettings *settings,
                        const std::optional<QString> &auditExport = std::nullopt);
// The first reason the policy forbids mutate, or nullopt when it allows it.
std::optional<MutateLock> mutateLock(const PolicyLoadResult &policy, const QString &endpoint,
                                     const std::optional<QString> &auditExport = std::nullopt);

struct ResolvedSettings {
    BrokerSettings settings;                // the effective values (policy applied)
    QMap<SettingId, SettingSource> winners; // which source each table value came from
    PolicyLoadResult policy;                // the policy files as read
    std::optional<MutateLock> mutateLock;   // why mutate is refused (nullopt: it is not)
    QStringList lines;                      // applyPolicy's log lines
    QStringList overridden;                 // saved values the policy overrides (for people)
};

// The one function: the table's precedence, then the policy. False (and error) on an invalid
// environment or flag value.
bool resolveSettings(const SettingSources &sources, const PolicyLoadResult &policy,
                     const QString &endpoint, ResolvedSettings *out, QString *error,
                     const std::optional<QString> &auditExport = std::nullopt);

class LiveSettings : public QObject {
    Q_OBJECT
public:
    LiveSettings(SettingSources sources, PolicyPaths paths, QObject *parent = nullptr);
    ~LiveSettings() override;

    // Startup: reads the policy files and resolves; nothing is pushed yet (attach() does).
    bool start(const QString &endpoint, QString *error);
    // The registry and broker the result is pushed to (not owned; held by QPointer, so either
    // may go first).
    void attach(mcp::ToolRegistry *registry, MutationBroker *broker);
    // The desktop approval dialog of this process, or null without a UI. When it is a QObject
    // (DesktopApprover) it is held by QPointer: once it is gone the broker no longer asks it.
    // Without one, approvals that must go through the desktop (approval.channel: desktop set
    // by a policy reload in a headless process) fail closed: every confirm is answered
    // "failed" with the reason, nobody is asked and nothing is sent (never the client's prompt
    // in its place).
    void setDesktopApprover(Approver *desktop);
    // Where this process sends its audit records from now on (the syslog target, "" for none),
    // fixed at its start: a policy naming another audit.syslog then refuses mutate (applyPolicy).
    void setAuditExport(const QString &target);

    // Like KeePassXC's Config::set: a saved value changed (Settings > Save, "Turn on
    // proposals"); an empty value removes it. Re-resolves and applies.
    void setSaved(const QMap<SettingId, QString> &values);
    // The Fabric endpoint changed (Settings > Save).
    void setEndpoint(const QString &endpoint);
    // Re-reads the policy files and applies them (a file changed). When their bytes changed,
    // records a policy_changed audit event (through the attached broker) with each file's
    // SHA-256, the refusal and what is served now.
    void reloadPolicy();
    // Watches the policy files (and their directories, so that an editor's rename or a file
    // that appears later is seen) and reloads within kReloadDelayMs of a change.
    void watchPolicyFiles();
    static constexpr int kReloadDelayMs = 150;

    const ResolvedSettings &current() const { return m_current; }
    const BrokerSettings &settings() const { return m_current.settings; }
    const PolicyPaths &paths() const { return m_paths; }
    // Each policy file's SHA-256 as last read (policyFileDigests), for the relay hello.
    const QMap<QString, QString> &policyDigests() const { return m_digests; }
    // Whether saving `toolsets` would serve mutate (false: the policy forbids it).
    bool mutateAllowed() const { return !m_current.mutateLock.has_value(); }

signals:
    void changed();

private:
    void apply(); // resolve with the current sources and push; emits changed()
    void push();
    void rearm();

    SettingSources m_sources;
    PolicyPaths m_paths;
    PolicyLoadResult m_policy;
    QString m_endpoint;
    ResolvedSettings m_current;
    QPointer<mcp::ToolRegistry> m_registry;
    QPointer<MutationBroker> m_broker;
    Approver *m_desktop = nullptr;
    QPointer<QObject> m_desktopObject; // m_desktop as a QObject, when it is one
    bool m_desktopIsObject = false;
    std::unique_ptr<Approver> m_noDesktop; // the fail-closed answer without a desktop dialog
    QFileSystemWatcher *m_watcher = nullptr;
    QTimer *m_reload = nullptr;
    QMap<QString, QString> m_digests;
    std::optional<QString> m_auditExport;
};

} // namespace fb
