// The ssh-agent client (src/team/SshAgent): against a real ssh-agent from openssh-client with
// keys ssh-keygen made (the keys listed, OpenSSH's fingerprint as `ssh-add -l` prints it,
// signatures ApprovalKeys::verify accepts, a key the agent does not hold, a key whose confirmation
// cannot be asked, an RSA key skipped), and against a fake agent on its own thread that answers
// what a hostile SSH_AUTH_SOCK could (truncated, oversized, trailing bytes, impossible counts,
// other algorithms, a signature by another key, silence, a closed connection). Its signer signs
// an approval statement the one verifier counts (issue #37).
#include "TestEnvironment.h"
#include "core/Sha256.h"
#include "team/ApprovalKeys.h"
#include "team/ApproverDecision.h"
#include "team/SshAgent.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QtEndian>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

using namespace fb::team;
using namespace Qt::StringLiterals;

namespace {

QByteArray u32(quint32 value)
{
    QByteArray b(4, '\0');
    qToBigEndian(value, b.data());
    return b;
}

QByteArray str(const QByteArray &bytes)
{
    return u32(static_cast<quint32>(bytes.size())) + bytes;
}

// One agent message: uint32 length, byte type, contents.
QByteArray frame(quint8 type, const QByteArray &contents)
{
    return u32(static_cast<quint32>(contents.size() + 1)) + static_cast<char>(type) + contents;
}

// The wire blob of an Ed25519 key, built here independently of SshAgent::ed25519Blob.
QByteArray ed25519Blob(const QByteArray &raw)
{
    return str("ssh-ed25519") + str(raw);
}

QByteArray signatureBlob(const QByteArray &sig)
{
    return str("ssh-ed25519") + str(sig);
}

// One scripted answer per accepted connection: after reading the request frame (when
// readRequest), write bytes; then close, or hold the connection open until the client leaves.
struct Answer {
    QByteArray bytes;
    bool hold = false;
    bool readRequest = true;
};

// A fake ssh-agent on a plain POSIX Unix socket, served by its own thread, so the blocking client
// under test can wait on the main thread. Records every request frame it reads.
class FakeAgent {
public:
    FakeAgent(const QString &path, QList<Answer> answers)
        : m_path(QFile::encodeName(path))
        , m_answers(std::move(answers))
    {
        sockaddr_un addr{};
        if (static_cast<size_t>(m_path.size()) >= sizeof(addr.sun_path) ||
            ::pipe2(m_wake, O_CLOEXEC) != 0)
            return;
        m_listen = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        addr.sun_family = AF_UNIX;
        std::memcpy(addr.sun_path, m_path.constData(), static_cast<size_t>(m_path.size()));
        if (m_listen < 0 ||
            ::bind(m_listen, reinterpret_cast<const sockaddr *>(&addr), sizeof(addr)) != 0 ||
            ::listen(m_listen, 8) != 0)
            return;
        m_thread = std::thread([this] { run(); });
    }
    ~FakeAgent()
    {
        stop();
        for (int fd : {m_listen, m_wake[0], m_wake[1]}) {
            if (fd >= 0)
                ::close(fd);
        }
        ::unlink(m_path.constData());
    }
    FakeAgent(const FakeAgent &) = delete;
    FakeAgent &operator=(const FakeAgent &) = delete;

    bool listening() const { return m_thread.joinable(); }
    // Waits for the thread to finish what it serves (the wake pipe stays readable once written).
    void stop()
    {
        if (!m_thread.joinable())
            return;
        const char c = 0;
        [[maybe_unused]] const ssize_t written = ::write(m_wake[1], &c, 1);
        m_thread.join();
    }
    QList<QByteArray> requests()
    {
        const std::lock_guard lock(m_mutex);
        return m_requests;
    }
    int connections() const { return m_connections.load(); }

private:
    void run()
    {
        for (qsizetype i = 0;; ++i) {
            const int fd = acceptOne();
            if (fd < 0)
                return;
            ++m_connections;
            if (i < m_answers.size()) // beyond the script, a connection is closed at once
                serve(fd, m_answers.at(i));
            ::close(fd);
        }
    }
    // Whether fd has something to read (or was closed) before the agent is stopped.
    bool readable(int fd, int timeoutMs)
    {
        pollfd p[2] = {{fd, POLLIN, 0}, {m_wake[0], POLLIN, 0}};
        return ::poll(p, 2, timeoutMs) > 0 && p[1].revents == 0 && p[0].revents != 0;
    }
    int acceptOne()
    {
        if (!readable(m_listen, -1))
            return -1;
        return ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
    }
    bool readExactly(int fd, char *into, size_t n)
    {
        while (n > 0) {
            if (!readable(fd, 10000))
                return false;
            const ssize_t got = ::read(fd, into, n);
            if (got <= 0)
                return false;
            into += got;
            n -= static_cast<size_t>(got);
        }
        return true;
    }
    void serve(int fd, const Answer &answer)
    {
        if (answer.readRequest) {
            char header[4];
            if (!readExactly(fd, header, 4))
                return;
            const quint32 length = qFromBigEndian<quint32>(header);
            if (length > 1024 * 1024)
                return;
            QByteArray request = QByteArray(header, 4) + QByteArray(qsizetype(length), '\0');
            if (!readExactly(fd, request.data() + 4, length))
                return;
            const std::lock_guard lock(m_mutex);
            m_requests.append(request);
        }
        const char *data = answer.bytes.constData();
        size_t left = static_cast<size_t>(answer.bytes.size());
        while (left > 0) {
            const ssize_t sent = ::send(fd, data, left, MSG_NOSIGNAL);
            if (sent <= 0)
                return;
            data += sent;
            left -= static_cast<size_t>(sent);
        }
        if (answer.hold) {
            char sink[256];
            while (readable(fd, -1) && ::read(fd, sink, sizeof(sink)) > 0) {
            }
        }
    }

    QByteArray m_path;
    const QList<Answer> m_answers;
    int m_listen = -1;
    int m_wake[2] = {-1, -1};
    std::thread m_thread;
    std::mutex m_mutex;
    QList<QByteArray> m_requests;
    std::atomic<int> m_connections{0};
};

// Runs a tool to its end; its standard output in *out. An error text, or empty when it exited 0.
QString run(const QString &program, const QStringList &args, const QProcessEnvironment &env,
            QByteArray *out = nullptr)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.setStandardInputFile(QProcess::nullDevice());
    p.start(program, args);
    if (!p.waitForFinished(30000)) {
        p.kill();
        p.waitForFinished();
        return program + " did not finish";
    }
    if (out)
        *out = p.readAllStandardOutput();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        return program + " " + args.join(' ') + " failed (" + QString::number(p.exitCode()) +
               "): " + QString::fromLocal8Bit(p.readAllStandardError());
    }
    return {};
}

} // namespace

Q_DECLARE_METATYPE(Answer)

// Without the real agent (openssh-client missing): skipped on a developer's machine, a failure
// in CI, where every prerequisite must be installed.
#define REQUIRE_REAL_AGENT()                                                                       \
    do {                                                                                           \
        if (!m_realError.isEmpty()) {                                                              \
            if (qEnvironmentVariable("CI") == QLatin1String("true"))                               \
                QFAIL(qPrintable(m_realError));                                                    \
            QSKIP(qPrintable(m_realError));                                                        \
        }                                                                                          \
    } while (false)

class TestSshAgent : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    // The real agent, started once in initTestCase.
    QProcess m_agent;
    QString m_realError;
    QString m_agentSocket;
    QProcessEnvironment m_env;
    // Keys for the fake agent.
    QByteArray m_seed;
    QByteArray m_pub;
    QByteArray m_otherSeed;
    QByteArray m_otherPub;
    const QByteArray m_message = "{\"approver\":\"alice\",\"decision\":\"approve\"}";
    int m_fakes = 0;

    QString fakePath() { return m_dir.filePath("fake-" + QString::number(++m_fakes) + ".sock"); }

    QString startRealAgent()
    {
        const QString agent = QStandardPaths::findExecutable("ssh-agent");
        const QString add = QStandardPaths::findExecutable("ssh-add");
        const QString keygen = QStandardPaths::findExecutable("ssh-keygen");
        if (agent.isEmpty() || add.isEmpty() || keygen.isEmpty())
            return "ssh-agent, ssh-add or ssh-keygen is not installed (Debian: openssh-client)";
        m_agentSocket = m_dir.filePath("agent.sock");
        // No display and no askpass: a key that needs confirmation is refused, never prompted.
        m_env = QProcessEnvironment::systemEnvironment();
        for (const char *name :
             {"DISPLAY", "WAYLAND_DISPLAY", "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE"})
            m_env.remove(QString::fromLatin1(name));
        m_env.insert("SSH_AUTH_SOCK", m_agentSocket);
        m_agent.setProcessEnvironment(m_env);
        m_agent.setStandardInputFile(QProcess::nullDevice());
        m_agent.start(agent, {"-D", "-a", m_agentSocket});
        if (!m_agent.waitForStarted(10000))
            return "ssh-agent did not start: " + m_agent.errorString();
        QElapsedTimer waited;
        waited.start();
        while (!QFileInfo(m_agentSocket).exists()) {
            if (waited.elapsed() > 10000 || m_agent.state() != QProcess::Running)
                return "ssh-agent made no socket at " + m_agentSocket;
            QThread::msleep(20);
        }
        const QString keys[][3] = {{"key", "ed25519", "tester@fb"},
                                   {"confirm", "ed25519", "confirm@fb"},
                                   {"rsa", "rsa", "rsa@fb"}};
        for (const auto &k : keys) {
            const QString error =
                run(keygen, {"-q", "-t", k[1], "-N", "", "-C", k[2], "-f", m_dir.filePath(k[0])},
                    m_env);
            if (!error.isEmpty())
                return error;
        }
        for (const QStringList &args :
             {QStringList{m_dir.filePath("key")}, QStringList{m_dir.filePath("rsa")},
              QStringList{"-c", m_dir.filePath("confirm")}}) {
            const QString error = run(add, args, m_env);
            if (!error.isEmpty())
                return error;
        }
        return {};
    }

    // The raw key of key.pub: the base64 blob of "ssh-ed25519 AAAA... comment", its last 32 bytes.
    QByteArray rawKeyOfPubFile(const QString &name)
    {
        QFile f(m_dir.filePath(name + ".pub"));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        const QList<QByteArray> fields = f.readAll().trimmed().split(' ');
        if (fields.size() != 3 || fields.at(0) != "ssh-ed25519")
            return {};
        const QByteArray blob = QByteArray::fromBase64(fields.at(1));
        if (blob.size() != 51 || blob.left(19) != ed25519Blob(QByteArray(32, 'x')).left(19))
            return {};
        return blob.right(32);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_seed = *ApprovalKeys::generate();
        m_pub = *ApprovalKeys::publicKeyOf(m_seed);
        m_otherSeed = *ApprovalKeys::generate();
        m_otherPub = *ApprovalKeys::publicKeyOf(m_otherSeed);
        m_realError = startRealAgent();
        if (!m_realError.isEmpty())
            qInfo("%s", qPrintable(m_realError));
    }

    void cleanupTestCase()
    {
        if (m_agent.state() != QProcess::NotRunning) {
            m_agent.terminate();
            if (!m_agent.waitForFinished(5000)) {
                m_agent.kill();
                m_agent.waitForFinished();
            }
        }
    }

    void init() { fbtest::failOnWarnings(); }

    void socketFromEnvironment()
    {
        {
            const fbtest::ScopedEnvironmentVariable unset("SSH_AUTH_SOCK", QByteArray());
            const auto path = SshAgent::socketPathFromEnvironment();
            QVERIFY(!path.ok());
            QCOMPARE(path.reason, u"no_socket"_s);
            QVERIFY(path.message.contains("SSH_AUTH_SOCK"));
        }
        {
            const fbtest::ScopedEnvironmentVariable empty("SSH_AUTH_SOCK", QByteArray(""));
            QCOMPARE(SshAgent::socketPathFromEnvironment().reason, u"no_socket"_s);
        }
        {
            const fbtest::ScopedEnvironmentVariable set("SSH_AUTH_SOCK", "/run/x/agent.1");
            const auto path = SshAgent::socketPathFromEnvironment();
            QVERIFY(path.ok());
            QCOMPARE(*path.value, u"/run/x/agent.1"_s);
        }
        {
            const fbtest::ScopedEnvironmentVariable relative("SSH_AUTH_SOCK", "rel/agent.sock");
            QCOMPARE(*SshAgent::socketPathFromEnvironment().value,
                     QDir::current().filePath("rel/agent.sock"));
        }
    }

    void blobAndFingerprints()
    {
        // RFC 8032's key, as OpenSSH writes it and as `ssh-keygen -lf` prints its fingerprint.
        const QByteArray pub =
            QByteArray::fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
        const QByteArray blob = SshAgent::ed25519Blob(pub);
        QCOMPARE(
            blob.toBase64(),
            QByteArray("AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea"));
        QCOMPARE(blob, ed25519Blob(pub));
        QCOMPARE(*SshAgent::rawKeyOfBlob(blob), pub);
        QCOMPARE(SshAgent::sshFingerprintOf(pub),
                 QStringLiteral("SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8"));
        const SshAgent::Identity id{pub, QString()};
        QCOMPARE(id.sshFingerprint(), SshAgent::sshFingerprintOf(pub));
        // The policy's fingerprint hashes the raw key: another text for the same key.
        QCOMPARE(id.fingerprint(),
                 QStringLiteral("SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk"));
        QVERIFY(SshAgent::ed25519Blob(pub.left(31)).isEmpty());
        QVERIFY(SshAgent::sshFingerprintOf(pub.left(31)).isEmpty());
        QVERIFY(!SshAgent::rawKeyOfBlob(blob.left(50)));
        QVERIFY(!SshAgent::rawKeyOfBlob(QByteArray(blob + 'x')));
        QVERIFY(!SshAgent::rawKeyOfBlob(QByteArray(str("ssh-ed25518") + str(pub))));
        QVERIFY(!SshAgent::rawKeyOfBlob(QByteArray(str("ssh-ed25519") + u32(33) + pub.left(31))));
    }

    void connectFails()
    {
        const auto missing = SshAgent(m_dir.filePath("nobody.sock")).identities();
        QCOMPARE(missing.reason, u"connect_failed"_s);
        QVERIFY(missing.message.contains("nobody.sock"));
        QFile plain(m_dir.filePath("plain-file"));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        QCOMPARE(SshAgent(plain.fileName()).sign(m_pub, m_message).reason, u"connect_failed"_s);
        QCOMPARE(SshAgent(QString()).identities().reason, u"connect_failed"_s);
    }

    void realAgentListsItsEd25519Keys()
    {
        REQUIRE_REAL_AGENT();
        QByteArray listed;
        QCOMPARE(run("ssh-add", {"-l"}, m_env, &listed), QString());
        // "256 SHA256:... tester@fb (ED25519)"
        QString sshAddFingerprint;
        QString rsaFingerprint;
        for (const QByteArray &line : listed.split('\n')) {
            const QList<QByteArray> f = line.split(' ');
            if (f.size() == 4 && f.at(2) == "tester@fb" && f.at(3) == "(ED25519)")
                sshAddFingerprint = QString::fromLatin1(f.at(1));
            if (f.size() == 4 && f.at(2) == "rsa@fb" && f.at(3) == "(RSA)")
                rsaFingerprint = QString::fromLatin1(f.at(1));
        }
        QVERIFY2(sshAddFingerprint.startsWith("SHA256:"), listed.constData());
        QVERIFY2(rsaFingerprint.startsWith("SHA256:"), listed.constData());

        const auto ids = SshAgent(m_agentSocket).identities();
        QVERIFY2(ids.ok(), qPrintable(ids.reason + ": " + ids.message));
        QCOMPARE(ids.value->size(), 2); // key and confirm; the RSA key is skipped
        QStringList comments;
        for (const auto &id : *ids.value) {
            comments << id.comment;
            QVERIFY(id.sshFingerprint() != rsaFingerprint);
        }
        QCOMPARE(comments, QStringList({"tester@fb", "confirm@fb"}));
        const SshAgent::Identity &key = ids.value->at(0);
        const QByteArray fromFile = rawKeyOfPubFile("key");
        QCOMPARE(fromFile.size(), 32);
        QCOMPARE(key.publicKey, fromFile);
        QCOMPARE(key.sshFingerprint(), sshAddFingerprint);
        QCOMPARE(key.fingerprint(), ApprovalKeys::fingerprint(fromFile));
        QVERIFY(key.fingerprint() != key.sshFingerprint());
        QCOMPARE(ids.value->at(1).publicKey, rawKeyOfPubFile("confirm"));
    }

    void realAgentSigns()
    {
        REQUIRE_REAL_AGENT();
        const QByteArray pub = rawKeyOfPubFile("key");
        QCOMPARE(pub.size(), 32);
        const SshAgent agent(m_agentSocket);
        for (const QByteArray &message : {m_message, QByteArray(), QByteArray(2048, '{')}) {
            const auto sig = agent.sign(pub, message);
            QVERIFY2(sig.ok(), qPrintable(sig.reason + ": " + sig.message));
            QCOMPARE(sig.value->size(), 64);
            QVERIFY(ApprovalKeys::verify(pub, message, *sig.value));
            QByteArray flipped = message + 'x';
            if (!message.isEmpty()) {
                flipped = message;
                flipped[0] = static_cast<char>(flipped[0] ^ 1);
            }
            QVERIFY(!ApprovalKeys::verify(pub, flipped, *sig.value));
            // Ed25519 is deterministic: the agent signs the same bytes the same way.
            QCOMPARE(*agent.sign(pub, message).value, *sig.value);
        }
    }

    // The agent as a StatementSigner: the same statement the keychain's key would sign, signed
    // by the agent, counts for the role the policy lists its key for; a key it does not hold
    // signs nothing and says why.
    void realAgentSignsAnApprovalStatement()
    {
        REQUIRE_REAL_AGENT();
        const QByteArray pub = rawKeyOfPubFile("key");
        QCOMPARE(pub.size(), 32);
        TeamProposal p;
        p.id = "0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69";
        p.changeType = u"connection_create"_s;
        p.request = "{}";
        p.requestSha256 = fb::Sha256::hash(p.request).toHex();
        p.dryRun = "{}";
        p.proposer = u"carol"_s;
        p.state = u"consumed"_s;
        p.tokenSha256 = fb::Sha256::hash("t").toHex();
        p.expiresMs = QDateTime::currentMSecsSinceEpoch() + 600000;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const QString shown = u"the text shown"_s;
        const DecisionSigning how = decisionSigningWith(p, u"approve"_s, shown, u"bob"_s,
                                                        SshAgent(m_agentSocket).signer(pub), now);
        QCOMPARE(how.status, DecisionSigning::Status::Signed);
        QCOMPARE(how.signature->publicKey, pub);
        // The statement a key held here (the keychain's) signs, byte for byte: one builder.
        const DecisionSigning here =
            decisionSigning(p, u"approve"_s, shown, u"bob"_s, m_seed, {}, now);
        QCOMPARE(how.signature->statement, here.signature->statement);
        QVERIFY(ApprovalKeys::verify(pub, how.signature->statement, how.signature->signature));
        const SignedApproval row{u"bob"_s,
                                 u"approve"_s,
                                 shownTextSha256(shown),
                                 how.signature->statement,
                                 how.signature->signature,
                                 pub};
        const fb::ApproverKey listed{u"bob"_s, ApprovalKeys::fingerprint(pub), pub};
        const ApprovalCheck check =
            verifyApproval(p, row, {listed}, StatementVersions::CurrentOnly);
        QVERIFY2(check.counts, qPrintable(check.reason));
        QCOMPARE(check.fingerprint, ApprovalKeys::fingerprint(pub));
        QVERIFY(!verifyApproval(p, row, {fb::ApproverKey{u"alice"_s, listed.fingerprint, pub}},
                                StatementVersions::CurrentOnly)
                     .counts);

        const DecisionSigning missing = decisionSigningWith(
            p, u"approve"_s, shown, u"bob"_s, SshAgent(m_agentSocket).signer(m_pub), now);
        QCOMPARE(missing.status, DecisionSigning::Status::SignerFailed);
        QVERIFY2(missing.keyError.contains(u"ssh-agent does not hold the key"_s),
                 qPrintable(missing.keyError));
    }

    void realAgentDoesNotHoldTheKey()
    {
        REQUIRE_REAL_AGENT();
        const auto sig = SshAgent(m_agentSocket).sign(m_pub, m_message);
        QVERIFY(!sig.ok());
        QCOMPARE(sig.reason, u"key_not_in_agent"_s);
        QVERIFY(sig.message.contains(SshAgent::sshFingerprintOf(m_pub)));
        QVERIFY(sig.message.contains(ApprovalKeys::fingerprint(m_pub)));
        QCOMPARE(SshAgent(m_agentSocket).sign(m_pub.left(31), m_message).reason, u"invalid_key"_s);
    }

    void realAgentRefusesAKeyThatNeedsConfirmation()
    {
        REQUIRE_REAL_AGENT();
        // Added with ssh-add -c; the agent has no display and no askpass to ask with.
        const auto sig = SshAgent(m_agentSocket).sign(rawKeyOfPubFile("confirm"), m_message);
        QCOMPARE(sig.reason, u"agent_refused"_s);
        QVERIFY(sig.message.contains("confirmation"));
    }

    void fakeAgentSigns()
    {
        const QByteArray sig = *ApprovalKeys::sign(m_seed, m_message);
        const QString path = fakePath();
        FakeAgent fake(path, {{frame(14, str(signatureBlob(sig)))}});
        QVERIFY(fake.listening());
        const auto got = SshAgent(path).sign(m_pub, m_message);
        QVERIFY2(got.ok(), qPrintable(got.reason + ": " + got.message));
        QCOMPARE(*got.value, sig);
        fake.stop();
        // What was sent: SIGN_REQUEST, the key's blob, the message, flags 0; nothing else.
        QCOMPARE(fake.requests(),
                 QList<QByteArray>{frame(13, str(ed25519Blob(m_pub)) + str(m_message) + u32(0))});
        QCOMPARE(fake.connections(), 1);
    }

    void fakeAgentListsKeys()
    {
        // An Ed25519 key whose comment tries to start lines, recolour the terminal and reverse
        // the text, 10 KB long; an RSA key, a FIDO key and a certificate (skipped); an Ed25519
        // key with a plain comment.
        const QByteArray hostile =
            "alice\nPrice: USD 0.00\r\x1b[31m\xe2\x80\xae" + QByteArray(10 * 1024, 'A');
        const QByteArray answer = frame(
            12, u32(5) + str(ed25519Blob(m_pub)) + str(hostile) +
                    str(str("ssh-rsa") + str("\x01\x01") + str(QByteArray(257, 'n'))) + str("rsa") +
                    str(str("sk-ssh-ed25519@openssh.com") + str(m_otherPub) + str("ssh:")) +
                    str("fido") +
                    str(str("ssh-ed25519-cert-v01@openssh.com") + str("nonce") + str(m_otherPub)) +
                    str("cert") + str(ed25519Blob(m_otherPub)) + str("bob@laptop"));
        const QString path = fakePath();
        FakeAgent fake(path, {{answer}});
        const auto ids = SshAgent(path).identities();
        QVERIFY2(ids.ok(), qPrintable(ids.reason + ": " + ids.message));
        QCOMPARE(ids.value->size(), 2);
        QCOMPARE(ids.value->at(0).publicKey, m_pub);
        QCOMPARE(ids.value->at(1).publicKey, m_otherPub);
        QCOMPARE(ids.value->at(1).comment, u"bob@laptop"_s);
        const QString shown = ids.value->at(0).comment;
        QVERIFY2(shown.startsWith("alice\\nPrice: USD 0.00\\r"), qPrintable(shown));
        QVERIFY(shown.size() <= SshAgent::MaxCommentCodePoints + 1);
        QVERIFY(shown.endsWith(QChar(0x2026)));
        for (const QChar c : shown) {
            QVERIFY2(c.unicode() >= 0x20 && c.unicode() != 0x7f && c.unicode() != 0x202e,
                     qPrintable(QString::number(c.unicode(), 16)));
        }
        fake.stop();
        QCOMPARE(fake.requests(), QList<QByteArray>{frame(11, {})});
    }

    void hostileListOfKeys_data()
    {
        QTest::addColumn<QByteArray>("reply");
        QTest::addColumn<bool>("hold");
        QTest::addColumn<QString>("reason");
        const QByteArray key = str(ed25519Blob(QByteArray(32, 'k'))) + str("c");
        QTest::newRow("truncated, then closed")
            << QByteArray(u32(20) + QByteArray(10, '\x0c')) << false << u"connection_closed"_s;
        QTest::newRow("declares 300 KiB") << QByteArray(u32(300 * 1024) + QByteArray(1024, '\x0c'))
                                          << true << u"reply_too_large"_s;
        QTest::newRow("declares 4 GiB") << u32(0xffffffffu) << true << u"reply_too_large"_s;
        QTest::newRow("empty frame") << u32(0) << false << u"malformed_reply"_s;
        QTest::newRow("failure 5") << frame(5, {}) << false << u"agent_refused"_s;
        QTest::newRow("failure 30") << frame(30, {}) << false << u"agent_refused"_s;
        QTest::newRow("failure 102") << frame(102, {}) << false << u"agent_refused"_s;
        QTest::newRow("a signature instead")
            << frame(14, str(signatureBlob(QByteArray(64, 's')))) << false << u"malformed_reply"_s;
        QTest::newRow("no count") << frame(12, {}) << false << u"malformed_reply"_s;
        QTest::newRow("count 2^31") << frame(12, u32(0x80000000u)) << false << u"malformed_reply"_s;
        QTest::newRow("count 2^31 with a key")
            << frame(12, u32(0x80000000u) + key) << false << u"malformed_reply"_s;
        QTest::newRow("count 2, one key")
            << frame(12, u32(2) + key + u32(0)) << false << u"malformed_reply"_s;
        QTest::newRow("string past the end")
            << frame(12, u32(1) + str(ed25519Blob(QByteArray(32, 'k'))) + u32(5) + "c") << false
            << u"malformed_reply"_s;
        QTest::newRow("trailing byte in the frame")
            << frame(12, u32(1) + key + "x") << false << u"malformed_reply"_s;
        QTest::newRow("bytes after the frame")
            << QByteArray(frame(12, u32(1) + key) + "junk") << true << u"malformed_reply"_s;
        QTest::newRow("key blob of 50 bytes")
            << frame(12, u32(1) + str(str("ssh-ed25519") + str(QByteArray(31, 'k'))) + str("c"))
            << false << u"malformed_reply"_s;
        QTest::newRow("key blob of 52 bytes")
            << frame(12, u32(1) + str(ed25519Blob(QByteArray(32, 'k')) + "x") + str("c")) << false
            << u"malformed_reply"_s;
        QTest::newRow("never answers") << QByteArray() << true << u"timeout"_s;
        QTest::newRow("half a header, then silence") << QByteArray(2, '\0') << true << u"timeout"_s;
        QTest::newRow("closes") << QByteArray() << false << u"connection_closed"_s;
    }

    void hostileListOfKeys()
    {
        QFETCH(QByteArray, reply);
        QFETCH(bool, hold);
        QFETCH(QString, reason);
        const QString path = fakePath();
        FakeAgent fake(path, {{reply, hold}});
        QVERIFY(fake.listening());
        QElapsedTimer took;
        took.start();
        // A short timeout where silence is the case; elsewhere the answer must win on a busy
        // machine too, so the default applies.
        const bool silent = reason == u"timeout"_s;
        const auto ids = SshAgent(path, silent ? 300 : SshAgent::DefaultTimeoutMs).identities();
        const qint64 ms = took.elapsed();
        QVERIFY(!ids.ok());
        QVERIFY(!ids.value);
        QCOMPARE(ids.reason, reason);
        QVERIFY(!ids.message.isEmpty());
        if (silent)
            QVERIFY2(ms >= 250 && ms < 5000, qPrintable(QString::number(ms)));
        fake.stop();
        QCOMPARE(fake.requests(), QList<QByteArray>{frame(11, {})});
    }

    void hostileSignature_data()
    {
        QTest::addColumn<QList<Answer>>("answers");
        QTest::addColumn<QString>("reason");
        const QByteArray sig = *ApprovalKeys::sign(m_seed, m_message);
        const QByteArray listsKey = frame(12, u32(1) + str(ed25519Blob(m_pub)) + str("me"));
        const QByteArray listsOther = frame(12, u32(1) + str(ed25519Blob(m_otherPub)) + str("x"));
        const auto one = [](const QByteArray &b, bool hold = false) {
            return QList<Answer>{{b, hold}};
        };
        QTest::newRow("ssh-rsa signature")
            << one(frame(14, str(str("ssh-rsa") + str(QByteArray(256, 's')))))
            << u"wrong_key_type"_s;
        QTest::newRow("rsa-sha2-512 signature")
            << one(frame(14, str(str("rsa-sha2-512") + str(sig)))) << u"wrong_key_type"_s;
        QTest::newRow("63-byte signature")
            << one(frame(14, str(signatureBlob(sig.left(63))))) << u"malformed_reply"_s;
        QTest::newRow("65-byte signature")
            << one(frame(14, str(signatureBlob(sig + 'x')))) << u"malformed_reply"_s;
        QTest::newRow("FIDO's flags and counter after it")
            << one(frame(14, str(signatureBlob(sig) + '\x01' + u32(7)))) << u"malformed_reply"_s;
        QTest::newRow("trailing byte after the blob")
            << one(frame(14, str(signatureBlob(sig)) + 'x')) << u"malformed_reply"_s;
        QTest::newRow("empty response") << one(frame(14, {})) << u"malformed_reply"_s;
        QTest::newRow("blob without type") << one(frame(14, str({}))) << u"malformed_reply"_s;
        QTest::newRow("a list of keys instead") << one(listsKey) << u"malformed_reply"_s;
        QTest::newRow("another key's signature")
            << one(frame(14, str(signatureBlob(*ApprovalKeys::sign(m_otherSeed, m_message)))))
            << u"bad_signature"_s;
        QByteArray flipped = sig;
        flipped[5] = static_cast<char>(flipped[5] ^ 0x40);
        QTest::newRow("altered signature")
            << one(frame(14, str(signatureBlob(flipped)))) << u"bad_signature"_s;
        QTest::newRow("signature of other bytes")
            << one(frame(14, str(signatureBlob(*ApprovalKeys::sign(m_seed, m_message + ' ')))))
            << u"bad_signature"_s;
        QTest::newRow("declares 300 KiB")
            << one(QByteArray(u32(300 * 1024) + frame(14, str(signatureBlob(sig)))), true)
            << u"reply_too_large"_s;
        QTest::newRow("never answers") << one({}, true) << u"timeout"_s;
        QTest::newRow("closes") << one({}) << u"connection_closed"_s;
        QTest::newRow("closes without reading")
            << QList<Answer>{{QByteArray(), false, false}} << u"connection_closed"_s;
        // A failure, then the list of keys tells whether the agent holds the key.
        QTest::newRow("failure 5, key held")
            << QList<Answer>{{frame(5, {})}, {listsKey}} << u"agent_refused"_s;
        QTest::newRow("failure 30, key not held")
            << QList<Answer>{{frame(30, {})}, {listsOther}} << u"key_not_in_agent"_s;
        QTest::newRow("failure 102, no list")
            << QList<Answer>{{frame(102, {})}, {frame(5, {})}} << u"agent_refused"_s;
        QTest::newRow("failure 5, list never comes")
            << QList<Answer>{{frame(5, {})}, {QByteArray(), true}} << u"agent_refused"_s;
    }

    void hostileSignature()
    {
        QFETCH(QList<Answer>, answers);
        QFETCH(QString, reason);
        const QString path = fakePath();
        FakeAgent fake(path, answers);
        QVERIFY(fake.listening());
        QElapsedTimer took;
        took.start();
        // A short timeout where the agent falls silent (the first answer still arrives well
        // within it); elsewhere the answer must win on a busy machine too.
        const bool silent =
            reason == u"timeout"_s ||
            QTest::currentDataTag() == QByteArrayView("failure 5, list never comes");
        const auto sig =
            SshAgent(path, silent ? 1000 : SshAgent::DefaultTimeoutMs).sign(m_pub, m_message);
        const qint64 ms = took.elapsed();
        QVERIFY(!sig.ok());
        QVERIFY(!sig.value);
        QCOMPARE(sig.reason, reason);
        QVERIFY(!sig.message.isEmpty());
        if (silent)
            QVERIFY2(ms >= 950 && ms < 5000, qPrintable(QString::number(ms)));
        fake.stop();
        if (answers.first().readRequest) {
            QCOMPARE(fake.requests().value(0),
                     frame(13, str(ed25519Blob(m_pub)) + str(m_message) + u32(0)));
        }
    }

    void requestTooLarge()
    {
        const QString path = fakePath();
        FakeAgent fake(path, {});
        const auto sig = SshAgent(path).sign(m_pub, QByteArray(256 * 1024, 'm'));
        QCOMPARE(sig.reason, u"request_too_large"_s);
        fake.stop();
        QCOMPARE(fake.connections(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSshAgent)
#include "tst_sshagent.moc"
