#pragma once
// The policy file's keys (docs/policy.md), shared by the parser, the evaluation and the loader.
// Internal to core: callers name keys through Policy::keys().
#include <QString>

namespace fb::policykeys {

using namespace Qt::StringLiterals;

inline const QString kPerChange = u"spend.max_monthly_recurring_per_change"_s;
inline const QString kPerDay = u"spend.max_monthly_recurring_per_day"_s;
inline const QString kUnpriced = u"spend.unpriced"_s;
inline const QString kDesktopAbove = u"approval.desktop_required_above_monthly"_s;
inline const QString kTypedAbove = u"approval.typed_confirmation_above_monthly"_s;
inline const QString kChannel = u"approval.channel"_s;
inline const QString kRevalidate = u"revalidate_before_send_after_ms"_s;
inline const QString kToolsets = u"toolsets.allowed"_s;
inline const QString kUnconfirmed = u"allow_unconfirmed_mutations"_s;
inline const QString kEndpoint = u"fabric.endpoint"_s;
inline const QString kTeamDatabase = u"team.database"_s;
inline const QString kTeamQuorum = u"team.quorum"_s;
inline const QString kTeamApproverKeys = u"team.approver_keys"_s;
inline const QString kOtlpEndpoint = u"observability.otlp_endpoint"_s;
inline const QString kAuditSyslog = u"audit.syslog"_s;
inline const QString kNotifyWebhooks = u"notify.webhooks"_s;

} // namespace fb::policykeys
