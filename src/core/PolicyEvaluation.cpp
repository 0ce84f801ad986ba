// Policy evaluation (pure): each rule against a proposal's rate-card price, and the day's spend
// from the audit records.
#include "core/Policy.h"
#include "core/PolicyKeys.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>

namespace fb {

using namespace Qt::StringLiterals;

using namespace policykeys;

namespace {
constexpr qint64 DayMs = 24LL * 3600 * 1000;
} // namespace

std::optional<Money> monthlyPrice(const QJsonObject &price)
{
    if (!price.value(u"priced"_s).toBool())
        return std::nullopt;
    const QJsonValue amount = price.value(u"monthly_recurring"_s);
    const QString currency = price.value(u"currency"_s).toString();
    if (!amount.isDouble() || currency.isEmpty())
        return std::nullopt;
    return Money{amount.toDouble(), currency};
}

QJsonObject PolicyCheck::toJson() const
{
    return {{u"rule"_s, rule},
            {u"verdict"_s, verdict},
            {u"limit"_s, limit},
            {u"used"_s, used},
            {u"reason"_s, reason}};
}

QJsonObject PolicyVerdict::toJson() const
{
    QJsonArray list;
    for (const PolicyCheck &c : checks)
        list.append(c.toJson());
    return {{u"verdict"_s, verdict}, {u"rule"_s, rule.isEmpty() ? QJsonValue() : QJsonValue(rule)},
            {u"limit"_s, limit},     {u"used"_s, used},
            {u"reason"_s, reason},   {u"checks"_s, list}};
}

std::optional<PolicyCheck> checkPerChange(const Policy &policy, const QJsonObject &price)
{
    if (!policy.maxPerChange)
        return std::nullopt;
    const Money &limit = *policy.maxPerChange;
    const std::optional<Money> p = monthlyPrice(price);
    if (!p)
        return std::nullopt; // spend.unpriced decides
    PolicyCheck c{kPerChange, u"allow"_s, limit.toJson(), p->toJson(), {}};
    if (p->currency != limit.currency) {
        c.verdict = u"deny"_s;
        c.reason = u"the price is in %1 but the limit %2 is in %3; prices are "
                   "never converted"_s.arg(p->currency, limit.display(), limit.currency);
    } else if (p->amount > limit.amount) {
        c.verdict = u"deny"_s;
        c.reason = u"%1/month is above the limit of %2/month per change"_s.arg(p->display(),
                                                                               limit.display());
    } else {
        c.reason = u"%1/month is within the limit of %2/month per change"_s.arg(p->display(),
                                                                                limit.display());
    }
    return c;
}

std::optional<PolicyCheck> checkPerDay(const Policy &policy, const QJsonObject &price,
                                       const QList<Money> &usedToday, const QList<Money> &reserved)
{
    if (!policy.maxPerDay)
        return std::nullopt;
    const Money &limit = *policy.maxPerDay;
    const std::optional<Money> p = monthlyPrice(price);
    if (!p)
        return std::nullopt;
    Money used{0, limit.currency};
    Money waiting{0, limit.currency};
    QStringList foreign;
    for (const auto &[list, into] : {std::pair{&usedToday, &used}, std::pair{&reserved, &waiting}})
        for (const Money &m : *list) {
            if (m.currency == limit.currency)
                into->amount += m.amount;
            else if (!foreign.contains(m.currency))
                foreign.append(m.currency);
        }
    // "USD 150.00 of USD 1,000.00 used, USD 400.00 waiting for approval"
    const QString usedText =
        u"%1 of %2 used"_s.arg(used.display(), limit.display()) +
        (waiting.amount > 0 ? u", %1 waiting for approval"_s.arg(waiting.display()) : QString());
    Money counted = used;
    counted.amount += waiting.amount;
    PolicyCheck c{kPerDay, u"allow"_s, limit.toJson(), counted.toJson(), {}};
    if (p->currency != limit.currency) {
        c.verdict = u"deny"_s;
        c.reason = u"the price is in %1 but the daily limit %2 is in %3; prices "
                   "are never converted"_s.arg(p->currency, limit.display(), limit.currency);
    } else if (!foreign.isEmpty()) {
        c.verdict = u"deny"_s;
        c.reason =
            u"creates in the last 24 hours were priced in %1, which cannot "
            "be summed with the daily limit in %2"_s.arg(foreign.join(u", "_s), limit.currency);
    } else if (counted.amount + p->amount > limit.amount) {
        c.verdict = u"deny"_s;
        c.reason = u"%1/month would exceed your daily limit: %2 of %3 already used in the last "
                   "24 hours"_s.arg(p->display(), used.display(), limit.display()) +
                   (waiting.amount > 0 ? u", and %1 waiting for approval"_s.arg(waiting.display())
                                       : QString());
    } else {
        c.reason =
            u"within your daily limit: %1, this change adds %2"_s.arg(usedText, p->display());
    }
    return c;
}

std::optional<PolicyCheck> checkUnpriced(const Policy &policy, const QJsonObject &price)
{
    if (monthlyPrice(price))
        return std::nullopt;
    const UnpricedRule rule = policy.unpricedRule();
    PolicyCheck c{kUnpriced, u"allow"_s, Policy::unpricedName(rule), QJsonValue(), {}};
    switch (rule) {
    case UnpricedRule::Allow:
        c.reason = u"the change has no price; unpriced changes are allowed"_s;
        break;
    case UnpricedRule::RequireDesktop:
        c.verdict = u"require_desktop"_s;
        c.reason = u"the change has no price; only the desktop app's dialog may "
                   "approve unpriced changes"_s;
        break;
    case UnpricedRule::Deny:
        c.verdict = u"deny"_s;
        c.reason = u"the change has no price and the policy denies unpriced changes"_s;
        break;
    }
    return c;
}

namespace {
// nullopt: the rule is unset. true when the price is above the threshold, in another currency,
// or missing (fail closed).
std::optional<bool> above(const std::optional<Money> &threshold, const QJsonObject &price,
                          QString *why)
{
    if (!threshold)
        return std::nullopt;
    const std::optional<Money> p = monthlyPrice(price);
    if (!p) {
        *why = u"the change has no price to compare with %1"_s.arg(threshold->display());
        return true;
    }
    if (p->currency != threshold->currency) {
        *why = u"the price is in %1 but the threshold %2 is in %3"_s.arg(
            p->currency, threshold->display(), threshold->currency);
        return true;
    }
    if (p->amount > threshold->amount) {
        *why = u"%1/month is above %2/month"_s.arg(p->display(), threshold->display());
        return true;
    }
    *why = u"%1/month is not above %2/month"_s.arg(p->display(), threshold->display());
    return false;
}
} // namespace

std::optional<PolicyCheck> checkDesktopRequired(const Policy &policy, const QJsonObject &price)
{
    QString why;
    const std::optional<bool> a = above(policy.desktopRequiredAbove, price, &why);
    if (!a)
        return std::nullopt;
    const std::optional<Money> p = monthlyPrice(price);
    PolicyCheck c{kDesktopAbove, *a ? u"require_desktop"_s : u"allow"_s,
                  policy.desktopRequiredAbove->toJson(), p ? QJsonValue(p->toJson()) : QJsonValue(),
                  why};
    if (*a)
        c.reason += u": only the desktop app's dialog may approve"_s;
    return c;
}

bool typedConfirmationRequired(const Policy &policy, const QJsonObject &price)
{
    QString why;
    return above(policy.typedConfirmationAbove, price, &why).value_or(false);
}

namespace {
PolicyVerdict combine(const QList<std::optional<PolicyCheck>> &checks)
{
    PolicyVerdict v;
    int rank = 0; // 0 allow, 1 require_desktop, 2 deny
    for (const auto &c : checks) {
        if (!c)
            continue;
        v.checks.append(*c);
        const int r = c->verdict == u"deny" ? 2 : c->verdict == u"require_desktop" ? 1 : 0;
        if (r > rank || (v.rule.isEmpty() && r == rank)) {
            rank = r;
            v.verdict = c->verdict;
            v.rule = c->rule;
            v.limit = c->limit;
            v.used = c->used;
            v.reason = c->reason;
        }
    }
    if (v.checks.isEmpty())
        v.reason = u"no policy rule applies"_s;
    return v;
}
} // namespace

PolicyVerdict evaluateAtPropose(const Policy &policy, const QJsonObject &price)
{
    return combine({checkPerChange(policy, price), checkUnpriced(policy, price)});
}

PolicyVerdict evaluateAtConfirm(const Policy &policy, const QJsonObject &price,
                                const QList<Money> &usedToday, const QList<Money> &reserved)
{
    return combine({checkPerChange(policy, price), checkPerDay(policy, price, usedToday, reserved),
                    checkUnpriced(policy, price), checkDesktopRequired(policy, price)});
}

QList<Money> spendInLastDay(const QList<QJsonObject> &auditRecords, qint64 nowMs)
{
    QHash<QString, Money> priceBySha;
    QList<Money> out;
    for (const QJsonObject &rec : auditRecords) {
        const QString type = rec.value(u"type"_s).toString();
        const QJsonObject data = rec.value(u"data"_s).toObject();
        const QString sha = data.value(u"request_sha256"_s).toString();
        if (sha.isEmpty())
            continue;
        if (type == u"proposed") {
            if (const auto p = monthlyPrice(data.value(u"price"_s).toObject()))
                priceBySha.insert(sha, *p);
            continue;
        }
        if (type != u"executed")
            continue;
        const QString outcome = data.value(u"outcome"_s).toString();
        // A create whose reply was lost may exist: it counts.
        if (outcome != u"created" && outcome != u"unknown")
            continue;
        const QDateTime at =
            QDateTime::fromString(rec.value(u"time"_s).toString(), Qt::ISODateWithMs);
        if (!at.isValid())
            continue;
        const qint64 t = at.toMSecsSinceEpoch();
        if (t > nowMs || nowMs - t > DayMs)
            continue;
        const auto it = priceBySha.constFind(sha);
        if (it != priceBySha.constEnd())
            out.append(*it);
    }
    return out;
}

} // namespace fb
