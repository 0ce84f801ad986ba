#include "fabric/FabricConfig.h"

#include "fabric/FabricParsing.h"
#include "fabric/FabricUrl.h"

namespace fb {

namespace {

constexpr qint64 kMaxTimeoutMs = 10 * 60 * 1000;

QString envFirst(const QProcessEnvironment &env, std::initializer_list<const char *> names)
{
    for (const char *name : names) {
        const QString v = env.value(QString::fromLatin1(name)).trimmed();
        if (!v.isEmpty())
            return v;
    }
    return {};
}

} // namespace

// ---------------------------------------------------------------------------------------------
// FabricConfig

FabricConfig FabricConfig::fromEnvironment(const QProcessEnvironment &env)
{
    FabricConfig c;
    const QString endpoint = envFirst(env, {"EQUINIX_API_ENDPOINT"});
    if (!endpoint.isEmpty())
        c.endpoint = QUrl(endpoint, QUrl::StrictMode);
    // Both spellings are accepted; the EQUINIX_API_ ones win when both are set.
    c.clientId = envFirst(env, {"EQUINIX_API_CLIENTID", "EQUINIX_CLIENT_ID"});
    c.clientSecret = envFirst(env, {"EQUINIX_API_CLIENTSECRET", "EQUINIX_CLIENT_SECRET"});
    // Precedence: client credentials first (an OAuth2 token is fetched and refreshed); the
    // static EQUINIX_API_TOKEN is only used when no complete client-credentials pair is set.
    c.staticToken = envFirst(env, {"EQUINIX_API_TOKEN"});
    bool ok = false;
    const qint64 timeout = envFirst(env, {"EQUINIX_API_TIMEOUT_MS"}).toLongLong(&ok);
    if (ok && timeout > 0)
        c.timeoutMs = int(std::min(timeout, kMaxTimeoutMs));
    return c;
}

bool FabricConfig::hasCredentials() const
{
    return (!clientId.isEmpty() && !clientSecret.isEmpty()) || !staticToken.isEmpty();
}

QString FabricConfig::credentialSource() const
{
    if (!clientId.isEmpty() && !clientSecret.isEmpty())
        return QStringLiteral("client credentials (EQUINIX_API_CLIENTID)");
    if (!staticToken.isEmpty())
        return QStringLiteral("static token (EQUINIX_API_TOKEN)");
    return QStringLiteral("none");
}

QString FabricConfig::endpointProblem() const
{
    if (!endpoint.isValid() || endpoint.host().isEmpty())
        return QStringLiteral("the Fabric endpoint (EQUINIX_API_ENDPOINT) \"%1\" is not a valid "
                              "URL such as https://api.equinix.com")
            .arg(sanitizeRemoteText(displayUrl(endpoint), 200));
    if (!endpoint.userInfo().isEmpty())
        return QStringLiteral("the Fabric endpoint (EQUINIX_API_ENDPOINT) must not carry a user "
                              "name or password");
    if (endpoint.hasQuery() || endpoint.hasFragment())
        return QStringLiteral("the Fabric endpoint (EQUINIX_API_ENDPOINT) must not carry a query "
                              "or fragment");
    const QString scheme = endpoint.scheme().toLower();
    if (scheme == QLatin1StringView("https"))
        return {};
    if (scheme == QLatin1StringView("http")) {
        if (isLoopbackHost(endpoint.host()))
            return {};
        return QStringLiteral("refusing plain http:// to %1: HTTPS is required for every host "
                              "except 127.0.0.1, ::1 and localhost")
            .arg(endpoint.host());
    }
    return QStringLiteral("the Fabric endpoint (EQUINIX_API_ENDPOINT) must be an https:// URL");
}

} // namespace fb
