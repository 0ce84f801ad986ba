#include "SandboxTestClient.h"

#include <QElapsedTimer>
#include <QNetworkRequest>
#include <QSignalSpy>

HttpResult SandboxTestClient::send(const QByteArray &method, const QString &pathAndQuery,
                                   const QByteArray &body,
                                   const QList<QPair<QByteArray, QByteArray>> &headers,
                                   bool withToken)
{
    QNetworkRequest request(m_base.resolved(QUrl(pathAndQuery)));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    if (withToken && !m_token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_token);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    QElapsedTimer timer;
    timer.start();
    QNetworkReply *reply = m_nam.sendCustomRequest(request, method, body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    if (!reply->isFinished())
        finished.wait(15000);
    HttpResult result;
    result.elapsedMs = timer.elapsed();
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.error = reply->error();
    result.body = reply->readAll();
    result.correlationId = reply->rawHeader("X-CORRELATION-ID");
    reply->deleteLater();
    return result;
}

QByteArray SandboxTestClient::login(const QString &clientId)
{
    const QJsonObject body{
        {"grant_type", "client_credentials"}, {"client_id", clientId}, {"client_secret", "s3cret"}};
    const HttpResult r = send("POST", QStringLiteral("/oauth2/v1/token"),
                              QJsonDocument(body).toJson(QJsonDocument::Compact), {}, false);
    m_token = r.object().value(QStringLiteral("access_token")).toString().toLatin1();
    return m_token;
}
