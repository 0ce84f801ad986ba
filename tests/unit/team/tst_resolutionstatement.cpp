// Resolutions of unknown outcomes (issue #26, requirement 5): the resolution statement's
// canonical bytes, SHA-256 and Ed25519 signature (fixed vectors computed independently with
// Python's json, hashlib and cryptography 48), strict parsing, and every reason
// verifyResolution refuses a resolution for.
#include "TestEnvironment.h"
#include "core/Sha256.h"
#include "core/TeamPolicy.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalVerify.h"
#include "team/ResolutionStatement.h"

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

// The statements below, as Python computed them:
//   json.dumps(o, sort_keys=True, separators=(',', ':'), ensure_ascii=False), hashlib.sha256,
//   Ed25519PrivateKey.from_private_bytes(seed).sign(...)
const QByteArray kNotCreated =
    R"({"change_type":"connection_create","decided_at":"2026-12-02T06:00:00.456Z",)"
    R"("dialog_sha256":"346326fb8e3d2cf0443866f4282098321e01fdf8f52b496189d9e89c0de3cfba",)"
    R"("format":"fabric-broker resolution 1","outcome":"not_created",)"
    R"("proposal_id":"0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69",)"
    R"("request_sha256":"015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862",)"
    R"("resolver":"alice","uuid":""})";
const QByteArray kNotCreatedSha256 =
    "37ddd10acec2830fec159ad79a211d0868b672cb5d1bc39daad42925b9840c6a";
const QByteArray kNotCreatedSignature =
    QByteArray::fromHex("44cb7f9c364d546df78d049ffcf9d5922a042bcccb4239fe6a389ca3b4d9af92"
                        "0dc92962969451282114c9f92afe296867a53cf076f9df2c8b80981181767c0c");
const QByteArray kCreated =
    R"({"change_type":"connection_create","decided_at":"2026-12-02T06:00:00.456Z",)"
    R"("dialog_sha256":"346326fb8e3d2cf0443866f4282098321e01fdf8f52b496189d9e89c0de3cfba",)"
    R"("format":"fabric-broker resolution 1","outcome":"created",)"
    R"("proposal_id":"0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69",)"
    R"("request_sha256":"015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862",)"
    R"("resolver":"alice","uuid":"3a58dd05-f46d-4b1d-a154-2e85c396ea62"})";
const QByteArray kCreatedSha256 =
    "c13d67385a6173e339435f233f42c9cdd0f101917d24a2473fe1c720bb49ce43";
const QByteArray kCreatedSignature =
    QByteArray::fromHex("43f0081f062b513162ca0e4986d2887f03ee2e3e78dff3620fa5ef3f5cd56705"
                        "1ae25178d2eb1b3b5e7d6edd63637f023566fd1249b757018be6d48aaf2a2a0e");
const QString kUuid = QStringLiteral("3a58dd05-f46d-4b1d-a154-2e85c396ea62");

qint64 utcMs(const char *text)
{
    return QDateTime::fromString(QString::fromLatin1(text), Qt::ISODateWithMs).toMSecsSinceEpoch();
}

const qint64 kDecidedMs = utcMs("2026-12-02T06:00:00.456Z");

TeamProposal proposal()
{
    TeamProposal p;
    p.id = "0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69";
    p.changeType = QStringLiteral("connection_create");
    p.request = R"({"a":1})";
    p.requestSha256 = Sha256::hash(p.request).toHex();
    p.dryRun = R"({"uuid":"x"})";
    p.proposer = QStringLiteral("bob");
    p.expiresMs = utcMs("2026-12-02T05:15:00.000Z");
    p.state = QStringLiteral("unknown");
    return p;
}

ResolutionStatement statement(const QString &outcome = QStringLiteral("not_created"))
{
    const TeamProposal p = proposal();
    ResolutionStatement s;
    s.proposalId = p.id;
    s.changeType = p.changeType;
    s.requestSha256 = p.requestSha256;
    s.outcome = outcome;
    s.uuid = outcome == u"created" ? kUuid : QString();
    s.dialogSha256 = Sha256::hash("lookup text").toHex();
    s.resolver = QStringLiteral("alice");
    s.decidedMs = kDecidedMs;
    return s;
}

// The row an honest resolver's app stores for s.
TeamResolution signedRow(const ResolutionStatement &s, const QByteArray &seed = kSeed)
{
    TeamResolution r;
    r.id = "5e0c1b9a-0000-4000-8000-000000000001";
    r.resolver = s.resolver;
    r.outcome = s.outcome;
    r.uuid = s.uuid;
    r.dialogSha256 = Sha256::hash("lookup text");
    r.statement = s.canonical();
    r.signature = *ApprovalKeys::sign(seed, r.statement);
    r.publicKey = *ApprovalKeys::publicKeyOf(seed);
    return r;
}

QList<ApproverKey> policyKeys(const QString &role = QStringLiteral("alice"))
{
    return {ApproverKey{role, ApprovalKeys::fingerprint(kPub), kPub}};
}

} // namespace

class TestResolutionStatement : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void canonicalVectors()
    {
        QCOMPARE(statement().canonical(), kNotCreated);
        QCOMPARE(Sha256::hash(kNotCreated).toHex(), kNotCreatedSha256);
        QCOMPARE(statement(QStringLiteral("created")).canonical(), kCreated);
        QCOMPARE(Sha256::hash(kCreated).toHex(), kCreatedSha256);
        QString why;
        auto back = ResolutionStatement::parse(kNotCreated, &why);
        QVERIFY2(back, qPrintable(why));
        QCOMPARE(*back, statement());
        back = ResolutionStatement::parse(kCreated, &why);
        QVERIFY2(back, qPrintable(why));
        QCOMPARE(*back, statement(QStringLiteral("created")));
        // Python's signatures of those bytes verify, and OpenSSL makes the same ones.
        QVERIFY(ApprovalKeys::verify(kPub, kNotCreated, kNotCreatedSignature));
        QCOMPARE(*ApprovalKeys::sign(kSeed, kNotCreated), kNotCreatedSignature);
        QCOMPARE(*ApprovalKeys::sign(kSeed, kCreated), kCreatedSignature);
    }

    void strictParse_data()
    {
        QTest::addColumn<QByteArray>("text");
        QByteArray spaced = kNotCreated;
        spaced.replace(",\"outcome\"", ", \"outcome\"");
        QTest::newRow("not canonical") << spaced;
        QByteArray unknown = kNotCreated;
        unknown.replace("{\"change_type\"", "{\"actor\":\"x\",\"change_type\"");
        QTest::newRow("unknown key") << unknown;
        QByteArray missing = kNotCreated;
        missing.replace(",\"uuid\":\"\"", "");
        QTest::newRow("missing key") << missing;
        QByteArray number = kNotCreated;
        number.replace("\"uuid\":\"\"", "\"uuid\":0");
        QTest::newRow("wrong type") << number;
        QByteArray badOutcome = kNotCreated;
        badOutcome.replace("\"not_created\"", "\"unknown\"");
        QTest::newRow("bad outcome") << badOutcome;
        QByteArray uuidForNotCreated = kNotCreated;
        uuidForNotCreated.replace("\"uuid\":\"\"",
                                  QByteArray("\"uuid\":\"" + kUuid.toLatin1() + "\""));
        QTest::newRow("a uuid for not_created") << uuidForNotCreated;
        QByteArray noUuidForCreated = kCreated;
        noUuidForCreated.replace(kUuid.toLatin1(), "");
        QTest::newRow("no uuid for created") << noUuidForCreated;
        QByteArray upperUuid = kCreated;
        upperUuid.replace("3a58dd05", "3A58DD05");
        QTest::newRow("upper-case uuid") << upperUuid;
        QByteArray notAUuid = kCreated;
        notAUuid.replace(kUuid.toLatin1(), "conn-1");
        QTest::newRow("not a uuid") << notAUuid;
        QByteArray approvalFormat = kNotCreated;
        approvalFormat.replace("resolution 1", "approval 1");
        QTest::newRow("an approval's format") << approvalFormat;
        QByteArray badTime = kNotCreated;
        badTime.replace("06:00:00.456Z", "06:00:00.456+00:00");
        QTest::newRow("bad time") << badTime;
        QByteArray upperHex = kNotCreated;
        upperHex.replace("346326fb", "346326FB");
        QTest::newRow("upper-case hex") << upperHex;
        // "$" would match before a final line feed: every pattern ends at the text's end.
        QByteArray resolverLineFeed = kNotCreated;
        resolverLineFeed.replace("\"resolver\":\"alice\"", "\"resolver\":\"alice\\n\"");
        QTest::newRow("line feed after the resolver") << resolverLineFeed;
        QByteArray hashLineFeed = kNotCreated;
        hashLineFeed.replace("6a97f862\"", "6a97f862\\n\"");
        QTest::newRow("line feed after a hash") << hashLineFeed;
        QByteArray uuidLineFeed = kCreated;
        uuidLineFeed.replace(QByteArray(kUuid.toLatin1() + "\""),
                             QByteArray(kUuid.toLatin1() + "\\n\""));
        QTest::newRow("line feed after the uuid") << uuidLineFeed;
        QTest::newRow("not an object") << QByteArray("[]");
        QTest::newRow("too long") << QByteArray(ResolutionStatement::MaxBytes + 1, ' ');
    }
    void strictParse()
    {
        QFETCH(QByteArray, text);
        QString why;
        QVERIFY(!ResolutionStatement::parse(text, &why));
        QVERIFY(!why.isEmpty());
    }

    void signResolutionMakesWhatVerifies()
    {
        const TeamProposal p = proposal();
        auto d = signResolution(p, QStringLiteral("not_created"), {}, Sha256::hash("lookup text"),
                                QStringLiteral("alice"), kSeed, kDecidedMs);
        QVERIFY(d);
        QCOMPARE(d->statement, kNotCreated); // the very statement of the fixed vector
        QCOMPARE(d->signature, kNotCreatedSignature);
        QCOMPARE(d->publicKey, kPub);
        TeamResolution row = signedRow(statement());
        QCOMPARE(row.statement, d->statement);
        ApprovalCheck c = verifyResolution(p, row, policyKeys());
        QVERIFY2(c.counts, qPrintable(c.reason));
        QCOMPARE(c.fingerprint, ApprovalKeys::fingerprint(kPub));
        QVERIFY(!c.statement); // an approval's statement only

        // created, with the uuid lower-cased as TeamQueue::resolve stores it.
        d = signResolution(p, QStringLiteral("created"), kUuid.toUpper(),
                           Sha256::hash("lookup text"), QStringLiteral("alice"), kSeed, kDecidedMs);
        QVERIFY(d);
        QCOMPARE(d->statement, kCreated);
        QCOMPARE(d->signature, kCreatedSignature);
        c = verifyResolution(p, signedRow(statement(QStringLiteral("created"))), policyKeys());
        QVERIFY2(c.counts, qPrintable(c.reason));

        // No statement for an outcome that is not one, a created without its uuid, a bad key.
        QVERIFY(!signResolution(p, QStringLiteral("unknown"), {}, Sha256::hash("t"),
                                QStringLiteral("alice"), kSeed, kDecidedMs));
        QVERIFY(!signResolution(p, QStringLiteral("created"), {}, Sha256::hash("t"),
                                QStringLiteral("alice"), kSeed, kDecidedMs));
        QVERIFY(!signResolution(p, QStringLiteral("not_created"), kUuid, Sha256::hash("t"),
                                QStringLiteral("alice"), kSeed, kDecidedMs));
        QVERIFY(!signResolution(p, QStringLiteral("not_created"), {}, Sha256::hash("t"),
                                QStringLiteral("alice"), kSeed.left(31), kDecidedMs));
    }

    void changedHashDoesNotVerify_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("reason");
        QTest::newRow("request") << 0 << QStringLiteral("request_sha256");
        QTest::newRow("dialog") << 1 << QStringLiteral("dialog_sha256");
        QTest::newRow("change type") << 2 << QStringLiteral("change type");
    }
    void changedHashDoesNotVerify()
    {
        QFETCH(int, field);
        QFETCH(QString, reason);
        ResolutionStatement s = statement();
        const QByteArray other = Sha256::hash("something else").toHex();
        if (field == 0)
            s.requestSha256 = other;
        else if (field == 1)
            s.dialogSha256 = other;
        else
            s.changeType = QStringLiteral("network_create");
        // Validly signed by a listed key, but over something the proposal or row is not.
        const ApprovalCheck c = verifyResolution(proposal(), signedRow(s), policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(reason), qPrintable(c.reason));
    }

    void tamperedStatementDoesNotVerify()
    {
        TeamResolution r = signedRow(statement());
        r.statement.replace("06:00:00.456Z", "06:00:00.457Z"); // still a valid statement
        ApprovalCheck c = verifyResolution(proposal(), r, policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("signature is invalid")), qPrintable(c.reason));
        r = signedRow(statement());
        r.statement.replace("not_created", "not_Created"); // no longer a statement
        c = verifyResolution(proposal(), r, policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("statement is invalid")), qPrintable(c.reason));
        TeamResolution unsignedRow = signedRow(statement());
        unsignedRow.statement.clear();
        unsignedRow.signature.clear();
        c = verifyResolution(proposal(), unsignedRow, policyKeys());
        QVERIFY(!c.counts);
        QCOMPARE(c.reason, QStringLiteral("the resolution is not signed"));
    }

    void keyNotInPolicy()
    {
        const QByteArray stranger = *ApprovalKeys::generate();
        ApprovalCheck c =
            verifyResolution(proposal(), signedRow(statement(), stranger), policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("does not list for role alice")),
                 qPrintable(c.reason));
        // The key listed for another role does not count for alice's row.
        c = verifyResolution(proposal(), signedRow(statement()),
                             policyKeys(QStringLiteral("carol")));
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("does not list for role alice")),
                 qPrintable(c.reason));
        c = verifyResolution(proposal(), signedRow(statement()), {});
        QVERIFY(!c.counts);
    }

    void replayForAnotherProposal()
    {
        TeamProposal other = proposal();
        other.id = "11111111-2222-4333-8444-555555555555"; // same request, same change type
        const ApprovalCheck c = verifyResolution(other, signedRow(statement()), policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("another proposal")), qPrintable(c.reason));
    }

    void resolverIsTheProposer()
    {
        // bob proposed it; bob's own resolution, signed with a key listed for bob, never holds.
        ResolutionStatement s = statement();
        s.resolver = QStringLiteral("bob");
        const ApprovalCheck c =
            verifyResolution(proposal(), signedRow(s), policyKeys(QStringLiteral("bob")));
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("is the proposal's proposer")),
                 qPrintable(c.reason));
    }

    void rowMismatch()
    {
        // The row says created, the statement not_created (and the other way around).
        TeamResolution r = signedRow(statement());
        r.outcome = QStringLiteral("created");
        r.uuid = kUuid;
        ApprovalCheck c = verifyResolution(proposal(), r, policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("row says created")), qPrintable(c.reason));
        // Another uuid in the row than the one the resolver signed.
        r = signedRow(statement(QStringLiteral("created")));
        r.uuid = QStringLiteral("00000000-f46d-4b1d-a154-2e85c396ea62");
        c = verifyResolution(proposal(), r, policyKeys());
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("uuid")), qPrintable(c.reason));
        // carol's row carrying alice's statement, with alice's key listed for carol too.
        r = signedRow(statement());
        r.resolver = QStringLiteral("carol");
        QList<ApproverKey> keys = policyKeys();
        keys += policyKeys(QStringLiteral("carol"));
        c = verifyResolution(proposal(), r, keys);
        QVERIFY(!c.counts);
        QVERIFY2(c.reason.contains(QStringLiteral("signed as role alice")), qPrintable(c.reason));
    }
};

QTEST_GUILESS_MAIN(TestResolutionStatement)
#include "tst_resolutionstatement.moc"
