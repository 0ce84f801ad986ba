// Every reason verifyApproval refuses an approval for (issues #26, #34; src/team/ApprovalVerify):
// a changed hash, a statement over anything but what was shown, a tampered statement, a key not
// in the policy, a replay for another proposal, a row that disagrees; that a version 1 statement
// never counts toward a quorum; the approver's signDecision making what counts, and the policy's
// team.approver_keys parsed.
#include "ApprovalFixtures.h"
#include "TestEnvironment.h"

class TestApprovalVerify : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

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

QTEST_GUILESS_MAIN(TestApprovalVerify)
#include "tst_approvalverify.moc"
