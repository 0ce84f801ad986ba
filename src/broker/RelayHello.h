#pragma once
// RelayHello: what a relayed `fabric-broker --stdio` asks of the running instance, and the
// instance's decision. The relay sends it as the hello line before the MCP bytes (see
// mcp::RelayHelloKey and docs/architecture.md); the instance narrows the session or refuses it:
//  - narrowing is honoured per session: --toolsets read on a read,mutate instance gives that
//    session only the read tools; EQUINIX_MCP_APPROVAL is honoured when it names the channel the
//    instance asks through;
//  - EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true is per session: honoured for the session that
//    asked when the instance allows it (refused when it does not); a session that did not ask
//    keeps the person in the loop whatever the instance's own setting;
//  - anything that would widen or switch what the instance does (--sandbox against a real
//    endpoint, other credentials or another endpoint, a toolset the instance does not serve,
//    another approval channel, other limits), a policy file the instance does not apply (the
//    relay's policy could be stricter; one that only narrows toolsets.allowed narrows the
//    session instead) and an audit log the relay's environment names that is not the
//    instance's are refused, naming each conflict and its fix. Never served with the
//    instance's settings as if nothing happened.
// Secrets never cross the socket: credentials are compared by a SHA-256 fingerprint.
#include "broker/BrokerSettings.h"
#include "mcp/McpServer.h"

#include <QJsonObject>
#include <QMap>
#include <QProcessEnvironment>
#include <QStringList>
#include <optional>

namespace fb {

struct FabricConfig;

struct RelayRequest {
    std::optional<QStringList> toolsets; // asked for, normalized; nullopt = no opinion
    QString toolsetsSource;              // "--toolsets" or "EQUINIX_MCP_TOOLSETS"
    bool sandbox = false;                // --sandbox
    QString credentialsFingerprint;      // empty: no credentials in the environment
    QString credentialSource;            // e.g. "client credentials (EQUINIX_API_CLIENTID)"
    QString endpoint; // EQUINIX_API_ENDPOINT when set (with credentials: also the default)
    QString approval; // EQUINIX_MCP_APPROVAL when set: auto|client|desktop
    bool allowUnconfirmedMutations = false;
    QMap<QString, QString> limits; // EQUINIX_MCP_PROPOSAL_TTL_MS etc. when set, normalized
    // The policy files the relay would apply (policyFileDigests: path -> SHA-256 hex, "" when
    // absent, "unreadable"), at most 3.
    QMap<QString, QString> policyFiles;
    QString auditLog;           // the audit log it would write
    bool auditLogNamed = false; // EQUINIX_MCP_AUDIT_LOG names it (else the default location)
    qint64 pid = 0;

    // From the relay's own command line (--toolsets value, --sandbox) and environment. Invalid
    // values are errors, as they would be for a process serving the session itself.
    static bool fromCommandLine(const QString &toolsetsOption, bool sandbox,
                                const QProcessEnvironment &env, RelayRequest *out, QString *error);
    QJsonObject toJson() const;
    static RelayRequest fromJson(const QJsonObject &hello); // bounded, hostile input tolerated
};

// What the running instance does, for comparison.
struct RelayInstanceFacts {
    QStringList toolsets;
    bool sandbox = false;
    QString endpoint;
    QString credentialsFingerprint;
    QString approvalChannel; // "desktop" or "client"
    BrokerSettings settings;
    QMap<QString, QString> policyFiles; // LiveSettings::policyDigests()
    QString auditLog;
    qint64 pid = 0;
};

// Hex SHA-256 over the credentials (client id, secret, static token); empty without any.
QString credentialsFingerprint(const FabricConfig &config);
QString normalizedEndpoint(const QString &url);

mcp::SessionPolicy decideRelayedSession(const RelayRequest &request,
                                        const RelayInstanceFacts &instance);

} // namespace fb
