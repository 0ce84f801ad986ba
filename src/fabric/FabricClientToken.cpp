// ClientCore (FabricClient_p.h): the URL of a path, redaction, the exchange log, and the OAuth2
// client-credentials token cache: one shared token request at a time, refreshed before expiry,
// dropped on a 401 or when the configuration changes. Neither the client secret nor a token ever
// reaches a log line, a message or a result.
#include "fabric/FabricClient_p.h"

#include "fabric/FabricParsing.h"
#include "fabric/FabricUrl.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>

namespace fb {

namespace {

using Kind = FabricResult::Kind;

constexpr qint64 kDefaultTokenLifetimeS = 3600;

} // namespace

QUrl ClientCore::urlFor(const QString &path, const QUrlQuery &query) const
{
    QUrl url = config.endpoint;
    QString base = url.path();
    while (base.endsWith(u'/'))
        base.chop(1);
    url.setPath(base + path);
    if (query.isEmpty())
        url.setQuery(QString());
    else
        url.setQuery(query);
    return url;
}

namespace {

QString redactWith(QString text, const QStringList &secrets)
{
    for (const QString &s : secrets)
        text.replace(s, QStringLiteral("[redacted]"));
    return text;
}

bool containsAny(const QString &text, const QStringList &secrets)
{
    for (const QString &s : secrets) {
        if (text.contains(s))
            return true;
    }
    return false;
}

// Whether any string of v (keys included) holds a secret: the common case (none) copies nothing.
bool needsRedaction(const QJsonValue &v, const QStringList &secrets)
{
    switch (v.type()) {
    case QJsonValue::String:
        return containsAny(v.toString(), secrets);
    case QJsonValue::Array: {
        const QJsonArray a = v.toArray();
        for (const QJsonValue &e : a) {
            if (needsRedaction(e, secrets))
                return true;
        }
        return false;
    }
    case QJsonValue::Object: {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (containsAny(it.key(), secrets) || needsRedaction(it.value(), secrets))
                return true;
        }
        return false;
    }
    default:
        return false;
    }
}

QJsonValue redactedJson(const QJsonValue &v, const QStringList &secrets)
{
    switch (v.type()) {
    case QJsonValue::String:
        return redactWith(v.toString(), secrets);
    case QJsonValue::Array: {
        QJsonArray out;
        const QJsonArray a = v.toArray();
        for (const QJsonValue &e : a)
            out.append(redactedJson(e, secrets));
        return out;
    }
    case QJsonValue::Object: {
        QJsonObject out;
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            out.insert(redactWith(it.key(), secrets), redactedJson(it.value(), secrets));
        return out;
    }
    default:
        return v;
    }
}

} // namespace

// The client secret and every token this client used (shorter than 4 characters: not a secret
// worth blanking out of every word that contains it).
static QStringList secretsOf(const ClientCore &core)
{
    QStringList all = core.formerTokens;
    all << core.config.clientSecret << core.config.staticToken << core.cachedToken;
    all.removeIf([](const QString &s) { return s.size() < 4; });
    return all;
}

QString ClientCore::redact(QString text) const
{
    return redactWith(std::move(text), secretsOf(*this));
}

QJsonValue ClientCore::redactJson(const QJsonValue &value) const
{
    const QStringList secrets = secretsOf(*this);
    if (secrets.isEmpty() || !needsRedaction(value, secrets))
        return value;
    return redactedJson(value, secrets);
}

void ClientCore::logExchange(const QString &method, const QString &path, int status,
                             const QString &correlationId, qint64 elapsedMs)
{
    qCDebug(lcFabricClient).noquote()
        << method << path << "->"
        << (status > 0 ? QString::number(status) : QStringLiteral("no reply")) << "correlation"
        << correlationId << elapsedMs << "ms";
    emit q->requestFinished(method, path, status, correlationId, elapsedMs);
}

FabricResult ClientCore::authError(const QString &message) const
{
    FabricResult r;
    r.kind = Kind::AuthError;
    r.message = message;
    r.method = QStringLiteral("POST");
    r.path = kTokenPath;
    return r;
}

void ClientCore::invalidateToken(const QString &used)
{
    if (!used.isEmpty() && used == cachedToken) {
        formerTokens.append(cachedToken);
        if (formerTokens.size() > 8)
            formerTokens.removeFirst();
        cachedToken.clear();
        refreshAtMs = 0;
    }
}

void ClientCore::dropToken()
{
    invalidateToken(cachedToken);
    if (tokenReply) {
        FabricHttpRequest *old = tokenReply;
        tokenReply = nullptr;
        old->disconnect(q);
        old->abort();
        old->deleteLater();
    }
    ++tokenSerial;
    if (!tokenWaiters.isEmpty() && usesClientCredentials())
        startTokenRequest();
}

void ClientCore::acquireToken(TokenCallback cb)
{
    if (usesClientCredentials()) {
        if (!cachedToken.isEmpty() && clock->nowMs() < refreshAtMs) {
            cb(TokenOutcome{true, cachedToken, {}});
            return;
        }
        tokenWaiters.append(std::move(cb));
        if (!tokenReply)
            startTokenRequest();
        return;
    }
    if (!config.staticToken.isEmpty()) {
        cb(TokenOutcome{true, config.staticToken, {}});
        return;
    }
    if (config.sandbox) {
        cb(TokenOutcome{true, QString(), {}});
        return;
    }
    QString why;
    if (!config.clientId.isEmpty())
        why = QStringLiteral("EQUINIX_API_CLIENTID is set but EQUINIX_API_CLIENTSECRET is not");
    else if (!config.clientSecret.isEmpty())
        why = QStringLiteral("EQUINIX_API_CLIENTSECRET is set but EQUINIX_API_CLIENTID is not");
    else
        why = QStringLiteral("no Fabric credentials are configured");
    cb(TokenOutcome{false,
                    {},
                    authError(why + QStringLiteral(": set EQUINIX_API_CLIENTID and "
                                                   "EQUINIX_API_CLIENTSECRET (or "
                                                   "EQUINIX_API_TOKEN) and restart"))});
}

void ClientCore::startTokenRequest()
{
    // The policy's fabric.endpoint: the secret never goes to another endpoint, not even when
    // the lock arrives while callers wait for a token.
    if (const QString p = config.lockProblem(lockedEndpoint, lockSource); !p.isEmpty()) {
        FabricResult refused =
            authError(QStringLiteral("Refused to call Fabric: %1; nothing was sent").arg(p));
        refused.kind = Kind::NetworkError;
        // Answered on the next turn of the event loop, never inside the setter that got here.
        QMetaObject::invokeMethod(
            q,
            [waiters = std::exchange(tokenWaiters, {}), refused] {
                for (const TokenCallback &cb : waiters)
                    cb(TokenOutcome{false, {}, refused});
            },
            Qt::QueuedConnection);
        return;
    }
    const QString correlationId = newCorrelationId();
    FabricHttpRequestSpec spec =
        requestSpec(config, QByteArrayLiteral("POST"), urlFor(kTokenPath), correlationId);
    spec.body =
        QJsonDocument(QJsonObject{
                          {QStringLiteral("grant_type"), QStringLiteral("client_credentials")},
                          {QStringLiteral("client_id"), config.clientId},
                          {QStringLiteral("client_secret"), config.clientSecret},
                      })
            .toJson(QJsonDocument::Compact);
    // Asking for a token twice is harmless: sent once more when a reused connection was stale.
    spec.retryOnStale = true;
    FabricHttpRequest *reply = transport->request(std::move(spec), transport);
    tokenReply = reply;
    const quint64 serial = ++tokenSerial;
    auto elapsed = std::make_shared<QElapsedTimer>();
    elapsed->start();
    QObject::connect(reply, &FabricHttpRequest::finished, q,
                     [this, reply, serial, correlationId, elapsed] {
                         reply->deleteLater();
                         if (serial != tokenSerial)
                             return; // superseded by setConfig()
                         tokenReply = nullptr;
                         finishTokenRequest(reply, correlationId, elapsed->elapsed());
                     });
    reply->start();
}

void ClientCore::finishTokenRequest(const FabricHttpRequest *reply, const QString &correlationId,
                                    qint64 elapsedMs)
{
    const FabricHttpResponse &response = reply->response();
    const bool tooLarge = response.error == FabricHttpResponse::Error::TooLarge;
    // An answer cut short (timeout, closed, malformed) is no answer, as with QNetworkReply.
    const int status = response.error == FabricHttpResponse::Error::None ? response.status : 0;
    // requestFinished: a handler may delete the client (and this with it).
    const QPointer<FabricClient> alive(q);
    logExchange(QStringLiteral("POST"), kTokenPath, status, correlationId, elapsedMs);
    if (!alive)
        return;
    const QString where = displayUrl(urlFor(kTokenPath));
    const QByteArray bytes = tooLarge ? QByteArray() : response.body;
    TokenOutcome out;
    auto fail = [&](const QString &message) {
        out.ok = false;
        out.error = authError(message);
        out.error.httpStatus = status;
        out.error.correlationId = correlationId;
        out.error.requestSent = true;
    };
    if (tooLarge) {
        fail(QStringLiteral("could not obtain a Fabric access token: the reply of %1 was "
                            "larger than %2 bytes")
                 .arg(where)
                 .arg(config.maxResponseBytes));
    } else if (status == 0) {
        const bool timedOut = response.error == FabricHttpResponse::Error::Timeout;
        fail(timedOut ? QStringLiteral("could not obtain a Fabric access token: %1 did not "
                                       "answer within %2 ms")
                            .arg(where)
                            .arg(config.timeoutMs)
                      : QStringLiteral("could not obtain a Fabric access token from %1: %2")
                            .arg(where, sanitizeRemoteText(response.errorString)));
    } else if (status >= 200 && status < 300) {
        const auto json = parseStrictJson(bytes);
        const QJsonObject o = json ? json->toObject() : QJsonObject();
        const QString token = o.value(QLatin1StringView("access_token")).toString();
        bool printable = true; // it goes into a header line: no control character, ASCII only
        for (const QChar c : token)
            printable = printable && c.unicode() > 0x20 && c.unicode() < 0x7f;
        if (!token.isEmpty() && !printable) {
            fail(QStringLiteral("could not obtain a Fabric access token: %1 answered HTTP %2 "
                                "with an access_token that is not printable ASCII")
                     .arg(where)
                     .arg(status));
        } else if (token.isEmpty()) {
            fail(QStringLiteral("could not obtain a Fabric access token: %1 answered HTTP %2 "
                                "without an access_token")
                     .arg(where)
                     .arg(status));
        } else {
            const QJsonValue timeout = o.value(QLatin1StringView("token_timeout"));
            bool ok = false;
            qint64 lifetime = timeout.isString() ? timeout.toString().trimmed().toLongLong(&ok)
                                                 : qint64(timeout.toDouble(-1));
            if (timeout.isDouble())
                ok = lifetime > 0;
            if (!ok || lifetime <= 0)
                lifetime = kDefaultTokenLifetimeS;
            // Refresh early: 60 s before expiry, or 10% of the lifetime if that is shorter.
            const qint64 margin = std::min<qint64>(60, lifetime / 10);
            if (!cachedToken.isEmpty())
                formerTokens.append(cachedToken);
            cachedToken = token;
            refreshAtMs = clock->nowMs() + (lifetime - margin) * 1000;
            out.ok = true;
            out.token = token;
            qCDebug(lcFabricClient) << "access token obtained, lifetime" << lifetime << "s";
        }
    } else {
        QString detail;
        if (const auto oauth = describeOAuthError(bytes); oauth && !oauth->isEmpty())
            detail = *oauth;
        else if (const auto list = parseFabricErrorList(bytes))
            detail = describeFabricErrors(*list);
        const bool rejected = status == 400 || status == 401 || status == 403;
        QString msg = rejected ? QStringLiteral("Equinix rejected the client credentials "
                                                "(HTTP %1)")
                                     .arg(status)
                               : QStringLiteral("could not obtain a Fabric access token: %1 "
                                                "answered HTTP %2")
                                     .arg(where)
                                     .arg(status);
        if (!detail.isEmpty())
            msg += QStringLiteral(": ") + detail;
        if (rejected)
            msg += QStringLiteral("; check EQUINIX_API_CLIENTID and EQUINIX_API_CLIENTSECRET "
                                  "(not retried: Equinix locks the client after repeated "
                                  "failures)");
        fail(msg);
    }
    if (!out.ok) {
        out.error.message = redact(out.error.message);
        out.error.body = redactJson(out.error.body);
    }
    const QList<TokenCallback> waiters = std::exchange(tokenWaiters, {});
    for (const TokenCallback &cb : waiters)
        cb(out);
}

} // namespace fb
