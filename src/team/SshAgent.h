#pragma once
// SshAgent: a client of ssh-agent (RFC 9987, OpenSSH's PROTOCOL.agent) for approvals signed with
// an Ed25519 key the agent holds (issue #37). It lists the agent's Ed25519 keys and asks it to sign
// bytes. An ssh-ed25519 agent signature is a plain Ed25519 signature over exactly the bytes sent,
// so it verifies with ApprovalKeys::verify, and sign() hands out a signature only after that check.
//
// Blocking: every call connects to the agent's socket, waits with QLocalSocket's waitFor* up to
// the timeout, and disconnects; no event loop runs. It is meant for the `fabric-broker team
// approve` command-line subcommand only, never for server request handling or the GUI thread.
//
// The agent on SSH_AUTH_SOCK is not trusted: every reply is parsed strictly (a declared length
// over 256 KiB is refused before anything is read or allocated, trailing bytes and counts larger
// than the bytes can hold are refused), and every failure is a Result with a stable reason, never
// an exception. Nothing is logged: key material, comments and messages stay out of the log.
//
// Two fingerprints of one key, not to be confused: fingerprint() is the policy's
// (ApprovalKeys::fingerprint, the SHA-256 of the raw 32-byte key, team.approver_keys),
// sshFingerprint() is OpenSSH's (the SHA-256 of the 51-byte key blob, what `ssh-add -l` and
// `ssh-keygen -lf` print).
#include "team/ApprovalVerify.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QDeadlineTimer>
#include <QList>
#include <QString>
#include <optional>

namespace fb::team {

class SshAgent {
public:
    static constexpr int DefaultTimeoutMs = 5000;
    // OpenSSH's own limits: its client refuses longer replies, its agent longer requests.
    static constexpr qsizetype MaxMessageBytes = 256 * 1024;
    // A key's comment is shown to a person: at most this many code points, invisible ones escaped.
    static constexpr qsizetype MaxCommentCodePoints = 256;
    // The wire form of an Ed25519 public key: string "ssh-ed25519", string key (32 bytes).
    static constexpr qsizetype Ed25519BlobBytes = 51;

    // The outcome of one call: value when it succeeded; otherwise reason, one of the stable
    // snake_case words below, and message, plain text for a person.
    //   no_socket         SSH_AUTH_SOCK is unset or empty
    //   connect_failed    nothing accepts connections on the socket
    //   timeout           the agent did not answer in time
    //   connection_closed the agent closed the connection before its whole reply
    //   request_too_large the message is too long for an agent request
    //   reply_too_large   the agent declared a reply over MaxMessageBytes
    //   malformed_reply   the reply does not parse (truncated, trailing bytes, wrong type, ...)
    //   agent_refused     the agent answered with a failure (declined confirmation, ...)
    //   key_not_in_agent  the agent refused to sign and does not hold that key
    //   wrong_key_type    the agent signed with another algorithm than ssh-ed25519
    //   bad_signature     the agent's signature does not verify with the key and message
    //   invalid_key       the public key given to sign() is not 32 bytes
    template <typename T> struct Result {
        std::optional<T> value;
        QString reason;
        QString message;
        bool ok() const { return value.has_value(); }
    };

    struct Identity {
        QByteArray publicKey; // the raw 32-byte Ed25519 key
        QString comment;      // the agent's comment, bounded and with invisible characters escaped

        // The policy's fingerprint (team.approver_keys): ApprovalKeys::fingerprint(publicKey).
        QString fingerprint() const;
        // OpenSSH's fingerprint, as `ssh-add -l` prints it: sshFingerprintOf(publicKey).
        QString sshFingerprint() const;
    };

    // The socket named by SSH_AUTH_SOCK (made absolute); no_socket when it is unset or empty.
    static Result<QString> socketPathFromEnvironment();

    explicit SshAgent(QString socketPath, int timeoutMs = DefaultTimeoutMs);

    // The agent's Ed25519 keys, in the agent's order; keys of other types (RSA, ECDSA, FIDO
    // sk-ssh-ed25519, certificates) are skipped. An entry that names ssh-ed25519 but is not
    // exactly its 51-byte blob makes the whole reply malformed.
    Result<QList<Identity>> identities() const;

    // The agent's 64-byte Ed25519 signature of message by rawPublicKey (SIGN_REQUEST, flags 0),
    // returned only when ApprovalKeys::verify(rawPublicKey, message, signature) holds.
    Result<QByteArray> sign(const QByteArray &rawPublicKey, const QByteArray &message) const;

    // A StatementSigner (team/ApprovalVerify.h) that has this agent sign a statement with
    // rawPublicKey: the signature (only once it verifies, as sign()) and the key, or the agent's
    // failure as the error. It keeps a copy of this client (socket path and timeout).
    StatementSigner signer(const QByteArray &rawPublicKey) const;

    // The 51-byte wire blob of a raw 32-byte key (empty when raw is not 32 bytes), and back:
    // the raw key of a blob that is exactly string "ssh-ed25519" + string key(32), else nullopt.
    static QByteArray ed25519Blob(const QByteArray &rawPublicKey);
    static std::optional<QByteArray> rawKeyOfBlob(QByteArrayView blob);
    // "SHA256:" + unpadded base64 of the SHA-256 of the blob: OpenSSH's fingerprint.
    static QString sshFingerprintOf(const QByteArray &rawPublicKey);

private:
    struct Reply {
        quint8 type = 0;
        QByteArray payload; // the bytes after the type
    };
    Result<Reply> exchange(const QByteArray &request, const QDeadlineTimer &deadline) const;
    Result<QList<Identity>> identities(const QDeadlineTimer &deadline) const;

    QString m_socketPath;
    int m_timeoutMs;
};

} // namespace fb::team
