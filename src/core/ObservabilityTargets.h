#pragma once
// Where the audit trail and the telemetry are exported (docs/observability.md, "Where it is
// set"), from the operator policy, the environment and the desktop app's saved Settings. Pure:
// the host makes the sink and the exporter from what this says.
//
// audit.syslog: the policy (the administrator's layer alone, core/Policy's merge) > the
// environment (FABRIC_BROKER_AUDIT_SYSLOG) > the saved value. Neither the environment nor a saved
// value can switch the administrator's export off or send it elsewhere.
// observability.otlp_endpoint: the policy > OTEL_EXPORTER_OTLP_ENDPOINT > the saved value; the
// other OTEL_* variables are telemetry/OtlpConfig's (with the policy's endpoint, those that would
// send elsewhere or nowhere are ignored there).
#include "core/Policy.h"
#include "core/Settings.h"

#include <QString>
#include <QStringList>

namespace fb {

struct ObservabilityTarget {
    QString value;           // empty: not set anywhere (off)
    SettingSource source{};  // Default when value is empty or it is the policy's
    bool fromPolicy = false; // the policy's value (source then names the file)
    QString policyFile;      // the file that set it, when fromPolicy
    // Values of lower precedence that are set and not used, one line each ("FABRIC_BROKER_AUDIT_
    // SYSLOG is ignored: audit.syslog in /etc/fabric-broker/policy.json wins").
    QStringList ignored;

    // "audit.syslog in /etc/fabric-broker/policy.json", "FABRIC_BROKER_AUDIT_SYSLOG",
    // "saved audit/syslog", or "" when off.
    QString describeSource(SettingId id) const;
};

ObservabilityTarget observabilityTarget(SettingId id, const Policy &policy,
                                        const SettingSources &sources);

} // namespace fb
