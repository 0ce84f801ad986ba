#pragma once
// A small blocking HTTP client over QNetworkAccessManager for the sandbox tests.
#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPair>
#include <QString>
#include <QUrl>

struct HttpResult {
    int status = 0;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QByteArray body;
    QByteArray correlationId;
    qint64 elapsedMs = 0;
    const QJsonObject object() const { return QJsonDocument::fromJson(body).object(); }
    const QJsonArray array() const { return QJsonDocument::fromJson(body).array(); }
    QString firstErrorCode() const
    {
        return array().first().toObject().value(QStringLiteral("errorCode")).toString();
    }
};

class SandboxTestClient {
public:
    explicit SandboxTestClient(const QUrl &base)
        : m_base(base)
    {
    }
    void setToken(const QByteArray &token) { m_token = token; }
    QByteArray token() const { return m_token; }

    HttpResult send(const QByteArray &method, const QString &pathAndQuery,
                    const QByteArray &body = {},
                    const QList<QPair<QByteArray, QByteArray>> &headers = {},
                    bool withToken = true);
    HttpResult get(const QString &pathAndQuery) { return send("GET", pathAndQuery); }
    HttpResult post(const QString &pathAndQuery, const QJsonObject &body)
    {
        return send("POST", pathAndQuery, QJsonDocument(body).toJson(QJsonDocument::Compact));
    }
    // Fetches a token with client credentials and keeps it for later calls.
    QByteArray login(const QString &clientId = QStringLiteral("test-client"));

private:
    QNetworkAccessManager m_nam;
    QUrl m_base;
    QByteArray m_token;
};
