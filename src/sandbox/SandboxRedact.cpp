#include "sandbox/SandboxRedact.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include <algorithm>

namespace fb {

namespace {
const QString kRedacted = QStringLiteral("[REDACTED]");

// Names whose values are credentials (OAuth client secrets, access/refresh tokens, passwords).
const QStringList &secretKeys()
{
    static const QStringList keys = {
        QStringLiteral("client_secret"), QStringLiteral("access_token"),
        QStringLiteral("refresh_token"), QStringLiteral("id_token"),
        QStringLiteral("password"),      QStringLiteral("secret"),
        QStringLiteral("authorization")};
    return keys;
}

bool isSecretKey(const QString &key)
{
    return secretKeys().contains(key, Qt::CaseInsensitive);
}

QJsonValue redactJson(const QJsonValue &v, int depth = 0)
{
    if (depth > 64)
        return kRedacted;
    if (v.isObject()) {
        QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            it.value() =
                isSecretKey(it.key()) ? QJsonValue(kRedacted) : redactJson(it.value(), depth + 1);
        return o;
    }
    if (v.isArray()) {
        QJsonArray a = v.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            a[i] = redactJson(a.at(i), depth + 1);
        return a;
    }
    return v;
}

} // namespace

QUrlQuery redactQuery(const QUrlQuery &query)
{
    QUrlQuery out;
    const auto items = query.queryItems(QUrl::FullyEncoded);
    for (const auto &[key, value] : items)
        out.addQueryItem(key,
                         isSecretKey(QUrl::fromPercentEncoding(key.toUtf8())) ? kRedacted : value);
    return out;
}

QByteArray redactBody(const QByteArray &body)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
    if (err.error == QJsonParseError::NoError && (doc.isObject() || doc.isArray())) {
        const QJsonValue clean =
            redactJson(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()));
        const QJsonDocument out =
            clean.isObject() ? QJsonDocument(clean.toObject()) : QJsonDocument(clean.toArray());
        // Unchanged bodies are kept byte for byte (tests compare what the broker sent).
        return out == doc ? body : out.toJson(QJsonDocument::Compact);
    }
    const QString text = QString::fromUtf8(body);
    const bool mentionsSecret =
        std::any_of(secretKeys().cbegin(), secretKeys().cend(),
                    [&](const QString &k) { return text.contains(k, Qt::CaseInsensitive); });
    if (!mentionsSecret)
        return body;
    if (!text.contains(QLatin1Char('{')) && text.contains(QLatin1Char('='))) {
        const QUrlQuery form(text);
        return redactQuery(form).toString(QUrl::FullyEncoded).toUtf8();
    }
    return kRedacted.toUtf8();
}

} // namespace fb
