#pragma once
// BrokerSettings: the operator's knobs for the broker, read from the environment. Invalid values
// are startup errors, never silently replaced by defaults.
#include "core/Policy.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace fb {

enum class ApprovalMode { Auto, Client, Desktop };

struct BrokerSettings {
    qint64 proposalTtlMs = 600000;                   // EQUINIX_MCP_PROPOSAL_TTL_MS
    int maxPending = 20;                             // EQUINIX_MCP_MAX_PENDING
    int elicitTimeoutMs = 300000;                    // EQUINIX_MCP_ELICIT_TIMEOUT_MS
    bool allowUnconfirmedMutations = false;          // EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true
    ApprovalMode approvalMode = ApprovalMode::Auto;  // EQUINIX_MCP_APPROVAL=auto|client|desktop
    QStringList toolsets = {QStringLiteral("read")}; // EQUINIX_MCP_TOOLSETS / --toolsets
    int progressIntervalMs = 5000; // progress while waiting for a person (when asked for)
    Policy policy; // the effective operator policy (broker/PolicyApply, docs/policy.md)

    // Reads the variables above; on an invalid value returns false and says which and why.
    static bool fromEnvironment(const QProcessEnvironment &env, BrokerSettings *out,
                                QString *error);
    static QString approvalModeName(ApprovalMode mode);
};

} // namespace fb
