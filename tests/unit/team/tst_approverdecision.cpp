// What an approver decides, below the GUI (issue #40; src/team/ApproverDecision): which rows are
// open to a decision or await a resolution, how a decision and a resolution are signed over the
// exact text shown (or why they are not). The key's copy: tst_decisionrecorder. No database: the
// queue calls are driven through the Team approvals dialog in tests/integration/team.
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
