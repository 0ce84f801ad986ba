#include "broker/PolicyGate.h"

#include <QJsonArray>

namespace fb {

PolicyVerdict policyAtConfirm(const Policy &policy, const Proposal &proposal,
                              const SpendLedger *ledger, qint64 nowMs, const QString &selfKey)
{
    const QJsonObject price = proposal.context.value(QStringLiteral("price")).toObject();
    SpendLedger::Totals used;
    if (policy.maxPerDay && monthlyPrice(price)) {
        if (!ledger || !ledger->isEstablished()) {
            PolicyVerdict v;
            v.verdict = QStringLiteral("deny");
            v.rule = QStringLiteral("spend.max_monthly_recurring_per_day");
            v.limit = policy.maxPerDay->toJson();
            v.reason = QStringLiteral("the creates of the last 24 hours cannot be counted: %1")
                           .arg(ledger ? ledger->unestablishedReason()
                                       : QStringLiteral("no spend ledger"));
            v.checks.append({v.rule, v.verdict, v.limit, QJsonValue(), v.reason});
            return v;
        }
        used = ledger->totals(nowMs, selfKey);
    }
    PolicyVerdict v = evaluateAtConfirm(policy, price, used.executed, used.reserved);
    // approval.typed_confirmation_above_monthly: only the desktop app's dialog asks for typing.
    if (policy.typedConfirmationAbove) {
        const bool typed = typedConfirmationRequired(policy, price);
        const std::optional<Money> p = monthlyPrice(price);
        PolicyCheck c{
            QStringLiteral("approval.typed_confirmation_above_monthly"),
            typed ? QStringLiteral("require_desktop") : QStringLiteral("allow"),
            policy.typedConfirmationAbove->toJson(), p ? QJsonValue(p->toJson()) : QJsonValue(),
            typed ? QStringLiteral("the person types the last six characters of the "
                                   "request SHA-256 in the desktop app's dialog "
                                   "(above %1/month, or not comparable)")
                        .arg(policy.typedConfirmationAbove->display())
                  : QStringLiteral("%1/month needs no typed confirmation (up to %2/month)")
                        .arg(p->display(), policy.typedConfirmationAbove->display())};
        v.checks.append(c);
        if (typed && v.verdict == u"allow") {
            v.verdict = c.verdict;
            v.rule = c.rule;
            v.limit = c.limit;
            v.used = c.used;
            v.reason = c.reason;
        }
    }
    return v;
}

QJsonObject policyRefusal(const PolicyVerdict &verdict, const QJsonObject &price,
                          const QString &changeType, const QString &target,
                          const QString &requestSha256)
{
    const QString message =
        QStringLiteral("The operator policy refused this proposal (%1): %2. Fabric's dry run "
                       "validated it, but no token was minted. Propose something within the "
                       "policy, or ask the operator (fabric-broker policy show).")
            .arg(verdict.rule, verdict.reason);
    return {{QStringLiteral("error"),
             QJsonObject{{QStringLiteral("kind"), QStringLiteral("policy_denied")},
                         {QStringLiteral("message"), message},
                         {QStringLiteral("rule"), verdict.rule},
                         {QStringLiteral("limit"), verdict.limit},
                         {QStringLiteral("price"), price}}},
            {QStringLiteral("policy"), verdict.toJson()},
            {QStringLiteral("price"), price},
            {QStringLiteral("change_type"), changeType},
            {QStringLiteral("target"), target},
            {QStringLiteral("request_sha256"), requestSha256}};
}

QString policyConfirmMessage(const PolicyVerdict &verdict)
{
    if (verdict.denied())
        return QStringLiteral("Refused by the operator policy (%1): %2. Nothing was sent and no "
                              "person was asked; the token is used up. Propose something within "
                              "the policy, or ask the operator (fabric-broker policy show).")
            .arg(verdict.rule, verdict.reason);
    return QStringLiteral("The operator policy (%1) requires approval in the Fabric Broker "
                          "desktop app's dialog: %2. This session's approvals go through the "
                          "MCP client, so nobody was asked and nothing was sent; the token is "
                          "used up. Run the desktop app and propose again.")
        .arg(verdict.rule, verdict.reason);
}

QString policyLine(const QJsonObject &policy)
{
    QStringList reasons;
    for (const QJsonValue &c : policy.value(QStringLiteral("checks")).toArray())
        reasons << c.toObject().value(QStringLiteral("reason")).toString();
    reasons.removeAll(QString());
    return reasons.join(QStringLiteral("; "));
}

} // namespace fb
