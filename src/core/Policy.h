#pragma once
// Policy: the operator's policy file (docs/policy.md). Pure functions only, except the file
// loaders at the end: parsing (unknown keys and wrong types are errors naming the key), the
// tighten-only merge of the administrator's file with the user's, and the evaluation of each
// rule against a proposal's rate-card price.
//
// Precedence: built-in defaults < administrator (/etc/fabric-broker/policy.json) and, for each
// key, a user value (FABRIC_BROKER_POLICY, else $XDG_CONFIG_HOME/fabric-broker/policy.json) only
// where it is at least as strict as the administrator's.
#include "core/Money.h"
#include "core/NotifyPolicy.h"
#include "core/TeamPolicy.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <optional>

namespace fb {

enum class UnpricedRule { Allow, RequireDesktop, Deny };
enum class PolicyChannel { Auto, Client, Desktop };

struct Policy {
    // The keys, in the order `policy show` prints them.
    static const QStringList &keys();
    static constexpr qint64 DefaultRevalidateAfterMs = 60000;

    std::optional<Money> maxPerChange;           // spend.max_monthly_recurring_per_change
    std::optional<Money> maxPerDay;              // spend.max_monthly_recurring_per_day
    std::optional<UnpricedRule> unpriced;        // spend.unpriced (unset: allow)
    std::optional<Money> desktopRequiredAbove;   // approval.desktop_required_above_monthly
    std::optional<Money> typedConfirmationAbove; // approval.typed_confirmation_above_monthly
    std::optional<qint64> revalidateAfterMs;     // revalidate_before_send_after_ms (unset: 60000)
    std::optional<QStringList> toolsetsAllowed;  // toolsets.allowed
    std::optional<PolicyChannel> channel;        // approval.channel
    std::optional<bool> allowUnconfirmed;        // allow_unconfirmed_mutations
    std::optional<QString> fabricEndpoint;       // fabric.endpoint
    std::optional<QString> teamDatabase;         // team.database (core/TeamPolicy.h)
    std::optional<TeamQuorum> teamQuorum;        // team.quorum (core/TeamPolicy.h)
    std::optional<QList<ApproverKey>> teamApproverKeys; // team.approver_keys (ditto)
    std::optional<QString> otlpEndpoint; // observability.otlp_endpoint (docs/observability.md)
    std::optional<QString> auditSyslog;  // audit.syslog: tcp:// or tls:// (ditto)
    std::optional<QList<WebhookTarget>> notifyWebhooks; // notify.webhooks (core/NotifyPolicy.h)

    // Where each set key came from (a file path); keys absent here are unset (defaults).
    QMap<QString, QString> sources;

    bool isSet(const QString &key) const;
    // The key's value as written in a policy file, or null when unset.
    QJsonValue value(const QString &key) const;
    // The same for people and logs (`policy show`, the merge's reports): a webhook URL, which may
    // be a secret, cut to its origin (WebhookTarget::toShownJson). Every other key as value().
    QJsonValue shownValue(const QString &key) const;
    // The file's JSON (nested objects), only the keys that are set.
    QJsonObject toJson() const;
    // spend.unpriced, or its default: require_desktop when an amount limit (spend.max_*) is set
    // (the agent chooses whether a change is priced), allow otherwise.
    UnpricedRule unpricedRule() const
    {
        return unpriced.value_or(maxPerChange || maxPerDay ? UnpricedRule::RequireDesktop
                                                           : UnpricedRule::Allow);
    }
    qint64 revalidateAfter() const { return revalidateAfterMs.value_or(DefaultRevalidateAfterMs); }

    static QString unpricedName(UnpricedRule rule);
    static QString channelName(PolicyChannel channel);
};

// When each key is enforced (docs/policy.md, "Enforcement"; tst_policy keeps that table equal to
// this one): read when the process starts; applied again on every change of a policy file while
// it runs (broker/PolicyApply's LiveSettings); checked at every confirm; checked again right
// before the create's bytes are sent.
struct PolicyEnforcement {
    QString key;
    bool atStartup = true;
    bool onEveryChange = true;
    bool atEveryConfirm = false;
    bool beforeSend = false;
};
const QList<PolicyEnforcement> &policyEnforcement(); // in Policy::keys() order

// Why text cannot be observability.otlp_endpoint (an http(s) URL without user info, query or
// fragment), or empty when it can.
QString otlpEndpointError(const QString &text);
// Why text is not even shaped like an audit.syslog target (tcp:// or tls://, printable ASCII,
// bounded), or empty. The whole target (host, port, ca=) is checked where the sink is made
// (telemetry/SyslogSink, which core cannot use): a malformed one fails the start.
QString auditSyslogShapeError(const QString &text);

struct PolicyParseResult {
    Policy policy;
    QStringList errors; // each names the key ("spend.unpriced: must be one of ...")
    bool ok() const { return errors.isEmpty(); }
};
// Parses one policy file's bytes. source is recorded for every key set.
PolicyParseResult parsePolicy(const QByteArray &json, const QString &source);

struct PolicyMergeResult {
    Policy effective;
    QStringList ignored; // user values that would loosen the administrator's, and why
};
// Tighten-only: for each key the stricter of the two values wins; a user value that is looser
// than (or incomparable with) the administrator's is ignored and reported. approval.channel:
// only "desktop" is stricter than "auto"; "client" is not comparable with "auto" or "desktop"
// (it moves approvals elsewhere, it does not tighten them), so a user's "client" is taken only
// where the administrator set nothing.
// team.database and team.approver_keys are the administrator's: from a user's file (layer User)
// the database is always ignored, and keys are taken only to remove some the administrator lists.
// A second administrator-layer file (layer Administrator) may set both. audit.syslog (where
// every audit record also goes) is the administrator's alone in the same way: a user's file
// could send the records to whoever the agent chose, or nowhere. notify.webhooks (where the
// proposals' summaries go) likewise. observability.otlp_endpoint is taken from a user's file only
// where the administrator set none.
enum class PolicyLayer { User, Administrator };
PolicyMergeResult mergePolicy(const Policy &admin, const Policy &user,
                              PolicyLayer layer = PolicyLayer::User);

// ---- Evaluation (pure) ------------------------------------------------------------------------

// The monthly recurring price of a rate-card price context ({priced, currency,
// monthly_recurring}), or nullopt when the change is unpriced.
std::optional<Money> monthlyPrice(const QJsonObject &price);

struct PolicyCheck {
    QString rule;    // the key, e.g. "spend.max_monthly_recurring_per_change"
    QString verdict; // allow | deny | require_desktop
    QJsonValue limit;
    QJsonValue used;
    QString reason; // a sentence for people and agents
    QJsonObject toJson() const;
};

struct PolicyVerdict {
    QString verdict = QStringLiteral("allow"); // allow | deny | require_desktop
    QString rule;                              // the deciding rule (empty: no rule applied)
    QJsonValue limit;
    QJsonValue used;
    QString reason;
    QList<PolicyCheck> checks; // every rule evaluated, in order
    bool denied() const { return verdict == u"deny"; }
    bool desktopRequired() const { return verdict == u"require_desktop"; }
    // {verdict, rule, limit, used, reason, checks[]}
    QJsonObject toJson() const;
};

// spend.max_monthly_recurring_per_change: price <= limit is allowed (exactly at the limit too); a
// price in another currency than the limit's is denied (never converted).
std::optional<PolicyCheck> checkPerChange(const Policy &policy, const QJsonObject &price);
// spend.max_monthly_recurring_per_day: usedToday (priced creates executed in the last 24 h) +
// reserved (confirms waiting for a person) + price <= limit. Spend in another currency than
// the limit's cannot be summed and is denied.
std::optional<PolicyCheck> checkPerDay(const Policy &policy, const QJsonObject &price,
                                       const QList<Money> &usedToday,
                                       const QList<Money> &reserved = {});
// spend.unpriced, for changes without a price.
std::optional<PolicyCheck> checkUnpriced(const Policy &policy, const QJsonObject &price);
// approval.desktop_required_above_monthly: price > limit needs the native dialog. A currency
// mismatch or an unpriced change with this rule set fails closed (desktop required).
std::optional<PolicyCheck> checkDesktopRequired(const Policy &policy, const QJsonObject &price);
// approval.typed_confirmation_above_monthly: price > limit (or mismatch) asks for typing.
bool typedConfirmationRequired(const Policy &policy, const QJsonObject &price);

// At propose: per-change and unpriced. At confirm: also per-day and desktop-required.
PolicyVerdict evaluateAtPropose(const Policy &policy, const QJsonObject &price);
PolicyVerdict evaluateAtConfirm(const Policy &policy, const QJsonObject &price,
                                const QList<Money> &usedToday, const QList<Money> &reserved = {});

// The monthly prices of creates executed (outcome created or unknown) in [nowMs - 24 h, nowMs],
// from audit records ({type, time, data}): each "executed" record joined by request_sha256 with
// the "proposed" record that carried its price.
QList<Money> spendInLastDay(const QList<QJsonObject> &auditRecords, qint64 nowMs);

// ---- Files ------------------------------------------------------------------------------------

struct PolicyLoadResult {
    Policy effective;
    QStringList errors;     // files ignored (unsafe, unreadable, invalid): loud errors
    QStringList ignored;    // user values ignored because they would loosen
    QStringList files;      // files read, in merge order
    QStringList adminFiles; // the administrator-layer files among them
    bool lockedByAdministrator(const QString &key) const
    {
        return adminFiles.contains(effective.sources.value(key));
    }
    bool refuseMutate = false;    // an administrator-layer or user file could not be applied
    QStringList failedFiles;      // the files that could not be applied (refuseMutate)
    QStringList failedAdminFiles; // the administrator-layer ones among them
};

struct PolicyPaths {
    QString system = QStringLiteral("/etc/fabric-broker/policy.json");
    // FABRIC_BROKER_EXTRA_ADMIN_POLICY: a second administrator-layer file, held to the same
    // ownership rules and merged tighten-only with the system file; it can never loosen.
    QString extraAdmin;
    QString user; // FABRIC_BROKER_POLICY, else $XDG_CONFIG_HOME/fabric-broker/policy.json
    static PolicyPaths fromEnvironment();
    // The same rule over another process's environment (a relayed --stdio's own).
    static PolicyPaths fromEnvironment(const QProcessEnvironment &env);
    QStringList all() const; // the non-empty paths: system, extra administrator, user
};

// Each policy file's SHA-256 (hex) by path: "" when the file is absent, "unreadable" when it is
// there but cannot be read. What the policy_changed audit record and the relay hello carry.
QMap<QString, QString> policyFileDigests(const PolicyPaths &paths);

// Why an administrator file may not be trusted (writable by anyone but root, not a regular
// file), or empty when it may.
QString adminFileUnsafeReason(const QString &path);
PolicyLoadResult loadPolicy(const PolicyPaths &paths);
// Why a policy file that is there cannot be examined (stat() failed for a reason other than
// ENOENT, or it is a dangling link), with the errno; empty when it can be, or is absent.
QString policyFileStatError(const QString &path);
// False only when the path names nothing at all (ENOENT): anything stat() cannot see for
// another reason (EACCES, ELOOP, ...) exists for the policy, and refuses mutate.
bool policyFileExists(const QString &path);

} // namespace fb
