#pragma once
// "fabric-broker policy ...": the operator policy (src/core/Policy, docs/policy.md).
//
//   fabric-broker policy show [--json]   the effective policy and where each value came from
//   fabric-broker policy check FILE      validate one policy file
//   fabric-broker policy reset-ledger --reason TEXT   start the daily spend count over (audited)
//
// Exit codes: 0 = fine, 1 = a policy file is invalid or was ignored, 2 = usage or I/O error.
#include <QStringList>

namespace fb {

// args: the full command line ({program, "policy", ...}). Prints to stdout, errors to stderr.
int runPolicyCommand(const QStringList &args);

} // namespace fb
