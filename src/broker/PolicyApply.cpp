#include "broker/PolicyApply.h"

namespace fb {

QStringList applyPolicy(const PolicyLoadResult &policy, const QString &endpoint,
                        BrokerSettings *settings)
{
    QStringList lines;
    for (const QString &e : policy.errors)
        lines << QStringLiteral("POLICY ERROR: ") + e;
    for (const QString &i : policy.ignored)
        lines << QStringLiteral("policy: ") + i;
    const Policy &p = policy.effective;
    settings->policy = p;
    auto dropMutate = [&](const QString &why) {
        if (settings->toolsets.removeAll(QStringLiteral("mutate")) > 0)
            lines << QStringLiteral("policy: the mutate toolset is NOT served: ") + why;
    };
    if (policy.refuseMutate)
        dropMutate(QStringLiteral("a policy file could not be applied (see above)"));
    if (p.toolsetsAllowed) {
        const QStringList before = settings->toolsets;
        for (const QString &t : before) {
            if (!p.toolsetsAllowed->contains(t)) {
                settings->toolsets.removeAll(t);
                lines << QStringLiteral("policy: the %1 toolset is not served: toolsets.allowed "
                                        "(%2) does not list it")
                             .arg(t, p.sources.value(QStringLiteral("toolsets.allowed")));
            }
        }
    }
    if (p.fabricEndpoint && *p.fabricEndpoint != endpoint)
        dropMutate(QStringLiteral("fabric.endpoint (%1) locks the endpoint to %2, but the broker "
                                  "uses %3")
                       .arg(p.sources.value(QStringLiteral("fabric.endpoint")), *p.fabricEndpoint,
                            endpoint));
    if (p.allowUnconfirmed && !*p.allowUnconfirmed && settings->allowUnconfirmedMutations) {
        settings->allowUnconfirmedMutations = false;
        lines << QStringLiteral("policy: EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true is "
                                "overridden: allow_unconfirmed_mutations is locked to false by %1")
                     .arg(p.sources.value(QStringLiteral("allow_unconfirmed_mutations")));
    }
    if (p.channel && *p.channel != PolicyChannel::Auto) {
        const ApprovalMode mode =
            *p.channel == PolicyChannel::Desktop ? ApprovalMode::Desktop : ApprovalMode::Client;
        if (settings->approvalMode != mode)
            lines << QStringLiteral("policy: approvals go through %1 (approval.channel, %2)")
                         .arg(Policy::channelName(*p.channel),
                              p.sources.value(QStringLiteral("approval.channel")));
        settings->approvalMode = mode;
    }
    return lines;
}

} // namespace fb
