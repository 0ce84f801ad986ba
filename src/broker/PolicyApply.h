#pragma once
// Applies the operator policy's locks (src/core/Policy, docs/policy.md) to the broker settings
// at startup: toolsets.allowed, approval.channel, allow_unconfirmed_mutations=false,
// fabric.endpoint, and the refusal of the mutate toolset when a policy file had to be ignored.
#include "broker/BrokerSettings.h"
#include "core/Policy.h"

namespace fb {

// endpoint: the Fabric endpoint the broker will use (MutationBroker::fabricBinding form).
// Returns one line per change made or file problem, for the log (loud: these are operator
// errors or locks the operator should see).
QStringList applyPolicy(const PolicyLoadResult &policy, const QString &endpoint,
                        BrokerSettings *settings);

} // namespace fb
