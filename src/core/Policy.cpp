// The policy file's model, parsing and tighten-only merge. The evaluation of the rules is in
// PolicyEvaluation.cpp, finding and loading the files in PolicyFiles.cpp.
#include "core/Policy.h"
#include "core/NameTable.h"
#include "core/PolicyKeys.h"
#include "core/Settings.h"
#include "core/TeamPolicy.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrl>

#include <algorithm>
#include <cmath>

namespace fb {

using namespace Qt::StringLiterals;

using namespace policykeys;

namespace {

constexpr qint64 MaxRevalidateMs = 24LL * 3600 * 1000;
constexpr qsizetype MaxTargetChars = 2048;

constexpr EnumName<UnpricedRule> kUnpricedNames[] = {
    {UnpricedRule::Allow, u"allow"},
    {UnpricedRule::RequireDesktop, u"require_desktop"},
    {UnpricedRule::Deny, u"deny"}};
constexpr EnumName<PolicyChannel> kChannelNames[] = {{PolicyChannel::Auto, u"auto"},
                                                     {PolicyChannel::Client, u"client"},
                                                     {PolicyChannel::Desktop, u"desktop"}};

int unpricedRank(UnpricedRule r)
{
    return static_cast<int>(r); // Allow < RequireDesktop < Deny
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
        return v.toBool() ? u"true"_s : u"false"_s;
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 15);
    return u"null"_s;
}

// Flattens {"spend": {"unpriced": "deny"}} to {"spend.unpriced": "deny"}; objects of known
// groups are descended into, money values are kept whole.
void flatten(const QJsonObject &o, const QString &prefix, QMap<QString, QJsonValue> *out,
             QStringList *errors)
{
    static const QStringList groups{u"spend"_s, u"approval"_s,      u"toolsets"_s, u"fabric"_s,
                                    u"team"_s,  u"observability"_s, u"audit"_s,    u"notify"_s};
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString key = prefix.isEmpty() ? it.key() : prefix + u'.' + it.key();
        if (prefix.isEmpty() && it.key() == u"$schema")
            continue;
        if (prefix.isEmpty() && groups.contains(it.key())) {
            if (!it.value().isObject()) {
                errors->append(u"%1: must be an object"_s.arg(key));
                continue;
            }
            flatten(it.value().toObject(), key, out, errors);
            continue;
        }
        if (!Policy::keys().contains(key)) {
            errors->append(
                u"%1: unknown key (known: %2)"_s.arg(key.left(128), Policy::keys().join(u", "_s)));
            continue;
        }
        out->insert(key, it.value());
    }
}

} // namespace

QString otlpEndpointError(const QString &text)
{
    const QUrl url(text, QUrl::StrictMode);
    if (text.size() > MaxTargetChars || !url.isValid() ||
        (url.scheme() != u"https" && url.scheme() != u"http") || url.host().isEmpty() ||
        !url.userInfo().isEmpty() || url.hasQuery() || url.hasFragment())
        return u"must be an http(s) URL without user info, query or fragment, such as "
               "\"http://127.0.0.1:4318\" (OTLP/HTTP; /v1/traces and /v1/metrics are added)"_s;
    return {};
}

QString auditSyslogShapeError(const QString &text)
{
    const bool printable = std::all_of(text.cbegin(), text.cend(), [](QChar c) {
        return c.unicode() > 0x20 && c.unicode() < 0x7f;
    });
    const QString lower = text.toLower();
    if (text.size() > MaxTargetChars || !printable ||
        (!lower.startsWith(u"tcp://"_s) && !lower.startsWith(u"tls://"_s)) || text.size() <= 6)
        return u"must be \"tcp://host:port\" or \"tls://host:port[?ca=/path/ca.pem]\" (printable "
               "ASCII, at most %1 characters; docs/observability.md)"_s.arg(MaxTargetChars);
    return {};
}

const QStringList &Policy::keys()
{
    static const QStringList k{kPerChange,        kPerDay,       kUnpriced,     kDesktopAbove,
                               kTypedAbove,       kChannel,      kRevalidate,   kToolsets,
                               kUnconfirmed,      kEndpoint,     kTeamDatabase, kTeamQuorum,
                               kTeamApproverKeys, kOtlpEndpoint, kAuditSyslog,  kNotifyWebhooks};
    return k;
}

QString Policy::unpricedName(UnpricedRule rule)
{
    return nameOf(kUnpricedNames, rule);
}

const QList<PolicyEnforcement> &policyEnforcement()
{
    // {key, startup, every change, every confirm, before send}
    static const QList<PolicyEnforcement> table{
        {kPerChange, true, true, true, false},     // evaluateAtPropose and evaluateAtConfirm
        {kPerDay, true, true, true, false},        // evaluateAtConfirm, from the audit log
        {kUnpriced, true, true, true, false},      // evaluateAtPropose and evaluateAtConfirm
        {kDesktopAbove, true, true, true, false},  // checkDesktopRequired at confirm
        {kTypedAbove, true, true, true, false},    // typedConfirmationRequired at confirm
        {kChannel, true, true, true, false},       // the approver of the current settings
        {kRevalidate, true, true, false, true},    // the dry run again right before sending
        {kToolsets, true, true, true, false},      // a confirm tool no longer served is refused
        {kUnconfirmed, true, true, true, false},   // read when the person's answer arrives
        {kEndpoint, true, true, true, false},      // mutate (and so confirm) not served elsewhere
        {kTeamDatabase, true, true, false, false}, // the setting's value (docs/team.md)
        {kTeamQuorum, true, true, false, false},   // validated; not yet used by a confirm
        {kTeamApproverKeys, true, true, false, false}, // `team verify`; not yet by a confirm
        {kOtlpEndpoint, true, false, false, false},    // the exporter is made at startup
        {kAuditSyslog, true, false, false, false},     // the audit sink is made at startup
        {kNotifyWebhooks, true, true, false, false},   // the notifier's targets (docs/notify.md)
    };
    return table;
}

QString Policy::channelName(PolicyChannel channel)
{
    return nameOf(kChannelNames, channel);
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
    if (key == kTeamDatabase)
        return teamDatabase ? QJsonValue(*teamDatabase) : QJsonValue();
    if (key == kTeamQuorum)
        return teamQuorum ? QJsonValue(teamQuorum->toJson()) : QJsonValue();
    if (key == kTeamApproverKeys)
        return teamApproverKeys ? QJsonValue(ApproverKey::toJson(*teamApproverKeys)) : QJsonValue();
    if (key == kOtlpEndpoint)
        return otlpEndpoint ? QJsonValue(*otlpEndpoint) : QJsonValue();
    if (key == kAuditSyslog)
        return auditSyslog ? QJsonValue(*auditSyslog) : QJsonValue();
    if (key == kNotifyWebhooks)
        return notifyWebhooks ? QJsonValue(WebhookTarget::toJson(*notifyWebhooks)) : QJsonValue();
    return {};
}

QJsonValue Policy::shownValue(const QString &key) const
{
    if (key == kNotifyWebhooks)
        return notifyWebhooks ? QJsonValue(WebhookTarget::toShownJson(*notifyWebhooks))
                              : QJsonValue();
    return value(key);
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
        r.errors.append(u"not valid JSON at offset %1: %2"_s.arg(pe.offset).arg(pe.errorString()));
        return r;
    }
    if (!doc.isObject()) {
        r.errors.append(u"the policy must be a JSON object"_s);
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
            p.maxPerChange = Money::parse(v, key, &r.errors);
        } else if (key == kPerDay) {
            p.maxPerDay = Money::parse(v, key, &r.errors);
        } else if (key == kDesktopAbove) {
            p.desktopRequiredAbove = Money::parse(v, key, &r.errors);
        } else if (key == kTypedAbove) {
            p.typedConfirmationAbove = Money::parse(v, key, &r.errors);
        } else if (key == kUnpriced) {
            if (const auto rule = valueOf(kUnpricedNames, v.toString()))
                p.unpriced = *rule;
            else
                r.errors.append(
                    u"%1: must be one of \"allow\", \"require_desktop\", \"deny\""_s.arg(key));
        } else if (key == kChannel) {
            if (const auto channel = valueOf(kChannelNames, v.toString()))
                p.channel = *channel;
            else
                r.errors.append(u"%1: must be one of \"auto\", \"desktop\", \"client\""_s.arg(key));
        } else if (key == kRevalidate) {
            const double d = v.toDouble(-1);
            if (!v.isDouble() || d < 0 || d > MaxRevalidateMs || d != std::floor(d))
                r.errors.append(
                    u"%1: must be an integer between 0 and %2 (milliseconds)"_s.arg(key).arg(
                        MaxRevalidateMs));
            else
                p.revalidateAfterMs = static_cast<qint64>(d);
        } else if (key == kToolsets) {
            // Toolset names as --toolsets takes them (all-read expands); one name per element.
            const SettingSpec &spec = Settings::spec(SettingId::Toolsets);
            QStringList list;
            bool ok = v.isArray();
            for (const QJsonValue &e : v.toArray()) {
                const QString s = e.toString();
                QString ignored;
                const auto names = e.isString() && !s.contains(u',') && s == s.trimmed().toLower()
                                       ? Settings::parseList(spec, s, &ignored)
                                       : std::nullopt;
                if (!names)
                    ok = false;
                else
                    for (const QString &n : *names)
                        if (!list.contains(n))
                            list.append(n);
            }
            if (!ok)
                r.errors.append(u"%1: must be an array of toolset names (%2)"_s.arg(
                    key, (spec.choiceList() + spec.aliasNames()).join(u", "_s)));
            else
                p.toolsetsAllowed = list;
        } else if (key == kUnconfirmed) {
            if (!v.isBool())
                r.errors.append(u"%1: must be true or false"_s.arg(key));
            else
                p.allowUnconfirmed = v.toBool();
        } else if (key == kEndpoint) {
            const QUrl url(v.toString(), QUrl::StrictMode);
            if (!v.isString() || !url.isValid() ||
                (url.scheme() != u"https" && url.scheme() != u"http") || url.host().isEmpty() ||
                !url.userInfo().isEmpty())
                r.errors.append(u"%1: must be an http(s) URL without user info, such as "
                                "\"https://api.equinix.com\""_s.arg(key));
            else {
                // The form MutationBroker::fabricBinding compares: no trailing slash.
                QUrl normalized = url.adjusted(QUrl::StripTrailingSlash);
                if (normalized.path() == u"/")
                    normalized.setPath(QString());
                p.fabricEndpoint = normalized.toString();
            }
        } else if (key == kTeamDatabase) {
            const QString why =
                v.isString() ? teamDatabaseUriError(v.toString()) : u"must be a string"_s;
            if (!why.isEmpty())
                r.errors.append(u"%1: %2"_s.arg(key, why));
            else
                p.teamDatabase = v.toString();
        } else if (key == kTeamQuorum) {
            if (const auto q = TeamQuorum::parse(v, key, &r.errors))
                p.teamQuorum = *q;
        } else if (key == kTeamApproverKeys) {
            if (const auto k = ApproverKey::parse(v, key, &r.errors))
                p.teamApproverKeys = *k;
        } else if (key == kOtlpEndpoint) {
            const QString why =
                v.isString() ? otlpEndpointError(v.toString()) : u"must be a string"_s;
            if (!why.isEmpty())
                r.errors.append(u"%1: %2"_s.arg(key, why));
            else
                p.otlpEndpoint = v.toString();
        } else if (key == kAuditSyslog) {
            const QString why =
                v.isString() ? auditSyslogShapeError(v.toString()) : u"must be a string"_s;
            if (!why.isEmpty())
                r.errors.append(u"%1: %2"_s.arg(key, why));
            else
                p.auditSyslog = v.toString();
        } else if (key == kNotifyWebhooks) {
            if (const auto w = WebhookTarget::parse(v, key, &r.errors))
                p.notifyWebhooks = *w;
        }
        if (r.errors.size() == before)
            p.sources.insert(key, source);
    }
    if (!r.ok())
        r.policy = Policy{};
    return r;
}

PolicyMergeResult mergePolicy(const Policy &admin, const Policy &user, PolicyLayer layer)
{
    PolicyMergeResult r;
    r.effective = admin;
    Policy &e = r.effective;
    auto take = [&](const QString &key) { e.sources.insert(key, user.sources.value(key)); };
    auto ignore = [&](const QString &key, const QString &why) {
        r.ignored.append(u"%1: the value %2 from %3 is ignored: %4"_s.arg(
            key, jsonText(user.shownValue(key)), user.sources.value(key), why));
    };
    const QString looser = u"it is looser than the administrator's %1 (%2); a user "
                           "policy can only tighten"_s;

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
            return ignore(key, u"its currency differs from the administrator's %1 "
                               "(%2), so it cannot be compared"_s.arg(a->display(),
                                                                      admin.sources.value(key)));
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

    // spend.unpriced: the higher rank is the stricter (see unpricedRank).
    auto mergeRanked = [&](const QString &key, auto Policy::*field, auto rank, auto name) {
        const auto &u = user.*field;
        auto &a = e.*field;
        if (!u)
            return;
        if (!a || rank(*u) > rank(*a)) {
            a = u;
            take(key);
        } else if (rank(*u) < rank(*a)) {
            ignore(key, looser.arg(name(*a), admin.sources.value(key)));
        }
    };
    mergeRanked(kUnpriced, &Policy::unpriced, unpricedRank, Policy::unpricedName);
    // approval.channel is a partial order: auto (the default) < desktop; client is comparable
    // only with itself. A user's client would move approvals from the native dialog to the
    // agent's own client, which is not tightening: it is ignored and reported.
    if (user.channel && user.channel != e.channel) {
        const PolicyChannel base = e.channel.value_or(PolicyChannel::Auto);
        const QString baseText =
            e.channel ? u"%1 (%2)"_s.arg(Policy::channelName(base), admin.sources.value(kChannel))
                      : u"auto (the default)"_s;
        if (*user.channel == PolicyChannel::Desktop && base == PolicyChannel::Auto) {
            e.channel = user.channel;
            take(kChannel);
        } else if (*user.channel == base) {
            // the same as the default: nothing to tighten
        } else if (*user.channel == PolicyChannel::Auto && base == PolicyChannel::Desktop) {
            ignore(kChannel, looser.arg(Policy::channelName(base), admin.sources.value(kChannel)));
        } else {
            ignore(kChannel, u"%1 is not comparable with %2: only \"desktop\" is stricter than "
                             "\"auto\", and a user policy can only tighten"_s.arg(
                                 Policy::channelName(*user.channel), baseText));
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
            ignore(kUnconfirmed, looser.arg(u"false"_s, admin.sources.value(kUnconfirmed)));
        }
    }
    if (user.fabricEndpoint) {
        if (!e.fabricEndpoint) {
            e.fabricEndpoint = user.fabricEndpoint;
            take(kEndpoint);
        } else if (*e.fabricEndpoint != *user.fabricEndpoint) {
            ignore(kEndpoint, u"the administrator locked the endpoint to %1 (%2)"_s.arg(
                                  *e.fabricEndpoint, admin.sources.value(kEndpoint)));
        }
    }
    // team.database turns the person into rows of a database (docs/team.md, "Who turns team mode
    // on"): only the administrator's layer may set it. A user's file is ignored and reported,
    // whatever the administrator's file says.
    if (user.teamDatabase && layer == PolicyLayer::User) {
        ignore(kTeamDatabase,
               e.teamDatabase
                   ? u"team mode is set by the administrator's policy alone (%1 sets the team "
                     "database)"_s.arg(admin.sources.value(kTeamDatabase))
                   : u"team mode is set by the administrator's policy alone (/etc/fabric-broker/"
                     "policy.json or FABRIC_BROKER_EXTRA_ADMIN_POLICY); a user's file cannot "
                     "turn it on"_s);
    } else if (user.teamDatabase) {
        if (!e.teamDatabase) {
            e.teamDatabase = user.teamDatabase;
            take(kTeamDatabase);
        } else if (*e.teamDatabase != *user.teamDatabase) {
            ignore(kTeamDatabase, u"the administrator requires the team database set in %1"_s.arg(
                                      admin.sources.value(kTeamDatabase)));
        }
    }
    if (user.otlpEndpoint) {
        if (!e.otlpEndpoint) {
            e.otlpEndpoint = user.otlpEndpoint;
            take(kOtlpEndpoint);
        } else if (*e.otlpEndpoint != *user.otlpEndpoint) {
            ignore(kOtlpEndpoint, u"the administrator sends telemetry to %1 (%2)"_s.arg(
                                      *e.otlpEndpoint, admin.sources.value(kOtlpEndpoint)));
        }
    }
    // audit.syslog says where every audit record also goes: the administrator's alone, like
    // team.database. A user's file (which the agent can write) could send the records to a
    // server the agent chose; it is ignored and reported.
    if (user.auditSyslog && layer == PolicyLayer::User) {
        ignore(kAuditSyslog,
               u"the audit export is set by the administrator's policy alone (/etc/fabric-broker/"
               "policy.json or FABRIC_BROKER_EXTRA_ADMIN_POLICY); for yourself, use "
               "FABRIC_BROKER_AUDIT_SYSLOG or Settings > Observability"_s);
    } else if (user.auditSyslog) {
        if (!e.auditSyslog) {
            e.auditSyslog = user.auditSyslog;
            take(kAuditSyslog);
        } else if (*e.auditSyslog != *user.auditSyslog) {
            ignore(kAuditSyslog, u"the administrator requires the audit export set in %1"_s.arg(
                                     admin.sources.value(kAuditSyslog)));
        }
    }
    // notify.webhooks says where every proposal's summary and outcome go: the administrator's
    // alone, like audit.syslog (a user's file could send them to a server the agent chose).
    if (user.notifyWebhooks && layer == PolicyLayer::User) {
        ignore(kNotifyWebhooks,
               u"the webhooks are set by the administrator's policy alone (/etc/fabric-broker/"
               "policy.json or FABRIC_BROKER_EXTRA_ADMIN_POLICY); a user's file cannot add "
               "any"_s);
    } else if (user.notifyWebhooks) {
        if (!e.notifyWebhooks) {
            e.notifyWebhooks = user.notifyWebhooks;
            take(kNotifyWebhooks);
        } else if (*e.notifyWebhooks != *user.notifyWebhooks) {
            ignore(kNotifyWebhooks, u"the administrator's webhooks are set in %1"_s.arg(
                                        admin.sources.value(kNotifyWebhooks)));
        }
    }
    if (user.teamQuorum) {
        const TeamQuorum both =
            e.teamQuorum ? TeamQuorum::merged(*e.teamQuorum, *user.teamQuorum) : *user.teamQuorum;
        // The merge is at least as strict as either file for every price; the administrator's
        // file stays the source named when it set the key.
        if (!e.teamQuorum)
            take(kTeamQuorum);
        else if (both == *e.teamQuorum && *user.teamQuorum != *e.teamQuorum)
            ignore(kTeamQuorum,
                   looser.arg(jsonText(e.teamQuorum->toJson()), admin.sources.value(kTeamQuorum)));
        e.teamQuorum = both;
    }
    if (user.teamApproverKeys) {
        // Set, the key says whose signed approvals count; a user's file may only remove trust:
        // alone it restricts (unset, approvals are not required to be signed), beside the
        // administrator's it keeps only the keys both list.
        const QList<ApproverKey> &u = *user.teamApproverKeys;
        if (!e.teamApproverKeys && layer == PolicyLayer::User) {
            // Whose signatures count is the administrator's to say: a user's file (which the
            // agent can write) may only remove keys the administrator lists.
            ignore(kTeamApproverKeys,
                   u"the approver keys are the administrator's to list; a user's file may only "
                   "remove keys the administrator's policy lists, and it lists none"_s);
        } else if (!e.teamApproverKeys) {
            e.teamApproverKeys = u;
            take(kTeamApproverKeys);
        } else {
            const QList<ApproverKey> &a = *e.teamApproverKeys;
            const QList<ApproverKey> both = ApproverKey::merged(a, u);
            if (both.size() < u.size()) // it lists a key (or role) the administrator's does not
                ignore(kTeamApproverKeys, looser.arg(jsonText(ApproverKey::toJson(a)),
                                                     admin.sources.value(kTeamApproverKeys)));
            if (both.size() < a.size()) {
                e.teamApproverKeys = both;
                take(kTeamApproverKeys);
            }
        }
    }
    return r;
}

} // namespace fb
