// Signed approvals (issue #26): the statement's canonical bytes, Ed25519 against RFC 8032's
// vector and an independent implementation's (Python cryptography 48) signature of a statement,
// and every reason verifyApproval refuses an approval for.
#include "core/Sha256.h"
#include "core/TeamPolicy.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalStatement.h"
#include "team/ApprovalVerify.h"

#include <QDateTime>
#include <QTest>

using namespace fb;
using namespace fb::team;

namespace {

// RFC 8032, 7.1, TEST 1.
const QByteArray kSeed =
    QByteArray::fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const QByteArray kPub =
    QByteArray::fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");

// The statement below, as Python's json/hashlib and the cryptography package computed it.
const QByteArray kCanonical =
    R"({"approver":"alice","change_type":"connection_create","decided_at":"2026-12-02T05:00:00.123Z",)"
    R"("decision":"approve","dialog_sha256":"0999920f72ab28d6c33e169fffccb43af374859e8322f7b51467f126fcd99cd3",)"
    R"("dry_run_sha256":"45b273a198030a612c482bb1daecaf0e2811f1ce009af3fe53a4143041502d47",)"
    R"("expires_at":"2026-12-02T05:15:00.000Z","format":"fabric-broker approval 1",)"
    R"("proposal_id":"0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69",)"
    R"("request_sha256":"015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"})";
const QByteArray kCanonicalSha256 =
    "34c4695501c807c6042516f41921e2781d7ea230bd0c74995fcb8a1cc984d1d7";
const QByteArray kSignature =
    QByteArray::fromHex("7f5f4ee468f846e6c434b2eb9f46c596d45ddbeea0af3c4f8dfcf70d5ccab2a4"
                        "4a81632a059dc24b87f192be60dc6d895be4b9f4da10d605261df5303399ec0b");

qint64 utcMs(const char *text)
{
    return QDateTime::fromString(QString::fromLatin1(text), Qt::ISODateWithMs).toMSecsSinceEpoch();
}

TeamProposal proposal()
{
    TeamProposal p;
    p.id = "0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69";
    p.changeType = QStringLiteral("connection_create");
    p.request = R"({"a":1})";
    p.requestSha256 = Sha256::hash(p.request).toHex();
    p.dryRun = R"({ "uuid" : "x" })"; // as jsonb prints it: hashed in its canonical form
    p.proposer = QStringLiteral("bob");
    p.expiresMs = utcMs("2026-12-02T05:15:00.000Z");
    return p;
}

ApprovalStatement statement()
{
    const TeamProposal p = proposal();
    ApprovalStatement s;
    s.proposalId = p.id;
    s.changeType = p.changeType;
    s.requestSha256 = p.requestSha256;
    s.dryRunSha256 = canonicalJsonSha256Hex(p.dryRun);
    s.dialogSha256 = Sha256::hash("dialog text").toHex();
    s.decision = QStringLiteral("approve");
    s.approver = QStringLiteral("alice");
    s.decidedMs = utcMs("2026-12-02T05:00:00.123Z");
    s.expiresMs = p.expiresMs;
    return s;
}

SignedApproval signedRow(const ApprovalStatement &s, const QByteArray &seed = kSeed)
{
    SignedApproval a;
    a.approver = s.approver;
    a.decision = s.decision;
    a.dialogSha256 = Sha256::hash("dialog text");
    a.statement = s.canonical();
    a.signature = *ApprovalKeys::sign(seed, a.statement);
    a.publicKey = *ApprovalKeys::publicKeyOf(seed);
    return a;
}

QList<ApproverKey> policyKeys(const QString &role = QStringLiteral("alice"))
{
    return {ApproverKey{role, ApprovalKeys::fingerprint(kPub), kPub}};
}

} // namespace

class TestApprovalSigning : public QObject {
    Q_OBJECT
private slots:
    void canonicalVector()
    {
        QCOMPARE(statement().canonical(), kCanonical);
        QCOMPARE(Sha256::hash(kCanonical).toHex(), kCanonicalSha256);
        QString why;
        const auto back = ApprovalStatement::parse(kCanonical, &why);
        QVERIFY2(back, qPrintable(why));
        QCOMPARE(*back, statement());
    }

    void strictParse_data()
    {
        QTest::addColumn<QByteArray>("text");
        QByteArray spaced = kCanonical;
        spaced.replace(",\"decision\"", ", \"decision\"");
        QTest::newRow("not canonical") << spaced;
        QByteArray unknown = kCanonical;
        unknown.replace("{\"approver\"", "{\"actor\":\"x\",\"approver\"");
        QTest::newRow("unknown key") << unknown;
        QByteArray missing = kCanonical;
        missing.replace("\"decision\":\"approve\",", "");
        QTest::newRow("missing key") << missing;
        QByteArray number = kCanonical;
        number.replace("\"decision\":\"approve\"", "\"decision\":1");
        QTest::newRow("wrong type") << number;
        QByteArray badDecision = kCanonical;
        badDecision.replace("\"approve\"", "\"approved\"");
        QTest::newRow("bad decision") << badDecision;
        QByteArray upperHex = kCanonical;
        upperHex.replace("0999920f", "0999920F");
        QTest::newRow("upper-case hex") << upperHex;
        QByteArray badTime = kCanonical;
        badTime.replace("05:00:00.123Z", "25:00:00.123Z");
        QTest::newRow("bad time") << badTime;
        QByteArray badFormat = kCanonical;
        badFormat.replace("approval 1", "approval 2");
        QTest::newRow("other format") << badFormat;
        QTest::newRow("not an object") << QByteArray("[]");
        QTest::newRow("too long") << QByteArray(ApprovalStatement::MaxBytes + 1, ' ');
        QByteArray dup = kCanonical;
        dup.replace("{\"approver\":\"alice\"", "{\"approver\":\"alice\",\"approver\":\"alice\"");
        QTest::newRow("duplicate key") << dup;
    }
    void strictParse()
    {
        QFETCH(QByteArray, text);
        QString why;
        QVERIFY(!ApprovalStatement::parse(text, &why));
        QVERIFY(!why.isEmpty());
    }

    void rfc8032Vector()
    {
        QCOMPARE(*ApprovalKeys::publicKeyOf(kSeed), kPub);
        QCOMPARE(ApprovalKeys::sign(kSeed, QByteArray())->toHex(),
                 QByteArray("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                            "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"));
        QCOMPARE(*ApprovalKeys::sign(kSeed, kCanonical), kSignature);
        QVERIFY(ApprovalKeys::verify(kPub, kCanonical, kSignature));
        QByteArray flipped = kCanonical;
        flipped[10] = static_cast<char>(flipped[10] ^ 1);
        QVERIFY(!ApprovalKeys::verify(kPub, flipped, kSignature));
        QVERIFY(!ApprovalKeys::verify(kPub, kCanonical, kSignature.left(63)));
        // The OpenSSH form: ssh-keygen -lf prints the same for this key.
        QCOMPARE(ApprovalKeys::fingerprint(kPub),
                 QStringLiteral("SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk"));
        QCOMPARE(ApprovalKeys::toBase64(kPub),
                 QStringLiteral("11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="));
        QCOMPARE(*ApprovalKeys::fromBase64(ApprovalKeys::toBase64(kPub)), kPub);
        QVERIFY(!ApprovalKeys::fromBase64(
            QStringLiteral("11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo")));
        QVERIFY(ApprovalKeys::isFingerprint(ApprovalKeys::fingerprint(kPub)));
    }

    void generatedKeys()
    {
        const auto a = ApprovalKeys::generate();
        const auto b = ApprovalKeys::generate();
        QVERIFY(a && b);
        QCOMPARE(a->size(), 32);
        QVERIFY(*a != *b);
        const QByteArray pubA = *ApprovalKeys::publicKeyOf(*a);
        const QByteArray sig = *ApprovalKeys::sign(*a, "m");
        QVERIFY(ApprovalKeys::verify(pubA, "m", sig));
        QVERIFY(!ApprovalKeys::verify(*ApprovalKeys::publicKeyOf(*b), "m", sig));
        QVERIFY(!ApprovalKeys::sign(QByteArray(31, 'x'), "m"));
    }

    void honestApprovalCounts()
    {
        const ApprovalCheck c = verifyApproval(proposal(), signedRow(statement()), policyKeys());
        QVERIFY2(c.counts, qPrintable(c.reason));
        QCOMPARE(c.fingerprint, ApprovalKeys::fingerprint(kPub));
    }

    void changedHashDoesNotCount_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("reason");
        QTest::newRow("request") << 0 << QStringLiteral("request_sha256");
        QTest::newRow("dry run") << 1 << QStringLiteral("dry_run_sha256");
        QTest::newRow("dialog") << 2 << QStringLiteral("dialog_sha256");
        QTest::newRow("expiry") << 3 << QStringLiteral("expires_at");
        QTest::newRow("change type") << 4 << QStringLiteral("change type");
    }
    void changedHashDoesNotCount()
    {
        QFETCH(int, field);
        QFETCH(QString, reason);
        ApprovalStatement s = statement();
        const QByteArray other = Sha256::hash("something else").toHex();
        if (field == 0)
            s.requestSha256 = other;
        else if (field == 1)
            s.dryRunSha256 = other;
        else if (field == 2)
            s.dialogSha256 = other;
        else if (field == 3)
            s.expiresMs += 1;
        else
            s.changeType = QStringLiteral("network_create");
        // Validly signed by a listed key, but over something the proposal is not.
        const ApprovalCheck c = verifyApproval(proposal(), signedRow(s), policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(reason), qPrintable(c.reason));
    }

    void tamperedStatementDoesNotCount()
    {
        SignedApproval a = signedRow(statement());
        a.statement.replace("05:00:00.123Z", "05:00:00.124Z"); // still a valid statement
        const ApprovalCheck c = verifyApproval(proposal(), a, policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("signature is invalid")), qPrintable(c.reason));
    }

    void keyNotInPolicy()
    {
        const QByteArray stranger = *ApprovalKeys::generate();
        const ApprovalCheck c =
            verifyApproval(proposal(), signedRow(statement(), stranger), policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("does not list for role alice")),
                 qPrintable(c.reason));
        // The policy key listed for another role does not count for alice's row.
        const ApprovalCheck d =
            verifyApproval(proposal(), signedRow(statement()), policyKeys(QStringLiteral("carol")));
        QVERIFY(!d.counts);
        QVERIFY2(d.reason.contains(QStringLiteral("does not list for role alice")),
                 qPrintable(d.reason));
        const ApprovalCheck e = verifyApproval(proposal(), signedRow(statement()), {});
        QVERIFY(!e.counts);
    }

    void replayForAnotherProposal()
    {
        TeamProposal other = proposal();
        other.id = "11111111-2222-4333-8444-555555555555"; // same request, dry run and expiry
        const ApprovalCheck c = verifyApproval(other, signedRow(statement()), policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("another proposal")), qPrintable(c.reason));
    }

    void rowMismatch()
    {
        SignedApproval a = signedRow(statement());
        a.decision = QStringLiteral("deny");
        ApprovalCheck c = verifyApproval(proposal(), a, policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("row says deny")), qPrintable(c.reason));
        // Carol's row carrying Alice's statement, with Alice's key listed for carol too.
        SignedApproval b = signedRow(statement());
        b.approver = QStringLiteral("carol");
        QList<ApproverKey> keys = policyKeys();
        keys += policyKeys(QStringLiteral("carol"));
        c = verifyApproval(proposal(), b, keys);
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("signed as role alice")), qPrintable(c.reason));
        SignedApproval unsignedRow = signedRow(statement());
        unsignedRow.signature.clear();
        QVERIFY(!verifyApproval(proposal(), unsignedRow, policyKeys()).counts);
    }

    void signDecisionMakesWhatCounts()
    {
        const TeamProposal p = proposal();
        const auto d = signDecision(p, QStringLiteral("approve"), Sha256::hash("dialog text"),
                                    QStringLiteral("alice"), kSeed, statement().decidedMs);
        QVERIFY(d);
        QCOMPARE(d->statement, kCanonical); // the very statement of the fixed vector
        QCOMPARE(d->signature, kSignature);
        QCOMPARE(d->publicKey, kPub);
        SignedApproval row{QStringLiteral("alice"),
                           QStringLiteral("approve"),
                           Sha256::hash("dialog text"),
                           d->statement,
                           d->signature,
                           d->publicKey};
        QVERIFY(verifyApproval(p, row, policyKeys()).counts);
        // Signed over another dialog text than the row records: does not count.
        const auto other = signDecision(p, QStringLiteral("approve"), Sha256::hash("other text"),
                                        QStringLiteral("alice"), kSeed, statement().decidedMs);
        row.statement = other->statement;
        row.signature = other->signature;
        const ApprovalCheck c = verifyApproval(p, row, policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("dialog_sha256")), qPrintable(c.reason));
        QVERIFY(!signDecision(p, QStringLiteral("approve"), Sha256::hash("dialog text"),
                              QStringLiteral("alice"), QByteArray(32, '\0').left(31), 0));
    }

    void policyKeysParse()
    {
        QStringList errors;
        const QJsonArray ok{
            QJsonObject{{QStringLiteral("role"), QStringLiteral("alice")},
                        {QStringLiteral("fingerprint"), ApprovalKeys::fingerprint(kPub)},
                        {QStringLiteral("public_key"), ApprovalKeys::toBase64(kPub)}}};
        const auto keys = ApproverKey::parse(ok, QStringLiteral("team.approver_keys"), &errors);
        QVERIFY2(keys, qPrintable(errors.join(u'\n')));
        QCOMPARE(*keys, policyKeys());
        QJsonObject wrongFp = ok.first().toObject();
        wrongFp[QStringLiteral("fingerprint")] =
            ApprovalKeys::fingerprint(*ApprovalKeys::publicKeyOf(*ApprovalKeys::generate()));
        QVERIFY(!ApproverKey::parse(QJsonArray{wrongFp}, QStringLiteral("k"), &errors));
        QVERIFY2(errors.last().contains(QStringLiteral("is not the fingerprint")),
                 qPrintable(errors.last()));
    }
};

QTEST_GUILESS_MAIN(TestApprovalSigning)
#include "tst_approvalsigning.moc"
