// The signed approval's statement (issues #26, #34; src/team/ApprovalStatement): its canonical
// bytes (version 2, and version 1 for old history) against an independent implementation's
// (Python's json and hashlib), the expiry rounded to the millisecond as the database rounds it,
// and the strict parse refusing anything but the canonical form.
#include "ApprovalFixtures.h"
#include "TestEnvironment.h"

class TestApprovalStatement : public QObject {
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
};

QTEST_GUILESS_MAIN(TestApprovalStatement)
#include "tst_approvalstatement.moc"
