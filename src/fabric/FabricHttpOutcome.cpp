#include "fabric/FabricHttpOutcome.h"

#include "fabric/FabricParsing.h"
#include "fabric/FabricUrl.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace fb {

namespace {

using Kind = FabricResult::Kind;

// One decision: the exchange in, the decision out. finish() records the result the way
// HttpCall::finish() later completes it (correlation id, method, path, redaction).
class Decider {
public:
    explicit Decider(const HttpExchange &exchange)
        : x(exchange)
    {
    }

    HttpDecision decide()
    {
        const int status = x.status;
        const bool sent = x.bytesLeft || status > 0;
        if (x.tooLarge || x.body.size() > x.maxResponseBytes) {
            const QString tail = x.mode == FabricCallMode::Create
                                     ? QStringLiteral(" The %1 create may or may not have "
                                                      "succeeded; it was not resent. %2")
                                           .arg(noun(), lookupHint())
                                     : QString();
            finish(result(x.mode == FabricCallMode::Create ? Kind::OutcomeUnknown
                                                           : Kind::InvalidResponse,
                          QStringLiteral("Fabric's reply to %1 %2 was larger than %3 bytes and "
                                         "was dropped.%4")
                              .arg(QString::fromLatin1(x.method), shownPath())
                              .arg(x.maxResponseBytes)
                              .arg(tail),
                          status),
                   sent);
            return d;
        }
        if (!x.refusedRedirect.isEmpty()) {
            finish(result(Kind::HttpError,
                          QStringLiteral("Fabric answered %1 %2 with a redirect to %3, which was "
                                         "refused: only same-origin redirects within /fabric/v4/ "
                                         "are followed.")
                              .arg(QString::fromLatin1(x.method), x.path,
                                   sanitizeRemoteText(displayUrl(x.refusedRedirect), 200)),
                          status),
                   true);
            return d;
        }
        if (status == 0 || (x.error != QNetworkReply::NoError && int(x.error) < 200))
            finishNetworkError(x.error, x.errorString, status);
        else
            finishHttp(status, x.body);
        return d;
    }

private:
    QString noun() const { return changeTypeNoun(x.changeType); }
    QString shownPath() const { return callShownPath(x.mode, x.path); }
    QString lookupHint() const
    {
        return createLookupHint(x.changeType, x.requestBody, x.correlationId);
    }
    static FabricResult result(Kind kind, const QString &message, int status = 0)
    {
        return callResult(kind, message, status);
    }
    void finish(FabricResult r, bool requestSent)
    {
        r.requestSent = requestSent;
        d.result = std::move(r);
    }

    void finishNetworkError(QNetworkReply::NetworkError err, const QString &errorString, int status)
    {
        const bool timedOut =
            err == QNetworkReply::TimeoutError || err == QNetworkReply::OperationCanceledError;
        const bool sent = x.bytesLeft || status > 0;
        QString reason;
        switch (err) {
        case QNetworkReply::TimeoutError:
        case QNetworkReply::OperationCanceledError:
            reason = QStringLiteral("no reply arrived within %1 ms").arg(x.timeoutMs);
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
        if (x.mode == FabricCallMode::Create) {
            if (sent) {
                d.warning = QStringLiteral("outcome unknown for POST %1 correlation %2")
                                .arg(x.path, x.correlationId);
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
                                  .arg(noun(), displayUrl(x.endpoint), reason)),
                       false);
            }
            return;
        }
        if (timedOut) {
            finish(result(Kind::Timeout,
                          QStringLiteral("Fabric did not answer %1 %2 within %3 ms; try again "
                                         "later.")
                              .arg(QString::fromLatin1(x.method), shownPath())
                              .arg(x.timeoutMs),
                          status),
                   sent);
            return;
        }
        finish(result(Kind::NetworkError,
                      QStringLiteral("Could not reach Fabric at %1 for %2 %3: %4; check the "
                                     "network and EQUINIX_API_ENDPOINT.")
                          .arg(displayUrl(x.endpoint), QString::fromLatin1(x.method), shownPath(),
                               reason),
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
            d.invalidateToken = true; // the next call fetches a fresh one
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
            d.warning = QStringLiteral("outcome unknown for POST %1 HTTP %2 correlation %3")
                            .arg(x.path)
                            .arg(status)
                            .arg(x.correlationId);
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
        const QString call = QString::fromLatin1(x.method) + u' ' + shownPath();
        if (x.mode == FabricCallMode::Create)
            return finishCreate(status, bytes);
        if (status >= 200 && status < 300 && x.fileAnswer) {
            FabricResult r = result(
                Kind::Ok,
                QStringLiteral("Fabric answered %1 with HTTP %2 and a file.").arg(call).arg(status),
                status);
            r.body = QJsonObject{
                {QStringLiteral("content_type"), mediaType(x.contentType)},
                {QStringLiteral("bytes"), static_cast<qint64>(bytes.size())},
                {QStringLiteral("sha256"),
                 QString::fromLatin1(
                     QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex())}};
            finish(r, true);
            return;
        }
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
            if (x.mode == FabricCallMode::DryRun && json->isObject() &&
                json->toObject().contains(QLatin1StringView("uuid"))) {
                const QString uuid = sanitizeRemoteText(
                    json->toObject().value(QLatin1StringView("uuid")).toVariant().toString(), 80);
                FabricResult r = result(
                    Kind::InvalidResponse,
                    QStringLiteral("Fabric's reply to the %1 dry run carries a uuid (%2) as if a "
                                   "%1 had been created; it is not treated as a dry run. Check "
                                   "with GET %3/%2 whether it exists.")
                        .arg(noun(), uuid, changeTypePath(x.changeType)),
                    status);
                r.body = *json;
                finish(r, true);
                return;
            }
            QString msg;
            if (x.mode == FabricCallMode::DryRun)
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

        if (status == 401 && x.credentials == FabricCredentials::ClientCredentials && !x.retried) {
            // One refresh and one retry, for reads and dry runs only.
            d.action = HttpDecision::Action::RefreshAndRetry;
            d.invalidateToken = true;
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
            if ((x.credentials == FabricCredentials::ClientCredentials)) {
                msg = QStringLiteral("Fabric rejected the access token for %1 (HTTP 401) even "
                                     "after a fresh one was obtained%2; check that the API client "
                                     "in EQUINIX_API_CLIENTID has access to Fabric.")
                          .arg(call, colonDetail);
            } else if (x.credentials == FabricCredentials::StaticToken) {
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
        if (x.mode == FabricCallMode::DryRun && errors) {
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
        if (x.mode == FabricCallMode::DryRun)
            msg += QStringLiteral("; nothing was created");
        if (serverError)
            msg += QStringLiteral("; try again later");
        msg += u'.';
        finish(withErrors(result(errors ? Kind::FabricError : Kind::HttpError, msg, status)), true);
    }

    const HttpExchange &x;
    HttpDecision d;
};

} // namespace

QString mediaType(const QString &contentType)
{
    // type/subtype of RFC 9110 token characters, without parameters; anything else is unknown.
    static const QRegularExpression token(
        QStringLiteral("^[A-Za-z0-9!#$&^_.+-]{1,64}/[A-Za-z0-9!#$&^_.+-]{1,64}$"));
    const QString type = contentType.section(u';', 0, 0).trimmed().toLower();
    return token.match(type).hasMatch() ? type : QStringLiteral("unknown");
}

HttpDecision decideHttpOutcome(const HttpExchange &exchange)
{
    return Decider(exchange).decide();
}

FabricResult callResult(FabricResult::Kind kind, const QString &message, int httpStatus)
{
    FabricResult r;
    r.kind = kind;
    r.message = message;
    r.httpStatus = httpStatus;
    return r;
}

QString callWhat(FabricCallMode mode, const QByteArray &method, const QString &path,
                 ChangeType changeType)
{
    switch (mode) {
    case FabricCallMode::Create:
        return changeTypeNoun(changeType) + QStringLiteral(" create");
    case FabricCallMode::DryRun:
        return changeTypeNoun(changeType) + QStringLiteral(" dry run");
    case FabricCallMode::TestConnection:
        return QStringLiteral("connection test");
    case FabricCallMode::Read:
        break;
    }
    return QStringLiteral("request %1 %2").arg(QString::fromLatin1(method), path);
}

QString callShownPath(FabricCallMode mode, const QString &path)
{
    return mode == FabricCallMode::DryRun ? path + QStringLiteral("?dryRun=true") : path;
}

QString createLookupHint(ChangeType changeType, const QByteArray &requestBody,
                         const QString &correlationId)
{
    const QString search = changeTypePath(changeType) + QStringLiteral("/search");
    const QJsonObject body = QJsonDocument::fromJson(requestBody).object();
    const QString name = sanitizeRemoteText(body.value(QLatin1StringView("name")).toString(), 120);
    QString s = name.isEmpty() ? QStringLiteral("Look it up before trying again: search the recent "
                                                "%1s with POST %2")
                                     .arg(changeTypeNoun(changeType), search)
                               : QStringLiteral("Look it up before trying again: POST %1 with a "
                                                "filter on /name = \"%2\"")
                                     .arg(search, name);
    if (!correlationId.isEmpty())
        s += QStringLiteral(", and quote correlation id %1 to Equinix support if needed")
                 .arg(correlationId);
    return s + u'.';
}

} // namespace fb
