#include "team/ApprovalKeys.h"

#include "core/TeamPolicy.h"
#include "lazy/LazyLibrary.h"

#include <QRegularExpression>

#include <openssl/evp.h>

#include <cstring>
#include <memory>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

struct PkeyFree {
    void operator()(EVP_PKEY *k) const { EVP_PKEY_free(k); }
};
struct MdCtxFree {
    void operator()(EVP_MD_CTX *c) const { EVP_MD_CTX_free(c); }
};
struct PkeyCtxFree {
    void operator()(EVP_PKEY_CTX *c) const { EVP_PKEY_CTX_free(c); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

// libcrypto is opened on first use (lazy/LazyLibrary.h); without it no key exists, so every
// signature fails to be made or to verify, and the reason is said once.
bool haveLibcrypto()
{
    std::string error;
    if (lazy::libcrypto().available(&error))
        return true;
    static const bool said = [&error] {
        qWarning("%s", error.c_str());
        return true;
    }();
    (void)said;
    return false;
}

const unsigned char *bytes(const QByteArray &b)
{
    return reinterpret_cast<const unsigned char *>(b.constData());
}

Pkey privateKey(const QByteArray &raw)
{
    if (raw.size() != ApprovalKeys::KeyBytes || !haveLibcrypto())
        return nullptr;
    return Pkey(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, bytes(raw),
                                             static_cast<size_t>(raw.size())));
}

Pkey publicKey(const QByteArray &raw)
{
    if (raw.size() != ApprovalKeys::KeyBytes || !haveLibcrypto())
        return nullptr;
    return Pkey(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, bytes(raw),
                                            static_cast<size_t>(raw.size())));
}

// The raw bytes of one half of the key (`get` is EVP_PKEY_get_raw_private_key or
// EVP_PKEY_get_raw_public_key); nothing, and the buffer wiped, unless it is exactly KeyBytes.
std::optional<QByteArray> rawKey(const Pkey &key,
                                 int (*get)(const EVP_PKEY *, unsigned char *, size_t *))
{
    if (!key)
        return std::nullopt;
    QByteArray raw(ApprovalKeys::KeyBytes, '\0');
    size_t len = static_cast<size_t>(raw.size());
    if (get(key.get(), reinterpret_cast<unsigned char *>(raw.data()), &len) != 1 ||
        len != static_cast<size_t>(ApprovalKeys::KeyBytes)) {
        ::explicit_bzero(raw.data(), static_cast<size_t>(raw.size()));
        return std::nullopt;
    }
    return raw;
}

} // namespace

std::optional<QByteArray> ApprovalKeys::generate()
{
    if (!haveLibcrypto())
        return std::nullopt;
    const PkeyCtx ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr));
    EVP_PKEY *generated = nullptr;
    if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 || EVP_PKEY_keygen(ctx.get(), &generated) != 1)
        return std::nullopt;
    return rawKey(Pkey(generated), EVP_PKEY_get_raw_private_key);
}

std::optional<QByteArray> ApprovalKeys::publicKeyOf(const QByteArray &raw)
{
    return rawKey(privateKey(raw), EVP_PKEY_get_raw_public_key);
}

std::optional<QByteArray> ApprovalKeys::sign(const QByteArray &raw, const QByteArray &message)
{
    const Pkey key = privateKey(raw);
    if (!key) // also without libcrypto: no forwarder is called then
        return std::nullopt;
    const MdCtx ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
        return std::nullopt;
    QByteArray sig(SignatureBytes, '\0');
    size_t len = static_cast<size_t>(sig.size());
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char *>(sig.data()), &len,
                       bytes(message), static_cast<size_t>(message.size())) != 1 ||
        len != static_cast<size_t>(SignatureBytes))
        return std::nullopt;
    return sig;
}

bool ApprovalKeys::verify(const QByteArray &pub, const QByteArray &message,
                          const QByteArray &signature)
{
    if (signature.size() != SignatureBytes)
        return false;
    const Pkey key = publicKey(pub);
    if (!key) // also without libcrypto: no forwarder is called then
        return false;
    const MdCtx ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
        return false;
    return EVP_DigestVerify(ctx.get(), bytes(signature), static_cast<size_t>(signature.size()),
                            bytes(message), static_cast<size_t>(message.size())) == 1;
}

QString ApprovalKeys::fingerprint(const QByteArray &pub)
{
    return ApproverKey::fingerprintOf(pub);
}

QString ApprovalKeys::toBase64(const QByteArray &pub)
{
    return QString::fromLatin1(pub.toBase64());
}

std::optional<QByteArray> ApprovalKeys::fromBase64(const QString &text)
{
    static const QRegularExpression re(u"^[A-Za-z0-9+/]{43}=$"_s);
    if (!re.match(text).hasMatch())
        return std::nullopt;
    const auto decoded =
        QByteArray::fromBase64Encoding(text.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.size() != KeyBytes || !publicKey(decoded.decoded) ||
        toBase64(decoded.decoded) != text)
        return std::nullopt;
    return decoded.decoded;
}

bool ApprovalKeys::isFingerprint(const QString &text)
{
    static const QRegularExpression re(u"^SHA256:[A-Za-z0-9+/]{43}$"_s);
    return re.match(text).hasMatch();
}

void ApprovalKeys::wipe(QByteArray &secret)
{
    if (!secret.isEmpty())
        ::explicit_bzero(secret.data(), static_cast<size_t>(secret.size())); // not optimised away
}

} // namespace fb::team
