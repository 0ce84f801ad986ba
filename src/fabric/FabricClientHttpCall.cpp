// HttpCall: one HTTP exchange with Fabric (plus, for reads and dry runs, one retry after a 401
// with a fresh token). Checks the call on the client side, waits for the access token, sends the
// request with the transport rules of FabricClient.h, follows only the redirects a GET read may
// (same origin, within /fabric/v4/), and hands the answer to decideHttpOutcome()
// (FabricHttpOutcome.h). A real create is written once, on a fresh connection of its own
// (FabricHttpTransport.h): never on a reused keep-alive connection (no stale-connection resend),
// never rewritten after any error, no redirect followed, and neither a 401 nor a 5xx nor a
// network error leads to a second attempt.
#include "fabric/FabricClient_p.h"

#include "fabric/FabricHttpOutcome.h"
#include "fabric/FabricParsing.h"
#include "fabric/FabricUrl.h"

#include <QElapsedTimer>
#include <QJsonObject>

namespace fb {

namespace {

using Kind = FabricResult::Kind;

// QNetworkAccessManager's limit, kept.
constexpr int kMaxRedirects = 50;

bool isRedirectStatus(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

class HttpCall final : public FabricCall {
public:
    using Mode = FabricCallMode;

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
    void setFileAnswer(bool file) { m_fileAnswer = file; }

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
        const int status = m_reply->status();
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
        if (!bytesLeft()) { // still connecting, or waiting for a connection: nothing left
            finish(result(Kind::Cancelled, QStringLiteral("The %1 was cancelled before it was "
                                                          "sent to Fabric; nothing was sent.")
                                               .arg(what())),
                   false);
            return;
        }
        finish(result(Kind::Cancelled, QStringLiteral("The %1 was cancelled before Fabric "
                                                      "answered.")
                                           .arg(what())),
               m_mode == Mode::Create ? false : bytesLeft());
    }

private:
    QString noun() const { return changeTypeNoun(m_changeType); }
    QString what() const { return callWhat(m_mode, m_method, m_path, m_changeType); }
    QString shownPath() const { return callShownPath(m_mode, m_path); }
    // Whether a byte of this call's request (any attempt, any redirect hop) may have left.
    bool bytesLeft() const { return m_requestSentSignal || (m_reply && m_reply->bytesLeft()); }

    QString lookupHint() const { return createLookupHint(m_changeType, m_body, m_correlationId); }

    static FabricResult result(Kind kind, const QString &message, int status = 0)
    {
        return callResult(kind, message, status);
    }

    void start()
    {
        if (m_finished)
            return;
        QString p = m_core->config.endpointProblem();
        if (p.isEmpty())
            p = m_core->config.lockProblem(m_core->lockedEndpoint, m_core->lockSource);
        if (!p.isEmpty()) {
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
        m_refusedRedirect.clear();
        m_redirects = 0;
        m_tooManyRedirects = false;
        m_elapsed.start();
        m_requestUrl = m_core->urlFor(m_path, m_query);
        sendTo(m_requestUrl);
    }

    void sendTo(const QUrl &url)
    {
        FabricHttpRequestSpec spec = requestSpec(m_core->config, m_method, url, m_correlationId);
        if (m_fileAnswer)
            spec.headers[0].second = QByteArrayLiteral("*/*"); // Accept
        if (!m_token.isEmpty())
            spec.headers.append({QByteArrayLiteral("Authorization"), "Bearer " + m_token.toUtf8()});
        spec.body = m_body;
        // A real create: a connection nobody used before, written once, never again. Reads and
        // dry runs may go once more on a fresh connection when a reused one was already closed.
        spec.freshConnection = m_mode == Mode::Create;
        spec.retryOnStale = m_mode != Mode::Create;
        FabricHttpRequest *reply = m_core->transport->request(std::move(spec), this);
        m_reply = reply;
        connect(reply, &FabricHttpRequest::finished, this, &HttpCall::onReplyFinished);
        reply->start();
    }

    // A GET read's redirect: followed when it stays on the origin and within /fabric/v4/ (POSTs,
    // i.e. searches, dry runs and creates, never follow one: a 307 would replay the body
    // elsewhere). True when a new request went out.
    bool followRedirect(const FabricHttpResponse &response)
    {
        if (m_mode != Mode::Read || m_method != "GET" ||
            response.error != FabricHttpResponse::Error::None || !isRedirectStatus(response.status))
            return false;
        const QByteArray location = response.header("location");
        if (location.isEmpty())
            return false;
        // Compared with the URL this call asked for.
        const QUrl target = QUrl::fromEncoded(location, QUrl::StrictMode);
        if (!target.isValid())
            return false; // not a redirect it can follow: the 3xx is the answer
        const QUrl to = m_requestUrl.resolved(target);
        if (!sameOrigin(m_requestUrl, to) || !pathProblem(to.path(), false).isEmpty()) {
            m_refusedRedirect = to;
            return false;
        }
        if (++m_redirects > kMaxRedirects) {
            m_tooManyRedirects = true;
            return false;
        }
        m_requestSentSignal = m_requestSentSignal || m_reply->bytesLeft();
        FabricHttpRequest *old = m_reply;
        m_reply = nullptr;
        old->disconnect(this);
        old->deleteLater();
        sendTo(to);
        return true;
    }

    void onReplyFinished()
    {
        FabricHttpRequest *reply = m_reply;
        if (m_finished || !reply)
            return;
        const FabricHttpResponse &response = reply->response();
        if (followRedirect(response))
            return;
        HttpExchange x;
        x.mode = m_mode;
        x.method = m_method;
        x.path = m_path;
        x.changeType = m_changeType;
        x.requestBody = m_body;
        x.correlationId = m_correlationId;
        x.credentials = m_core->usesClientCredentials() ? FabricCredentials::ClientCredentials
                        : !m_core->config.staticToken.isEmpty() ? FabricCredentials::StaticToken
                                                                : FabricCredentials::None;
        x.retried = m_retried;
        x.timeoutMs = m_core->config.timeoutMs;
        x.maxResponseBytes = m_core->config.maxResponseBytes;
        x.endpoint = m_core->config.endpoint;
        x.status = response.status;
        // requestFinished: a handler may abort this call, or delete the client and this with it.
        const QPointer<HttpCall> self(this);
        m_core->logExchange(QString::fromLatin1(m_method), shownPath(), x.status, m_correlationId,
                            m_elapsed.elapsed());
        if (!self || m_finished)
            return;
        x.tooLarge = response.error == FabricHttpResponse::Error::TooLarge;
        if (!x.tooLarge && m_refusedRedirect.isEmpty() && x.status > 0)
            x.body = response.body;
        x.fileAnswer = m_fileAnswer;
        x.contentType = QString::fromLatin1(response.header("content-type"));
        x.refusedRedirect = m_refusedRedirect;
        x.error = networkErrorOf(response.error);
        x.errorString = response.errorString;
        if (m_tooManyRedirects) {
            x.error = QNetworkReply::TooManyRedirectsError;
            x.errorString = QStringLiteral("more than %1 redirects").arg(kMaxRedirects);
        }
        x.bytesLeft = bytesLeft();

        const HttpDecision decision = decideHttpOutcome(x);
        if (decision.invalidateToken)
            m_core->invalidateToken(m_token); // the next call fetches a fresh one
        if (!decision.warning.isEmpty())
            qCWarning(lcFabricClient).noquote() << decision.warning;
        if (decision.action == HttpDecision::Action::RefreshAndRetry) {
            m_retried = true;
            qCDebug(lcFabricClient).noquote() << "401 for" << QString::fromLatin1(m_method)
                                              << shownPath() << "- refreshing the token once";
            FabricHttpRequest *old = m_reply;
            m_reply = nullptr;
            old->disconnect(this);
            old->deleteLater();
            acquireThenSend();
            return;
        }
        finish(decision.result, decision.result.requestSent);
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
        r.body = m_core->redactJson(r.body);
        for (FabricError &e : r.errors) {
            e.errorMessage = m_core->redact(e.errorMessage);
            e.details = m_core->redact(e.details);
            for (auto &info : e.additionalInfo)
                info.second = m_core->redact(info.second);
        }
        if (m_reply) {
            FabricHttpRequest *reply = m_reply;
            m_reply = nullptr;
            reply->disconnect(this);
            reply->abort();
            reply->deleteLater();
        }
        // A finished handler may delete the client, and this call with it (its child).
        const QPointer<HttpCall> self(this);
        emit finished(r);
        if (self)
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
    QPointer<FabricHttpRequest> m_reply;
    QElapsedTimer m_elapsed;
    QUrl m_requestUrl;
    QUrl m_refusedRedirect;
    int m_redirects = 0;
    bool m_tooManyRedirects = false;
    bool m_requestSentSignal = false; // a byte of an earlier redirect hop left
    bool m_retried = false;
    bool m_finished = false;
    bool m_fileAnswer = false;
};

} // namespace

FabricCall *newHttpCall(ClientCore *core, FabricCallMode mode, QByteArray method, QString path,
                        QUrlQuery query, QByteArray body, ChangeType changeType, QObject *parent,
                        bool fileAnswer)
{
    auto *call = new HttpCall(core, mode, std::move(method), std::move(path), std::move(query),
                              std::move(body), changeType, parent);
    call->setFileAnswer(fileAnswer && mode == FabricCallMode::Read);
    return call;
}

} // namespace fb
