#include "sandbox/SandboxAuth.h"

#include "sandbox/SandboxLog.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

namespace fb {

SandboxAuth::SandboxAuth(const Clock *clock)
    : m_clock(clock ? clock : Clock::system())
{
}

SandboxReply SandboxAuth::issue(const QByteArray &body)
{
    const QJsonObject request = QJsonDocument::fromJson(body).object();
    const QString clientId = request.value(QStringLiteral("client_id")).toString();
    const QString secret = request.value(QStringLiteral("client_secret")).toString();
    const QString grant = request.value(QStringLiteral("grant_type")).toString();
    if (clientId.isEmpty() || secret.isEmpty() ||
        (!grant.isEmpty() && grant != QLatin1String("client_credentials"))) {
        qCInfo(lcSandbox) << "token request rejected (missing credentials or grant type)";
        return SandboxReply::json(
            400, QJsonObject{{QStringLiteral("error_domain"), QStringLiteral("apigateway")},
                             {QStringLiteral("error_title"), QStringLiteral("Invalid client")},
                             {QStringLiteral("error_code"), QStringLiteral("S400")},
                             {QStringLiteral("developer_message"),
                              QStringLiteral("client_id and client_secret are required; "
                                             "grant_type must be client_credentials")},
                             {QStringLiteral("error_message"),
                              QStringLiteral("Please enter a valid client id/client secret "
                                             "and try again.")}});
    }
    QByteArray token;
    token.resize(32);
    for (char &c : token)
        c = char(QRandomGenerator::global()->bounded(256));
    token = token.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    token.prepend("sbx.");
    m_tokens.insert(token, m_clock->nowMs() + qint64(m_lifetimeSeconds) * 1000);
    qCInfo(lcSandbox) << "issued access token for client id of length" << clientId.size()
                      << "lifetime" << m_lifetimeSeconds << "s";
    return SandboxReply::json(
        200, QJsonObject{{QStringLiteral("access_token"), QString::fromLatin1(token)},
                         {QStringLiteral("token_timeout"), QString::number(m_lifetimeSeconds)},
                         {QStringLiteral("user_name"), clientId},
                         {QStringLiteral("token_type"), QStringLiteral("Bearer")}});
}

bool SandboxAuth::isAuthorized(const QByteArray &authorizationHeader) const
{
    const QByteArray prefix = QByteArrayLiteral("bearer ");
    if (!authorizationHeader.toLower().startsWith(prefix))
        return false;
    const QByteArray token = authorizationHeader.mid(prefix.size()).trimmed();
    const auto it = m_tokens.constFind(token);
    return it != m_tokens.constEnd() && m_clock->nowMs() < it.value();
}

} // namespace fb
