#include "broker/BrokerSettings.h"

#include "core/NameTable.h"

using namespace Qt::StringLiterals;

namespace fb {

namespace {

constexpr EnumName<ApprovalMode> kApprovalModes[] = {
    {ApprovalMode::Auto, u"auto"},
    {ApprovalMode::Client, u"client"},
    {ApprovalMode::Desktop, u"desktop"},
};

} // namespace

const QList<SettingId> &BrokerSettings::ids()
{
    static const QList<SettingId> rows{
        SettingId::ProposalTtlMs,   SettingId::MaxPending,
        SettingId::ElicitTimeoutMs, SettingId::AllowUnconfirmedMutations,
        SettingId::Approval,        SettingId::Toolsets,
        SettingId::TeamDatabase};
    return rows;
}

QString BrokerSettings::approvalModeName(ApprovalMode mode)
{
    return nameOf(kApprovalModes, mode);
}

std::optional<ApprovalMode> BrokerSettings::approvalModeFromName(const QString &name)
{
    return valueOf(kApprovalModes, name.trimmed().toLower());
}

QString BrokerSettings::valueText(SettingId id) const
{
    switch (id) {
    case SettingId::ProposalTtlMs:
        return QString::number(proposalTtlMs);
    case SettingId::MaxPending:
        return QString::number(maxPending);
    case SettingId::ElicitTimeoutMs:
        return QString::number(elicitTimeoutMs);
    case SettingId::AllowUnconfirmedMutations:
        return allowUnconfirmedMutations ? u"true"_s : u"false"_s;
    case SettingId::Approval:
        return approvalModeName(approvalMode);
    case SettingId::Toolsets:
        return toolsets.join(u',');
    case SettingId::TeamDatabase:
        return teamDatabase;
    default:
        return {};
    }
}

bool BrokerSettings::fromSources(const SettingSources &sources, BrokerSettings *out, QString *error,
                                 QMap<SettingId, SettingSource> *winners)
{
    BrokerSettings s;
    for (SettingId id : ids()) {
        SettingSource winner = SettingSource::Default;
        const std::optional<QVariant> v = Settings::resolve(id, sources, &winner, error);
        if (!v)
            return false;
        if (winners)
            winners->insert(id, winner);
        switch (id) {
        case SettingId::ProposalTtlMs:
            s.proposalTtlMs = v->toLongLong();
            break;
        case SettingId::MaxPending:
            s.maxPending = static_cast<int>(v->toLongLong());
            break;
        case SettingId::ElicitTimeoutMs:
            s.elicitTimeoutMs = static_cast<int>(v->toLongLong());
            break;
        case SettingId::AllowUnconfirmedMutations:
            s.allowUnconfirmedMutations = v->toBool();
            break;
        case SettingId::Approval: {
            s.approvalMode = valueOf(kApprovalModes, v->toString()).value_or(ApprovalMode::Auto);
            break;
        }
        case SettingId::Toolsets:
            s.toolsets = v->toStringList();
            break;
        case SettingId::TeamDatabase:
            s.teamDatabase = v->toString();
            break;
        default:
            break;
        }
    }
    *out = s;
    return true;
}

bool BrokerSettings::fromEnvironment(const QProcessEnvironment &env, BrokerSettings *out,
                                     QString *error)
{
    SettingSources sources;
    sources.environment = env;
    return fromSources(sources, out, error);
}

} // namespace fb
