#include "core/TokenDigest.h"

#include "core/Sha256.h"

namespace fb {

TokenDigest TokenDigest::of(QStringView token)
{
    return TokenDigest(Sha256::hash(token.toUtf8()));
}

std::optional<TokenDigest> TokenDigest::fromHex(QByteArrayView hex)
{
    if (hex.size() != 2 * Bytes)
        return std::nullopt;
    for (const char c : hex)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return std::nullopt;
    return TokenDigest(QByteArray::fromHex(hex.toByteArray()));
}

QString TokenDigest::hex() const
{
    return QString::fromLatin1(m_bytes.toHex());
}

bool TokenDigest::equalSecrets(QByteArrayView secret, QByteArrayView given)
{
    if (secret.isEmpty())
        return false;
    unsigned char diff = given.size() == secret.size() ? 0 : 1;
    for (qsizetype i = 0; i < secret.size(); ++i) {
        const char g = i < given.size() ? given[i] : '\0';
        diff |= static_cast<unsigned char>(g ^ secret[i]);
    }
    return diff == 0;
}

QString tokenDigest(const QString &token)
{
    return TokenDigest::of(token).hex();
}

} // namespace fb
