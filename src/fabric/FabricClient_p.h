#pragma once
// The Fabric client's internals, shared by its files (not part of its interface): the transport
// settings every request gets, the path rules, and ClientCore, the state one FabricClient shares
// with its calls (configuration, the HTTP transport and its keep-alive pool, the OAuth2 token
// cache in FabricClientToken.cpp).
#include "fabric/FabricClient.h"
#include "fabric/FabricHttpOutcome.h"
#include "fabric/FabricHttpTransport.h"

#include <QLoggingCategory>
#include <QPointer>
#include <QStringList>

#include <functional>

namespace fb {

Q_DECLARE_LOGGING_CATEGORY(lcFabricClient)

inline constexpr QLatin1StringView kTokenPath("/oauth2/v1/token");
inline constexpr QLatin1StringView kPricePath("/fabric/v4/prices/search");
inline constexpr QLatin1StringView kApiPrefix("/fabric/v4/");

// Only Fabric v4 endpoints; search() only to the spec's .../search endpoints. Empty = allowed.
QString pathProblem(const QString &path, bool mustBeSearch);
// A request with the transport rules every call gets: the timeout and reply cap of the
// configuration, Accept: application/json, User-Agent, X-CORRELATION-ID (and, with a body,
// Content-Type: application/json). No cache, no cookies, no redirects: the transport has none.
FabricHttpRequestSpec requestSpec(const FabricConfig &config, QByteArray method, QUrl url,
                                  const QString &correlationId);
QString newCorrelationId();
// The transport's error as the NetworkError decideHttpOutcome() (FabricHttpOutcome.h) reads.
QNetworkReply::NetworkError networkErrorOf(FabricHttpResponse::Error error);

struct TokenOutcome {
    bool ok = false;
    QString token; // empty for the sandbox without credentials: no Authorization header
    FabricResult error;
};
using TokenCallback = std::function<void(const TokenOutcome &)>;

// The shared state of one client: configuration, the access manager, the token cache.
class ClientCore {
public:
    FabricClient *q = nullptr;
    FabricConfig config;
    QString lockedEndpoint; // the policy's fabric.endpoint (FabricClient::setEndpointLock)
    QString lockSource;
    FabricHttpTransport *transport = nullptr;
    const Clock *clock = Clock::system();

    QString cachedToken;
    qint64 refreshAtMs = 0;
    QStringList formerTokens; // redacted too, in case a reply echoes one
    QPointer<FabricHttpRequest> tokenReply;
    quint64 tokenSerial = 0;
    QList<TokenCallback> tokenWaiters;

    bool usesClientCredentials() const
    {
        return !config.clientId.isEmpty() && !config.clientSecret.isEmpty();
    }
    QUrl urlFor(const QString &path, const QUrlQuery &query = {}) const;
    QString redact(QString text) const;
    // redact() over every string of a JSON value (object keys too), objects and arrays
    // recursively: a result's body carries Fabric's JSON as it came, which may echo a secret.
    QJsonValue redactJson(const QJsonValue &value) const;
    void logExchange(const QString &method, const QString &path, int status,
                     const QString &correlationId, qint64 elapsedMs);
    FabricResult authError(const QString &message) const;
    void invalidateToken(const QString &used);
    void dropToken();
    // Calls back at once when a token is cached (or none is needed), otherwise when the one
    // shared token request finishes.
    void acquireToken(TokenCallback cb);

private:
    void startTokenRequest();
    void finishTokenRequest(const FabricHttpRequest *reply, const QString &correlationId,
                            qint64 elapsedMs);
};

// The calls (FabricClientHttpCall.cpp, FabricClientPriceCall.cpp); each finishes exactly once.
// fileAnswer (reads only): a 2xx body is not parsed; the result names its type, size and SHA-256.
FabricCall *newHttpCall(ClientCore *core, FabricCallMode mode, QByteArray method, QString path,
                        QUrlQuery query, QByteArray body, ChangeType changeType, QObject *parent,
                        bool fileAnswer = false);
FabricCall *newPriceCall(FabricClient *client, ClientCore *core, const CompiledRequest &request,
                         QObject *parent);

} // namespace fb
