// What `fabric-broker team pending/show/approve/deny` decide on below the command line (issue #37;
// src/team/TerminalApproval): the typed confirmation (the Request SHA-256's first characters,
// never a yes), --key (the keychain or ssh-agent, never a key file), which agent key signs, what
// is said of a key the policy does not list for the role, which proposal an id names, and one
// line of `team pending`. The terminal and the database: tests/e2e/team-terminal.test.mjs.
#include "TestEnvironment.h"
#include "core/Sha256.h"
#include "team/ApprovalKeys.h"
#include "team/TerminalApproval.h"

#include <QTest>

using namespace fb;
using namespace fb::team;
using namespace fb::team::terminal;
using namespace Qt::StringLiterals;

namespace {

const QString kHash = u"3f2a9c0d17b84e6fa1c2d3e4f5061728394a5b6c7d8e9f00112233445566778a"_s;

SshAgent::Identity identity(const QString &comment)
{
    return {*ApprovalKeys::publicKeyOf(*ApprovalKeys::generate()), comment};
}

ApproverKey listed(const QString &role, const QByteArray &publicKey)
{
    return {role, ApprovalKeys::fingerprint(publicKey), publicKey};
}

TeamProposal proposal(const QByteArray &id, const QString &proposer = u"carol"_s)
{
    TeamProposal p;
    p.id = id;
    p.changeType = u"connection_create"_s;
    p.request = "{}";
    p.requestSha256 = Sha256::hash(p.request).toHex();
    p.proposer = proposer;
    p.state = u"consumed"_s;
    p.expiresMs = 1796188500123; // 2026-12-02T05:15:00.123Z
    return p;
}

} // namespace

class TestTerminalApproval : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void typedConfirmation_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<bool>("confirmed");
        QTest::addColumn<QString>("why");
        QTest::newRow("first 8") << u"3f2a9c0d"_s << true << QString();
        QTest::newRow("upper case, blanks") << u"  3F2A9C0D \t"_s << true << QString();
        QTest::newRow("more of it") << kHash.left(20) << true << QString();
        QTest::newRow("all of it") << kHash << true << QString();
        QTest::newRow("y") << u"y"_s << false << u"a yes is not a confirmation"_s;
        QTest::newRow("YES") << u"YES"_s << false << u"a yes is not a confirmation"_s;
        QTest::newRow("approve") << u"approve"_s << false << u"a yes is not a confirmation"_s;
        QTest::newRow("empty") << QString() << false << u"nothing was typed"_s;
        QTest::newRow("blanks") << u"   "_s << false << u"nothing was typed"_s;
        QTest::newRow("7 chars") << u"3f2a9c0"_s << false << u"too short"_s;
        QTest::newRow("wrong") << u"3f2a9c0e"_s << false << u"not the Request SHA-256"_s;
        QTest::newRow("not a prefix") << u"2a9c0d17"_s << false << u"not the Request SHA-256"_s;
        QTest::newRow("too long") << kHash + u"0"_s << false << u"not the Request SHA-256"_s;
        QTest::newRow("inside") << u"3f2a 9c0d"_s << false << u"not the Request SHA-256"_s;
    }
    void typedConfirmation()
    {
        QFETCH(QString, typed);
        QFETCH(bool, confirmed);
        QFETCH(QString, why);
        const TypedAnswer a = checkTyped(typed, kHash);
        QCOMPARE(a.confirmed, confirmed);
        QVERIFY2(a.why.contains(why), qPrintable(a.why));
        QCOMPARE(a.why.isEmpty(), confirmed);
    }

    void noHashNothingConfirms()
    {
        QVERIFY(!checkTyped(u"e3b0c442"_s, QString()).confirmed);
        QVERIFY(!checkTyped(u"3f2a9c0d"_s, kHash.left(40)).confirmed);
    }

    void keySpec()
    {
        QString why;
        auto k = parseKeySpec(u"keychain"_s, &why);
        QVERIFY(k);
        QCOMPARE(k->kind, KeySpec::Kind::Keychain);
        k = parseKeySpec(u"ssh-agent"_s, &why);
        QVERIFY(k);
        QCOMPARE(k->kind, KeySpec::Kind::SshAgent);
        QVERIFY(k->fingerprint.isEmpty());
        const QString fp = u"SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk"_s;
        k = parseKeySpec(u"ssh-agent:"_s + fp, &why);
        QVERIFY(k);
        QCOMPARE(k->fingerprint, fp);
        // A key file is never read, whatever it is called.
        for (const QString &no :
             {u"/home/alice/.ssh/id_ed25519"_s, u"file:key"_s, u"ssh-agent:"_s,
              u"ssh-agent:SHA256:short"_s, u"Keychain"_s, QString(), u"ssh-agent:\x1b[2J"_s}) {
            why.clear();
            QVERIFY2(!parseKeySpec(no, &why), qPrintable(no));
            QVERIFY2(why.contains(u"a key file is never read"_s), qPrintable(why));
            QVERIFY(!why.contains(QChar(0x1B)));
        }
    }

    void agentKeyChoice()
    {
        const SshAgent::Identity a = identity(u"alice@laptop"_s);
        const SshAgent::Identity b = identity(u"alice@old"_s);
        const QList<ApproverKey> policy{listed(u"alice"_s, a.publicKey),
                                        listed(u"bob"_s, b.publicKey)};
        QString why;
        // The only key.
        auto k = chooseAgentKey({a}, {}, u"alice"_s, std::nullopt, &why);
        QVERIFY(k);
        QCOMPARE(k->publicKey, a.publicKey);
        // Several: the one listed for the role.
        k = chooseAgentKey({b, a}, {}, u"alice"_s, policy, &why);
        QVERIFY(k);
        QCOMPARE(k->publicKey, a.publicKey);
        // Several, none or more than one listed for the role: named, not guessed.
        QVERIFY(!chooseAgentKey({a, b}, {}, u"carol"_s, policy, &why));
        QVERIFY2(why.contains(u"name one with --key ssh-agent:FINGERPRINT"_s), qPrintable(why));
        QVERIFY2(why.contains(a.fingerprint()) && why.contains(a.sshFingerprint()) &&
                     why.contains(b.fingerprint()) && why.contains(u"alice@old"_s),
                 qPrintable(why));
        QVERIFY(!chooseAgentKey(
            {a, b}, {}, u"alice"_s,
            QList<ApproverKey>{listed(u"alice"_s, a.publicKey), listed(u"alice"_s, b.publicKey)},
            &why));
        // By either fingerprint.
        k = chooseAgentKey({a, b}, b.fingerprint(), u"alice"_s, policy, &why);
        QVERIFY(k);
        QCOMPARE(k->publicKey, b.publicKey);
        k = chooseAgentKey({a, b}, b.sshFingerprint(), u"alice"_s, policy, &why);
        QVERIFY(k);
        QCOMPARE(k->publicKey, b.publicKey);
        QVERIFY(!chooseAgentKey({a}, b.fingerprint(), u"alice"_s, policy, &why));
        QVERIFY2(why.contains(u"no Ed25519 key with the fingerprint"_s), qPrintable(why));
        // None at all.
        QVERIFY(!chooseAgentKey({}, {}, u"alice"_s, policy, &why));
        QVERIFY2(why.contains(u"ssh-add"_s), qPrintable(why));
    }

    void unlistedKeyIsSaid()
    {
        const QByteArray a = identity({}).publicKey;
        const QByteArray other = identity({}).publicKey;
        const QList<ApproverKey> policy{listed(u"alice"_s, a)};
        QVERIFY(unlistedReason(a, u"alice"_s, policy).isEmpty());
        QString why = unlistedReason(other, u"alice"_s, policy);
        QVERIFY2(why.contains(ApprovalKeys::fingerprint(other)) &&
                     why.contains(u"is not listed in team.approver_keys for role alice"_s) &&
                     why.contains(u"will not count"_s),
                 qPrintable(why));
        why = unlistedReason(a, u"bob"_s, policy);
        QVERIFY2(why.contains(u"listed in team.approver_keys for role alice, not for role bob"_s),
                 qPrintable(why));
        why = unlistedReason(a, u"alice"_s, std::nullopt);
        QVERIFY2(why.contains(u"lists no team.approver_keys"_s), qPrintable(why));
        QVERIFY(!unlistedReason(a, u"alice"_s, QList<ApproverKey>{}).isEmpty());
        // A role name is shown inert.
        why = unlistedReason(other, u"x\nWARNING: ok"_s, policy);
        QVERIFY2(!why.contains(u'\n'), qPrintable(why));
    }

    void proposalById()
    {
        const QList<TeamProposal> list{proposal("0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69"),
                                       proposal("0d4f0f6e-9999-4b8e-9c1e-2f1d3c4b5a69"),
                                       proposal("7a1b2c3d-0000-4000-8000-000000000001")};
        QString why;
        auto p = findProposal(list, u"7a1b2c3d"_s, &why);
        QVERIFY(p);
        QCOMPARE(p->id, list.at(2).id);
        p = findProposal(list, u"0D4F0F6E-8A41-4B8E-9C1E-2F1D3C4B5A69"_s, &why);
        QVERIFY(p);
        QCOMPARE(p->id, list.at(0).id);
        QVERIFY(!findProposal(list, u"0d4f0f6e"_s, &why));
        QVERIFY2(why.contains(u"2 proposals"_s), qPrintable(why));
        QVERIFY(!findProposal(list, u"7a1b"_s, &why));
        QVERIFY2(why.contains(u"at least its first 8 characters"_s), qPrintable(why));
        QVERIFY(!findProposal(list, u"ffffffff\x1b[2J"_s, &why));
        QVERIFY2(why.contains(u"no open proposal"_s) && !why.contains(QChar(0x1B)),
                 qPrintable(why));
    }

    void pendingLineSaysProgress()
    {
        const TeamProposal p = proposal("7a1b2c3d-0000-4000-8000-000000000001");
        QuorumCount count;
        count.required = 2;
        count.counted = {u"alice"_s};
        QCOMPARE(pendingLine(p, count, u"bob"_s),
                 u"7a1b2c3d-0000-4000-8000-000000000001  connection_create by carol (unpriced), "
                 "consumed; expires 2026-12-02T05:15:00+00:00; approvals 1 of 2"_s);
        count.deniedBy = u"dave"_s;
        QVERIFY(pendingLine(p, count, u"bob"_s).endsWith(u"; denied by dave"_s));
        QVERIFY(pendingLine(p, count, u"carol"_s)
                    .endsWith(u"your own proposal: your approval would not count, a deny would"_s));
        TeamProposal evil = p;
        evil.proposer = u"x\n\x1b[2Jy"_s;
        const QString line = pendingLine(evil, count, u"bob"_s);
        QVERIFY(!line.contains(u'\n'));
        QVERIFY(!line.contains(QChar(0x1B)));
    }
};

QTEST_GUILESS_MAIN(TestTerminalApproval)
#include "tst_terminalapproval.moc"
