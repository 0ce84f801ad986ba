// What an approver decides, below the GUI (issue #40; src/team/ApproverDecision): which rows are
// open to a decision or await a resolution, how a decision and a resolution are signed over the
// exact text shown (or why they are not), by the keychain's key or by any signer (an ssh-agent's
// key, issue #37) through the same statement builder and verifier. The key's copy:
// tst_decisionrecorder. No database: the queue calls are driven through the Team approvals dialog
// in tests/integration/team.
#include "TestEnvironment.h"
#include "core/Sha256.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalStatement.h"
#include "team/ApproverDecision.h"
#include "team/DecisionRecorder.h"
#include "team/ResolutionStatement.h"

#include <QTest>

using namespace fb;
using namespace fb::team;

namespace {

// RFC 8032, 7.1, TEST 1.
const QByteArray kSeed =
    QByteArray::fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const QByteArray kPub =
    QByteArray::fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
const qint64 kNowMs = 1796187600123; // 2026-12-02T05:00:00.123Z

TeamProposal proposal(const QString &state = QStringLiteral("pending"))
{
    TeamProposal p;
    p.id = "0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69";
    p.changeType = QStringLiteral("connection_create");
    p.request = R"({"a":1})";
    p.requestSha256 = Sha256::hash(p.request).toHex();
    p.dryRun = R"({"uuid":"x"})";
    p.proposer = QStringLiteral("bob");
    p.state = state;
    p.binding =
        QJsonObject{{QStringLiteral("fabric_endpoint"), QStringLiteral("https://api.equinix.com")},
                    {QStringLiteral("credential_identity"), QStringLiteral("client id abc")}};
    p.tokenSha256 = Sha256::hash("token").toHex();
    p.expiresMs = kNowMs + 15 * 60 * 1000;
    return p;
}

} // namespace

class TestApproverDecision : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void openToDecisionOnlyWhenPendingOrConsumedAndShown()
    {
        QVERIFY(openToDecision(proposal(QStringLiteral("pending"))));
        QVERIFY(openToDecision(proposal(QStringLiteral("consumed"))));
        for (const char *state : {"sending", "unknown", "approved", "denied", "created"})
            QVERIFY2(!openToDecision(proposal(QString::fromLatin1(state))), state);
        TeamProposal tampered = proposal();
        tampered.request = R"({"a":2})"; // its stored hash is no longer its body's
        QVERIFY(!openToDecision(tampered));
    }

    void awaitsResolutionOnlyWhenUnknownAndUnresolved()
    {
        TeamProposal p = proposal(QStringLiteral("unknown"));
        QVERIFY(awaitsResolution(p));
        p.resolution = TeamResolution{};
        QVERIFY(!awaitsResolution(p));
        QVERIFY(!awaitsResolution(proposal(QStringLiteral("sending"))));
        QVERIFY(!awaitsResolution(proposal(QStringLiteral("pending"))));
    }

    void decisionWithoutKeyIsNotSignedAndSaysWhy()
    {
        const DecisionSigning how =
            decisionSigning(proposal(), QStringLiteral("approve"), QStringLiteral("shown"),
                            QStringLiteral("alice"), {}, QStringLiteral("no keychain"), kNowMs);
        QCOMPARE(how.status, DecisionSigning::Status::NoKey);
        QCOMPARE(how.keyError, QStringLiteral("no keychain"));
        QVERIFY(!how.signature);
        QVERIFY(how.fingerprint().isEmpty());
    }

    void decisionIsSignedOverTheTextShown()
    {
        const TeamProposal p = proposal();
        const QString shown = QStringLiteral("Change: connection_create\nPrice: unpriced \u00e9");
        const DecisionSigning how = decisionSigning(p, QStringLiteral("deny"), shown,
                                                    QStringLiteral("alice"), kSeed, {}, kNowMs);
        QCOMPARE(how.status, DecisionSigning::Status::Signed);
        QVERIFY(how.signature);
        QCOMPARE(how.signature->publicKey, kPub);
        QCOMPARE(how.fingerprint(), ApprovalKeys::fingerprint(kPub));
        QVERIFY(ApprovalKeys::verify(kPub, how.signature->statement, how.signature->signature));
        QString why;
        const auto s = ApprovalStatement::parse(how.signature->statement, &why);
        QVERIFY2(s, qPrintable(why));
        QCOMPARE(s->decision, QStringLiteral("deny"));
        QCOMPARE(s->approver, QStringLiteral("alice"));
        QCOMPARE(s->proposalId, p.id);
        QCOMPARE(s->decidedMs, kNowMs);
        // The SHA-256 of the UTF-8 of exactly the text shown, and what the row records.
        QCOMPARE(s->dialogSha256, Sha256::hash(shown.toUtf8()).toHex());
        QCOMPARE(shownTextSha256(shown), Sha256::hash(shown.toUtf8()));
        // Another text: another statement.
        const DecisionSigning other = decisionSigning(p, QStringLiteral("deny"), shown + u'.',
                                                      QStringLiteral("alice"), kSeed, {}, kNowMs);
        QVERIFY(other.signature->statement != how.signature->statement);
    }

    void decisionWithABadKeyOrOnARefusedRowIsNotSigned()
    {
        const DecisionSigning bad =
            decisionSigning(proposal(), QStringLiteral("approve"), QStringLiteral("shown"),
                            QStringLiteral("alice"), kSeed.left(31), {}, kNowMs);
        QCOMPARE(bad.status, DecisionSigning::Status::NotEd25519);
        QVERIFY(!bad.signature);
        TeamProposal tampered = proposal();
        tampered.requestSha256 = Sha256::hash("other").toHex();
        const DecisionSigning refused =
            decisionSigning(tampered, QStringLiteral("approve"), QStringLiteral("shown"),
                            QStringLiteral("alice"), kSeed, {}, kNowMs);
        QCOMPARE(refused.status, DecisionSigning::Status::NotEd25519);
        QVERIFY(!refused.signature);
    }

    // One statement builder, whoever holds the key (issue #37): a signer over the keychain's key
    // and one that stands for an ssh-agent (another process signing the bytes it is given) make
    // the same statement, and what they make verifies with the one verifier.
    void aSignerMakesTheSameStatementAsTheKey()
    {
        const TeamProposal p = proposal();
        const QString shown = QStringLiteral("Change: connection_create\nthe text shown");
        const DecisionSigning byKey = decisionSigning(p, QStringLiteral("approve"), shown,
                                                      QStringLiteral("alice"), kSeed, {}, kNowMs);
        const DecisionSigning byKeySigner = decisionSigningWith(
            p, QStringLiteral("approve"), shown, QStringLiteral("alice"), keySigner(kSeed), kNowMs);
        QCOMPARE(byKeySigner.status, DecisionSigning::Status::Signed);
        QCOMPARE(byKeySigner.signature->statement, byKey.signature->statement);
        QCOMPARE(byKeySigner.signature->signature, byKey.signature->signature); // deterministic
        QCOMPARE(byKeySigner.signature->publicKey, kPub);

        // An agent: sees only the statement bytes, holds its own key.
        const QByteArray agentSeed = *ApprovalKeys::generate();
        const QByteArray agentPub = *ApprovalKeys::publicKeyOf(agentSeed);
        QList<QByteArray> asked;
        const StatementSigner agent = [&](const QByteArray &statement) {
            asked << statement;
            return StatementSignature{*ApprovalKeys::sign(agentSeed, statement), agentPub, {}};
        };
        const DecisionSigning byAgent = decisionSigningWith(p, QStringLiteral("approve"), shown,
                                                            QStringLiteral("alice"), agent, kNowMs);
        QCOMPARE(byAgent.status, DecisionSigning::Status::Signed);
        QCOMPARE(asked, QList<QByteArray>{byKey.signature->statement}); // the same bytes, once
        QCOMPARE(byAgent.signature->statement, byKey.signature->statement);
        QCOMPARE(byAgent.signature->publicKey, agentPub);
        QCOMPARE(byAgent.fingerprint(), ApprovalKeys::fingerprint(agentPub));

        // The one verifier: it counts when the policy lists the agent's key for alice, and not
        // when it lists only the keychain's.
        const SignedApproval row{QStringLiteral("alice"),      QStringLiteral("approve"),
                                 shownTextSha256(shown),       byAgent.signature->statement,
                                 byAgent.signature->signature, byAgent.signature->publicKey};
        const ApproverKey listedAgent{QStringLiteral("alice"), ApprovalKeys::fingerprint(agentPub),
                                      agentPub};
        const ApproverKey listedKeychain{QStringLiteral("alice"), ApprovalKeys::fingerprint(kPub),
                                         kPub};
        const ApprovalCheck counts =
            verifyApproval(p, row, {listedAgent}, StatementVersions::CurrentOnly);
        QVERIFY2(counts.counts, qPrintable(counts.reason));
        const ApprovalCheck unlisted =
            verifyApproval(p, row, {listedKeychain}, StatementVersions::CurrentOnly);
        QVERIFY(!unlisted.counts);
        QVERIFY2(unlisted.reason.contains(QStringLiteral("does not list")),
                 qPrintable(unlisted.reason));
    }

    void aSignerThatFailsOrLiesSignsNothing()
    {
        const TeamProposal p = proposal();
        const QString shown = QStringLiteral("text");
        const auto with = [&](const StatementSigner &signer) {
            return decisionSigningWith(p, QStringLiteral("approve"), shown, QStringLiteral("alice"),
                                       signer, kNowMs);
        };
        // Its own words.
        DecisionSigning how = with([](const QByteArray &) {
            return StatementSignature{{}, {}, QStringLiteral("ssh-agent refused to sign")};
        });
        QCOMPARE(how.status, DecisionSigning::Status::SignerFailed);
        QCOMPARE(how.keyError, QStringLiteral("ssh-agent refused to sign"));
        QVERIFY(!how.signature);
        // A signature over other bytes, or by another key than the one it names.
        const QByteArray otherSeed = *ApprovalKeys::generate();
        how = with([&](const QByteArray &statement) {
            return StatementSignature{*ApprovalKeys::sign(kSeed, statement + ' '), kPub, {}};
        });
        QCOMPARE(how.status, DecisionSigning::Status::SignerFailed);
        QVERIFY2(how.keyError.contains(QStringLiteral("does not verify")),
                 qPrintable(how.keyError));
        how = with([&](const QByteArray &statement) {
            return StatementSignature{*ApprovalKeys::sign(otherSeed, statement), kPub, {}};
        });
        QCOMPARE(how.status, DecisionSigning::Status::SignerFailed);
        QVERIFY(!how.signature);
        // No signer at all, and a row that is not shown: never asked.
        QCOMPARE(with({}).status, DecisionSigning::Status::SignerFailed);
        TeamProposal tampered = proposal();
        tampered.request = R"({"a":2})";
        bool asked = false;
        how = decisionSigningWith(
            tampered, QStringLiteral("approve"), shown, QStringLiteral("alice"),
            [&](const QByteArray &statement) {
                asked = true;
                return StatementSignature{*ApprovalKeys::sign(kSeed, statement), kPub, {}};
            },
            kNowMs);
        QCOMPARE(how.status, DecisionSigning::Status::SignerFailed);
        QVERIFY(!asked);
        QVERIFY2(how.keyError.contains(QStringLiteral("not shown")), qPrintable(how.keyError));
        // A resolution goes through the same signer.
        const DecisionSigning resolved = resolutionSigningWith(
            proposal(QStringLiteral("unknown")), QStringLiteral("not_created"), {}, shown,
            QStringLiteral("carol"), keySigner(kSeed), kNowMs);
        QCOMPARE(resolved.status, DecisionSigning::Status::Signed);
        QCOMPARE(resolved.signature->statement,
                 resolutionSigning(proposal(QStringLiteral("unknown")),
                                   QStringLiteral("not_created"), {}, shown,
                                   QStringLiteral("carol"), kSeed, {}, kNowMs)
                     .signature->statement);
    }

    void resolutionIsSignedOverTheTextShown()
    {
        const TeamProposal p = proposal(QStringLiteral("unknown"));
        const QString shown = QStringLiteral("decision text\nLookup: no match");
        const DecisionSigning how = resolutionSigning(p, QStringLiteral("not_created"), {}, shown,
                                                      QStringLiteral("carol"), kSeed, {}, kNowMs);
        QCOMPARE(how.status, DecisionSigning::Status::Signed);
        QVERIFY(ApprovalKeys::verify(kPub, how.signature->statement, how.signature->signature));
        QString why;
        const auto s = ResolutionStatement::parse(how.signature->statement, &why);
        QVERIFY2(s, qPrintable(why));
        QCOMPARE(s->outcome, QStringLiteral("not_created"));
        QCOMPARE(s->resolver, QStringLiteral("carol"));
        QCOMPARE(s->dialogSha256, Sha256::hash(shown.toUtf8()).toHex());

        const QString uuid = QStringLiteral("3F1D3C4B-5A69-4B8E-9C1E-0D4F0F6E8A41");
        const DecisionSigning created = resolutionSigning(
            p, QStringLiteral("created"), uuid, shown, QStringLiteral("carol"), kSeed, {}, kNowMs);
        QCOMPARE(created.status, DecisionSigning::Status::Signed);
        QCOMPARE(ResolutionStatement::parse(created.signature->statement, &why)->uuid,
                 uuid.toLower());

        // No valid statement (created without a uuid), or no key: not signed.
        QCOMPARE(resolutionSigning(p, QStringLiteral("created"), {}, shown, QStringLiteral("carol"),
                                   kSeed, {}, kNowMs)
                     .status,
                 DecisionSigning::Status::NotEd25519);
        const DecisionSigning none =
            resolutionSigning(p, QStringLiteral("not_created"), {}, shown, QStringLiteral("carol"),
                              {}, QStringLiteral("locked"), kNowMs);
        QCOMPARE(none.status, DecisionSigning::Status::NoKey);
        QCOMPARE(none.keyError, QStringLiteral("locked"));
    }
};

QTEST_GUILESS_MAIN(TestApproverDecision)
#include "tst_approverdecision.moc"
