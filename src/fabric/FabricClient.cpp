// FabricClient: see FabricClient.h. The safety rules it keeps, in one place:
//  * a real create is written once, on a fresh connection of its own (FabricHttpTransport.h:
//    never a reused keep-alive one, never rewritten), no redirect is followed, and neither a
//    401 nor a 5xx nor a network error leads to a second attempt;
//  * reads and dry runs are retried exactly once, after a 401, with a fresh token (and the
//    transport sends them once more on a fresh connection when a reused keep-alive one turns
//    out closed before any byte of the answer);
//  * the client secret and access tokens never reach a log line, a message or a result.
// Where the jobs live: FabricClientToken.cpp (the OAuth2 token cache), FabricClientHttpCall.cpp
// (one HTTP exchange), FabricHttpTransport.cpp (HTTP/1.1 on sockets, the keep-alive pool),
// FabricHttpParser.cpp (a response, bounded and strict), FabricHttpOutcome.cpp (what an answer
// means, pure), FabricClientPriceCall.cpp (the rate-card context), FabricConfig.cpp (the
// configuration).
#include "fabric/FabricClient_p.h"

#include "fabric/FabricParsing.h"

#include <QJsonDocument>
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

FabricHttpRequestSpec requestSpec(const FabricConfig &config, QByteArray method, QUrl url,
                                  const QString &correlationId)
{
    FabricHttpRequestSpec spec;
    spec.method = std::move(method);
    spec.url = std::move(url);
    spec.timeoutMs = config.timeoutMs;
    spec.maxResponseBytes = config.maxResponseBytes;
    spec.headers = {
        {QByteArrayLiteral("Accept"), QByteArrayLiteral("application/json")},
        {QByteArrayLiteral("User-Agent"), QByteArrayLiteral("fabric-broker/" FB_VERSION)},
        {QByteArrayLiteral("X-CORRELATION-ID"), correlationId.toLatin1()}};
    if (spec.method != "GET") {
        spec.sendBody = true;
        spec.headers.append(
            {QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
    }
    return spec;
}

QNetworkReply::NetworkError networkErrorOf(FabricHttpResponse::Error error)
{
    using E = FabricHttpResponse::Error;
    switch (error) {
    case E::None:
        return QNetworkReply::NoError;
    case E::Timeout:
        return QNetworkReply::TimeoutError;
    case E::Closed:
        return QNetworkReply::RemoteHostClosedError;
    case E::Refused:
        return QNetworkReply::ConnectionRefusedError;
    case E::HostNotFound:
        return QNetworkReply::HostNotFoundError;
    case E::Tls:
        return QNetworkReply::SslHandshakeFailedError;
    case E::Proxy:
        return QNetworkReply::ProxyConnectionRefusedError;
    case E::TooLarge:
        return QNetworkReply::OperationCanceledError;
    case E::Protocol: // a malformed answer: described by the error string, below 200 on purpose
    case E::Other:
        break;
    }
    return QNetworkReply::UnknownNetworkError;
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
    d->transport = new FabricHttpTransport(this);
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
        FabricHttpRequest *reply = d->tokenReply;
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
    d->transport->closeIdle();
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
    return newPriceCall(this, d, request, this);
}

FabricCall *FabricClient::testConnection()
{
    return newHttpCall(d, FabricCallMode::TestConnection, QByteArrayLiteral("POST"),
                       QString(kTokenPath), {}, {}, ChangeType::ConnectionCreate, this);
}

} // namespace fb
