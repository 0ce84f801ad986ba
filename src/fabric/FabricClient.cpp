// FabricClient: see FabricClient.h. The safety rules this file keeps, in one place:
//  * a real create is handed to Qt at most once and Qt cannot resend it either: its body goes
//    through OnceUploadDevice, which refuses the rewind Qt needs for its internal resend (Qt 6.4
//    resends a POST whose connection closes before the reply), HTTP/2 is off, no redirect is
//    followed, and neither a 401 nor a 5xx nor a network error leads to a second attempt;
//  * reads and dry runs are retried exactly once, after a 401, with a fresh token;
//  * the client secret and access tokens never reach a log line, a message or a result.
#include "fabric/FabricClient.h"

#include "fabric/FabricParsing.h"
#include "fabric/FabricUrl.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QUuid>

#include <atomic>
#include <functional>

namespace fb {

Q_LOGGING_CATEGORY(lcFabricClient, "fabricbroker.fabric.client")

namespace {

using Kind = FabricResult::Kind;

constexpr qint64 kDefaultTokenLifetimeS = 3600;
constexpr QLatin1StringView kTokenPath("/oauth2/v1/token");
constexpr QLatin1StringView kPricePath("/fabric/v4/prices/search");
constexpr QLatin1StringView kApiPrefix("/fabric/v4/");

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

// A create body streamed to Qt that cannot be rewound: Qt rewinds the upload device to resend a
// request (for instance when the server closes the connection before answering), and a create
// must never be sent twice. Rewinding before the first byte was read is harmless and allowed.
class OnceUploadDevice final : public QIODevice {
public:
    explicit OnceUploadDevice(QByteArray data, QObject *parent = nullptr)
        : QIODevice(parent)
        , m_data(std::move(data))
    {
        open(QIODevice::ReadOnly | QIODevice::Unbuffered);
    }
    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override
    {
        return m_data.size() - m_pos.load() + QIODevice::bytesAvailable();
    }
    bool atEnd() const override { return m_pos.load() >= m_data.size(); }
    bool reset() override { return m_pos.load() == 0; }
    bool seek(qint64 pos) override { return pos == 0 && m_pos.load() == 0; }
    bool everRead() const { return m_pos.load() > 0; }

protected:
    qint64 readData(char *out, qint64 maxSize) override
    {
        const qint64 pos = m_pos.load();
        const qint64 n = std::min<qint64>(maxSize, m_data.size() - pos);
        if (n <= 0)
            return 0;
        memcpy(out, m_data.constData() + pos, size_t(n));
        m_pos.store(pos + n);
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QByteArray m_data;
    std::atomic<qint64> m_pos{0};
};

struct TokenOutcome {
    bool ok = false;
    QString token; // empty for the sandbox without credentials: no Authorization header
    FabricResult error;
};
using TokenCallback = std::function<void(const TokenOutcome &)>;

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

} // namespace

// ---------------------------------------------------------------------------------------------
// The shared state of one client: configuration, the access manager, the token cache.

class ClientCore {
public:
    FabricClient *q = nullptr;
    FabricConfig config;
    QNetworkAccessManager *nam = nullptr;
    const Clock *clock = Clock::system();

    QString cachedToken;
    qint64 refreshAtMs = 0;
    QStringList formerTokens; // redacted too, in case a reply echoes one
    QPointer<QNetworkReply> tokenReply;
    quint64 tokenSerial = 0;
    QList<TokenCallback> tokenWaiters;

    bool usesClientCredentials() const
    {
        return !config.clientId.isEmpty() && !config.clientSecret.isEmpty();
    }

    QUrl urlFor(const QString &path, const QUrlQuery &query = {}) const
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

    QString redact(QString text) const
    {
        QStringList secrets = formerTokens;
        secrets << config.clientSecret << config.staticToken << cachedToken;
        for (const QString &s : std::as_const(secrets)) {
            if (s.size() >= 4)
                text.replace(s, QStringLiteral("[redacted]"));
        }
        return text;
    }

    void logExchange(const QString &method, const QString &path, int status,
                     const QString &correlationId, qint64 elapsedMs)
    {
        qCDebug(lcFabricClient).noquote()
            << method << path << "->"
            << (status > 0 ? QString::number(status) : QStringLiteral("no reply")) << "correlation"
            << correlationId << elapsedMs << "ms";
        emit q->requestFinished(method, path, status, correlationId, elapsedMs);
    }

    FabricResult authError(const QString &message) const
    {
        FabricResult r;
        r.kind = Kind::AuthError;
        r.message = message;
        r.method = QStringLiteral("POST");
        r.path = kTokenPath;
        return r;
    }

    void invalidateToken(const QString &used)
    {
        if (!used.isEmpty() && used == cachedToken) {
            formerTokens.append(cachedToken);
            if (formerTokens.size() > 8)
                formerTokens.removeFirst();
            cachedToken.clear();
            refreshAtMs = 0;
        }
    }

    void dropToken()
    {
        invalidateToken(cachedToken);
        if (tokenReply) {
            QNetworkReply *old = tokenReply;
            tokenReply = nullptr;
            old->disconnect(q);
            old->abort();
            old->deleteLater();
        }
        ++tokenSerial;
        if (!tokenWaiters.isEmpty() && usesClientCredentials())
            startTokenRequest();
    }

    // Calls back at once when a token is cached (or none is needed), otherwise when the one
    // shared token request finishes.
    void acquireToken(TokenCallback cb)
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

    void startTokenRequest()
    {
        const QString correlationId = newCorrelationId();
        QNetworkRequest req(urlFor(kTokenPath));
        configureRequest(req, correlationId, config.timeoutMs);
        req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        const QByteArray body =
            QJsonDocument(QJsonObject{
                              {QStringLiteral("grant_type"), QStringLiteral("client_credentials")},
                              {QStringLiteral("client_id"), config.clientId},
                              {QStringLiteral("client_secret"), config.clientSecret},
                          })
                .toJson(QJsonDocument::Compact);
        QNetworkReply *reply = nam->post(req, body);
        tokenReply = reply;
        const quint64 serial = ++tokenSerial;
        auto elapsed = std::make_shared<QElapsedTimer>();
        elapsed->start();
        const qint64 cap = config.maxResponseBytes;
        auto tooLarge = std::make_shared<bool>(false);
        QObject::connect(reply, &QNetworkReply::downloadProgress, q,
                         [reply, cap, tooLarge](qint64 received, qint64 total) {
                             if (received > cap || total > cap) {
                                 *tooLarge = true;
                                 reply->abort();
                             }
                         });
        QObject::connect(reply, &QNetworkReply::finished, q,
                         [this, reply, serial, correlationId, elapsed, tooLarge] {
                             reply->deleteLater();
                             if (serial != tokenSerial)
                                 return; // superseded by setConfig()
                             tokenReply = nullptr;
                             finishTokenRequest(reply, correlationId, elapsed->elapsed(),
                                                *tooLarge);
                         });
    }

    void finishTokenRequest(QNetworkReply *reply, const QString &correlationId, qint64 elapsedMs,
                            bool tooLarge)
    {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        logExchange(QStringLiteral("POST"), kTokenPath, status, correlationId, elapsedMs);
        const QString where = displayUrl(urlFor(kTokenPath));
        const QByteArray bytes = tooLarge ? QByteArray() : reply->readAll();
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
            const auto err = reply->error();
            const bool timedOut =
                err == QNetworkReply::TimeoutError || err == QNetworkReply::OperationCanceledError;
            fail(timedOut ? QStringLiteral("could not obtain a Fabric access token: %1 did not "
                                           "answer within %2 ms")
                                .arg(where)
                                .arg(config.timeoutMs)
                          : QStringLiteral("could not obtain a Fabric access token from %1: %2")
                                .arg(where, sanitizeRemoteText(reply->errorString())));
        } else if (status >= 200 && status < 300) {
            const auto json = parseStrictJson(bytes);
            const QJsonObject o = json ? json->toObject() : QJsonObject();
            const QString token = o.value(QLatin1StringView("access_token")).toString();
            if (token.isEmpty()) {
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
        if (!out.ok)
            out.error.message = redact(out.error.message);
        const QList<TokenCallback> waiters = std::exchange(tokenWaiters, {});
        for (const TokenCallback &cb : waiters)
            cb(out);
    }
};

class FabricClient::Private : public ClientCore {};

namespace {

// ---------------------------------------------------------------------------------------------
// One HTTP exchange (plus, for reads and dry runs, one retry after a 401).

class HttpCall final : public FabricCall {
public:
    enum class Mode { Read, DryRun, Create, TestConnection };

    HttpCall(ClientCore *core, Mode mode, QByteArray method, QString path, QUrlQuery query,
             QByteArray body, ChangeType changeType, QObject *parent)
        : FabricCall(parent)
        , m_core(core)
        , m_mode(mode)
        , m_method(std::move(method))
        , m_path(std::move(path))
        , m_query(std::move(query))
        , m_body(std::move(body))
        , m_changeType(changeType)
    {
        if (m_mode == Mode::DryRun)
            m_query.addQueryItem(QStringLiteral("dryRun"), QStringLiteral("true"));
        QMetaObject::invokeMethod(
            this, [this] { start(); }, Qt::QueuedConnection);
    }

    bool isFinished() const override { return m_finished; }

    bool abortIfNotSent() override
    {
        if (m_finished || bytesLeft())
            return false;
        abort();
        return true;
    }

    void abort() override
    {
        if (m_finished)
            return;
        if (!m_reply) {
            finish(result(Kind::Cancelled, QStringLiteral("The %1 was cancelled before it was "
                                                          "sent to Fabric; nothing was sent.")
                                               .arg(what())),
                   false);
            return;
        }
        const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (m_mode == Mode::Create && bytesLeft()) {
            const QString known =
                status > 0 ? QStringLiteral(" (Fabric had already answered HTTP %1)").arg(status)
                           : QString();
            finish(result(Kind::OutcomeUnknown,
                          QStringLiteral("The %1 create was sent to Fabric and then cancelled "
                                         "before the reply was read%2, so it may or may not "
                                         "exist; it was not resent. %3")
                              .arg(noun(), known, lookupHint())),
                   true);
            return;
        }
        finish(result(Kind::Cancelled, QStringLiteral("The %1 was cancelled before Fabric "
                                                      "answered.")
                                           .arg(what())),
               m_mode == Mode::Create ? false : bytesLeft());
    }

private:
    QString noun() const { return changeTypeNoun(m_changeType); }
    QString what() const
    {
        switch (m_mode) {
        case Mode::Create:
            return noun() + QStringLiteral(" create");
        case Mode::DryRun:
            return noun() + QStringLiteral(" dry run");
        case Mode::TestConnection:
            return QStringLiteral("connection test");
        case Mode::Read:
            break;
        }
        return QStringLiteral("request %1 %2").arg(QString::fromLatin1(m_method), m_path);
    }
    QString shownPath() const
    {
        return m_mode == Mode::DryRun ? m_path + QStringLiteral("?dryRun=true") : m_path;
    }
    bool bytesLeft() const
    {
        if (m_mode == Mode::Create)
            return m_requestSentSignal || (m_device && m_device->everRead());
        return m_requestSentSignal;
    }

    QString lookupHint() const
    {
        const QString search = changeTypePath(m_changeType) + QStringLiteral("/search");
        const QJsonObject body = QJsonDocument::fromJson(m_body).object();
        const QString name =
            sanitizeRemoteText(body.value(QLatin1StringView("name")).toString(), 120);
        QString s = name.isEmpty()
                        ? QStringLiteral("Look it up before trying again: search the recent %1s "
                                         "with POST %2")
                              .arg(noun(), search)
                        : QStringLiteral("Look it up before trying again: POST %1 with a filter "
                                         "on /name = \"%2\"")
                              .arg(search, name);
        if (!m_correlationId.isEmpty())
            s += QStringLiteral(", and quote correlation id %1 to Equinix support if needed")
                     .arg(m_correlationId);
        return s + u'.';
    }

    FabricResult result(Kind kind, const QString &message, int status = 0) const
    {
        FabricResult r;
        r.kind = kind;
        r.message = message;
        r.httpStatus = status;
        return r;
    }

    void start()
    {
        if (m_finished)
            return;
        if (const QString p = m_core->config.endpointProblem(); !p.isEmpty()) {
            finish(result(Kind::NetworkError, QStringLiteral("Refused to call Fabric: %1; "
                                                             "nothing was sent.")
                                                  .arg(p)),
                   false);
            return;
        }
        QString problem;
        switch (m_mode) {
        case Mode::Read:
            problem = pathProblem(m_path, m_method == "POST");
            break;
        case Mode::DryRun:
        case Mode::Create: {
            if (m_method != "POST" || m_path != changeTypePath(m_changeType))
                problem = QStringLiteral("a %1 is only ever POSTed to %2")
                              .arg(changeTypeName(m_changeType), changeTypePath(m_changeType));
            else if (!parseStrictJson(m_body).value_or(QJsonValue()).isObject())
                problem = QStringLiteral("the compiled body is not a JSON object");
            break;
        }
        case Mode::TestConnection:
            break;
        }
        if (!problem.isEmpty()) {
            finish(result(Kind::NetworkError,
                          QStringLiteral("Refused to send the %1: %2; nothing was sent.")
                              .arg(what(), problem)),
                   false);
            return;
        }
        acquireThenSend();
    }

    void acquireThenSend()
    {
        QPointer<HttpCall> self(this);
        m_core->acquireToken([self](const TokenOutcome &t) {
            if (self && !self->m_finished)
                self->onToken(t);
        });
    }

    void onToken(const TokenOutcome &t)
    {
        if (!t.ok) {
            FabricResult r = t.error;
            if (m_mode == Mode::Create)
                r.message +=
                    QStringLiteral("; the %1 create was not sent, nothing was created").arg(noun());
            r.message += u'.';
            r.correlationId.clear();
            finish(r, false);
            return;
        }
        m_token = t.token;
        if (m_mode == Mode::TestConnection) {
            QJsonObject body{
                {QStringLiteral("endpoint"), displayUrl(m_core->config.endpoint)},
                {QStringLiteral("credential_source"), m_core->config.credentialSource()},
                {QStringLiteral("sandbox"), m_core->config.sandbox}};
            QString msg;
            if (m_core->usesClientCredentials())
                msg = QStringLiteral("Fabric credentials work: an access token is available "
                                     "from %1.")
                          .arg(displayUrl(m_core->urlFor(kTokenPath)));
            else if (!m_core->config.staticToken.isEmpty())
                msg = QStringLiteral("A static token (EQUINIX_API_TOKEN) is configured; Fabric "
                                     "checks it on the first call.");
            else
                msg = QStringLiteral("The sandbox needs no credentials.");
            FabricResult r = result(Kind::Ok, msg);
            r.body = body;
            r.method = QStringLiteral("POST");
            finish(r, m_core->usesClientCredentials());
            return;
        }
        send();
    }

    void send()
    {
        m_correlationId = newCorrelationId();
        m_requestSentSignal = false;
        m_tooLarge = false;
        m_refusedRedirect.clear();
        m_elapsed.start();

        m_requestUrl = m_core->urlFor(m_path, m_query);
        QNetworkRequest req(m_requestUrl);
        configureRequest(req, m_correlationId, m_core->config.timeoutMs);
        if (m_mode == Mode::Read && m_method == "GET") {
            // Same-origin redirects only, checked in onRedirected(). POSTs (searches, dry runs,
            // creates) never follow a redirect: a 307 would replay the body elsewhere.
            req.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                             QNetworkRequest::UserVerifiedRedirectPolicy);
        }
        if (!m_token.isEmpty())
            req.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());

        QNetworkReply *reply = nullptr;
        if (m_method == "GET") {
            reply = m_core->nam->get(req);
        } else {
            req.setHeader(QNetworkRequest::ContentTypeHeader,
                          QByteArrayLiteral("application/json"));
            if (m_mode == Mode::Create) {
                req.setHeader(QNetworkRequest::ContentLengthHeader, qint64(m_body.size()));
                req.setAttribute(QNetworkRequest::DoNotBufferUploadDataAttribute, true);
                auto *device = new OnceUploadDevice(m_body);
                m_device = device;
                reply = m_core->nam->post(req, device);
                device->setParent(reply);
            } else {
                reply = m_core->nam->post(req, m_body);
            }
        }
        m_reply = reply;
        connect(reply, &QNetworkReply::finished, this, &HttpCall::onReplyFinished);
        connect(reply, &QNetworkReply::requestSent, this, [this] { m_requestSentSignal = true; });
        connect(reply, &QNetworkReply::uploadProgress, this, [this](qint64 sent, qint64) {
            if (sent > 0)
                m_requestSentSignal = true;
        });
        connect(reply, &QNetworkReply::downloadProgress, this,
                [this](qint64 received, qint64 total) {
                    const qint64 cap = m_core->config.maxResponseBytes;
                    if ((received > cap || total > cap) && m_reply && !m_tooLarge) {
                        m_tooLarge = true;
                        m_reply->abort();
                    }
                });
        connect(reply, &QNetworkReply::redirected, this, &HttpCall::onRedirected);
    }

    void onRedirected(const QUrl &target)
    {
        if (!m_reply)
            return;
        // Compared with the URL this call asked for: QNetworkReply::url() may already be the
        // redirect target when the signal arrives.
        const QUrl from = m_requestUrl;
        const QUrl to = from.resolved(target);
        if (sameOrigin(from, to) && pathProblem(to.path(), false).isEmpty()) {
            emit m_reply->redirectAllowed();
            return;
        }
        m_refusedRedirect = to;
        m_reply->abort();
    }

    void onReplyFinished()
    {
        QNetworkReply *reply = m_reply;
        if (m_finished || !reply)
            return;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        m_core->logExchange(QString::fromLatin1(m_method), shownPath(), status, m_correlationId,
                            m_elapsed.elapsed());
        const bool sent = bytesLeft() || status > 0;
        QByteArray bytes;
        if (!m_tooLarge && m_refusedRedirect.isEmpty() && status > 0) {
            bytes = reply->readAll();
            m_tooLarge = bytes.size() > m_core->config.maxResponseBytes;
        }
        if (m_tooLarge) {
            const QString tail = m_mode == Mode::Create
                                     ? QStringLiteral(" The %1 create may or may not have "
                                                      "succeeded; it was not resent. %2")
                                           .arg(noun(), lookupHint())
                                     : QString();
            finish(result(m_mode == Mode::Create ? Kind::OutcomeUnknown : Kind::InvalidResponse,
                          QStringLiteral("Fabric's reply to %1 %2 was larger than %3 bytes and "
                                         "was dropped.%4")
                              .arg(QString::fromLatin1(m_method), shownPath())
                              .arg(m_core->config.maxResponseBytes)
                              .arg(tail),
                          status),
                   sent);
            return;
        }
        if (!m_refusedRedirect.isEmpty()) {
            finish(result(Kind::HttpError,
                          QStringLiteral("Fabric answered %1 %2 with a redirect to %3, which was "
                                         "refused: only same-origin redirects within /fabric/v4/ "
                                         "are followed.")
                              .arg(QString::fromLatin1(m_method), m_path,
                                   sanitizeRemoteText(displayUrl(m_refusedRedirect), 200)),
                          status),
                   true);
            return;
        }
        const auto err = reply->error();
        if (status == 0 || (err != QNetworkReply::NoError && int(err) < 200)) {
            finishNetworkError(err, reply->errorString(), status);
            return;
        }
        finishHttp(status, bytes);
    }

    void finishNetworkError(QNetworkReply::NetworkError err, const QString &errorString, int status)
    {
        const bool timedOut =
            err == QNetworkReply::TimeoutError || err == QNetworkReply::OperationCanceledError;
        const bool sent = bytesLeft() || status > 0;
        QString reason;
        switch (err) {
        case QNetworkReply::TimeoutError:
        case QNetworkReply::OperationCanceledError:
            reason = QStringLiteral("no reply arrived within %1 ms").arg(m_core->config.timeoutMs);
            break;
        case QNetworkReply::RemoteHostClosedError:
        case QNetworkReply::ContentReSendError: // Qt wanted to resend; OnceUploadDevice refused
            reason = QStringLiteral("the connection was closed before a reply arrived");
            break;
        case QNetworkReply::ConnectionRefusedError:
            reason = QStringLiteral("the connection was refused");
            break;
        case QNetworkReply::HostNotFoundError:
            reason = QStringLiteral("the host was not found");
            break;
        default:
            reason = QStringLiteral("the connection failed (%1)")
                         .arg(sanitizeRemoteText(errorString, 200));
            break;
        }
        if (m_mode == Mode::Create) {
            if (sent) {
                qCWarning(lcFabricClient).noquote()
                    << "outcome unknown for POST" << m_path << "correlation" << m_correlationId;
                finish(result(Kind::OutcomeUnknown,
                              QStringLiteral("The %1 create was sent to Fabric but %2, so it may "
                                             "or may not have been created; it was not resent. "
                                             "%3")
                                  .arg(noun(), reason, lookupHint()),
                              status),
                       true);
            } else {
                finish(result(timedOut ? Kind::Timeout : Kind::NetworkError,
                              QStringLiteral("The %1 create could not be sent to Fabric at %2: "
                                             "%3; nothing was sent, so nothing was created.")
                                  .arg(noun(), displayUrl(m_core->config.endpoint), reason)),
                       false);
            }
            return;
        }
        if (timedOut) {
            finish(result(Kind::Timeout,
                          QStringLiteral("Fabric did not answer %1 %2 within %3 ms; try again "
                                         "later.")
                              .arg(QString::fromLatin1(m_method), shownPath())
                              .arg(m_core->config.timeoutMs),
                          status),
                   sent);
            return;
        }
        finish(result(Kind::NetworkError,
                      QStringLiteral("Could not reach Fabric at %1 for %2 %3: %4; check the "
                                     "network and EQUINIX_API_ENDPOINT.")
                          .arg(displayUrl(m_core->config.endpoint), QString::fromLatin1(m_method),
                               shownPath(), reason),
                      status),
               sent);
    }

    // A real create's answer, decided by decideCreateOutcome(): only a 4xx with a Fabric
    // ErrorList is a rejection; any other answer leaves the outcome unknown (never resent).
    void finishCreate(int status, const QByteArray &bytes)
    {
        const auto json = parseStrictJson(bytes);
        const auto errors = parseFabricErrorList(bytes);
        const QJsonValue uuidValue =
            json ? json->toObject().value(QLatin1StringView("uuid")) : QJsonValue();
        const QString uuid = uuidValue.isString() ? uuidValue.toString() : QString();
        const bool errorList = errors && !errors->isEmpty();
        const CreateOutcome outcome = decideCreateOutcome(true, status, errorList, !uuid.isEmpty());
        const QString detail = errorList ? describeFabricErrors(*errors) : QString();
        const QString colonDetail = detail.isEmpty() ? QString() : QStringLiteral(": ") + detail;
        if (status == 401)
            m_core->invalidateToken(m_token); // the next call fetches a fresh one
        FabricResult r;
        switch (outcome) {
        case CreateOutcome::Created:
            r = result(Kind::Ok,
                       QStringLiteral("Fabric created the %1 (HTTP %2, uuid %3).")
                           .arg(noun())
                           .arg(status)
                           .arg(sanitizeRemoteText(uuid, 80)),
                       status);
            break;
        case CreateOutcome::Rejected:
            if (status == 401)
                r = result(Kind::AuthError,
                           QStringLiteral("Fabric rejected the access token for the %1 create "
                                          "(HTTP 401)%2; nothing was created and it was not "
                                          "retried. Check the credentials; the next call fetches "
                                          "a fresh token.")
                               .arg(noun(), colonDetail),
                           status);
            else if (status == 403)
                r = result(Kind::AuthError,
                           QStringLiteral("Fabric refused the %1 create (HTTP 403)%2: the "
                                          "credentials lack the permission for it; nothing was "
                                          "created.")
                               .arg(noun(), colonDetail),
                           status);
            else
                r = result(Kind::FabricError,
                           QStringLiteral("Fabric rejected the %1 create (HTTP %2)%3; nothing was "
                                          "created.")
                               .arg(noun())
                               .arg(status)
                               .arg(colonDetail),
                           status);
            break;
        case CreateOutcome::Unknown:
        case CreateOutcome::NotSent: {
            QString answer;
            if (status >= 200 && status < 300)
                answer =
                    json
                        ? QStringLiteral("HTTP %1 without a uuid").arg(status)
                        : QStringLiteral("HTTP %1 with a body that is not usable JSON").arg(status);
            else if (errorList)
                answer = QStringLiteral("HTTP %1%2").arg(status).arg(colonDetail);
            else
                answer = QStringLiteral("HTTP %1 without a Fabric error list").arg(status);
            qCWarning(lcFabricClient).noquote() << "outcome unknown for POST" << m_path << "HTTP"
                                                << status << "correlation" << m_correlationId;
            r = result(Kind::OutcomeUnknown,
                       QStringLiteral("The %1 create was sent and Fabric answered %2, which does "
                                      "not prove that nothing was created: it may or may not "
                                      "exist; it was not resent. %3")
                           .arg(noun(), answer, lookupHint()),
                       status);
            break;
        }
        }
        if (errors)
            r.errors = *errors;
        if (json)
            r.body = *json;
        finish(r, true);
    }

    void finishHttp(int status, const QByteArray &bytes)
    {
        const QString call = QString::fromLatin1(m_method) + u' ' + shownPath();
        if (m_mode == Mode::Create)
            return finishCreate(status, bytes);
        if (status >= 200 && status < 300) {
            QString jsonError;
            const auto json = parseStrictJson(bytes, &jsonError);
            if (!json) {
                finish(result(Kind::InvalidResponse,
                              QStringLiteral("Fabric answered %1 with HTTP %2 but the body is not "
                                             "usable JSON (%3).")
                                  .arg(call)
                                  .arg(status)
                                  .arg(jsonError),
                              status),
                       true);
                return;
            }
            if (m_mode == Mode::DryRun && json->isObject() &&
                json->toObject().contains(QLatin1StringView("uuid"))) {
                const QString uuid = sanitizeRemoteText(
                    json->toObject().value(QLatin1StringView("uuid")).toVariant().toString(), 80);
                FabricResult r = result(
                    Kind::InvalidResponse,
                    QStringLiteral("Fabric's reply to the %1 dry run carries a uuid (%2) as if a "
                                   "%1 had been created; it is not treated as a dry run. Check "
                                   "with GET %3/%2 whether it exists.")
                        .arg(noun(), uuid, changeTypePath(m_changeType)),
                    status);
                r.body = *json;
                finish(r, true);
                return;
            }
            QString msg;
            if (m_mode == Mode::DryRun)
                msg = QStringLiteral("Fabric accepted the %1 dry run (HTTP %2); nothing was "
                                     "created.")
                          .arg(noun())
                          .arg(status);
            else
                msg = QStringLiteral("Fabric answered %1 with HTTP %2.").arg(call).arg(status);
            FabricResult r = result(Kind::Ok, msg, status);
            r.body = *json;
            finish(r, true);
            return;
        }

        if (status == 401 && m_core->usesClientCredentials() && !m_retried) {
            // One refresh and one retry, for reads and dry runs only.
            m_retried = true;
            qCDebug(lcFabricClient).noquote() << "401 for" << call << "- refreshing the token once";
            m_core->invalidateToken(m_token);
            QNetworkReply *old = m_reply;
            m_reply = nullptr;
            old->disconnect(this);
            old->deleteLater();
            acquireThenSend();
            return;
        }

        const auto errors = parseFabricErrorList(bytes);
        const QString detail = errors ? describeFabricErrors(*errors) : QString();
        auto withErrors = [&](FabricResult r) {
            if (errors)
                r.errors = *errors;
            if (const auto json = parseStrictJson(bytes))
                r.body = *json;
            return r;
        };
        const QString colonDetail = detail.isEmpty() ? QString() : QStringLiteral(": ") + detail;

        if (status == 401) {
            QString msg;
            if (m_core->usesClientCredentials()) {
                msg = QStringLiteral("Fabric rejected the access token for %1 (HTTP 401) even "
                                     "after a fresh one was obtained%2; check that the API client "
                                     "in EQUINIX_API_CLIENTID has access to Fabric.")
                          .arg(call, colonDetail);
            } else if (!m_core->config.staticToken.isEmpty()) {
                msg = QStringLiteral("Fabric rejected EQUINIX_API_TOKEN for %1 (HTTP 401)%2; it "
                                     "may have expired: set a fresh token or use client "
                                     "credentials.")
                          .arg(call, colonDetail);
            } else {
                msg = QStringLiteral("Fabric requires credentials for %1 (HTTP 401)%2; set "
                                     "EQUINIX_API_CLIENTID and EQUINIX_API_CLIENTSECRET.")
                          .arg(call, colonDetail);
            }
            finish(withErrors(result(Kind::AuthError, msg, status)), true);
            return;
        }
        if (status == 403) {
            finish(withErrors(result(Kind::AuthError,
                                     QStringLiteral("Fabric refused %1 (HTTP 403)%2: the "
                                                    "credentials lack the permission for it.")
                                         .arg(call, colonDetail),
                                     status)),
                   true);
            return;
        }
        if (m_mode == Mode::DryRun && errors) {
            for (const FabricError &e : *errors) {
                if (e.errorCode == QLatin1StringView("EQ-3142411")) {
                    finish(withErrors(result(
                               Kind::DryRunUnsupported,
                               QStringLiteral("Fabric does not support a dry run for this %1 "
                                              "(%2); nothing was created and the request could "
                                              "not be validated in advance.")
                                   .arg(noun(), detail),
                               status)),
                           true);
                    return;
                }
            }
        }
        const bool serverError = status >= 500;
        QString msg;
        if (errors)
            msg = QStringLiteral("Fabric %1 %2 (HTTP %3): %4")
                      .arg(serverError ? QStringLiteral("failed") : QStringLiteral("rejected"))
                      .arg(call)
                      .arg(status)
                      .arg(detail);
        else if (status >= 300 && status < 400)
            msg = QStringLiteral("Fabric answered %1 with a redirect (HTTP %2), which is not "
                                 "followed for this call")
                      .arg(call)
                      .arg(status);
        else
            msg = QStringLiteral("Fabric answered %1 with HTTP %2 and no error list")
                      .arg(call)
                      .arg(status);
        if (m_mode == Mode::DryRun)
            msg += QStringLiteral("; nothing was created");
        if (serverError)
            msg += QStringLiteral("; try again later");
        msg += u'.';
        finish(withErrors(result(errors ? Kind::FabricError : Kind::HttpError, msg, status)), true);
    }

    void finish(FabricResult r, bool requestSent)
    {
        if (m_finished)
            return;
        m_finished = true;
        r.requestSent = requestSent;
        if (!m_correlationId.isEmpty())
            r.correlationId = m_correlationId;
        r.method = QString::fromLatin1(m_method);
        r.path = m_mode == Mode::TestConnection ? QString(kTokenPath) : shownPath();
        r.message = m_core->redact(r.message);
        for (FabricError &e : r.errors) {
            e.errorMessage = m_core->redact(e.errorMessage);
            e.details = m_core->redact(e.details);
            for (auto &info : e.additionalInfo)
                info.second = m_core->redact(info.second);
        }
        if (m_reply) {
            QNetworkReply *reply = m_reply;
            m_reply = nullptr;
            reply->disconnect(this);
            if (reply->isRunning())
                reply->abort();
            reply->deleteLater();
        }
        emit finished(r);
        deleteLater();
    }

    ClientCore *m_core;
    Mode m_mode;
    QByteArray m_method;
    QString m_path;
    QUrlQuery m_query;
    QByteArray m_body;
    ChangeType m_changeType;

    QString m_token;
    QString m_correlationId;
    QPointer<QNetworkReply> m_reply;
    QPointer<OnceUploadDevice> m_device;
    QElapsedTimer m_elapsed;
    QUrl m_requestUrl;
    QUrl m_refusedRedirect;
    bool m_requestSentSignal = false;
    bool m_tooLarge = false;
    bool m_retried = false;
    bool m_finished = false;
};

// The rate-card context: one prices search, never a failure.
class PriceCall final : public FabricCall {
public:
    PriceCall(FabricClient *client, const CompiledRequest &request, QObject *parent)
        : FabricCall(parent)
        , m_client(client)
        , m_request(request)
    {
        QMetaObject::invokeMethod(
            this, [this] { start(); }, Qt::QueuedConnection);
    }

    bool isFinished() const override { return m_finished; }

    void abort() override
    {
        if (m_finished)
            return;
        if (m_inner) {
            FabricCall *inner = m_inner;
            m_inner = nullptr;
            inner->disconnect(this);
            inner->abort();
        }
        FabricResult r;
        r.kind = Kind::Cancelled;
        r.message = QStringLiteral("The price lookup was cancelled.");
        finish(r);
    }

private:
    void start()
    {
        if (m_finished)
            return;
        QString reason;
        QString summary;
        const auto search = buildPriceSearch(m_request, &reason, &summary);
        if (!search) {
            FabricResult r;
            r.body = unpricedContext(reason, summary);
            r.message = QStringLiteral("No rate-card price: %1.").arg(reason);
            finish(r);
            return;
        }
        m_inner = m_client->search(kPricePath, *search);
        connect(m_inner, &FabricCall::finished, this, &PriceCall::onInner);
    }

    void onInner(const FabricResult &inner)
    {
        m_inner = nullptr;
        FabricResult r;
        r.httpStatus = inner.httpStatus;
        r.correlationId = inner.correlationId;
        r.requestSent = inner.requestSent;
        QJsonObject ctx;
        if (inner.ok()) {
            ctx = priceContextFromResponse(inner.body);
        } else {
            QString why = inner.message;
            if (why.endsWith(u'.'))
                why.chop(1);
            // The raw Fabric error stays in reason (details, audit); the person reads summary.
            ctx = unpricedContext(QStringLiteral("price lookup failed: ") + why,
                                  inner.kind == FabricResult::Kind::FabricError
                                      ? unpricedSummary(m_request)
                                      : QStringLiteral("no price: the rate-card lookup failed"));
        }
        if (!ctx.value(QLatin1StringView("priced")).toBool() &&
            !ctx.contains(QLatin1StringView("summary")))
            ctx.insert(QStringLiteral("summary"), unpricedSummary(m_request));
        r.body = ctx;
        if (ctx.value(QLatin1StringView("priced")).toBool())
            r.message = QStringLiteral("Rate-card context: %1 %2 monthly recurring, %3 non "
                                       "recurring (context, not a quote).")
                            .arg(ctx.value(QLatin1StringView("monthly_recurring")).toDouble())
                            .arg(ctx.value(QLatin1StringView("currency")).toString())
                            .arg(ctx.value(QLatin1StringView("non_recurring")).toDouble());
        else
            r.message = QStringLiteral("No rate-card price: %1.")
                            .arg(ctx.value(QLatin1StringView("reason")).toString());
        finish(r);
    }

    void finish(FabricResult r)
    {
        if (m_finished)
            return;
        m_finished = true;
        r.method = QStringLiteral("POST");
        r.path = kPricePath;
        emit finished(r);
        deleteLater();
    }

    FabricClient *m_client;
    CompiledRequest m_request;
    QPointer<FabricCall> m_inner;
    bool m_finished = false;
};

} // namespace

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
}

void FabricClient::setClock(const Clock *clock)
{
    d->clock = clock ? clock : Clock::system();
}

FabricCall *FabricClient::dryRun(const CompiledRequest &request)
{
    return new HttpCall(d, HttpCall::Mode::DryRun, request.method, request.path, {}, request.body,
                        request.changeType, this);
}

FabricCall *FabricClient::create(const CompiledRequest &request)
{
    return new HttpCall(d, HttpCall::Mode::Create, request.method, request.path, {}, request.body,
                        request.changeType, this);
}

FabricCall *FabricClient::get(const QString &path, const QUrlQuery &query)
{
    return new HttpCall(d, HttpCall::Mode::Read, QByteArrayLiteral("GET"), path, query, {},
                        ChangeType::ConnectionCreate, this);
}

FabricCall *FabricClient::search(const QString &path, const QJsonObject &body)
{
    return new HttpCall(d, HttpCall::Mode::Read, QByteArrayLiteral("POST"), path, {},
                        QJsonDocument(body).toJson(QJsonDocument::Compact),
                        ChangeType::ConnectionCreate, this);
}

FabricCall *FabricClient::priceContext(const CompiledRequest &request)
{
    return new PriceCall(this, request, this);
}

FabricCall *FabricClient::testConnection()
{
    return new HttpCall(d, HttpCall::Mode::TestConnection, QByteArrayLiteral("POST"),
                        QString(kTokenPath), {}, {}, ChangeType::ConnectionCreate, this);
}

} // namespace fb
