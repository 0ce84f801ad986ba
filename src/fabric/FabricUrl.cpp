#include "fabric/FabricUrl.h"

namespace fb {

namespace {

int defaultPort(const QString &scheme)
{
    return scheme.compare(QLatin1StringView("https"), Qt::CaseInsensitive) == 0 ? 443 : 80;
}

} // namespace

bool isLoopbackHost(const QString &host)
{
    const QString h = host.toLower();
    return h == QLatin1StringView("localhost") || h == QLatin1StringView("127.0.0.1") ||
           h == QLatin1StringView("::1");
}

bool sameOrigin(const QUrl &a, const QUrl &b)
{
    return a.scheme().compare(b.scheme(), Qt::CaseInsensitive) == 0 &&
           a.host().compare(b.host(), Qt::CaseInsensitive) == 0 &&
           a.port(defaultPort(a.scheme())) == b.port(defaultPort(b.scheme()));
}

QString displayUrl(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment)
        .toDisplayString();
}

} // namespace fb
