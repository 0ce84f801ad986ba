// FabricClient: see FabricClient.h. The safety rules it keeps, in one place:
//  * a real create is handed to Qt at most once and Qt cannot resend it either
//    (FabricClientHttpCall.cpp: OnceUploadDevice, HTTP/1.1, no redirect), and neither a 401
//    nor a 5xx nor a network error leads to a second attempt;
//  * reads and dry runs are retried exactly once, after a 401, with a fresh token;
//  * the client secret and access tokens never reach a log line, a message or a result.
// Where the jobs live: FabricClientToken.cpp (the OAuth2 token cache), FabricClientHttpCall.cpp
// (one HTTP exchange), FabricHttpOutcome.cpp (what an answer means, pure),
// FabricClientPriceCall.cpp (the rate-card context), FabricConfig.cpp (the configuration).
#include "fabric/FabricClient_p.h"

#include "fabric/FabricParsing.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QUuid>

namespace fb {

Q_LOGGING_CATEGORY(lcFabricClient, "fabricbroker.fabric.client")

// Only Fabric v4 endpoints; search() only to the spec's .../search endpoints.
QString pathProblem(const QString &path, bool mustBeSearch)
{
    const QString shown = u'"' + sanitizeRemoteText(path, 120) + u'"';
    if (!path.startsWith(kApiPrefix) || path.size() == kApiPrefix.size())
        return QStringLiteral("the path %1 is not under /fabric/v4/; only Fabric v4 endpoints "
                              "can be called")
            .arg(shown);
    for (const QChar c : path) {
        const bool ok =
            (c.unicode() < 128 && c.isLetterOrNumber()) || QStringView(u"/-_.~:@").contains(c);
        if (!ok)
            return QStringLiteral("the path %1 contains a character that is not allowed in a "
                                  "Fabric path (only letters, digits and / - _ . ~ : @)")
                .arg(shown);
    }
    const QStringList segments = path.mid(1).split(u'/');
    for (const QString &s : segments) {
        if (s.isEmpty() || s == QLatin1StringView(".") || s == QLatin1StringView(".."))
            return QStringLiteral("the path %1 has an empty or dot segment").arg(shown);
    }
    if (mustBeSearch && !path.endsWith(QLatin1StringView("/search")))
        return QStringLiteral("search() only posts to the spec's .../search endpoints and %1 is "
                              "not one; use get() for reads")
            .arg(shown);
    return {};
}

void configureRequest(QNetworkRequest &req, const QString &correlationId, int timeoutMs)
{
    req.setTransferTimeout(timeoutMs);
    // HTTP/1.1 only: predictable single-request semantics (no HTTP/2 stream replays).
    req.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    req.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    req.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    req.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    req.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                     QNetworkRequest::ManualRedirectPolicy);
    req.setRawHeader("Accept", "application/json");
    req.setRawHeader("User-Agent", "fabric-broker/" FB_VERSION);
    req.setRawHeader("X-CORRELATION-ID", correlationId.toLatin1());
}

QString newCorrelationId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

class FabricClient::Private : public ClientCore {};

// ---------------------------------------------------------------------------------------------
// FabricClient

FabricClient::FabricClient(FabricConfig config, QObject *parent)
    : QObject(parent)
    , d(new Private)
{
    qRegisterMetaType<fb::FabricResult>();
    d->q = this;
    d->config = std::move(config);
    d->nam = new QNetworkAccessManager(this);
    d->nam->setAutoDeleteReplies(false);
    d->nam->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

FabricClient::~FabricClient()
{
    // Every call still running finishes (Cancelled, or OutcomeUnknown for a sent create).
    const auto calls = findChildren<FabricCall *>(Qt::FindDirectChildrenOnly);
    for (FabricCall *call : calls) {
        if (!call->isFinished())
            call->abort();
    }
    if (d->tokenReply) {
        QNetworkReply *reply = d->tokenReply;
        d->tokenReply = nullptr;
        reply->disconnect(this);
        reply->abort();
    }
    d->tokenWaiters.clear();
    delete d;
}

const FabricConfig &FabricClient::config() const
{
    return d->config;
}

void FabricClient::setConfig(FabricConfig config)
{
    d->config = std::move(config);
    d->dropToken();
    emit configChanged();
}

void FabricClient::setEndpointLock(const QString &endpoint, const QString &source)
{
    if (d->lockedEndpoint == endpoint && d->lockSource == source)
        return;
    d->lockedEndpoint = endpoint;
    d->lockSource = source;
    d->dropToken();
}

void FabricClient::setClock(const Clock *clock)
{
    d->clock = clock ? clock : Clock::system();
}

FabricCall *FabricClient::dryRun(const CompiledRequest &request)
{
    return newHttpCall(d, FabricCallMode::DryRun, request.method, request.path, {}, request.body,
                       request.changeType, this);
}

FabricCall *FabricClient::create(const CompiledRequest &request)
{
    return newHttpCall(d, FabricCallMode::Create, request.method, request.path, {}, request.body,
                       request.changeType, this);
}

FabricCall *FabricClient::get(const QString &path, const QUrlQuery &query)
{
    return newHttpCall(d, FabricCallMode::Read, QByteArrayLiteral("GET"), path, query, {},
                       ChangeType::ConnectionCreate, this);
}

FabricCall *FabricClient::getFile(const QString &path, const QUrlQuery &query)
{
    return newHttpCall(d, FabricCallMode::Read, QByteArrayLiteral("GET"), path, query, {},
                       ChangeType::ConnectionCreate, this, true);
}

FabricCall *FabricClient::search(const QString &path, const QJsonObject &body,
                                 const QUrlQuery &query)
{
    return newHttpCall(d, FabricCallMode::Read, QByteArrayLiteral("POST"), path, query,
                       QJsonDocument(body).toJson(QJsonDocument::Compact),
                       ChangeType::ConnectionCreate, this);
}

FabricCall *FabricClient::priceContext(const CompiledRequest &request)
{
    return newPriceCall(this, request, this);
}

FabricCall *FabricClient::testConnection()
{
    return newHttpCall(d, FabricCallMode::TestConnection, QByteArrayLiteral("POST"),
                       QString(kTokenPath), {}, {}, ChangeType::ConnectionCreate, this);
}

} // namespace fb
