// RFC 8785 vectors (sections 3.2.2, 3.2.3 and Appendix B) and edge cases for the canonicalizer,
// plus the request binding formula.
#include "TestEnvironment.h"
#include "canonical_vectors.h"
#include "core/CanonicalJson.h"
#include "core/CompiledRequest.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <bit>
#include <cstring>

using namespace fb;

class TestCanonicalJson : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void numbers_data()
    {
        QTest::addColumn<quint64>("bits");
        QTest::addColumn<QByteArray>("expected");
        // RFC 8785 Appendix B.
        const std::pair<quint64, const char *> vectors[] = {
            {0x0000000000000000ULL, "0"},
            {0x8000000000000000ULL, "0"},
            {0x0000000000000001ULL, "5e-324"},
            {0x8000000000000001ULL, "-5e-324"},
            {0x7fefffffffffffffULL, "1.7976931348623157e+308"},
            {0xffefffffffffffffULL, "-1.7976931348623157e+308"},
            {0x4340000000000000ULL, "9007199254740992"},
            {0xc340000000000000ULL, "-9007199254740992"},
            {0x4430000000000000ULL, "295147905179352830000"},
            {0x44b52d02c7e14af5ULL, "9.999999999999997e+22"},
            {0x44b52d02c7e14af6ULL, "1e+23"},
            {0x44b52d02c7e14af7ULL, "1.0000000000000001e+23"},
            {0x444b1ae4d6e2ef4eULL, "999999999999999700000"},
            {0x444b1ae4d6e2ef4fULL, "999999999999999900000"},
            {0x444b1ae4d6e2ef50ULL, "1e+21"},
            {0x3eb0c6f7a0b5ed8cULL, "9.999999999999997e-7"},
            {0x3eb0c6f7a0b5ed8dULL, "0.000001"},
            {0x41b3de4355555553ULL, "333333333.3333332"},
            {0x41b3de4355555554ULL, "333333333.33333325"},
            {0x41b3de4355555555ULL, "333333333.3333333"},
            {0x41b3de4355555556ULL, "333333333.3333334"},
            {0x41b3de4355555557ULL, "333333333.33333343"},
            {0xbecbf647612f3696ULL, "-0.0000033333333333333333"},
            {0x43143ff3c1cb0959ULL, "1424953923781206.2"},
        };
        for (const auto &[bits, text] : vectors)
            QTest::newRow(text) << bits << QByteArray(text);
    }
    void numbers()
    {
        QFETCH(quint64, bits);
        QFETCH(QByteArray, expected);
        QCOMPARE(canonicalNumber(std::bit_cast<double>(bits)), expected);
    }

    void smallIntegersAndFractions()
    {
        QCOMPARE(canonicalNumber(1), QByteArray("1"));
        QCOMPARE(canonicalNumber(-1), QByteArray("-1"));
        QCOMPARE(canonicalNumber(4.5), QByteArray("4.5"));
        QCOMPARE(canonicalNumber(0.002), QByteArray("0.002"));
        QCOMPARE(canonicalNumber(1e-7), QByteArray("1e-7"));
        QCOMPARE(canonicalNumber(100), QByteArray("100"));
        QCOMPARE(canonicalNumber(1e21), QByteArray("1e+21"));
        QCOMPARE(canonicalNumber(1e20), QByteArray("100000000000000000000"));
        QCOMPARE(canonicalNumber(123456789012), QByteArray("123456789012"));
    }

    void rfcMainExample()
    {
        // RFC 8785 section 3.2.2.
        const QByteArray input = kRfcMainExample;
        const auto out = canonicalizeText(input);
        QVERIFY(out);
        QCOMPARE(*out,
                 QByteArray("{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,"
                            "1e+30,4.5,0.002,1e-27],\"string\":\"\xe2\x82\xac$\\u000f\\nA'B\\\""
                            "\\\\\\\\\\\"/\"}"));
    }

    void keyOrderByUtf16CodeUnits()
    {
        // RFC 8785 section 3.2.3: U+1F600 (a surrogate pair, D83D) sorts before U+FB33.
        const QByteArray input = kRfcSortExample;
        const auto out = canonicalizeText(input);
        QVERIFY(out);
        const QJsonObject parsed = QJsonDocument::fromJson(*out).object();
        QCOMPARE(parsed.size(), 7);
        QStringList order;
        QByteArray rest = *out;
        const QStringList expected = {QStringLiteral("\r"),     QStringLiteral("1"),
                                      QStringLiteral("\u0080"), QStringLiteral("\u00f6"),
                                      QStringLiteral("\u20ac"), QString::fromUtf8("\U0001F600"),
                                      QStringLiteral("\ufb33")};
        qsizetype pos = 0;
        for (const QString &key : expected) {
            const qsizetype at = out->indexOf(QByteArray(canonicalString(key) + ':'), pos);
            QVERIFY2(at >= pos, qPrintable(QStringLiteral("key out of order: ") + key));
            pos = at + 1;
        }
    }

    void stringEscaping()
    {
        QCOMPARE(canonicalString(QStringLiteral("a\"b\\c")), QByteArray("\"a\\\"b\\\\c\""));
        QCOMPARE(canonicalString(QString(QChar(0x01))), QByteArray("\"\\u0001\""));
        QCOMPARE(canonicalString(QString(QChar(0x1f))), QByteArray("\"\\u001f\""));
        QCOMPARE(canonicalString(QStringLiteral("\b\f\n\r\t")), QByteArray("\"\\b\\f\\n\\r\\t\""));
        QCOMPARE(canonicalString(QString(QChar(0x7f))), QByteArray("\"\x7f\""));
        QCOMPARE(canonicalString(QStringLiteral("/")), QByteArray("\"/\""));
        QCOMPARE(canonicalString(QStringLiteral("\u00e9\u4e2d")),
                 QByteArray("\"\xc3\xa9\xe4\xb8\xad\""));
        QCOMPARE(canonicalString(QString::fromUtf8("\U0001F600")),
                 QByteArray("\"\xf0\x9f\x98\x80\""));
    }

    void largeIntegersAndNegativeZero()
    {
        // Beyond 2^53 JSON numbers are IEEE doubles (I-JSON): the nearest double is serialized.
        QCOMPARE(*canonicalizeText("9007199254740993"), QByteArray("9007199254740992"));
        QCOMPARE(*canonicalizeText("-0"), QByteArray("0"));
        QCOMPARE(*canonicalizeText("-0.0"), QByteArray("0"));
        QCOMPARE(*canonicalizeText("1.0"), QByteArray("1"));
        QVERIFY(!canonicalizeText("1E400")); // not representable as a double
        QVERIFY(!canonicalizeText("[-1e999]"));
        QVERIFY(!canonicalizeText("1e-400")); // underflow is refused too, not silently zeroed
    }

    void nestedStructuresAndWhitespace()
    {
        const auto out = canonicalizeText(" { \"b\" : [ 1 , { \"z\":1, \"a\":2 } ], \"a\" : {} } ");
        QVERIFY(out);
        QCOMPARE(*out, QByteArray(R"({"a":{},"b":[1,{"a":2,"z":1}]})"));
        QCOMPARE(*canonicalizeText("[]"), QByteArray("[]"));
        QCOMPARE(*canonicalizeText("\"x\""), QByteArray("\"x\""));
    }

    void idempotent()
    {
        const QByteArray input = R"({"é":1.50,"a":[true,null,"\u0001"],"B":-0.0001})";
        const auto once = canonicalizeText(input);
        QVERIFY(once);
        QCOMPARE(*canonicalizeText(*once), *once);
    }

    void rejectsDuplicatesTrailingDataAndDepth()
    {
        QString error;
        QVERIFY(!canonicalizeText(R"({"a":1,"a":2})", &error));
        QVERIFY(error.contains(QStringLiteral("duplicate")));
        QVERIFY(!canonicalizeText(R"({"a":1,"\u0061":2})", &error));
        QVERIFY(canonicalizeText(R"({"a":{"a":1},"b":{"a":2}})"));
        QVERIFY(!canonicalizeText("{} {}", &error));
        QVERIFY(!canonicalizeText("{", &error));
        QVERIFY(!canonicalizeText("", &error));
        QByteArray deep(100, '[');
        deep += QByteArray(100, ']');
        QVERIFY(!canonicalizeText(deep, &error, 64));
        QVERIFY(error.contains(QStringLiteral("nesting")));
        QVERIFY(canonicalizeText(deep, &error, 128));
    }

    void requestBindingFormula()
    {
        const QByteArray body = R"({"name":"x"})";
        const QByteArray expected =
            QCryptographicHash::hash(QByteArray("connection_create\n" + body),
                                     QCryptographicHash::Sha256)
                .toHex();
        CompiledRequest req{ChangeType::ConnectionCreate, "POST",
                            QStringLiteral("/fabric/v4/connections"), body};
        QCOMPARE(req.sha256Hex(), QString::fromLatin1(expected));
        // Known answer: printf 'connection_create\n{"name":"x"}' | sha256sum
        QCOMPARE(
            req.sha256Hex(),
            QStringLiteral("58e50079572bfdcc66079fe027275f12d7bfbf1483245233fb6eef0148ca3fc5"));
        QVERIFY(requestSha256(ChangeType::NetworkCreate, body) != req.sha256Hex());
        QCOMPARE(req.sha256Hex(), req.sha256Hex().toLower());
    }
};

QTEST_GUILESS_MAIN(TestCanonicalJson)
#include "tst_canonicaljson.moc"
