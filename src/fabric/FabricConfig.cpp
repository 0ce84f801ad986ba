#include "fabric/FabricConfig.h"

#include "fabric/FabricParsing.h"
#include "fabric/FabricUrl.h"

#include "core/Settings.h"

using namespace Qt::StringLiterals;

namespace fb {

// ---------------------------------------------------------------------------------------------
// FabricConfig

FabricConfig FabricConfig::fromEnvironment(const QProcessEnvironment &env)
{
    // The Fabric rows of the settings table (core/SettingsTable.cpp): each variable, or its
    // alias when it is unset or empty; values trimmed.
    SettingSources sources;
    sources.environment = env;
    const auto text = [&sources](SettingId id) {
        return Settings::rawValue(Settings::spec(id), SettingSource::Environment, sources)
            .value_or(QString())
            .trimmed();
    };
    FabricConfig c;
    const QString endpoint = text(SettingId::FabricEndpoint);
    if (!endpoint.isEmpty())
        c.endpoint = QUrl(endpoint, QUrl::StrictMode);
    // Both spellings are accepted; the EQUINIX_API_ ones win when both are set.
    c.clientId = text(SettingId::FabricClientId);
    c.clientSecret = text(SettingId::FabricClientSecret);
    // Precedence: client credentials first (an OAuth2 token is fetched and refreshed); the
    // static EQUINIX_API_TOKEN is only used when no complete client-credentials pair is set.
    c.staticToken = text(SettingId::FabricToken);
    // Not a positive integer: the default; above the table's maximum (10 minutes): capped.
    QString ignored;
    c.timeoutMs =
        static_cast<int>(Settings::resolve(SettingId::FabricTimeoutMs, sources, nullptr, &ignored)
                             .value_or(Settings::defaultValue(SettingId::FabricTimeoutMs))
                             .toLongLong());
    return c;
}

FabricConfig FabricConfig::withSaved(const QProcessEnvironment &env,
                                     const std::optional<FabricConfig> &saved)
{
    const FabricConfig fromEnv = fromEnvironment(env);
    if (fromEnv.hasCredentials() || !saved || !saved->hasCredentials())
        return fromEnv;
    SettingSources sources;
    sources.environment = env;
    const auto isSet = [&sources](SettingId id) {
        return !Settings::rawValue(Settings::spec(id), SettingSource::Environment, sources)
                    .value_or(QString())
                    .trimmed()
                    .isEmpty();
    };
    FabricConfig c = *saved;
    if (isSet(SettingId::FabricEndpoint))
        c.endpoint = fromEnv.endpoint;
    if (isSet(SettingId::FabricTimeoutMs))
        c.timeoutMs = fromEnv.timeoutMs;
    return c;
}

bool FabricConfig::hasCredentials() const
{
    return (!clientId.isEmpty() && !clientSecret.isEmpty()) || !staticToken.isEmpty();
}

QString FabricConfig::credentialSource() const
{
    if (!clientId.isEmpty() && !clientSecret.isEmpty())
        return u"client credentials (%1)"_s.arg(Settings::envName(SettingId::FabricClientId));
    if (!staticToken.isEmpty())
        return u"static token (%1)"_s.arg(Settings::envName(SettingId::FabricToken));
    return QStringLiteral("none");
}

QString FabricConfig::bindingEndpoint() const
{
    QUrl url = endpoint.adjusted(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
    if (url.path() == u"/")
        url.setPath(QString());
    return url.toString();
}

QString FabricConfig::lockProblem(const QString &lockedEndpoint, const QString &lockSource) const
{
    if (lockedEndpoint.isEmpty() || bindingEndpoint() == lockedEndpoint)
        return {};
    if (sandbox && isLoopbackHost(endpoint.host()))
        return {};
    return u"fabric.endpoint (%1) locks the Fabric endpoint to %2, but this broker is configured "
           "for %3; no request (not even for a token) goes anywhere else"_s.arg(
               lockSource, lockedEndpoint, sanitizeRemoteText(bindingEndpoint(), 200));
}

QString FabricConfig::endpointProblem() const
{
    const QString name = Settings::envName(SettingId::FabricEndpoint);
    if (!endpoint.isValid() || endpoint.host().isEmpty())
        return u"the Fabric endpoint (%1) \"%2\" is not a valid URL such as %3"_s.arg(
            name, sanitizeRemoteText(displayUrl(endpoint), 200),
            QString(Settings::spec(SettingId::FabricEndpoint).defaultValue));
    if (!endpoint.userInfo().isEmpty())
        return u"the Fabric endpoint (%1) must not carry a user name or password"_s.arg(name);
    if (endpoint.hasQuery() || endpoint.hasFragment())
        return u"the Fabric endpoint (%1) must not carry a query or fragment"_s.arg(name);
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
    return u"the Fabric endpoint (%1) must be an https:// URL"_s.arg(name);
}

} // namespace fb
