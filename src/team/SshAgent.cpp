#include "team/SshAgent.h"

#include "core/Sha256.h"
#include "core/UntrustedText.h"
#include "team/ApprovalKeys.h"

#include <QFileInfo>
#include <QLocalSocket>
#include <QtEndian>

#include <algorithm>
#include <climits>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

// RFC 9987's message numbers (the ones this client sends or expects).
constexpr quint8 kFailure = 5;               // SSH_AGENT_FAILURE
constexpr quint8 kRequestIdentities = 11;    // SSH_AGENTC_REQUEST_IDENTITIES
constexpr quint8 kIdentitiesAnswer = 12;     // SSH_AGENT_IDENTITIES_ANSWER
constexpr quint8 kSignRequest = 13;          // SSH_AGENTC_SIGN_REQUEST
constexpr quint8 kSignResponse = 14;         // SSH_AGENT_SIGN_RESPONSE
constexpr quint8 kSsh2Failure = 30;          // SSH2_AGENT_FAILURE
constexpr quint8 kSshComAgent2Failure = 102; // SSH_COM_AGENT2_FAILURE
constexpr QByteArrayView kEd25519 = "ssh-ed25519";

// Every type OpenSSH's authfd.c takes as a failure.
bool isFailure(quint8 type)
{
    return type == kFailure || type == kSsh2Failure || type == kSshComAgent2Failure;
}

void appendU32(QByteArray &out, quint32 value)
{
    char be[4];
    qToBigEndian(value, be);
    out.append(be, 4);
}

void appendString(QByteArray &out, QByteArrayView bytes)
{
    appendU32(out, static_cast<quint32>(bytes.size()));
    out.append(bytes);
}

// Reads RFC 4251 data types from a buffer, never past its end.
class Reader {
public:
    explicit Reader(QByteArrayView bytes)
        : m_bytes(bytes)
    {
    }
    qsizetype remaining() const { return m_bytes.size() - m_pos; }
    bool atEnd() const { return m_pos == m_bytes.size(); }
    bool u32(quint32 &out)
    {
        if (remaining() < 4)
            return false;
        out = qFromBigEndian<quint32>(m_bytes.data() + m_pos);
        m_pos += 4;
        return true;
    }
    bool string(QByteArrayView &out)
    {
        quint32 length = 0;
        if (!u32(length) || static_cast<quint64>(length) > static_cast<quint64>(remaining()))
            return false;
        out = m_bytes.sliced(m_pos, static_cast<qsizetype>(length));
        m_pos += static_cast<qsizetype>(length);
        return true;
    }

private:
    QByteArrayView m_bytes;
    qsizetype m_pos = 0;
};

template <typename T> SshAgent::Result<T> failure(const QString &reason, const QString &message)
{
    return {std::nullopt, reason, message};
}

template <typename T, typename U> SshAgent::Result<T> failureOf(const SshAgent::Result<U> &other)
{
    return {std::nullopt, other.reason, other.message};
}

int remainingMs(const QDeadlineTimer &deadline)
{
    const qint64 left = deadline.remainingTime(); // never -1: the deadline is never "forever"
    return static_cast<int>(std::clamp<qint64>(left, 0, INT_MAX));
}

QString absolute(const QString &path)
{
    return path.isEmpty() ? path : QFileInfo(path).absoluteFilePath();
}

// Text the agent sent, as a person may see it: at most maxCodePoints code points of it (a
// longer text ends in U+2026), invisible characters escaped, and no more than maxCodePoints
// after escaping either. Only the bytes that can make maxCodePoints + 1 code points are decoded.
QString shown(QByteArrayView bytes, qsizetype maxCodePoints)
{
    const QByteArrayView head = bytes.first(std::min(bytes.size(), 4 * (maxCodePoints + 1)));
    const QString text = UntrustedText::bounded(QString::fromUtf8(head), maxCodePoints);
    return UntrustedText::bounded(UntrustedText::escapeInvisible(text), maxCodePoints);
}

// The reason a waitFor* call returned false.
template <typename T>
SshAgent::Result<T> ioFailure(const QLocalSocket &socket, const QDeadlineTimer &deadline,
                              const QString &when)
{
    if (deadline.hasExpired() || socket.error() == QLocalSocket::SocketTimeoutError)
        return failure<T>(u"timeout"_s, u"ssh-agent did not answer in time ("_s % when % u")"_s);
    return failure<T>(u"connection_closed"_s, u"ssh-agent closed the connection "_s % when %
                                                  u": "_s % socket.errorString());
}

// Appends to out from socket until it holds n bytes.
std::optional<SshAgent::Result<QByteArray>> readUpTo(QLocalSocket &socket, qsizetype n,
                                                     const QDeadlineTimer &deadline,
                                                     QByteArray &out, const QString &what)
{
    while (out.size() < n) {
        if (socket.bytesAvailable() > 0) {
            const QByteArray chunk = socket.read(n - out.size());
            if (!chunk.isEmpty()) {
                out.append(chunk);
                continue;
            }
        }
        // An agent that trickles bytes does not stretch the deadline either.
        if (deadline.hasExpired() ||
            (!socket.waitForReadyRead(remainingMs(deadline)) && socket.bytesAvailable() == 0)) {
            return ioFailure<QByteArray>(socket, deadline,
                                         u"after "_s % QString::number(out.size()) % u" of "_s %
                                             QString::number(n) % u" bytes of "_s % what);
        }
    }
    return std::nullopt;
}

} // namespace

QString SshAgent::Identity::fingerprint() const
{
    return ApprovalKeys::fingerprint(publicKey);
}

QString SshAgent::Identity::sshFingerprint() const
{
    return sshFingerprintOf(publicKey);
}

SshAgent::Result<QString> SshAgent::socketPathFromEnvironment()
{
    const QString path = qEnvironmentVariable("SSH_AUTH_SOCK");
    if (path.isEmpty()) {
        return failure<QString>(
            u"no_socket"_s,
            u"SSH_AUTH_SOCK is not set, so there is no ssh-agent to ask: start one "_s
            u"(eval \"$(ssh-agent)\") and add the approval key with ssh-add, or forward "_s
            u"your own agent with ssh -A"_s);
    }
    return {absolute(path), {}, {}};
}

SshAgent::SshAgent(QString socketPath, int timeoutMs)
    : m_socketPath(absolute(socketPath))
    , m_timeoutMs(timeoutMs)
{
}

QByteArray SshAgent::ed25519Blob(const QByteArray &rawPublicKey)
{
    if (rawPublicKey.size() != ApprovalKeys::KeyBytes)
        return {};
    QByteArray blob;
    appendString(blob, kEd25519);
    appendString(blob, rawPublicKey);
    return blob;
}

std::optional<QByteArray> SshAgent::rawKeyOfBlob(QByteArrayView blob)
{
    Reader reader(blob);
    QByteArrayView type;
    QByteArrayView key;
    if (blob.size() != Ed25519BlobBytes || !reader.string(type) || type != kEd25519 ||
        !reader.string(key) || key.size() != ApprovalKeys::KeyBytes || !reader.atEnd())
        return std::nullopt;
    return key.toByteArray();
}

QString SshAgent::sshFingerprintOf(const QByteArray &rawPublicKey)
{
    const QByteArray blob = ed25519Blob(rawPublicKey);
    if (blob.isEmpty())
        return {};
    return u"SHA256:"_s %
           QString::fromLatin1(Sha256::hash(blob).toBase64(QByteArray::OmitTrailingEquals));
}

SshAgent::Result<SshAgent::Reply> SshAgent::exchange(const QByteArray &request,
                                                     const QDeadlineTimer &deadline) const
{
    if (request.size() > MaxMessageBytes) {
        return failure<Reply>(u"request_too_large"_s, u"the request would be "_s %
                                                          QString::number(request.size()) %
                                                          u" bytes; ssh-agent takes at most "_s %
                                                          QString::number(MaxMessageBytes));
    }
    QLocalSocket socket;
    socket.connectToServer(m_socketPath);
    if (socket.state() != QLocalSocket::ConnectedState &&
        !socket.waitForConnected(remainingMs(deadline))) {
        if (deadline.hasExpired() || socket.error() == QLocalSocket::SocketTimeoutError) {
            return failure<Reply>(u"timeout"_s,
                                  u"ssh-agent at "_s % m_socketPath % u" did not accept in time"_s);
        }
        return failure<Reply>(u"connect_failed"_s, u"could not connect to ssh-agent at "_s %
                                                       m_socketPath % u": "_s %
                                                       socket.errorString());
    }

    QByteArray frame;
    appendU32(frame, static_cast<quint32>(request.size()));
    frame.append(request);
    if (socket.write(frame) != frame.size())
        return ioFailure<Reply>(socket, deadline, u"while the request was sent"_s);
    while (socket.bytesToWrite() > 0) {
        if (!socket.waitForBytesWritten(remainingMs(deadline)))
            return ioFailure<Reply>(socket, deadline, u"while the request was sent"_s);
    }

    QByteArray header;
    if (auto failed = readUpTo(socket, 4, deadline, header, u"the reply's length"_s))
        return failureOf<Reply>(*failed);
    const quint32 length = qFromBigEndian<quint32>(header.constData());
    // Checked before a byte of the reply is read or a buffer is sized by it.
    if (length > static_cast<quint32>(MaxMessageBytes)) {
        socket.abort();
        return failure<Reply>(u"reply_too_large"_s,
                              u"ssh-agent announced a reply of "_s % QString::number(length) %
                                  u" bytes; at most "_s % QString::number(MaxMessageBytes) %
                                  u" are accepted"_s);
    }
    if (length == 0)
        return failure<Reply>(u"malformed_reply"_s, u"ssh-agent sent an empty reply"_s);
    QByteArray body;
    body.reserve(static_cast<qsizetype>(length));
    if (auto failed =
            readUpTo(socket, static_cast<qsizetype>(length), deadline, body, u"the reply"_s))
        return failureOf<Reply>(*failed);
    if (socket.bytesAvailable() > 0) {
        socket.abort();
        return failure<Reply>(u"malformed_reply"_s,
                              u"ssh-agent sent more bytes than its reply holds"_s);
    }
    socket.abort(); // one request per connection; nothing is left to send
    return {Reply{static_cast<quint8>(body.at(0)), body.sliced(1)}, {}, {}};
}

SshAgent::Result<QList<SshAgent::Identity>> SshAgent::identities() const
{
    return identities(QDeadlineTimer(m_timeoutMs));
}

SshAgent::Result<QList<SshAgent::Identity>>
SshAgent::identities(const QDeadlineTimer &deadline) const
{
    using R = QList<Identity>;
    const auto reply = exchange(QByteArray(1, static_cast<char>(kRequestIdentities)), deadline);
    if (!reply.ok())
        return failureOf<R>(reply);
    if (isFailure(reply.value->type))
        return failure<R>(u"agent_refused"_s, u"ssh-agent refused to list its keys"_s);
    if (reply.value->type != kIdentitiesAnswer) {
        return failure<R>(u"malformed_reply"_s,
                          u"ssh-agent answered the list of keys with message type "_s %
                              QString::number(reply.value->type));
    }
    const auto malformed = [](const QString &what) {
        return failure<R>(u"malformed_reply"_s, u"ssh-agent's list of keys "_s % what);
    };
    Reader reader(reply.value->payload);
    quint32 count = 0;
    if (!reader.u32(count))
        return malformed(u"has no count"_s);
    // Each key takes at least two empty strings (8 bytes).
    if (static_cast<quint64>(count) > static_cast<quint64>(reader.remaining() / 8)) {
        return malformed(u"declares "_s % QString::number(count) % u" keys in "_s %
                         QString::number(reader.remaining()) % u" bytes"_s);
    }
    R keys;
    for (quint32 i = 0; i < count; ++i) {
        QByteArrayView blob;
        QByteArrayView comment;
        if (!reader.string(blob) || !reader.string(comment))
            return malformed(u"ends inside key "_s % QString::number(i + 1));
        Reader blobReader(blob);
        QByteArrayView type;
        if (!blobReader.string(type) || type != kEd25519)
            continue; // RSA, ECDSA, FIDO, certificates: not approval keys
        const auto raw = rawKeyOfBlob(blob);
        if (!raw) {
            return malformed(u"has an ssh-ed25519 key of "_s % QString::number(blob.size()) %
                             u" bytes instead of "_s % QString::number(Ed25519BlobBytes));
        }
        keys.append(Identity{*raw, shown(comment, MaxCommentCodePoints)});
    }
    if (!reader.atEnd())
        return malformed(u"has bytes after its last key"_s);
    return {keys, {}, {}};
}

SshAgent::Result<QByteArray> SshAgent::sign(const QByteArray &rawPublicKey,
                                            const QByteArray &message) const
{
    using R = QByteArray;
    if (rawPublicKey.size() != ApprovalKeys::KeyBytes) {
        return failure<R>(u"invalid_key"_s, u"an Ed25519 public key is 32 bytes, not "_s %
                                                QString::number(rawPublicKey.size()));
    }
    const QDeadlineTimer deadline(m_timeoutMs);
    QByteArray request(1, static_cast<char>(kSignRequest));
    appendString(request, ed25519Blob(rawPublicKey));
    appendString(request, message);
    appendU32(request, 0); // flags: only RSA keys have any
    const auto reply = exchange(request, deadline);
    if (!reply.ok())
        return failureOf<R>(reply);
    const QString key = sshFingerprintOf(rawPublicKey);

    if (isFailure(reply.value->type)) {
        // Why: the key is not there, or the agent declined (a key added with ssh-add -c whose
        // confirmation was refused or could not be asked, a destination-constrained key).
        const auto held = identities(deadline);
        if (held.ok() &&
            std::none_of(held.value->cbegin(), held.value->cend(),
                         [&](const Identity &id) { return id.publicKey == rawPublicKey; })) {
            return failure<R>(u"key_not_in_agent"_s, u"ssh-agent does not hold the key "_s % key %
                                                         u" (policy fingerprint "_s %
                                                         ApprovalKeys::fingerprint(rawPublicKey) %
                                                         u"); add it with ssh-add"_s);
        }
        return failure<R>(u"agent_refused"_s, u"ssh-agent refused to sign with the key "_s % key %
                                                  u" (confirmation declined or unavailable?)"_s);
    }
    const auto malformed = [](const QString &what) {
        return failure<R>(u"malformed_reply"_s, u"ssh-agent's signature "_s % what);
    };
    if (reply.value->type != kSignResponse) {
        return malformed(u"came as message type "_s % QString::number(reply.value->type));
    }
    Reader reader(reply.value->payload);
    QByteArrayView blob;
    if (!reader.string(blob) || !reader.atEnd())
        return malformed(u"is not exactly one string"_s);
    Reader blobReader(blob);
    QByteArrayView type;
    if (!blobReader.string(type))
        return malformed(u"has no type"_s);
    if (type != kEd25519) {
        return failure<R>(u"wrong_key_type"_s,
                          u"ssh-agent signed with "_s % shown(type, 40) % u", not ssh-ed25519"_s);
    }
    QByteArrayView signature;
    if (!blobReader.string(signature) || !blobReader.atEnd())
        return malformed(u"is not string \"ssh-ed25519\" followed by one string"_s);
    if (signature.size() != ApprovalKeys::SignatureBytes) {
        return malformed(u"is "_s % QString::number(signature.size()) % u" bytes, not "_s %
                         QString::number(ApprovalKeys::SignatureBytes));
    }
    const QByteArray bytes = signature.toByteArray();
    if (!ApprovalKeys::verify(rawPublicKey, message, bytes)) {
        return failure<R>(u"bad_signature"_s,
                          u"ssh-agent's signature does not verify with the key "_s % key);
    }
    return {bytes, {}, {}};
}

StatementSigner SshAgent::signer(const QByteArray &rawPublicKey) const
{
    return [agent = *this, rawPublicKey](const QByteArray &statement) {
        const Result<QByteArray> signature = agent.sign(rawPublicKey, statement);
        if (!signature.ok())
            return StatementSignature{{}, {}, signature.message};
        return StatementSignature{*signature.value, rawPublicKey, {}};
    };
}

} // namespace fb::team
