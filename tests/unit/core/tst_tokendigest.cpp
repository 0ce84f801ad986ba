// TokenDigest (src/core/TokenDigest): a token's SHA-256 (what is kept and logged instead of the
// token), its strict hex form, and the one constant-time comparison of secrets.
#include "TestEnvironment.h"
#include "core/TokenDigest.h"

#include <QTest>

using namespace fb;

class TestTokenDigest : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void digestOfAToken();
    void hexIsStrict();
    void digestsCompare();
    void equalSecrets();
};

void TestTokenDigest::digestOfAToken()
{
    // SHA-256("abc"), FIPS 180-2's first example.
    const QString abc =
        QStringLiteral("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    QCOMPARE(TokenDigest::of(u"abc").hex(), abc);
    QCOMPARE(tokenDigest(QStringLiteral("abc")), abc);
    QCOMPARE(TokenDigest::of(u"abc").bytes(), QByteArray::fromHex(abc.toLatin1()));
    QCOMPARE(TokenDigest::of(u"abc").bytes().size(), TokenDigest::Bytes);
    // A confirm token's digest is of its UTF-8 text, as the audit log and the team row hold it.
    const QString token = QStringLiteral("chg-0123456789abcdef0123456789abcdef");
    QCOMPARE(TokenDigest::of(token).hex(),
             QStringLiteral("66578129a8a971ed6f679babb417e1fa75347dfad51114131941b0d18f3e2328"));
    QCOMPARE(TokenDigest::of(QString::fromUtf8("\xc3\xa9")).hex(),
             QStringLiteral("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"));
}

void TestTokenDigest::hexIsStrict()
{
    const QByteArray hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    const auto lower = TokenDigest::fromHex(hex);
    QVERIFY(lower);
    QCOMPARE(*lower, TokenDigest::of(u"abc"));
    const auto upper = TokenDigest::fromHex(hex.toUpper());
    QVERIFY(upper);
    QCOMPARE(*upper, *lower);
    QCOMPARE(upper->hex(), QString::fromLatin1(hex)); // always written lower case
    QVERIFY(!TokenDigest::fromHex(hex.left(63)));
    QVERIFY(!TokenDigest::fromHex(QByteArray(hex + "0")));
    QVERIFY(!TokenDigest::fromHex(QByteArray(hex.left(63) + "g")));
    QVERIFY(!TokenDigest::fromHex(QByteArray(hex.left(63) + " ")));
    QVERIFY(!TokenDigest::fromHex(QByteArray(" " + hex.left(63))));
    QVERIFY(!TokenDigest::fromHex(QByteArray()));
}

void TestTokenDigest::digestsCompare()
{
    QVERIFY(TokenDigest::of(u"chg-a") == TokenDigest::of(u"chg-a"));
    QVERIFY(TokenDigest::of(u"chg-a") != TokenDigest::of(u"chg-b"));
    QVERIFY(TokenDigest::of(u"") != TokenDigest::of(u"chg-a"));
}

void TestTokenDigest::equalSecrets()
{
    const QByteArray secret = "s3cret-token-value";
    QVERIFY(TokenDigest::equalSecrets(secret, QByteArray("s3cret-token-value")));
    // Any byte that differs, wherever it is.
    for (qsizetype i = 0; i < secret.size(); ++i) {
        QByteArray other = secret;
        other[i] = static_cast<char>(other[i] ^ 0x01);
        QVERIFY2(!TokenDigest::equalSecrets(secret, other), qPrintable(QString::number(i)));
    }
    // A prefix, an extension, a NUL-padded extension and nothing do not match.
    QVERIFY(!TokenDigest::equalSecrets(secret, secret.left(secret.size() - 1)));
    QVERIFY(!TokenDigest::equalSecrets(secret, QByteArray(secret + "x")));
    QVERIFY(!TokenDigest::equalSecrets(secret, QByteArray(secret + QByteArray(1, '\0'))));
    QVERIFY(
        !TokenDigest::equalSecrets(QByteArray(secret.left(secret.size() - 1) + QByteArray(1, '\0')),
                                   secret.left(secret.size() - 1)));
    QVERIFY(!TokenDigest::equalSecrets(secret, QByteArray()));
    // An empty secret matches nothing, not even an empty value.
    QVERIFY(!TokenDigest::equalSecrets(QByteArray(), QByteArray()));
    QVERIFY(!TokenDigest::equalSecrets(QByteArray(), QByteArray("x")));
}

QTEST_GUILESS_MAIN(TestTokenDigest)
#include "tst_tokendigest.moc"
