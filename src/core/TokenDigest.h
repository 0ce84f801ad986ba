#pragma once
// TokenDigest: the SHA-256 of a secret token (a confirm token "chg-...", which is also the team
// row's token), the only form in which a token is kept, logged or compared; and the one
// constant-time comparison of secrets (digests, MACs, bearer tokens), so that no comparison of a
// secret stops at the first byte that differs.
#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringView>
#include <optional>

namespace fb {

class TokenDigest {
public:
    static constexpr int Bytes = 32;

    // The digest of a token: SHA-256 of its UTF-8 bytes.
    static TokenDigest of(QStringView token);
    // A digest as hex text (64 hex digits, either case, nothing else); nullopt otherwise.
    static std::optional<TokenDigest> fromHex(QByteArrayView hex);

    const QByteArray &bytes() const { return m_bytes; } // the raw 32 bytes
    QString hex() const;                                // 64 lower-case hex digits

    // Constant time.
    bool operator==(const TokenDigest &other) const { return equalSecrets(m_bytes, other.m_bytes); }

    // Whether given is secret, in time that depends on secret's length alone: every byte of
    // secret is compared whatever differs first, and a length that differs is one more
    // difference, not an early return. An empty secret matches nothing.
    static bool equalSecrets(QByteArrayView secret, QByteArrayView given);

private:
    explicit TokenDigest(QByteArray bytes)
        : m_bytes(std::move(bytes))
    {
    }
    QByteArray m_bytes;
};

// Confirm tokens never reach a log, a file or the team database in clear: their digest does, as
// 64 lower-case hex digits (TokenDigest::of(token).hex()).
QString tokenDigest(const QString &token);

} // namespace fb
