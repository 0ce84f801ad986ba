#include "team/TerminalApproval.h"

#include "team/ApprovalKeys.h"
#include "team/DecisionText.h"

#include <QDateTime>
#include <QStringList>
#include <QTimeZone>

using namespace Qt::StringLiterals;

namespace fb::team::terminal {

namespace {

// Words a person types out of habit at a "continue?" prompt: never a confirmation here.
bool isYesWord(const QString &t)
{
    static const QStringList words{u"y"_s,       u"yes"_s,  u"ok"_s,   u"okay"_s,
                                   u"approve"_s, u"deny"_s, u"sure"_s, u"confirm"_s,
                                   u"j"_s,       u"ja"_s,   u"oui"_s,  u"si"_s};
    return words.contains(t);
}

QString keyLine(const SshAgent::Identity &id)
{
    return u"  %1 (ssh-add -l: %2) %3"_s.arg(id.fingerprint(), id.sshFingerprint(), id.comment);
}

QString keysOf(const QList<SshAgent::Identity> &keys)
{
    QStringList lines;
    for (const SshAgent::Identity &id : keys)
        lines << keyLine(id);
    return lines.join(u'\n');
}

bool listedFor(const QByteArray &publicKey, const QString &role, const QList<ApproverKey> &keys)
{
    for (const ApproverKey &k : keys)
        if (k.role == role && k.publicKey == publicKey)
            return true;
    return false;
}

} // namespace

TypedAnswer checkTyped(const QString &typed, const QString &requestSha256)
{
    const QString t = typed.trimmed().toLower();
    const QString hash = requestSha256.toLower();
    const QString how =
        u"type the first %1 characters of the Request SHA-256 shown above"_s.arg(ConfirmHexChars);
    if (t.isEmpty())
        return {false, u"nothing was typed: "_s + how};
    if (isYesWord(t))
        return {false, u"a yes is not a confirmation here: "_s + how};
    if (t.size() < ConfirmHexChars)
        return {false, u"too short: "_s + how};
    if (hash.size() != 64 || t.size() > hash.size() || !hash.startsWith(t))
        return {false, u"that is not the Request SHA-256 shown above"_s};
    return {true, {}};
}

std::optional<KeySpec> parseKeySpec(const QString &text, QString *why)
{
    if (text == u"keychain")
        return KeySpec{KeySpec::Kind::Keychain, {}};
    if (text == u"ssh-agent")
        return KeySpec{KeySpec::Kind::SshAgent, {}};
    const QString prefix = u"ssh-agent:"_s;
    if (text.startsWith(prefix) && ApprovalKeys::isFingerprint(text.mid(prefix.size())))
        return KeySpec{KeySpec::Kind::SshAgent, text.mid(prefix.size())};
    if (why)
        *why = u"--key takes keychain, ssh-agent or ssh-agent:SHA256:... (a fingerprint), not "
               "%1; a key file is never read: keep the key in the OS keychain (fabric-broker "
               "team key) or in ssh-agent (ssh-add FILE)"_s.arg(inertLine(text, 80));
    return std::nullopt;
}

std::optional<SshAgent::Identity> chooseAgentKey(const QList<SshAgent::Identity> &keys,
                                                 const QString &wanted, const QString &role,
                                                 const std::optional<QList<ApproverKey>> &policy,
                                                 QString *why)
{
    const auto fail = [why](const QString &text) {
        if (why)
            *why = text;
        return std::nullopt;
    };
    if (keys.isEmpty())
        return fail(u"ssh-agent holds no Ed25519 key: add yours with ssh-add FILE"_s);
    if (!wanted.isEmpty()) {
        for (const SshAgent::Identity &id : keys)
            if (id.fingerprint() == wanted || id.sshFingerprint() == wanted)
                return id;
        return fail(u"ssh-agent holds no Ed25519 key with the fingerprint %1; it holds:\n%2"_s.arg(
            inertLine(wanted, 80), keysOf(keys)));
    }
    if (keys.size() == 1)
        return keys.constFirst();
    QList<SshAgent::Identity> listed;
    for (const SshAgent::Identity &id : keys)
        if (policy && listedFor(id.publicKey, role, *policy))
            listed << id;
    if (listed.size() == 1)
        return listed.constFirst();
    return fail(u"ssh-agent holds %1 Ed25519 keys%2: name one with --key "
                "ssh-agent:FINGERPRINT:\n%3"_s.arg(keys.size())
                    .arg(listed.isEmpty()
                             ? u", none of them listed for role %1 in "
                               "team.approver_keys"_s.arg(inertLine(role, 64))
                             : u", %1 of them listed for role %2"_s.arg(
                                   QString::number(listed.size()), inertLine(role, 64)),
                         keysOf(keys)));
}

QString unlistedReason(const QByteArray &publicKey, const QString &role,
                       const std::optional<QList<ApproverKey>> &policy)
{
    const QString fingerprint = ApprovalKeys::fingerprint(publicKey);
    const QString who = inertLine(role, 64);
    if (!policy)
        return u"this machine's policy lists no team.approver_keys, so it cannot tell whether "
               "key %1 counts: the proposing broker counts an approval only when its "
               "administrator's team.approver_keys lists the key for role %2"_s.arg(fingerprint,
                                                                                    who);
    if (listedFor(publicKey, role, *policy))
        return {};
    QStringList others;
    for (const ApproverKey &k : *policy)
        if (k.publicKey == publicKey && !others.contains(k.role))
            others << inertLine(k.role, 64);
    if (!others.isEmpty())
        return u"key %1 is listed in team.approver_keys for role %2, not for role %3: the "
               "proposing broker will not count this approval"_s.arg(fingerprint,
                                                                     others.join(u", "_s), who);
    return u"key %1 is not listed in team.approver_keys for role %2: the proposing broker "
           "will not count this approval"_s.arg(fingerprint, who);
}

std::optional<TeamProposal> findProposal(const QList<TeamProposal> &list, const QString &idOrPrefix,
                                         QString *why)
{
    const QString wanted = idOrPrefix.trimmed().toLower();
    const auto fail = [why](const QString &text) {
        if (why)
            *why = text;
        return std::nullopt;
    };
    if (wanted.size() < ConfirmHexChars)
        return fail(u"give the proposal's id (at least its first %1 characters, as team "
                    "pending lists it)"_s.arg(ConfirmHexChars));
    QList<TeamProposal> found;
    for (const TeamProposal &p : list)
        if (QString::fromLatin1(p.id).toLower().startsWith(wanted))
            found << p;
    if (found.isEmpty())
        return fail(u"no open proposal has the id %1 (team pending lists them)"_s.arg(
            inertLine(idOrPrefix, 64)));
    if (found.size() > 1)
        return fail(u"%1 is the start of %2 proposals' ids: give more of it"_s.arg(
            inertLine(idOrPrefix, 64), QString::number(found.size())));
    return found.constFirst();
}

QString pendingLine(const TeamProposal &p, const QuorumCount &count, const QString &ownRole)
{
    QString line = u"%1  %2; expires %3; approvals %4 of %5"_s.arg(
        inertLine(QString::fromLatin1(p.id), 36), summaryLine(p),
        QDateTime::fromMSecsSinceEpoch(p.expiresMs, QTimeZone::utc()).toString(Qt::ISODate),
        QString::number(count.counted.size()), QString::number(count.required));
    if (!count.deniedBy.isEmpty())
        line += u"; denied by %1"_s.arg(inertLine(count.deniedBy, 64));
    if (p.proposer == ownRole)
        line += u"; your own proposal: your approval would not count, a deny would"_s;
    return line;
}

} // namespace fb::team::terminal
