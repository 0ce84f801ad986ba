#pragma once
// Ed25519 keys and signatures for signed approvals (issue #26, docs/team-signing.md),
// through OpenSSL 3 (EVP_PKEY_ED25519). GUI-free: where the private key is kept (the OS keychain)
// is the keychain library's business (src/keychain/ApproverKeyStore); this only does the
// arithmetic.
//
// A public key travels as its raw 32 bytes in standard base64; its fingerprint is written the way
// OpenSSH writes one ("SHA256:" and unpadded base64) but hashes the raw 32-byte key, not the
// 51-byte wire blob OpenSSH hashes: `ssh-add -l` prints another value for the same key
// (team/SshAgent names both).
#include <QByteArray>
#include <QString>
#include <optional>

namespace fb::team {

class ApprovalKeys {
public:
    static constexpr int KeyBytes = 32;
    static constexpr int SignatureBytes = 64;

    // A new private key: its raw 32-byte seed (a secret: keep it out of logs and files), or
    // nullopt when OpenSSL could not make one.
    static std::optional<QByteArray> generate();
    // The raw public key of a raw private key; nullopt when it is not one.
    static std::optional<QByteArray> publicKeyOf(const QByteArray &privateKey);
    // The 64-byte Ed25519 signature of message; nullopt when privateKey is not a key.
    static std::optional<QByteArray> sign(const QByteArray &privateKey, const QByteArray &message);
    // Whether signature is publicKey's signature of message.
    static bool verify(const QByteArray &publicKey, const QByteArray &message,
                       const QByteArray &signature);

    static QString fingerprint(const QByteArray &publicKey);
    static QString toBase64(const QByteArray &publicKey);
    // Strict: standard padded base64 of exactly 32 bytes that OpenSSL takes as an Ed25519 key.
    static std::optional<QByteArray> fromBase64(const QString &text);
    // Whether text has the form of a fingerprint ("SHA256:" and 43 base64 characters).
    static bool isFingerprint(const QString &text);
    // Overwrites secret's bytes with zeros in a way the compiler cannot drop (explicit_bzero):
    // a private key's copy, once used. Detach first a copy that shares its data.
    static void wipe(QByteArray &secret);
};

} // namespace fb::team
