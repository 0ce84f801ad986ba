#pragma once
// FabricConfig: where and how the Fabric client connects (endpoint, credentials, timeout,
// sandbox, reply cap), read from the environment.
#include <QProcessEnvironment>
#include <QString>
#include <QUrl>
#include <optional>

namespace fb {

struct FabricConfig {
    QUrl endpoint = QUrl(QStringLiteral("https://api.equinix.com"));
    QString clientId;
    QString clientSecret;
    QString staticToken;   // EQUINIX_API_TOKEN: used as the bearer token as-is
    int timeoutMs = 30000; // without a byte moving; an HTTP request's overall deadline: 4x it
    bool sandbox = false;  // pointed at the embedded sandbox (shown everywhere the user looks)
    qint64 maxResponseBytes = 16 * 1024 * 1024; // larger replies are an InvalidResponse

    // EQUINIX_API_ENDPOINT, EQUINIX_API_CLIENTID/EQUINIX_API_CLIENTSECRET (or
    // EQUINIX_CLIENT_ID/EQUINIX_CLIENT_SECRET), EQUINIX_API_TOKEN, EQUINIX_API_TIMEOUT_MS.
    // Precedence: client credentials first, then the static token.
    // EQUINIX_API_TIMEOUT_MS must be a positive integer (capped at 10 minutes), else 30000.
    // With sandbox=true and no credentials, requests go without an Authorization header.
    static FabricConfig
    fromEnvironment(const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());
    // The environment over the desktop app's saved configuration (flag > environment > saved):
    // the saved credentials apply only when the environment has none, and then the
    // environment's endpoint and timeout, where it sets them, still win over the saved ones.
    static FabricConfig withSaved(const QProcessEnvironment &env,
                                  const std::optional<FabricConfig> &saved);
    bool hasCredentials() const;
    // "client credentials (EQUINIX_API_CLIENTID)", "static token (EQUINIX_API_TOKEN)", "none".
    QString credentialSource() const;
    // Empty when the endpoint is usable; otherwise why not (invalid URL, or http:// to a host
    // other than 127.0.0.1, ::1 or localhost: HTTPS is required everywhere else).
    QString endpointProblem() const;
    // The endpoint as bindings, relay hellos and the policy's fabric.endpoint compare it: no user
    // info, no trailing slash ("https://host/" and "https://host" are one endpoint).
    QString bindingEndpoint() const;
    // Empty when the policy's fabric.endpoint lock (lockedEndpoint, in bindingEndpoint() form;
    // empty: no lock) allows calls to this endpoint; otherwise why not. The embedded sandbox on
    // loopback carries no account and is always allowed.
    QString lockProblem(const QString &lockedEndpoint, const QString &lockSource) const;
};

} // namespace fb
