#pragma once
// BrokerSettings: the operator's knobs for the broker, resolved from the settings table
// (core/Settings.h: command line, environment, the desktop app's saved values, defaults).
// Invalid values are startup errors, never silently replaced by defaults.
#include "core/Policy.h"
#include "core/Settings.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace fb {

enum class ApprovalMode { Auto, Client, Desktop };

struct BrokerSettings {
    qint64 proposalTtlMs = 600000;                   // SettingId::ProposalTtlMs
    int maxPending = 20;                             // SettingId::MaxPending
    int elicitTimeoutMs = 300000;                    // SettingId::ElicitTimeoutMs
    bool allowUnconfirmedMutations = false;          // SettingId::AllowUnconfirmedMutations
    ApprovalMode approvalMode = ApprovalMode::Auto;  // SettingId::Approval
    QStringList toolsets = {QStringLiteral("read")}; // SettingId::Toolsets
    QString teamDatabase;          // SettingId::TeamDatabase; empty: no team mode (docs/team.md)
    int progressIntervalMs = 5000; // progress while waiting for a person (when asked for)
    Policy policy; // the effective operator policy (broker/PolicyApply, docs/policy.md)

    // The broker's rows of the settings table, in the order they are checked.
    static const QList<SettingId> &ids();
    // Resolves every broker setting from sources by the table's precedence; on an invalid
    // value returns false and says which and why. winners (optional) gets, per setting, the
    // source whose value is used.
    static bool fromSources(const SettingSources &sources, BrokerSettings *out, QString *error,
                            QMap<SettingId, SettingSource> *winners = nullptr);
    // The same with the environment as the only source.
    static bool fromEnvironment(const QProcessEnvironment &env, BrokerSettings *out,
                                QString *error);
    static QString approvalModeName(ApprovalMode mode);
    static std::optional<ApprovalMode> approvalModeFromName(const QString &name);
    // The value of one broker setting as the table writes it ("600000", "read,mutate", "auto").
    QString valueText(SettingId id) const;
};

} // namespace fb
