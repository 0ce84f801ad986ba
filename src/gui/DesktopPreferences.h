#pragma once
// DesktopPreferences: the desktop app's non-secret settings in QSettings (endpoint, toolsets,
// approval channel, HTTP endpoint, the exports' targets, notifications), under the saved keys of
// the settings table (core/Settings.h). Credentials never live here: see CredentialStore.
#include "broker/BrokerSettings.h"

#include <QSettings>
#include <QStringList>
#include <QUrl>

namespace fb {

struct DesktopPreferences {
    QUrl endpoint;                            // empty: the default (or the environment's)
    QStringList toolsets;                     // empty: the default (or the environment's)
    std::optional<ApprovalMode> approvalMode; // nullopt: the default (an unknown saved value too)
    // The loopback MCP over HTTP endpoint ("127.0.0.1:PORT"); empty: off. --http overrides it.
    QString httpAddress;
    // Settings > Observability (docs/observability.md): used at the next start where neither
    // the policy nor the environment sets them; empty: not saved.
    QString otlpEndpoint; // observability.otlp_endpoint
    QString auditSyslog;  // audit.syslog
    // Settings > Desktop: notifications when an approval needs this person or a decision on
    // their team proposal arrives (DesktopNotifier); on unless turned off.
    bool notifications = true;
    // Whether credentials were saved to the keychain, so startup only asks the keychain (which
    // may be slow or absent) when there is something to read. Not a secret.
    bool credentialsInKeychain = false;

    static DesktopPreferences load(const QSettings &settings);
    void save(QSettings &settings) const;
    static void setCredentialsInKeychain(QSettings &settings, bool stored);
};

} // namespace fb
