// HttpCall: one HTTP exchange with Fabric (plus, for reads and dry runs, one retry after a 401
// with a fresh token). Checks the call on the client side, waits for the access token, sends the
// request with the transport rules of FabricClient.h, refuses redirects that leave the origin or
// /fabric/v4/, caps the reply, and hands the answer to decideHttpOutcome() (FabricHttpOutcome.h).
// A real create is handed to Qt at most once and Qt cannot resend it either: its body goes
// through OnceUploadDevice, which refuses the rewind Qt needs for its internal resend (Qt 6.4
// resends a POST whose connection closes before the reply), HTTP/2 is off, no redirect is
// followed, and neither a 401 nor a 5xx nor a network error leads to a second attempt.
#include "fabric/FabricClient_p.h"

#include "fabric/FabricHttpOutcome.h"
#include "fabric/FabricParsing.h"
#include "fabric/FabricUrl.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <atomic>

namespace fb {

namespace {

using Kind = FabricResult::Kind;

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
    QString what() const { return callWhat(m_mode, m_method, m_path, m_changeType); }
    QString shownPath() const { return callShownPath(m_mode, m_path); }
    bool bytesLeft() const
    {
        if (m_mode == Mode::Create)
            return m_requestSentSignal || (m_device && m_device->everRead());
        return m_requestSentSignal;
    }

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
        m_tooLarge = false;
        m_refusedRedirect.clear();
        m_elapsed.start();

        m_requestUrl = m_core->urlFor(m_path, m_query);
        QNetworkRequest req(m_requestUrl);
        configureRequest(req, m_correlationId, m_core->config.timeoutMs);
        if (m_fileAnswer)
            req.setRawHeader("Accept", "*/*");
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
        x.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        m_core->logExchange(QString::fromLatin1(m_method), shownPath(), x.status, m_correlationId,
                            m_elapsed.elapsed());
        if (!m_tooLarge && m_refusedRedirect.isEmpty() && x.status > 0)
            x.body = reply->readAll();
        x.tooLarge = m_tooLarge;
        x.fileAnswer = m_fileAnswer;
        x.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toString();
        x.refusedRedirect = m_refusedRedirect;
        x.error = reply->error();
        x.errorString = reply->errorString();
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
            QNetworkReply *old = m_reply;
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
