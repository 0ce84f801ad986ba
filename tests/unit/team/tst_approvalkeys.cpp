// Ed25519 for signed approvals (src/team/ApprovalKeys): RFC 8032's vector and an independent
// implementation's (Python cryptography 48) signature of a statement, the OpenSSH fingerprint
// and base64 forms, generated keys, and a secret wiped.
#include "ApprovalFixtures.h"
#include "TestEnvironment.h"

class TestApprovalKeys : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

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

    void wipeZeroesTheBytes()
    {
        QByteArray secret = kSeed;
        secret.detach();
        ApprovalKeys::wipe(secret);
        QCOMPARE(secret, QByteArray(32, '\0'));
        QCOMPARE(kSeed.size(), 32);
        QVERIFY(kSeed != secret);
        QByteArray empty;
        ApprovalKeys::wipe(empty); // nothing to wipe, nothing touched
        QVERIFY(empty.isNull());
    }
};

QTEST_GUILESS_MAIN(TestApprovalKeys)
#include "tst_approvalkeys.moc"
