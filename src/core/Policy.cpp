#include "core/Policy.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QUrl>

#include <cmath>
#include <sys/stat.h>

namespace fb {

namespace {

const QString kPerChange = QStringLiteral("spend.max_monthly_recurring_per_change");
const QString kPerDay = QStringLiteral("spend.max_monthly_recurring_per_day");
const QString kUnpriced = QStringLiteral("spend.unpriced");
const QString kDesktopAbove = QStringLiteral("approval.desktop_required_above_monthly");
const QString kTypedAbove = QStringLiteral("approval.typed_confirmation_above_monthly");
const QString kChannel = QStringLiteral("approval.channel");
const QString kRevalidate = QStringLiteral("revalidate_before_send_after_ms");
const QString kToolsets = QStringLiteral("toolsets.allowed");
const QString kUnconfirmed = QStringLiteral("allow_unconfirmed_mutations");
const QString kEndpoint = QStringLiteral("fabric.endpoint");

constexpr qint64 MaxRevalidateMs = 24LL * 3600 * 1000;
constexpr qint64 DayMs = 24LL * 3600 * 1000;
constexpr qint64 MaxPolicyBytes = 64 * 1024;

std::optional<Money> parseMoney(const QJsonValue &v, const QString &key, QStringList *errors)
{
    const QString expected = QStringLiteral(
        "%1: must be an object {\"amount\": <number >= 0>, \"currency\": \"<ISO 4217 code>\"}");
    if (!v.isObject()) {
        errors->append(expected.arg(key));
        return std::nullopt;
    }
    const QJsonObject o = v.toObject();
    bool ok = true;
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.key() != u"amount" && it.key() != u"currency") {
            errors->append(QStringLiteral("%1.%2: unknown key").arg(key, it.key().left(64)));
            ok = false;
        }
    }
    const QJsonValue amount = o.value(QStringLiteral("amount"));
    if (!amount.isDouble() || !std::isfinite(amount.toDouble()) || amount.toDouble() < 0) {
        errors->append(QStringLiteral("%1.amount: must be a number >= 0").arg(key));
        ok = false;
    }
    static const QRegularExpression currencyRe(QStringLiteral("^[A-Z]{3}$"));
    const QJsonValue currency = o.value(QStringLiteral("currency"));
    if (!currency.isString() || !currencyRe.match(currency.toString()).hasMatch()) {
        errors->append(
            QStringLiteral("%1.currency: must be a three-letter ISO 4217 code such as \"USD\"")
                .arg(key));
        ok = false;
    }
    if (!ok)
        return std::nullopt;
    return Money{amount.toDouble(), currency.toString()};
}

int unpricedRank(UnpricedRule r)
{
    return static_cast<int>(r); // Allow < RequireDesktop < Deny
}
int channelRank(PolicyChannel c)
{
    return static_cast<int>(c); // Auto < Client < Desktop
}

QString jsonText(const QJsonValue &v)
{
    if (v.isString())
        return QLatin1Char('"') + v.toString() + QLatin1Char('"');
    if (v.isObject())
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 15);
    return QStringLiteral("null");
}

// Flattens {"spend": {"unpriced": "deny"}} to {"spend.unpriced": "deny"}; objects of known
// groups are descended into, money values are kept whole.
void flatten(const QJsonObject &o, const QString &prefix, QMap<QString, QJsonValue> *out,
             QStringList *errors)
{
    static const QStringList groups{QStringLiteral("spend"), QStringLiteral("approval"),
                                    QStringLiteral("toolsets"), QStringLiteral("fabric")};
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString key = prefix.isEmpty() ? it.key() : prefix + u'.' + it.key();
        if (prefix.isEmpty() && it.key() == u"$schema")
            continue;
        if (prefix.isEmpty() && groups.contains(it.key())) {
            if (!it.value().isObject()) {
                errors->append(QStringLiteral("%1: must be an object").arg(key));
                continue;
            }
            flatten(it.value().toObject(), key, out, errors);
            continue;
        }
        if (!Policy::keys().contains(key)) {
            errors->append(QStringLiteral("%1: unknown key (known: %2)")
                               .arg(key.left(128), Policy::keys().join(QStringLiteral(", "))));
            continue;
        }
        out->insert(key, it.value());
    }
}

} // namespace

QJsonObject Money::toJson() const
{
    return {{QStringLiteral("amount"), amount}, {QStringLiteral("currency"), currency}};
}

QString Money::display() const
{
    QLocale loc(QLocale::English, QLocale::UnitedStates);
    return currency + u' ' + loc.toString(amount, 'f', 2);
}

const QStringList &Policy::keys()
{
    static const QStringList k{kPerChange, kPerDay,     kUnpriced, kDesktopAbove, kTypedAbove,
                               kChannel,   kRevalidate, kToolsets, kUnconfirmed,  kEndpoint};
    return k;
}

QString Policy::unpricedName(UnpricedRule rule)
{
    switch (rule) {
    case UnpricedRule::Allow:
        return QStringLiteral("allow");
    case UnpricedRule::RequireDesktop:
        return QStringLiteral("require_desktop");
    case UnpricedRule::Deny:
        return QStringLiteral("deny");
    }
    return {};
}

QString Policy::channelName(PolicyChannel channel)
{
    switch (channel) {
    case PolicyChannel::Auto:
        return QStringLiteral("auto");
    case PolicyChannel::Client:
        return QStringLiteral("client");
    case PolicyChannel::Desktop:
        return QStringLiteral("desktop");
    }
    return {};
}

bool Policy::isSet(const QString &key) const
{
    return !value(key).isNull();
}

QJsonValue Policy::value(const QString &key) const
{
    auto money = [](const std::optional<Money> &m) {
        return m ? QJsonValue(m->toJson()) : QJsonValue();
    };
    if (key == kPerChange)
        return money(maxPerChange);
    if (key == kPerDay)
        return money(maxPerDay);
    if (key == kDesktopAbove)
        return money(desktopRequiredAbove);
    if (key == kTypedAbove)
        return money(typedConfirmationAbove);
    if (key == kUnpriced)
        return unpriced ? QJsonValue(unpricedName(*unpriced)) : QJsonValue();
    if (key == kChannel)
        return channel ? QJsonValue(channelName(*channel)) : QJsonValue();
    if (key == kRevalidate)
        return revalidateAfterMs ? QJsonValue(static_cast<double>(*revalidateAfterMs))
                                 : QJsonValue();
    if (key == kToolsets)
        return toolsetsAllowed ? QJsonValue(QJsonArray::fromStringList(*toolsetsAllowed))
                               : QJsonValue();
    if (key == kUnconfirmed)
        return allowUnconfirmed ? QJsonValue(*allowUnconfirmed) : QJsonValue();
    if (key == kEndpoint)
        return fabricEndpoint ? QJsonValue(*fabricEndpoint) : QJsonValue();
    return {};
}

QJsonObject Policy::toJson() const
{
    QJsonObject out;
    QHash<QString, QJsonObject> groups;
    for (const QString &key : keys()) {
        const QJsonValue v = value(key);
        if (v.isNull())
            continue;
        const qsizetype dot = key.indexOf(u'.');
        if (dot < 0) {
            out.insert(key, v);
            continue;
        }
        groups[key.left(dot)].insert(key.mid(dot + 1), v);
    }
    for (auto it = groups.begin(); it != groups.end(); ++it)
        out.insert(it.key(), it.value());
    return out;
}

PolicyParseResult parsePolicy(const QByteArray &json, const QString &source)
{
    PolicyParseResult r;
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        r.errors.append(
            QStringLiteral("not valid JSON at offset %1: %2").arg(pe.offset).arg(pe.errorString()));
        return r;
    }
    if (!doc.isObject()) {
        r.errors.append(QStringLiteral("the policy must be a JSON object"));
        return r;
    }
    QMap<QString, QJsonValue> flat;
    flatten(doc.object(), {}, &flat, &r.errors);
    Policy &p = r.policy;
    for (auto it = flat.begin(); it != flat.end(); ++it) {
        const QString &key = it.key();
        const QJsonValue &v = it.value();
        const int before = r.errors.size();
        if (key == kPerChange) {
            p.maxPerChange = parseMoney(v, key, &r.errors);
        } else if (key == kPerDay) {
            p.maxPerDay = parseMoney(v, key, &r.errors);
        } else if (key == kDesktopAbove) {
            p.desktopRequiredAbove = parseMoney(v, key, &r.errors);
        } else if (key == kTypedAbove) {
            p.typedConfirmationAbove = parseMoney(v, key, &r.errors);
        } else if (key == kUnpriced) {
            const QString s = v.toString();
            if (s == u"allow")
                p.unpriced = UnpricedRule::Allow;
            else if (s == u"require_desktop")
                p.unpriced = UnpricedRule::RequireDesktop;
            else if (s == u"deny")
                p.unpriced = UnpricedRule::Deny;
            else
                r.errors.append(
                    QStringLiteral("%1: must be one of \"allow\", \"require_desktop\", \"deny\"")
                        .arg(key));
        } else if (key == kChannel) {
            const QString s = v.toString();
            if (s == u"auto")
                p.channel = PolicyChannel::Auto;
            else if (s == u"client")
                p.channel = PolicyChannel::Client;
            else if (s == u"desktop")
                p.channel = PolicyChannel::Desktop;
            else
                r.errors.append(
                    QStringLiteral("%1: must be one of \"auto\", \"desktop\", \"client\"")
                        .arg(key));
        } else if (key == kRevalidate) {
            const double d = v.toDouble(-1);
            if (!v.isDouble() || d < 0 || d > MaxRevalidateMs || d != std::floor(d))
                r.errors.append(
                    QStringLiteral("%1: must be an integer between 0 and %2 (milliseconds)")
                        .arg(key)
                        .arg(MaxRevalidateMs));
            else
                p.revalidateAfterMs = static_cast<qint64>(d);
        } else if (key == kToolsets) {
            QStringList list;
            bool ok = v.isArray();
            for (const QJsonValue &e : v.toArray()) {
                const QString s = e.toString();
                if (!e.isString() || (s != u"read" && s != u"mutate"))
                    ok = false;
                else if (!list.contains(s))
                    list.append(s);
            }
            if (!ok)
                r.errors.append(
                    QStringLiteral("%1: must be an array of \"read\" and/or \"mutate\"").arg(key));
            else
                p.toolsetsAllowed = list;
        } else if (key == kUnconfirmed) {
            if (!v.isBool())
                r.errors.append(QStringLiteral("%1: must be true or false").arg(key));
            else
                p.allowUnconfirmed = v.toBool();
        } else if (key == kEndpoint) {
            const QUrl url(v.toString(), QUrl::StrictMode);
            if (!v.isString() || !url.isValid() ||
                (url.scheme() != u"https" && url.scheme() != u"http") || url.host().isEmpty() ||
                !url.userInfo().isEmpty())
                r.errors.append(
                    QStringLiteral("%1: must be an http(s) URL without user info, such as "
                                   "\"https://api.equinix.com\"")
                        .arg(key));
            else {
                // The form MutationBroker::fabricBinding compares: no trailing slash.
                QUrl normalized = url.adjusted(QUrl::StripTrailingSlash);
                if (normalized.path() == u"/")
                    normalized.setPath(QString());
                p.fabricEndpoint = normalized.toString();
            }
        }
        if (r.errors.size() == before)
            p.sources.insert(key, source);
    }
    if (!r.ok())
        r.policy = Policy{};
    return r;
}

PolicyMergeResult mergePolicy(const Policy &admin, const Policy &user)
{
    PolicyMergeResult r;
    r.effective = admin;
    Policy &e = r.effective;
    auto take = [&](const QString &key) { e.sources.insert(key, user.sources.value(key)); };
    auto ignore = [&](const QString &key, const QString &why) {
        r.ignored.append(QStringLiteral("%1: the value %2 from %3 is ignored: %4")
                             .arg(key, jsonText(user.value(key)), user.sources.value(key), why));
    };
    const QString looser = QStringLiteral("it is looser than the administrator's %1 (%2); a user "
                                          "policy can only tighten");

    auto mergeMoney = [&](const QString &key, std::optional<Money> Policy::*field) {
        const std::optional<Money> &u = user.*field;
        std::optional<Money> &a = e.*field;
        if (!u)
            return;
        if (!a) {
            a = u;
            return take(key);
        }
        if (a->currency != u->currency)
            return ignore(key, QStringLiteral("its currency differs from the administrator's %1 "
                                              "(%2), so it cannot be compared")
                                   .arg(a->display(), admin.sources.value(key)));
        if (u->amount < a->amount) {
            a = u;
            return take(key);
        }
        if (u->amount > a->amount)
            ignore(key, looser.arg(a->display(), admin.sources.value(key)));
    };
    mergeMoney(kPerChange, &Policy::maxPerChange);
    mergeMoney(kPerDay, &Policy::maxPerDay);
    mergeMoney(kDesktopAbove, &Policy::desktopRequiredAbove);
    mergeMoney(kTypedAbove, &Policy::typedConfirmationAbove);

    if (user.unpriced) {
        if (!e.unpriced || unpricedRank(*user.unpriced) > unpricedRank(*e.unpriced)) {
            e.unpriced = user.unpriced;
            take(kUnpriced);
        } else if (unpricedRank(*user.unpriced) < unpricedRank(*e.unpriced)) {
            ignore(kUnpriced,
                   looser.arg(Policy::unpricedName(*e.unpriced), admin.sources.value(kUnpriced)));
        }
    }
    if (user.channel) {
        if (!e.channel || channelRank(*user.channel) > channelRank(*e.channel)) {
            e.channel = user.channel;
            take(kChannel);
        } else if (channelRank(*user.channel) < channelRank(*e.channel)) {
            ignore(kChannel,
                   looser.arg(Policy::channelName(*e.channel), admin.sources.value(kChannel)));
        }
    }
    if (user.revalidateAfterMs) {
        if (!e.revalidateAfterMs || *user.revalidateAfterMs < *e.revalidateAfterMs) {
            e.revalidateAfterMs = user.revalidateAfterMs;
            take(kRevalidate);
        } else if (*user.revalidateAfterMs > *e.revalidateAfterMs) {
            ignore(kRevalidate, looser.arg(QString::number(*e.revalidateAfterMs),
                                           admin.sources.value(kRevalidate)));
        }
    }
    if (user.toolsetsAllowed) {
        if (!e.toolsetsAllowed) {
            e.toolsetsAllowed = user.toolsetsAllowed;
            take(kToolsets);
        } else {
            QStringList both, extra;
            for (const QString &t : *user.toolsetsAllowed)
                (e.toolsetsAllowed->contains(t) ? both : extra).append(t);
            if (!extra.isEmpty())
                ignore(kToolsets, looser.arg(jsonText(admin.value(kToolsets)),
                                             admin.sources.value(kToolsets)));
            if (both.size() < e.toolsetsAllowed->size()) {
                e.toolsetsAllowed = both;
                take(kToolsets);
            }
        }
    }
    if (user.allowUnconfirmed) {
        if (!e.allowUnconfirmed || (*e.allowUnconfirmed && !*user.allowUnconfirmed)) {
            e.allowUnconfirmed = user.allowUnconfirmed;
            take(kUnconfirmed);
        } else if (!*e.allowUnconfirmed && *user.allowUnconfirmed) {
            ignore(kUnconfirmed,
                   looser.arg(QStringLiteral("false"), admin.sources.value(kUnconfirmed)));
        }
    }
    if (user.fabricEndpoint) {
        if (!e.fabricEndpoint) {
            e.fabricEndpoint = user.fabricEndpoint;
            take(kEndpoint);
        } else if (*e.fabricEndpoint != *user.fabricEndpoint) {
            ignore(kEndpoint, QStringLiteral("the administrator locked the endpoint to %1 (%2)")
                                  .arg(*e.fabricEndpoint, admin.sources.value(kEndpoint)));
        }
    }
    return r;
}

// ---- Evaluation --------------------------------------------------------------------------------

std::optional<Money> monthlyPrice(const QJsonObject &price)
{
    if (!price.value(QStringLiteral("priced")).toBool())
        return std::nullopt;
    const QJsonValue amount = price.value(QStringLiteral("monthly_recurring"));
    const QString currency = price.value(QStringLiteral("currency")).toString();
    if (!amount.isDouble() || currency.isEmpty())
        return std::nullopt;
    return Money{amount.toDouble(), currency};
}

QJsonObject PolicyCheck::toJson() const
{
    return {{QStringLiteral("rule"), rule},
            {QStringLiteral("verdict"), verdict},
            {QStringLiteral("limit"), limit},
            {QStringLiteral("used"), used},
            {QStringLiteral("reason"), reason}};
}

QJsonObject PolicyVerdict::toJson() const
{
    QJsonArray list;
    for (const PolicyCheck &c : checks)
        list.append(c.toJson());
    return {{QStringLiteral("verdict"), verdict},
            {QStringLiteral("rule"), rule.isEmpty() ? QJsonValue() : QJsonValue(rule)},
            {QStringLiteral("limit"), limit},
            {QStringLiteral("used"), used},
            {QStringLiteral("reason"), reason},
            {QStringLiteral("checks"), list}};
}

std::optional<PolicyCheck> checkPerChange(const Policy &policy, const QJsonObject &price)
{
    if (!policy.maxPerChange)
        return std::nullopt;
    const Money &limit = *policy.maxPerChange;
    const std::optional<Money> p = monthlyPrice(price);
    if (!p)
        return std::nullopt; // spend.unpriced decides
    PolicyCheck c{kPerChange, QStringLiteral("allow"), limit.toJson(), p->toJson(), {}};
    if (p->currency != limit.currency) {
        c.verdict = QStringLiteral("deny");
        c.reason = QStringLiteral("the price is in %1 but the limit %2 is in %3; prices are "
                                  "never converted")
                       .arg(p->currency, limit.display(), limit.currency);
    } else if (p->amount > limit.amount) {
        c.verdict = QStringLiteral("deny");
        c.reason = QStringLiteral("%1/month is above the limit of %2/month per change")
                       .arg(p->display(), limit.display());
    } else {
        c.reason = QStringLiteral("%1/month is within the limit of %2/month per change")
                       .arg(p->display(), limit.display());
    }
    return c;
}

std::optional<PolicyCheck> checkPerDay(const Policy &policy, const QJsonObject &price,
                                       const QList<Money> &usedToday)
{
    if (!policy.maxPerDay)
        return std::nullopt;
    const Money &limit = *policy.maxPerDay;
    const std::optional<Money> p = monthlyPrice(price);
    if (!p)
        return std::nullopt;
    Money used{0, limit.currency};
    QStringList foreign;
    for (const Money &m : usedToday) {
        if (m.currency == limit.currency)
            used.amount += m.amount;
        else if (!foreign.contains(m.currency))
            foreign.append(m.currency);
    }
    PolicyCheck c{kPerDay, QStringLiteral("allow"), limit.toJson(), used.toJson(), {}};
    if (p->currency != limit.currency) {
        c.verdict = QStringLiteral("deny");
        c.reason = QStringLiteral("the price is in %1 but the daily limit %2 is in %3; prices "
                                  "are never converted")
                       .arg(p->currency, limit.display(), limit.currency);
    } else if (!foreign.isEmpty()) {
        c.verdict = QStringLiteral("deny");
        c.reason = QStringLiteral("creates in the last 24 hours were priced in %1, which cannot "
                                  "be summed with the daily limit in %2")
                       .arg(foreign.join(QStringLiteral(", ")), limit.currency);
    } else if (used.amount + p->amount > limit.amount) {
        c.verdict = QStringLiteral("deny");
        c.reason = QStringLiteral("%1/month would exceed your daily limit: %2 of %3 already "
                                  "used in the last 24 hours")
                       .arg(p->display(), used.display(), limit.display());
    } else {
        c.reason = QStringLiteral("within your daily limit: %1 of %2 used, this change adds %3")
                       .arg(used.display(), limit.display(), p->display());
    }
    return c;
}

std::optional<PolicyCheck> checkUnpriced(const Policy &policy, const QJsonObject &price)
{
    if (monthlyPrice(price))
        return std::nullopt;
    const UnpricedRule rule = policy.unpricedRule();
    PolicyCheck c{kUnpriced, QStringLiteral("allow"), Policy::unpricedName(rule), QJsonValue(), {}};
    switch (rule) {
    case UnpricedRule::Allow:
        c.reason = QStringLiteral("the change has no price; unpriced changes are allowed");
        break;
    case UnpricedRule::RequireDesktop:
        c.verdict = QStringLiteral("require_desktop");
        c.reason = QStringLiteral("the change has no price; only the desktop app's dialog may "
                                  "approve unpriced changes");
        break;
    case UnpricedRule::Deny:
        c.verdict = QStringLiteral("deny");
        c.reason = QStringLiteral("the change has no price and the policy denies unpriced changes");
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
        *why =
            QStringLiteral("the change has no price to compare with %1").arg(threshold->display());
        return true;
    }
    if (p->currency != threshold->currency) {
        *why = QStringLiteral("the price is in %1 but the threshold %2 is in %3")
                   .arg(p->currency, threshold->display(), threshold->currency);
        return true;
    }
    if (p->amount > threshold->amount) {
        *why = QStringLiteral("%1/month is above %2/month").arg(p->display(), threshold->display());
        return true;
    }
    *why = QStringLiteral("%1/month is not above %2/month").arg(p->display(), threshold->display());
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
    PolicyCheck c{kDesktopAbove, *a ? QStringLiteral("require_desktop") : QStringLiteral("allow"),
                  policy.desktopRequiredAbove->toJson(), p ? QJsonValue(p->toJson()) : QJsonValue(),
                  why};
    if (*a)
        c.reason += QStringLiteral(": only the desktop app's dialog may approve");
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
        v.reason = QStringLiteral("no policy rule applies");
    return v;
}
} // namespace

PolicyVerdict evaluateAtPropose(const Policy &policy, const QJsonObject &price)
{
    return combine({checkPerChange(policy, price), checkUnpriced(policy, price)});
}

PolicyVerdict evaluateAtConfirm(const Policy &policy, const QJsonObject &price,
                                const QList<Money> &usedToday)
{
    return combine({checkPerChange(policy, price), checkPerDay(policy, price, usedToday),
                    checkUnpriced(policy, price), checkDesktopRequired(policy, price)});
}

QList<Money> spendInLastDay(const QList<QJsonObject> &auditRecords, qint64 nowMs)
{
    QHash<QString, Money> priceBySha;
    QList<Money> out;
    for (const QJsonObject &rec : auditRecords) {
        const QString type = rec.value(QStringLiteral("type")).toString();
        const QJsonObject data = rec.value(QStringLiteral("data")).toObject();
        const QString sha = data.value(QStringLiteral("request_sha256")).toString();
        if (sha.isEmpty())
            continue;
        if (type == u"proposed") {
            if (const auto p = monthlyPrice(data.value(QStringLiteral("price")).toObject()))
                priceBySha.insert(sha, *p);
            continue;
        }
        if (type != u"executed")
            continue;
        const QString outcome = data.value(QStringLiteral("outcome")).toString();
        // A create whose reply was lost may exist: it counts.
        if (outcome != u"created" && outcome != u"unknown")
            continue;
        const QDateTime at =
            QDateTime::fromString(rec.value(QStringLiteral("time")).toString(), Qt::ISODateWithMs);
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

// ---- Files -------------------------------------------------------------------------------------

PolicyPaths PolicyPaths::fromEnvironment()
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    PolicyPaths p;
    p.extraAdmin = env.value(QStringLiteral("FABRIC_BROKER_EXTRA_ADMIN_POLICY"));
    p.user = env.value(QStringLiteral("FABRIC_BROKER_POLICY"));
    if (p.user.isEmpty()) {
        QString config = env.value(QStringLiteral("XDG_CONFIG_HOME"));
        if (config.isEmpty() || !QDir::isAbsolutePath(config))
            config = QDir::homePath() + QStringLiteral("/.config");
        p.user = config + QStringLiteral("/fabric-broker/policy.json");
    }
    return p;
}

QString adminFileUnsafeReason(const QString &path)
{
    struct stat st {};
    const QByteArray native = QFile::encodeName(path);
    if (::lstat(native.constData(), &st) != 0)
        return QStringLiteral("it cannot be read");
    if (!S_ISREG(st.st_mode))
        return QStringLiteral("it is not a regular file");
    if (st.st_uid != 0)
        return QStringLiteral("it is owned by uid %1, not root").arg(st.st_uid);
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return QStringLiteral("it is writable by its group or by everyone (mode %1)")
            .arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'));
    const QByteArray dir = QFile::encodeName(QFileInfo(path).absolutePath());
    struct stat dst {};
    if (::stat(dir.constData(), &dst) != 0 || dst.st_uid != 0 ||
        (dst.st_mode & (S_IWGRP | S_IWOTH)))
        return QStringLiteral("its directory %1 is writable by someone other than root")
            .arg(QFileInfo(path).absolutePath());
    return {};
}

namespace {
// nullopt: the file does not exist. Otherwise the parse result (errors when unreadable).
std::optional<PolicyParseResult> readPolicyFile(const QString &path)
{
    if (path.isEmpty() || !QFileInfo::exists(path))
        return std::nullopt;
    PolicyParseResult r;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        r.errors.append(QStringLiteral("cannot read it: ") + f.errorString());
        return r;
    }
    const QByteArray bytes = f.read(MaxPolicyBytes + 1);
    if (bytes.size() > MaxPolicyBytes) {
        r.errors.append(QStringLiteral("it is larger than %1 bytes").arg(MaxPolicyBytes));
        return r;
    }
    return parsePolicy(bytes, path);
}
} // namespace

PolicyLoadResult loadPolicy(const PolicyPaths &paths)
{
    PolicyLoadResult out;
    Policy admin;
    auto failFile = [&](const QString &path, const QString &why) {
        out.errors.append(QStringLiteral("policy file %1 is IGNORED: %2; the mutate toolset is "
                                         "refused until it is fixed")
                              .arg(path, why));
        out.refuseMutate = true;
    };
    for (const QString &path : {paths.system, paths.extraAdmin}) {
        if (path.isEmpty() || !QFileInfo::exists(path))
            continue;
        const QString unsafe = adminFileUnsafeReason(path);
        if (!unsafe.isEmpty()) {
            failFile(path, unsafe);
            continue;
        }
        const auto r = readPolicyFile(path);
        if (!r)
            continue;
        if (!r->ok()) {
            failFile(path, r->errors.join(QStringLiteral("; ")));
            continue;
        }
        out.files.append(path);
        out.adminFiles.append(path);
        // A second administrator-layer file tightens the first, never loosens it.
        const PolicyMergeResult m = mergePolicy(admin, r->policy);
        admin = m.effective;
        out.ignored += m.ignored;
    }
    Policy user;
    if (const auto r = readPolicyFile(paths.user)) {
        if (!r->ok()) {
            failFile(paths.user, r->errors.join(QStringLiteral("; ")));
        } else {
            out.files.append(paths.user);
            user = r->policy;
        }
    }
    const PolicyMergeResult m = mergePolicy(admin, user);
    out.effective = m.effective;
    out.ignored += m.ignored;
    return out;
}

} // namespace fb
