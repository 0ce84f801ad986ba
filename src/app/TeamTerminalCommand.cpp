// "fabric-broker team pending | show ID | approve ID | deny ID" (issue #37, docs/team.md "From a
// terminal"): an approver's decisions on a headless box or over SSH. The text shown is the Team
// approvals dialog's (team/DecisionText), the statement signed is the dialog's (team/
// DecisionRecorder, ApprovalVerify), signed by this operator's keychain key or by an Ed25519 key
// ssh-agent holds; never a key file. A decision is confirmed by typing the first characters of
// the Request SHA-256 on the controlling terminal (/dev/tty), never a bare "y" and never a
// command-line flag: an agent running commands can pass any flag, but not type on a person's
// terminal. The database is the administrator's team.database, as the desktop app's.
//
// A command-line tool, not request handling: it runs its own event loop (PgAsync, the keychain)
// and blocks on ssh-agent and on the terminal's answer.
#include "app/ConsoleOutput.h"
#include "app/TeamCommand.h"
#include "core/Policy.h"
#include "core/TeamPolicy.h"
#include "core/UntrustedText.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalVerify.h"
#include "team/ApproverDecision.h"
#include "team/DecisionRecorder.h"
#include "team/DecisionText.h"
#include "team/SshAgent.h"
#include "team/TeamQueue.h"
#include "team/TerminalApproval.h"
#ifdef HAVE_FABRICBROKER_KEYCHAIN
#include "keychain/ApproverKeyStore.h"
#include "keychain/CredentialStore.h"
#endif

#include <QEventLoop>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb {

namespace {

using console::err;
using console::out;
namespace terminal = team::terminal;

constexpr int ConnectTimeoutMs = 20000;
// Signing may wait for a person: a key added with `ssh-add -c` asks through ssh-askpass.
constexpr int AgentSignTimeoutMs = 120000;
// Pages of TeamQueue::listOpen read (200 proposals each).
constexpr int MaxPages = 10;

enum class Exit { Done = 0, Refused = 1, Usage = 2 };

void say(const QString &line)
{
    out(line + u'\n');
    std::fflush(stdout);
}

void complain(const QString &command, const QString &line)
{
    err(u"fabric-broker team %1: %2\n"_s.arg(command, line));
}

// The controlling terminal, where a person reads what they decide on and types the hash.
class Terminal {
public:
    ~Terminal()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Terminal(const Terminal &) = delete;
    Terminal &operator=(const Terminal &) = delete;

    // nullopt with why when this process has no controlling terminal (no /dev/tty to open).
    static std::unique_ptr<Terminal> open(QString *why)
    {
        const int fd = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 || !::isatty(fd)) {
            *why = u"there is no terminal to confirm on (/dev/tty: %1): run it in a terminal "
                   "(over SSH: ssh -t); a decision is never confirmed by a flag or a pipe"_s.arg(
                       QString::fromLocal8Bit(std::strerror(fd < 0 ? errno : ENOTTY)));
            if (fd >= 0)
                ::close(fd);
            return nullptr;
        }
        return std::unique_ptr<Terminal>(new Terminal(fd));
    }

    bool write(const QString &text)
    {
        const QByteArray bytes = text.toUtf8();
        qsizetype done = 0;
        while (done < bytes.size()) {
            const ssize_t n =
                ::write(m_fd, bytes.constData() + done, static_cast<size_t>(bytes.size() - done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            done += n;
        }
        return true;
    }

    // Discards what was typed before the prompt (type-ahead), writes it, and reads one line
    // with the terminal's line editing and echo on; nullopt at end of input or an error.
    std::optional<QString> ask(const QString &prompt)
    {
        termios saved{};
        const bool have = ::tcgetattr(m_fd, &saved) == 0;
        if (have) {
            termios lineMode = saved;
            lineMode.c_lflag |= ICANON | ECHO;
            lineMode.c_iflag |= ICRNL;
            ::tcsetattr(m_fd, TCSANOW, &lineMode);
        }
        ::tcflush(m_fd, TCIFLUSH);
        std::optional<QString> answer;
        if (write(prompt))
            answer = readLine();
        if (have)
            ::tcsetattr(m_fd, TCSANOW, &saved);
        return answer;
    }

private:
    explicit Terminal(int fd)
        : m_fd(fd)
    {
    }

    std::optional<QString> readLine()
    {
        QByteArray line;
        for (;;) {
            char c = 0;
            const ssize_t n = ::read(m_fd, &c, 1);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 || (n == 0 && line.isEmpty()))
                return std::nullopt;
            if (n == 0 || c == '\n' || c == '\r')
                break;
            // Kept bounded; the rest of a long line is read and dropped.
            if (line.size() <= terminal::MaxAnswerChars * 4)
                line.append(c);
        }
        return QString::fromUtf8(line);
    }

    int m_fd;
};

QString usageOf(const QString &command)
{
    if (command == u"pending")
        return u"Usage: fabric-broker team pending\n"
               "Lists the team's proposals open to a decision: id, change, proposer, price,\n"
               "state, expiry and the approvals that count under this machine's policy of those\n"
               "its team.quorum requires. Every database value is printed escaped and bounded.\n"
               "The database is the administrator's team.database, as the desktop app's; the\n"
               "role is the one libpq logs in as (~/.pgpass, peer or certificates).\n"
               "Exit codes: 0 = listed, 1 = refused by the database, 2 = usage error, no\n"
               "team.database or no connection.\n"_s;
    if (command == u"show")
        return u"Usage: fabric-broker team show ID\n"
               "Prints exactly the text the desktop app's Team approvals dialog shows for the\n"
               "proposal ID (its id, or its first 8 characters or more): the text a decision on\n"
               "it is bound to (its SHA-256 is the decision's dialog_sha256).\n"
               "Exit codes: 0 = shown, 1 = no such open proposal, or one that is refused,\n"
               "2 = usage error, no team.database or no connection.\n"_s;
    return u"Usage: fabric-broker team %1 ID [--key keychain | --key ssh-agent[:FINGERPRINT]]\n"
           "Records this role's decision (%1) on the proposal ID, as the Team approvals dialog\n"
           "does: it prints the dialog's text on the terminal, asks you to type the first 8\n"
           "characters of the Request SHA-256 shown (never a bare \"y\"; read from the\n"
           "terminal, /dev/tty, never from a flag or a pipe), and records the decision with\n"
           "the SHA-256 of that text and the signed statement of it.\n"
           "\n"
           "  --key keychain   sign with this operator's key in the OS keychain (the desktop\n"
           "                   app's; fabric-broker team key), the default\n"
           "  --key ssh-agent[:FINGERPRINT]\n"
           "                   sign with an Ed25519 key the ssh-agent on SSH_AUTH_SOCK holds;\n"
           "                   FINGERPRINT (team.approver_keys' or ssh-add -l's) picks one of\n"
           "                   several. A key file is never read.\n"
           "\n"
           "Only a key the administrator lists for your role in team.approver_keys makes an\n"
           "approval count; the command says so before you confirm when this machine's\n"
           "policy does not list it. Nothing is recorded unsigned.\n"
           "Exit codes: 0 = recorded, 1 = not confirmed, refused or not recorded, 2 = usage\n"
           "error, no team.database, no connection, no key or no terminal.\n"_s.arg(command);
}

// One run of a terminal command, on its own event loop.
class TerminalRun : public QObject {
public:
    TerminalRun(QString command, QString id, terminal::KeySpec key, PolicyLoadResult policy,
                QString uri)
        : m_command(std::move(command))
        , m_id(std::move(id))
        , m_key(std::move(key))
        , m_policy(std::move(policy))
        , m_uri(std::move(uri))
    {
    }

    int run()
    {
        QTimer::singleShot(0, this, &TerminalRun::start);
        m_loop.exec();
        return static_cast<int>(m_exit);
    }

private:
    QString decision() const { return m_command; }

    void finish(Exit code, const QString &problem = {})
    {
        if (!problem.isEmpty())
            complain(m_command, problem);
        m_exit = code;
        m_loop.exit();
    }

    void start()
    {
        m_queue = new team::TeamQueue(m_uri, team::TeamIdentity::local(), this);
        m_queue->settleIntervalMs = 0; // a short-lived reader: the apps settle orphans
        m_queue->start();
        m_queue->whenSettled(this, ConnectTimeoutMs, [this] {
            if (!m_queue->isAvailable())
                return finish(Exit::Usage, u"cannot use the team database: %1"_s.arg(
                                               team::inertLine(m_queue->unavailableReason(), 300)));
            list(0);
        });
    }

    void list(int page)
    {
        QPointer<TerminalRun> self(this);
        m_queue->listOpen(page, [self, page](const std::optional<QList<team::TeamProposal>> &rows,
                                             const QString &error) {
            if (!self)
                return;
            if (!rows)
                return self->finish(
                    Exit::Refused, u"cannot read the queue: %1"_s.arg(team::inertLine(error, 300)));
            self->m_rows += *rows;
            if (rows->size() == team::TeamQueue::PageSize && page + 1 < MaxPages)
                return self->list(page + 1);
            self->listed();
        });
    }

    void listed()
    {
        if (m_command == u"pending") {
            for (const team::TeamProposal &p : std::as_const(m_rows))
                if (team::openToDecision(p) && p.live)
                    m_open << p;
            say(u"role %1 (%2): %3 proposal(s) open to a decision"_s.arg(
                team::inertLine(m_queue->role(), 64),
                m_queue->isApprover() ? u"member of fabric_approvers"_s
                                      : u"not a member of fabric_approvers: it cannot decide"_s,
                QString::number(m_open.size())));
            return countNext(0);
        }
        QString why;
        const auto p = terminal::findProposal(m_rows, m_id, &why);
        if (!p)
            return finish(Exit::Refused, why);
        m_row = *p;
        if (const QString refused = team::refusalText(m_row); !refused.isEmpty()) {
            say(refused); // what the dialog shows instead of the row
            return finish(Exit::Refused);
        }
        m_text = team::decisionText(m_row);
        if (!team::isInert(m_text)) // never expected: every value in it is escaped
            return finish(Exit::Refused, u"the proposal's text cannot be shown as plain text"_s);
        if (m_command == u"show") {
            out(m_text + u'\n');
            return finish(Exit::Done);
        }
        if (!m_queue->isApprover())
            return finish(Exit::Refused,
                          u"role %1 is not a member of fabric_approvers: it "
                          "cannot decide on proposals"_s.arg(team::inertLine(m_queue->role(), 64)));
        if (!team::openToDecision(m_row) || !m_row.live)
            return finish(Exit::Refused,
                          u"proposal %1 is %2: it is no longer open to a decision"_s.arg(
                              QString::fromLatin1(m_row.id), team::inertLine(m_row.state, 16)));
        if (m_command == u"approve" && m_row.proposer == m_queue->role())
            return finish(Exit::Refused, u"this is your own role's proposal: your approval "
                                         "would not count (you may deny it)"_s);
        chooseKey();
    }

    // team pending: the approvals of each open proposal, counted as the proposing broker would
    // under this machine's policy.
    void countNext(qsizetype i)
    {
        if (i >= m_open.size())
            return finish(Exit::Done);
        const team::TeamProposal p = m_open.at(i);
        QPointer<TerminalRun> self(this);
        m_queue->read(p.id, [self, p, i](const std::optional<team::TeamQueue::Snapshot> &snap,
                                         const QString &error) {
            if (!self)
                return;
            if (!snap)
                return self->finish(Exit::Refused,
                                    u"cannot read proposal %1: %2"_s.arg(
                                        QString::fromLatin1(p.id), team::inertLine(error, 300)));
            const Policy &policy = self->m_policy.effective;
            const team::QuorumCount count = team::countVerifiedQuorum(
                p, snap->approvals, teamRequired(policy, p.price.value_or(QJsonObject{})),
                policy.teamApproverKeys);
            const QString line = terminal::pendingLine(p, count, self->m_queue->role());
            if (team::isInert(line))
                say(line);
            self->countNext(i + 1);
        });
    }

    void chooseKey()
    {
        const auto &keys = m_policy.effective.teamApproverKeys;
        if (m_key.kind == terminal::KeySpec::Kind::SshAgent) {
            const auto socket = team::SshAgent::socketPathFromEnvironment();
            if (!socket.ok())
                return finish(Exit::Usage, socket.message);
            const auto held = team::SshAgent(*socket.value).identities();
            if (!held.ok())
                return finish(Exit::Usage, held.message);
            QString why;
            const auto chosen = terminal::chooseAgentKey(*held.value, m_key.fingerprint,
                                                         m_queue->role(), keys, &why);
            if (!chosen)
                return finish(Exit::Usage, why);
            m_publicKey = chosen->publicKey;
            m_keyText = u"%1 (ssh-agent; ssh-add -l: %2)"_s.arg(chosen->fingerprint(),
                                                                chosen->sshFingerprint());
            m_signer = team::SshAgent(*socket.value, AgentSignTimeoutMs).signer(m_publicKey);
            return confirm();
        }
#ifdef HAVE_FABRICBROKER_KEYCHAIN
        QPointer<TerminalRun> self(this);
        loadKeychainKey([self](const QByteArray &key, const QString &error) {
            if (!self)
                return;
            const auto pub = team::ApprovalKeys::publicKeyOf(key);
            if (!pub)
                return self->finish(Exit::Usage,
                                    error.isEmpty()
                                        ? u"the keychain's approval key is not an Ed25519 key"_s
                                        : u"no approval key in the OS keychain (%1): make one "
                                          "with fabric-broker team key, or sign with --key "
                                          "ssh-agent"_s.arg(team::inertLine(error, 300)));
            self->m_publicKey = *pub;
            self->m_keyText = u"%1 (the OS keychain)"_s.arg(team::ApprovalKeys::fingerprint(*pub));
            self->confirm();
        });
#else
        finish(Exit::Usage, u"this build has no keychain support: sign with --key ssh-agent"_s);
#endif
    }

#ifdef HAVE_FABRICBROKER_KEYCHAIN
    // The keychain's key, once (never made here: a key the administrator has not listed would
    // count for nothing); the copy handed out is wiped by DecisionRecorder::withKey after use.
    void loadKeychainKey(std::function<void(const QByteArray &, const QString &)> answer)
    {
        auto *store = new keychain::ApproverKeyStore(
            QString::fromLatin1(keychain::CredentialStore::DefaultService), this);
        team::DecisionRecorder::withKey(
            [store](auto give) {
                store->load(false, [store, give = std::move(give)](bool ok, const QByteArray &key,
                                                                   bool, const QString &e) {
                    give(ok ? key : QByteArray(), ok ? QString() : e);
                    store->deleteLater();
                });
            },
            {}, std::move(answer));
    }
#endif

    void confirm()
    {
        QString why;
        m_tty = Terminal::open(&why);
        if (!m_tty)
            return finish(Exit::Usage, why);
        const QString unlisted = terminal::unlistedReason(m_publicKey, m_queue->role(),
                                                          m_policy.effective.teamApproverKeys);
        QStringList lines{m_text, QString(),
                          u"Your decision: %1 proposal %2, as role %3, signed with key %4."_s.arg(
                              decision() == u"approve" ? u"APPROVE"_s : u"DENY"_s,
                              QString::fromLatin1(m_row.id), team::inertLine(m_queue->role(), 64),
                              m_keyText)};
        if (!unlisted.isEmpty())
            lines << u"WARNING: %1."_s.arg(unlisted);
        if (!m_tty->write(lines.join(u'\n') + u'\n'))
            return finish(Exit::Usage, u"cannot write to the terminal"_s);
        const auto typed =
            m_tty->ask(u"Type the first %1 characters of the Request SHA-256 shown above to %2 it "
                       "(anything else records nothing): "_s.arg(terminal::ConfirmHexChars)
                           .arg(decision()));
        if (!typed)
            return finish(Exit::Refused, u"no answer: nothing is recorded"_s);
        const terminal::TypedAnswer answer =
            terminal::checkTyped(*typed, QString::fromLatin1(team::requestSha256Shown(m_row)));
        if (!answer.confirmed)
            return finish(Exit::Refused,
                          u"not confirmed (%1): nothing is recorded"_s.arg(answer.why));
        record();
    }

    void record()
    {
        auto *recorder = new team::DecisionRecorder(m_queue, this);
        recorder->setSignatureRequired(true);
        if (m_signer) {
            recorder->setSigner(m_signer);
        } else {
#ifdef HAVE_FABRICBROKER_KEYCHAIN
            QPointer<TerminalRun> self(this);
            recorder->setKeyLoader([self](auto answer) {
                if (!self)
                    return;
                self->loadKeychainKey(std::move(answer));
            });
#endif
        }
        QPointer<TerminalRun> self(this);
        recorder->decide(
            m_row, decision(), m_text,
            [self](const team::DecisionSigning &how, bool recorded, const QString &error) {
                if (!self)
                    return;
                if (!recorded) {
                    const QString why = how.status == team::DecisionSigning::Status::Signed
                                            ? error
                                            : u"%1 (%2)"_s.arg(error, how.keyError);
                    return self->finish(Exit::Refused, u"your decision was not recorded: %1"_s.arg(
                                                           team::inertLine(why, 400)));
                }
                say(u"Your decision (%1) on proposal %2 is recorded, signed with key %3."_s.arg(
                    self->decision(), QString::fromLatin1(self->m_row.id), how.fingerprint()));
                self->checkCounts(how);
                self->finish(Exit::Done);
            });
    }

    // What the proposing broker will say of it, as far as this machine's policy can tell.
    void checkCounts(const team::DecisionSigning &how)
    {
        const auto &keys = m_policy.effective.teamApproverKeys;
        if (!how.signature || !keys || decision() != u"approve")
            return;
        const team::SignedApproval row{m_queue->role(),
                                       decision(),
                                       team::shownTextSha256(m_text),
                                       how.signature->statement,
                                       how.signature->signature,
                                       how.signature->publicKey};
        const team::ApprovalCheck check =
            team::verifyApproval(m_row, row, *keys, team::StatementVersions::CurrentOnly);
        if (!check.counts)
            say(u"WARNING: under this machine's team.approver_keys it does not count: %1."_s.arg(
                team::inertLine(check.reason, 400)));
    }

    QString m_command;
    QString m_id;
    terminal::KeySpec m_key;
    PolicyLoadResult m_policy;
    QString m_uri;
    QEventLoop m_loop;
    Exit m_exit = Exit::Refused;
    team::TeamQueue *m_queue = nullptr; // a child
    QList<team::TeamProposal> m_rows;
    QList<team::TeamProposal> m_open;
    team::TeamProposal m_row;
    QString m_text;
    QByteArray m_publicKey;
    QString m_keyText;
    team::StatementSigner m_signer;
    std::unique_ptr<Terminal> m_tty;
};

} // namespace

bool isTeamTerminalCommand(const QString &command)
{
    return command == u"pending" || command == u"show" || command == u"approve" ||
           command == u"deny";
}

int runTeamTerminalCommand(const QString &command, const QStringList &args)
{
    QStringList rest = args;
    if (rest.contains(u"--help"_s) || rest.contains(u"-h"_s)) {
        out(usageOf(command));
        return 0;
    }
    const bool deciding = command == u"approve" || command == u"deny";
    QString keyText = u"keychain"_s;
    for (qsizetype i = 0; deciding && i < rest.size(); ++i) {
        if (rest.at(i) == u"--key" && i + 1 < rest.size()) {
            keyText = rest.at(i + 1);
            rest.remove(i, 2);
            break;
        }
        if (rest.at(i).startsWith(u"--key=")) {
            keyText = rest.at(i).mid(6);
            rest.removeAt(i);
            break;
        }
    }
    const qsizetype positional = command == u"pending" ? 0 : 1;
    if (rest.size() != positional || (positional && rest.first().startsWith(u'-'))) {
        err(u"fabric-broker team %1: unknown arguments\n"_s.arg(command) + usageOf(command));
        return 2;
    }
    // The terminal is a person's: the library's progress notes stay out of it (warnings stay;
    // QT_LOGGING_RULES still decides).
    QLoggingCategory::setFilterRules(u"fabricbroker.*.debug=false\nfabricbroker.*.info=false"_s);
    QString why;
    const auto key = terminal::parseKeySpec(keyText, &why);
    if (!key) {
        complain(command, why);
        return 2;
    }
    PolicyLoadResult policy = loadPolicy(PolicyPaths::fromEnvironment());
    for (const QString &e : std::as_const(policy.errors))
        complain(command, u"policy: "_s + UntrustedText::escapeInvisible(e));
    const QString uri =
        policy.effective.teamDatabase && policy.lockedByAdministrator(u"team.database"_s)
            ? policy.effective.teamDatabase->trimmed()
            : QString();
    if (uri.isEmpty()) {
        complain(command, u"no team database: team.database is set by the administrator's "
                          "policy alone (/etc/fabric-broker/policy.json; docs/team.md)"_s);
        return 2;
    }
    TerminalRun run(command, positional ? rest.first() : QString(), *key, std::move(policy), uri);
    return run.run();
}

} // namespace fb
