// Signed approvals (issues #26, #34): the statement's canonical bytes (version 2, and version 1
// for old history), Ed25519 against RFC 8032's vector and an independent implementation's (Python
// cryptography 48) signature of a statement, every reason verifyApproval refuses an approval
// for, and that a version 1 statement never counts toward a quorum.
#include "TestEnvironment.h"
#include "core/Sha256.h"
#include "core/TeamPolicy.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalStatement.h"
#include "team/ApprovalVerify.h"
#include "team/ApproverDecision.h"

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

// The statement below (version 2), as Python's json/hashlib and the cryptography package computed
// it: request_sha256 = sha256(b"connection_create\n" + body), price_sha256 = sha256 of the
// price's RFC 8785 form, token_sha256 = sha256(b"token").
const QByteArray kCanonical =
    R"({"approver":"alice","change_type":"connection_create","credential_identity":"client id abc",)"
    R"("decided_at":"2026-12-02T05:00:00.123Z","decision":"approve",)"
    R"("dialog_sha256":"0999920f72ab28d6c33e169fffccb43af374859e8322f7b51467f126fcd99cd3",)"
    R"("dry_run_sha256":"45b273a198030a612c482bb1daecaf0e2811f1ce009af3fe53a4143041502d47",)"
    R"("expires_at":"2026-12-02T05:15:00.000Z","fabric_endpoint":"https://api.equinix.com",)"
    R"("format":"fabric-broker approval 2",)"
    R"("price_sha256":"c8c5d8287957dced8e89e34a07c33b75f82c74abc90a05d5b22bc462c67574b2",)"
    R"("proposal_id":"0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69","proposer":"bob",)"
    R"("request_sha256":"09925c5b4018bfa87c9cc0c5aed724bd92a66964651ba32dbb08977f3fff36a9",)"
    R"("token_sha256":"3c469e9d6c5875d37a43f353d4f88e61fcf812c66eee3457465a40b0da4153e0"})";
const QByteArray kCanonicalSha256 =
    "548f7603ce9350eb60e8e5fbc6a336b35d32cb74c4f125cd9bef7c3d06f6891f";
const QByteArray kSignature =
    QByteArray::fromHex("62ad4ea9987813a17addb169b57790bdd35682d4406334d2e701654848a365d2"
                        "60752b3386be3d9b018abbfe535adbaa7ac5e954ceef4af15be665b2e6ed0a02");

// A version 1 statement of the same decision (old history), as Python computed it: its
// request_sha256 is the body's alone (the row's column).
const QByteArray kCanonicalV1 =
    R"({"approver":"alice","change_type":"connection_create","decided_at":"2026-12-02T05:00:00.123Z",)"
    R"("decision":"approve","dialog_sha256":"0999920f72ab28d6c33e169fffccb43af374859e8322f7b51467f126fcd99cd3",)"
    R"("dry_run_sha256":"45b273a198030a612c482bb1daecaf0e2811f1ce009af3fe53a4143041502d47",)"
    R"("expires_at":"2026-12-02T05:15:00.000Z","format":"fabric-broker approval 1",)"
    R"("proposal_id":"0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69",)"
    R"("request_sha256":"015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"})";
const QByteArray kCanonicalV1Sha256 =
    "34c4695501c807c6042516f41921e2781d7ea230bd0c74995fcb8a1cc984d1d7";
const QByteArray kSignatureV1 =
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
    p.binding =
        QJsonObject{{QStringLiteral("fabric_endpoint"), QStringLiteral("https://api.equinix.com")},
                    {QStringLiteral("credential_identity"), QStringLiteral("client id abc")}};
    p.price = QJsonObject{{QStringLiteral("monthly_recurring"), 150},
                          {QStringLiteral("currency"), QStringLiteral("USD")}};
    p.tokenSha256 = Sha256::hash("token").toHex();
    p.expiresMs = utcMs("2026-12-02T05:15:00.000Z");
    return p;
}

ApprovalStatement statement()
{
    const TeamProposal p = proposal();
    ApprovalStatement s;
    s.proposalId = p.id;
    s.changeType = p.changeType;
    s.requestSha256 =
        Sha256::hash(QByteArray(QByteArray("connection_create\n") + p.request)).toHex();
    s.dryRunSha256 = canonicalJsonSha256Hex(p.dryRun);
    s.priceSha256 = priceSha256Hex(p.price);
    s.fabricEndpoint = QStringLiteral("https://api.equinix.com");
    s.credentialIdentity = QStringLiteral("client id abc");
    s.tokenSha256 = p.tokenSha256;
    s.proposer = p.proposer;
    s.dialogSha256 = Sha256::hash("dialog text").toHex();
    s.decision = QStringLiteral("approve");
    s.approver = QStringLiteral("alice");
    s.decidedMs = utcMs("2026-12-02T05:00:00.123Z");
    s.expiresMs = p.expiresMs;
    return s;
}

ApprovalStatement statementV1()
{
    ApprovalStatement s = statement();
    s.version = 1;
    s.requestSha256 = proposal().requestSha256;
    s.priceSha256.clear();
    s.fabricEndpoint.clear();
    s.credentialIdentity.clear();
    s.tokenSha256.clear();
    s.proposer.clear();
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
    void init() { fbtest::failOnWarnings(); }

    void canonicalVector()
    {
        QCOMPARE(statement().canonical(), kCanonical);
        QCOMPARE(Sha256::hash(kCanonical).toHex(), kCanonicalSha256);
        QString why;
        const auto back = ApprovalStatement::parse(kCanonical, &why);
        QVERIFY2(back, qPrintable(why));
        QCOMPARE(*back, statement());
        QCOMPARE(back->version, 2);
        // Version 1, old history: parsed, its own vector.
        QCOMPARE(statementV1().canonical(), kCanonicalV1);
        QCOMPARE(Sha256::hash(kCanonicalV1).toHex(), kCanonicalV1Sha256);
        const auto v1 = ApprovalStatement::parse(kCanonicalV1, &why);
        QVERIFY2(v1, qPrintable(why));
        QCOMPARE(v1->version, 1);
        QCOMPARE(*v1, statementV1());
        QCOMPARE(*ApprovalKeys::sign(kSeed, kCanonicalV1), kSignatureV1);
    }

    void expiryRounding()
    {
        // The database's microseconds, rounded to the nearest millisecond, 500 µs up
        // (docs/team-signing.md): as (extract(epoch FROM expires_at) * 1000)::bigint.
        const qint64 base = utcMs("2026-12-02T05:15:00.123Z") * 1000;
        QCOMPARE(statementExpiryMs(base), base / 1000);
        QCOMPARE(statementExpiryMs(base + 499), base / 1000);
        QCOMPARE(statementExpiryMs(base + 500), base / 1000 + 1);
        QCOMPARE(statementExpiryMs(base + 999), base / 1000 + 1);
        QCOMPARE(statementTime(statementExpiryMs(base + 500)),
                 QStringLiteral("2026-12-02T05:15:00.124Z"));
        QCOMPARE(statementExpiryMs(-1500), -2); // away from zero, as numeric::bigint
        // One millisecond off is another statement: verification tolerates nothing else.
        ApprovalStatement s = statement();
        s.expiresMs -= 1;
        QVERIFY(!verifyApproval(proposal(), signedRow(s), policyKeys()).counts);
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
        badFormat.replace("approval 2", "approval 3");
        QTest::newRow("other format") << badFormat;
        QByteArray v1Members = kCanonical;
        v1Members.replace("approval 2", "approval 1");
        QTest::newRow("version 1 with version 2's members") << v1Members;
        QByteArray v2Members = kCanonicalV1;
        v2Members.replace("approval 1", "approval 2");
        QTest::newRow("version 2 with version 1's members") << v2Members;
        QByteArray noProposer = kCanonical;
        noProposer.replace("\"proposer\":\"bob\",", "");
        QTest::newRow("no proposer") << noProposer;
        QByteArray controlEndpoint = kCanonical;
        controlEndpoint.replace("https://api.equinix.com", "https://api.equinix.com\\n");
        QTest::newRow("control character in the endpoint") << controlEndpoint;
        QByteArray trailingLineFeed = kCanonical;
        trailingLineFeed.replace("\"proposer\":\"bob\"", "\"proposer\":\"bob\\n\"");
        QTest::newRow("line feed after the proposer") << trailingLineFeed;
        // "$" would match before a final line feed: every pattern ends at the text's end.
        QByteArray hashLineFeed = kCanonical;
        hashLineFeed.replace("3fff36a9\"", "3fff36a9\\n\"");
        QTest::newRow("line feed after a hash") << hashLineFeed;
        QByteArray idLineFeed = kCanonical;
        idLineFeed.replace("3c4b5a69\"", "3c4b5a69\\n\"");
        QTest::newRow("line feed after the proposal id") << idLineFeed;
        QByteArray approverLineFeed = kCanonical;
        approverLineFeed.replace("\"approver\":\"alice\"", "\"approver\":\"alice\\n\"");
        QTest::newRow("line feed after the approver") << approverLineFeed;
        QByteArray timeLineFeed = kCanonical;
        timeLineFeed.replace("05:00:00.123Z\"", "05:00:00.123Z\\n\"");
        QTest::newRow("line feed after a time") << timeLineFeed;
        QByteArray badToken = kCanonical;
        badToken.replace("3c469e9d", "3c469e9");
        QTest::newRow("short token hash") << badToken;
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
        QTest::newRow("price") << 5 << QStringLiteral("price_sha256");
        QTest::newRow("endpoint") << 6 << QStringLiteral("binding");
        QTest::newRow("credentials") << 7 << QStringLiteral("binding");
        QTest::newRow("token") << 8 << QStringLiteral("token_sha256");
        QTest::newRow("proposer") << 9 << QStringLiteral("proposer");
        QTest::newRow("body-only request hash") << 10 << QStringLiteral("request_sha256");
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
        else if (field == 4)
            s.changeType = QStringLiteral("network_create");
        else if (field == 5)
            s.priceSha256 =
                priceSha256Hex(QJsonObject{{QStringLiteral("monthly_recurring"), 12},
                                           {QStringLiteral("currency"), QStringLiteral("USD")}});
        else if (field == 6)
            s.fabricEndpoint = QStringLiteral("http://127.0.0.1:8080");
        else if (field == 7)
            s.credentialIdentity = QStringLiteral("client id other");
        else if (field == 8)
            s.tokenSha256 = Sha256::hash("another token").toHex();
        else if (field == 9)
            s.proposer = QStringLiteral("carol");
        else
            s.requestSha256 = proposal().requestSha256; // the row's column: the body's alone
        // Validly signed by a listed key, but over something the proposal is not.
        const ApprovalCheck c = verifyApproval(proposal(), signedRow(s), policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(reason), qPrintable(c.reason));
    }

    // What the approver saw is what counts: a statement made on another body, price, binding,
    // token or proposer than the proposing broker's row does not verify against that row.
    void statementOverWhatWasShownOnly_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("reason");
        QTest::newRow("body") << 0 << QStringLiteral("request_sha256");
        QTest::newRow("price") << 1 << QStringLiteral("price_sha256");
        QTest::newRow("unpriced") << 2 << QStringLiteral("price_sha256");
        QTest::newRow("endpoint") << 3 << QStringLiteral("binding");
        QTest::newRow("credentials") << 4 << QStringLiteral("binding");
        QTest::newRow("token") << 5 << QStringLiteral("token_sha256");
        QTest::newRow("proposer") << 6 << QStringLiteral("proposer");
    }
    void statementOverWhatWasShownOnly()
    {
        QFETCH(int, field);
        QFETCH(QString, reason);
        TeamProposal shown = proposal(); // the row as the approver's app read it
        if (field == 0) {
            shown.request = R"({"a":2})"; // harmless body, its column made to match
            shown.requestSha256 = Sha256::hash(shown.request).toHex();
        } else if (field == 1) {
            shown.price = QJsonObject{{QStringLiteral("monthly_recurring"), 12},
                                      {QStringLiteral("currency"), QStringLiteral("USD")}};
        } else if (field == 2) {
            shown.price.reset();
        } else if (field == 3) {
            shown.binding[QStringLiteral("fabric_endpoint")] = QStringLiteral("http://127.0.0.1:9");
        } else if (field == 4) {
            shown.binding[QStringLiteral("credential_identity")] = QStringLiteral("client id lab");
        } else if (field == 5) {
            shown.tokenSha256 = Sha256::hash("old token").toHex();
        } else {
            shown.proposer = QStringLiteral("carol");
        }
        const auto d = signShownDecision(shown, QStringLiteral("approve"), QStringLiteral("text"),
                                         QStringLiteral("alice"), kSeed, statement().decidedMs);
        QVERIFY(d);
        const SignedApproval row{QStringLiteral("alice"),
                                 QStringLiteral("approve"),
                                 shownTextSha256(QStringLiteral("text")),
                                 d->statement,
                                 d->signature,
                                 d->publicKey};
        QVERIFY(verifyApproval(shown, row, policyKeys()).counts);              // what was shown
        const ApprovalCheck c = verifyApproval(proposal(), row, policyKeys()); // the broker's row
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(reason), qPrintable(c.reason));
    }

    void rowWhoseHashIsNotItsBodyIsRefused()
    {
        TeamProposal p = proposal();
        QVERIFY(refusalOf(p).isEmpty());
        QCOMPARE(requestSha256Shown(p),
                 Sha256::hash(QByteArray(QByteArray("connection_create\n") + p.request)).toHex());
        QCOMPARE(bodySha256(p), p.requestSha256);
        p.request = R"({"a":2})"; // the body changed beside the real request's hash
        QVERIFY(!refusalOf(p).isEmpty());
        QVERIFY(!signShownDecision(p, QStringLiteral("approve"), QStringLiteral("text"),
                                   QStringLiteral("alice"), kSeed, 0));
        QVERIFY(!signDecision(p, QStringLiteral("approve"), Sha256::hash("text"),
                              QStringLiteral("alice"), kSeed, 0));
    }

    void sandboxOrProduction()
    {
        TeamProposal p = proposal();
        QVERIFY(!fabricTargetOf(p).sandbox);
        QCOMPARE(fabricTargetOf(p).endpoint, QStringLiteral("https://api.equinix.com"));
        QCOMPARE(fabricTargetOf(p).identity, QStringLiteral("client id abc"));
        for (const char *loopback : {"http://127.0.0.1:4010", "http://localhost:1",
                                     "http://[::1]:80", "http://127.9.9.9"}) {
            p.binding[QStringLiteral("fabric_endpoint")] = QString::fromLatin1(loopback);
            QVERIFY2(fabricTargetOf(p).sandbox, loopback);
        }
        for (const char *other : {"", "https://127.0.0.1.example.com", "http://10.0.0.1",
                                  "https://localhost.equinix.com"}) {
            p.binding[QStringLiteral("fabric_endpoint")] = QString::fromLatin1(other);
            QVERIFY2(!fabricTargetOf(p).sandbox, other);
        }
    }

    // Version 1 binds neither the body shown nor price or binding: history only, never a quorum.
    void versionOneNeverCounts()
    {
        SignedApproval a = signedRow(statementV1());
        QCOMPARE(a.signature, kSignatureV1);
        const ApprovalCheck history = verifyApproval(proposal(), a, policyKeys());
        QVERIFY2(history.counts, qPrintable(history.reason)); // team verify's old history
        QCOMPARE(history.statement->version, 1);
        const ApprovalCheck now =
            verifyApproval(proposal(), a, policyKeys(), StatementVersions::CurrentOnly);
        QVERIFY(!now.counts);
        QVERIFY2(now.reason.contains(QStringLiteral("version 1")), qPrintable(now.reason));
        TeamApproval row(QStringLiteral("alice"), QStringLiteral("approve"), QStringLiteral("u"),
                         QStringLiteral("ws-alice"));
        row.id = "a1";
        row.dialogSha256 = a.dialogSha256;
        row.statement = a.statement;
        row.signature = a.signature;
        row.publicKey = a.publicKey;
        const QuorumCount q = countVerifiedQuorum(proposal(), {row}, 1, policyKeys());
        QVERIFY(q.counted.isEmpty());
        QVERIFY(!q.met());
        QCOMPARE(q.notCounted.size(), 1);
        // The same decision in version 2 counts.
        const SignedApproval b = signedRow(statement());
        row.statement = b.statement;
        row.signature = b.signature;
        QCOMPARE(countVerifiedQuorum(proposal(), {row}, 1, policyKeys()).counted,
                 QStringList{QStringLiteral("alice")});
    }

    // A team bundle of format 1 has no token hash, binding or price: history leaves those
    // unchecked and says so; a quorum never does.
    void aProposalWithoutTokenHashIsCheckedOnlyInPart()
    {
        TeamProposal bundled = proposal();
        bundled.tokenSha256.clear();
        bundled.binding = {};
        bundled.price.reset();
        const SignedApproval row = signedRow(statement());
        const ApprovalCheck history = verifyApproval(bundled, row, policyKeys());
        QVERIFY2(history.counts, qPrintable(history.reason));
        QCOMPARE(history.unchecked.size(), 4);
        QVERIFY(verifyApproval(proposal(), row, policyKeys()).unchecked.isEmpty());
        const ApprovalCheck now =
            verifyApproval(bundled, row, policyKeys(), StatementVersions::CurrentOnly);
        QVERIFY(!now.counts);
        // What is there is still checked: the body, the proposer.
        bundled.request = R"({"a":2})";
        QVERIFY(!verifyApproval(bundled, row, policyKeys()).counts);
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
