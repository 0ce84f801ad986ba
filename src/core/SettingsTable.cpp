// The settings table: every setting of Fabric Broker, declared once (see core/Settings.h).
// README.md's configuration table is generated from these rows (Settings::markdownTable) and
// tests/unit/core/tst_settings checks that the two agree.
#include "core/Settings.h"

using namespace Qt::StringLiterals;

namespace fb {

namespace {

constexpr qint64 kDayMs = 24LL * 3600 * 1000;

const SettingSpec kTable[] = {
    {.id = SettingId::FabricEndpoint,
     .name = "fabric.endpoint"_L1,
     .env = "EQUINIX_API_ENDPOINT"_L1,
     .savedKey = "fabric/endpoint"_L1,
     .defaultValue = "https://api.equinix.com"_L1,
     .type = SettingType::Text,
     .emptyIsUnset = true,
     .group = SettingGroup::FabricBinding,
     .relay = RelayRule::Binding,
     .policyKey = "fabric.endpoint"_L1,
     .summary = "Fabric API base URL (HTTPS; plain http only to 127.0.0.1, ::1, localhost)"_L1},
    {.id = SettingId::FabricClientId,
     .name = "fabric.client_id"_L1,
     .env = "EQUINIX_API_CLIENTID"_L1,
     .envAlias = "EQUINIX_CLIENT_ID"_L1,
     .type = SettingType::Text,
     .emptyIsUnset = true,
     .group = SettingGroup::FabricBinding,
     .relay = RelayRule::Binding,
     .summary = "OAuth2 client id; the desktop app keeps saved credentials in the OS keychain"_L1},
    {.id = SettingId::FabricClientSecret,
     .name = "fabric.client_secret"_L1,
     .env = "EQUINIX_API_CLIENTSECRET"_L1,
     .envAlias = "EQUINIX_CLIENT_SECRET"_L1,
     .type = SettingType::Secret,
     .emptyIsUnset = true,
     .group = SettingGroup::FabricBinding,
     .relay = RelayRule::Binding,
     .summary = "OAuth2 client secret (with the client id: client credentials, used first)"_L1},
    {.id = SettingId::FabricToken,
     .name = "fabric.token"_L1,
     .env = "EQUINIX_API_TOKEN"_L1,
     .type = SettingType::Secret,
     .emptyIsUnset = true,
     .group = SettingGroup::FabricBinding,
     .relay = RelayRule::Binding,
     .summary = "a static bearer token, used when no client credentials are set"_L1},
    {.id = SettingId::FabricTimeoutMs,
     .name = "fabric.timeout_ms"_L1,
     .env = "EQUINIX_API_TIMEOUT_MS"_L1,
     .defaultValue = "30000"_L1,
     .type = SettingType::Integer,
     .min = 1,
     .max = 10 * 60 * 1000,
     .onInvalid = OnInvalid::UseDefault,
     .emptyIsUnset = true,
     .summary = "timeout of each Fabric HTTP request; not a positive integer: the default; "
                "capped at 600000"_L1},
    {.id = SettingId::Toolsets,
     .name = "broker.toolsets"_L1,
     .env = "EQUINIX_MCP_TOOLSETS"_L1,
     .flag = "toolsets"_L1,
     .flagValue = "list"_L1,
     .savedKey = "broker/toolsets"_L1,
     .defaultValue = "read"_L1,
     .type = SettingType::ChoiceList,
     .choices = "read,estate,routing,observability,precision-time,marketplace,account,mutate"_L1,
     .choiceNoun = "toolset"_L1,
     .choiceAliases = "all-read=read+estate+routing+observability+precision-time+marketplace+"
                      "account"_L1,
     .relay = RelayRule::Narrow,
     .policyKey = "toolsets.allowed"_L1,
     .summary = "served toolsets: `read` (the core reads), `estate`, `routing`, `observability`, "
                "`precision-time`, `marketplace`, `account`, `all-read` (every read toolset), "
                "`mutate` (the broker's two tools; never implied by another name)"_L1,
     .flagHelp = "Toolsets to serve: read (default), estate, routing, observability, "
                 "precision-time, marketplace, account, all-read (every read toolset), mutate. "
                 "Overrides EQUINIX_MCP_TOOLSETS. Example: all-read,mutate"_L1},
    {.id = SettingId::ProposalTtlMs,
     .name = "broker.proposal_ttl_ms"_L1,
     .env = "EQUINIX_MCP_PROPOSAL_TTL_MS"_L1,
     .defaultValue = "600000"_L1,
     .type = SettingType::Integer,
     .min = 1,
     .max = kDayMs,
     .relay = RelayRule::Exact,
     .summary = "proposal lifetime"_L1},
    {.id = SettingId::MaxPending,
     .name = "broker.max_pending"_L1,
     .env = "EQUINIX_MCP_MAX_PENDING"_L1,
     .defaultValue = "20"_L1,
     .type = SettingType::Integer,
     .min = 1,
     .max = 10000,
     .relay = RelayRule::Exact,
     .summary = "pending proposals kept; the oldest is evicted beyond it"_L1},
    {.id = SettingId::ElicitTimeoutMs,
     .name = "broker.elicit_timeout_ms"_L1,
     .env = "EQUINIX_MCP_ELICIT_TIMEOUT_MS"_L1,
     .defaultValue = "300000"_L1,
     .type = SettingType::Integer,
     .min = 1,
     .max = kDayMs,
     .relay = RelayRule::Exact,
     .summary = "how long a person has to answer"_L1},
    {.id = SettingId::Approval,
     .name = "broker.approval"_L1,
     .env = "EQUINIX_MCP_APPROVAL"_L1,
     .savedKey = "broker/approval"_L1,
     .defaultValue = "auto"_L1,
     .type = SettingType::Choice,
     .choices = "auto,client,desktop"_L1,
     .relay = RelayRule::Channel,
     .policyKey = "approval.channel"_L1,
     .summary = "`auto` (desktop dialog when the UI runs, else elicitation), `client`, "
                "`desktop`"_L1},
    {.id = SettingId::AllowUnconfirmedMutations,
     .name = "broker.allow_unconfirmed_mutations"_L1,
     .env = "EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS"_L1,
     .defaultValue = "false"_L1,
     .type = SettingType::ExactBool,
     .relay = RelayRule::NoWiden,
     .policyKey = "allow_unconfirmed_mutations"_L1,
     .summary = "exactly `true` lets the session whose own command line or environment sets "
                "it execute without a person when its client has no elicitation (loudly; never "
                "other clients of the same instance); `false` or unset keeps the person; any "
                "other value is a startup error"_L1},
    {.id = SettingId::AuditLog,
     .name = "audit.log"_L1,
     .env = "EQUINIX_MCP_AUDIT_LOG"_L1,
     .defaultDisplay = "`$XDG_DATA_HOME/fabric-broker/audit.jsonl`"_L1,
     .type = SettingType::Text,
     .emptyIsUnset = true,
     .summary = "the audit log file"_L1},
    {.id = SettingId::AuditSyslog,
     .name = "audit.syslog"_L1,
     .env = "FABRIC_BROKER_AUDIT_SYSLOG"_L1,
     .savedKey = "audit/syslog"_L1,
     .type = SettingType::Text,
     .emptyIsUnset = true,
     .policyKey = "audit.syslog"_L1,
     .summary = "also send every audit record, with its chain position, as RFC 5424 syslog to "
                "`tcp://host:port` or `tls://host:port[?ca=/path.pem]` (docs/observability.md); "
                "a malformed target is a startup error; the administrator's policy wins"_L1},
    {.id = SettingId::OtlpEndpoint,
     .name = "observability.otlp_endpoint"_L1,
     .env = "OTEL_EXPORTER_OTLP_ENDPOINT"_L1,
     .savedKey = "observability/otlpEndpoint"_L1,
     .type = SettingType::Text,
     .emptyIsUnset = true,
     .policyKey = "observability.otlp_endpoint"_L1,
     .summary = "send traces and metrics over OTLP/HTTP JSON to this base URL (`/v1/traces`, "
                "`/v1/metrics` added); the other standard `OTEL_*` variables tune it "
                "(docs/observability.md); the policy's value wins over the variable"_L1},
    {.id = SettingId::UserPolicy,
     .name = "policy.user_file"_L1,
     .env = "FABRIC_BROKER_POLICY"_L1,
     .defaultDisplay = "`$XDG_CONFIG_HOME/fabric-broker/policy.json`"_L1,
     .type = SettingType::Text,
     .emptyIsUnset = true,
     .summary = "the user's policy file, tighten-only under the administrator's "
                "(docs/policy.md)"_L1},
    {.id = SettingId::ExtraAdminPolicy,
     .name = "policy.extra_admin_file"_L1,
     .env = "FABRIC_BROKER_EXTRA_ADMIN_POLICY"_L1,
     .type = SettingType::Text,
     .emptyIsUnset = true,
     .summary = "a second administrator-layer policy file, held to the same ownership rules; "
                "it can never loosen (docs/policy.md)"_L1},
    {.id = SettingId::Socket,
     .name = "server.socket"_L1,
     .flag = "socket"_L1,
     .flagValue = "name|path"_L1,
     .defaultDisplay = "`fabric-broker.sock` in `$XDG_RUNTIME_DIR`, else `/run/user/<uid>`, "
                       "else `/tmp/fabric-broker-<uid>`"_L1,
     .type = SettingType::Text,
     .summary = "the per-user local socket, by name or path"_L1,
     .flagHelp = "Local socket name or path (default: fabric-broker.sock in $XDG_RUNTIME_DIR, "
                 "else /run/user/<uid>, else /tmp/fabric-broker-<uid>)."_L1},
    {.id = SettingId::ForceSandbox,
     .name = "fabric.force_sandbox"_L1,
     .flag = "sandbox"_L1,
     .defaultValue = "false"_L1,
     .type = SettingType::Switch,
     .relay = RelayRule::Binding,
     .summary = "use the embedded Fabric sandbox even if credentials are set"_L1,
     .flagHelp = "Use the embedded Fabric sandbox (in-process, random loopback port) even if "
                 "credentials are set."_L1},
    {.id = SettingId::HttpAddress,
     .name = "server.http_address"_L1,
     .flag = "http"_L1,
     .flagValue = "address"_L1,
     .savedKey = "mcp/httpAddress"_L1,
     .defaultDisplay = "off (`--http` alone: `127.0.0.1:7431`)"_L1,
     .type = SettingType::Text,
     .summary = "also serve MCP over Streamable HTTP on loopback (`127.0.0.1:PORT` or "
                "`[::1]:PORT`); every request needs the bearer token (docs/http.md)"_L1,
     .flagHelp = "Also serve MCP over Streamable HTTP on loopback at ADDRESS (127.0.0.1:PORT or "
                 "[::1]:PORT; PORT 0 = a free port; without a value 127.0.0.1:7431). Every "
                 "request needs the bearer token kept in fabric-broker-http.token in the runtime "
                 "directory. The URL is printed on stderr."_L1},
    {.id = SettingId::DesktopNotifications,
     .name = "desktop.notifications"_L1,
     .savedKey = "desktop/notifications"_L1,
     .defaultValue = "true"_L1,
     .type = SettingType::SavedBool,
     .summary = "the desktop app's notifications (the freedesktop Notifications service) when an "
                "approval needs you and, in team mode, when a decision on your proposal "
                "arrives; they only open the dialog"_L1},
    // No environment variable, flag or saved key: team mode is the administrator's alone
    // (issue #34; docs/team.md, "Who turns team mode on").
    {.id = SettingId::TeamDatabase,
     .name = "team.database"_L1,
     .defaultDisplay = "unset (no team mode)"_L1,
     .type = SettingType::Text,
     .emptyIsUnset = true,
     .policyKey = "team.database"_L1,
     .summary = "team mode's shared PostgreSQL database, a libpq URI without a password "
                "(`.pgpass`, peer or certificate authentication; docs/team.md); set only by the "
                "administrator's policy file"_L1},
    {.id = SettingId::CredentialsInKeychain,
     .name = "fabric.credentials_in_keychain"_L1,
     .savedKey = "fabric/credentialsInKeychain"_L1,
     .defaultValue = "false"_L1,
     .type = SettingType::SavedBool,
     .summary = "whether credentials were saved to the keychain, so startup only asks the "
                "keychain when there is something to read (not a secret)"_L1,
     .internal = true},
};

} // namespace

std::span<const SettingSpec> Settings::table()
{
    return kTable;
}

} // namespace fb
