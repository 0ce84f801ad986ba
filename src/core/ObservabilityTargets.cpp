#include "core/ObservabilityTargets.h"

namespace fb {

using namespace Qt::StringLiterals;

namespace {

std::optional<QString> policyValue(SettingId id, const Policy &policy)
{
    switch (id) {
    case SettingId::AuditSyslog:
        return policy.auditSyslog;
    case SettingId::OtlpEndpoint:
        return policy.otlpEndpoint;
    default:
        return std::nullopt;
    }
}

} // namespace

QString ObservabilityTarget::describeSource(SettingId id) const
{
    const SettingSpec &spec = Settings::spec(id);
    if (fromPolicy)
        return u"%1 in %2"_s.arg(spec.policyKey, policyFile);
    if (value.isEmpty())
        return {};
    return spec.sourceLabel(source);
}

ObservabilityTarget observabilityTarget(SettingId id, const Policy &policy,
                                        const SettingSources &sources)
{
    const SettingSpec &spec = Settings::spec(id);
    ObservabilityTarget target;
    const std::optional<QString> fromPolicy = policyValue(id, policy);
    if (fromPolicy && !fromPolicy->trimmed().isEmpty()) {
        target.value = fromPolicy->trimmed();
        target.fromPolicy = true;
        target.policyFile = policy.sources.value(QString(spec.policyKey));
    }
    // The environment, then the saved value: the first set one wins; the others are reported.
    for (const SettingSource source : {SettingSource::Environment, SettingSource::Saved}) {
        const std::optional<QString> raw = Settings::rawValue(spec, source, sources);
        if (!raw || raw->trimmed().isEmpty())
            continue;
        if (target.value.isEmpty()) {
            target.value = raw->trimmed();
            target.source = source;
        } else if (raw->trimmed() != target.value) {
            target.ignored << u"%1 is ignored: %2 wins"_s.arg(spec.sourceLabel(source),
                                                              target.describeSource(id));
        }
    }
    return target;
}

} // namespace fb
