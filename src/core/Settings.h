#pragma once
// Settings: the one table of every operator setting (src/core/SettingsTable.cpp). Each row
// declares a setting once: its name, environment variable (and an accepted alias), command-line
// flag, saved (QSettings) key, default, validation, and where it sits in the precedence. The
// readers (BrokerSettings, FabricConfig, DesktopPreferences, ServerHost, the relay's hello),
// `--help` and the README's configuration table all come from it.
//
// Precedence (SettingSource, lowest first): the default < the desktop app's saved value < the
// environment < the command-line flag. A row only takes the sources it declares. The settings
// of the Fabric binding (endpoint and credentials, SettingGroup::FabricBinding) are taken from
// one source together: the environment's when it has credentials, else the saved ones, so an
// endpoint never meets credentials meant for another. The operator policy (core/Policy) is a
// tighten-only layer applied on top of the resolved values (broker/PolicyApply); policyKey names
// the policy key that can lock a row.
//
// GUI-free and network-free: values are text in, typed values (QVariant) out.
#include <QLatin1StringView>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <optional>
#include <span>

namespace fb {

enum class SettingId {
    FabricEndpoint,
    FabricClientId,
    FabricClientSecret,
    FabricToken,
    FabricTimeoutMs,
    Toolsets,
    ProposalTtlMs,
    MaxPending,
    ElicitTimeoutMs,
    Approval,
    AllowUnconfirmedMutations,
    AuditLog,
    AuditSyslog,
    OtlpEndpoint,
    UserPolicy,
    ExtraAdminPolicy,
    Socket,
    ForceSandbox,
    HttpAddress,
    DesktopNotifications,
    TeamDatabase,
    CredentialsInKeychain,
};

enum class SettingType {
    Text,       // trimmed text
    Secret,     // trimmed text that is never logged, shown, or saved to QSettings
    Integer,    // a whole number within [min, max]
    ExactBool,  // exactly "true" or "false", nothing else
    Choice,     // one of choices (trimmed, case-insensitive); empty means the default
    ChoiceList, // comma-separated names out of choices, deduplicated, in the choices' order
    Switch,     // a flag without a value
    SavedBool,  // a saved-only boolean
};

// What a value that does not validate does.
enum class OnInvalid {
    Error,      // a startup error naming the setting (the default)
    UseDefault, // the default is used; above max the value is capped at max
};

// Where a value came from; declared in precedence order (a later source wins).
enum class SettingSource { Default, Saved, Environment, Flag };

enum class SettingGroup { None, FabricBinding };

// How the instance compares a relayed `--stdio`'s value with its own (broker/RelayHello).
enum class RelayRule {
    None,    // not part of the hello
    Narrow,  // the session may ask for less (toolsets)
    Binding, // must be the instance's own (endpoint, credentials by fingerprint)
    Channel, // honoured when it names the instance's approval channel
    NoWiden, // may never turn on what the instance has off
    Exact,   // a limit: must equal the instance's
};

struct SettingSpec {
    SettingId id{};
    QLatin1StringView name{};           // stable dotted name, e.g. "broker.proposal_ttl_ms"
    QLatin1StringView env{};            // environment variable; empty: none
    QLatin1StringView envAlias{};       // a second accepted spelling, used when env is not set
    QLatin1StringView flag{};           // command-line option without "--"; empty: none
    QLatin1StringView flagValue{};      // the option's value name in --help; empty for a Switch
    QLatin1StringView savedKey{};       // QSettings key of the desktop app; empty: none
    QLatin1StringView defaultValue{};   // as text, as it would be written
    QLatin1StringView defaultDisplay{}; // for people when the default is computed; else empty
    SettingType type{};
    qint64 min = 0;
    qint64 max = 0;
    QLatin1StringView choices{};    // comma-separated, for Choice and ChoiceList
    QLatin1StringView choiceNoun{}; // ChoiceList messages: "Unknown toolset: x"
    // ChoiceList names that stand for several choices: "all-read=read+estate+routing"; ";" between
    // aliases. An alias is expanded where it is named; it is never a choice of its own.
    QLatin1StringView choiceAliases{};
    OnInvalid onInvalid = OnInvalid::Error;
    bool emptyIsUnset = false; // a set-but-empty variable counts as not set
    SettingGroup group = SettingGroup::None;
    RelayRule relay = RelayRule::None;
    QLatin1StringView policyKey{}; // the policy key that can lock it; empty: none
    QLatin1StringView summary{};   // one line for README and --help (Markdown backticks allowed)
    QLatin1StringView flagHelp{};  // the option's description in --help
    bool internal = false;         // bookkeeping, not a knob: left out of README and --help

    bool hasSource(SettingSource source) const;
    QStringList choiceList() const;
    // The choices an alias stands for (empty: it is not an alias).
    QStringList aliasChoices(const QString &alias) const;
    QStringList aliasNames() const;
    // How a source of this row is named in messages: "EQUINIX_MCP_TOOLSETS", "--toolsets",
    // "saved broker/toolsets", "default".
    QString sourceLabel(SettingSource source) const;
};

// The raw values a process has: its environment, the flags given, the values saved.
struct SettingSources {
    QProcessEnvironment environment;
    QMap<SettingId, QString> flags; // only the flags that were given
    QMap<SettingId, QString> saved; // only the saved values that exist
};

// One raw value and where it came from.
struct SettingValue {
    SettingSource source = SettingSource::Default;
    QString text;
};

namespace Settings {

std::span<const SettingSpec> table();
const SettingSpec &spec(SettingId id);
// The setting's environment variable / QSettings key as a QString; empty when it has none.
QString envName(SettingId id);
QString savedKey(SettingId id);
const SettingSpec *findByName(QStringView name);

// The raw value one source gives (nullopt: that source does not set it). The environment uses
// env, else envAlias; emptyIsUnset rows treat an empty value as not set.
std::optional<QString> rawValue(const SettingSpec &spec, SettingSource source,
                                const SettingSources &sources);
// Checks and converts one raw value. On failure error names the source's label and says why
// (the documented message of the row's type). Returns the typed value: qint64 (Integer), bool
// (ExactBool, Switch, SavedBool), QString (Text, Secret, Choice), QStringList (ChoiceList).
std::optional<QVariant> parse(const SettingSpec &spec, const QString &raw, SettingSource source,
                              QString *error);
// A ChoiceList value: the named choices, deduplicated, in the choices' order; an unknown or
// missing name is an error ("Unknown toolset: x (known toolsets: read, mutate)").
std::optional<QStringList> parseList(const SettingSpec &spec, const QString &raw, QString *error);
// The value of one setting: every Environment and Flag value that is given must validate (an
// error names the first that does not, even if a later source would win); a saved value that
// does not validate is ignored (it is the app's own file). Returns the value of the source that
// wins, or the default's.
std::optional<QVariant> resolve(SettingId id, const SettingSources &sources, SettingSource *winner,
                                QString *error);
// The default as a typed value.
QVariant defaultValue(SettingId id);

// For the README's configuration table (tests/unit/core/tst_settings checks that it matches).
QString markdownTable();
// For --help: one line per environment variable, with its default.
QString environmentHelp();

} // namespace Settings

} // namespace fb
