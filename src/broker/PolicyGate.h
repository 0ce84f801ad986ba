#pragma once
// PolicyGate: where the operator policy (src/core/Policy) meets the broker's two tools. The
// rules themselves are pure functions in core; this adds the audit log read for the daily sum
// and the results agents see.
#include "core/Policy.h"
#include "core/ProposalStore.h"
#include "core/SpendLedger.h"

namespace fb {

// The confirm-time verdict for a proposal (its stored rate-card price). The daily sum comes
// from the spend ledger: creates of the last 24 hours plus the reservations of confirms whose
// person is being asked, leaving out selfKey's own reservation. When the policy sets a daily
// limit and the ledger could not establish the day (or there is none), the verdict is deny
// with the ledger's reason (a restart or a broken log never resets the limit).
PolicyVerdict policyAtConfirm(const Policy &policy, const Proposal &proposal,
                              const SpendLedger *ledger, qint64 nowMs, const QString &selfKey = {});

// The structured result of a proposal the policy denied (no token): error {kind:
// "policy_denied", message, rule, limit, price}, policy, change_type, target, request_sha256.
QJsonObject policyRefusal(const PolicyVerdict &verdict, const QJsonObject &price,
                          const QString &changeType, const QString &target,
                          const QString &requestSha256);

// The confirm result's message when the policy stops a confirm before anyone is asked: denied,
// or the desktop app's dialog required on another channel.
QString policyConfirmMessage(const PolicyVerdict &verdict);

// One line for people: every rule's reason ("within your daily limit: USD 150.00 of USD
// 1,000.00 used, this change adds USD 150.00"), or empty when no rule applied. policy is
// PolicyVerdict::toJson().
QString policyLine(const QJsonObject &policy);

} // namespace fb
