// Money (src/core/Money): the strict parser of an {"amount", "currency"} object and its errors,
// the comparison that never converts between currencies, and the display form.
#include "TestEnvironment.h"
#include "core/Money.h"

#include <QJsonDocument>
#include <QTest>

using namespace fb;

namespace {
std::optional<Money> parseText(const QByteArray &json, QStringList *errors)
{
    const QJsonDocument doc = QJsonDocument::fromJson("[" + json + "]");
    return Money::parse(doc.array().first(), QStringLiteral("spend.limit"), errors);
}
} // namespace

class TestMoney : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void parsesAmountAndCurrency();
    void refusesWhatIsNotMoney_data();
    void refusesWhatIsNotMoney();
    void reportsEveryProblem();
    void currencyCodes();
    void aboveNeverConverts();
    void displayAndJson();
};

void TestMoney::parsesAmountAndCurrency()
{
    QStringList errors;
    QCOMPARE(parseText(R"({"amount": 1000, "currency": "USD"})", &errors),
             (Money{1000, QStringLiteral("USD")}));
    QCOMPARE(parseText(R"({"currency": "EUR", "amount": 0.5})", &errors),
             (Money{0.5, QStringLiteral("EUR")}));
    // Zero is a limit (nothing may be spent), not an absent one.
    QCOMPARE(parseText(R"({"amount": 0, "currency": "GBP"})", &errors),
             (Money{0, QStringLiteral("GBP")}));
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
}

void TestMoney::refusesWhatIsNotMoney_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    const QString object = QStringLiteral("spend.limit: must be an object {\"amount\": <number >= "
                                          "0>, \"currency\": \"<ISO 4217 code>\"}");
    const QString amount = QStringLiteral("spend.limit.amount: must be a number >= 0");
    const QString currency = QStringLiteral(
        "spend.limit.currency: must be a three-letter ISO 4217 code such as \"USD\"");
    QTest::newRow("number") << QByteArray("100") << object;
    QTest::newRow("string") << QByteArray(R"("USD 100")") << object;
    QTest::newRow("array") << QByteArray(R"([100, "USD"])") << object;
    QTest::newRow("null") << QByteArray("null") << object;
    QTest::newRow("negative") << QByteArray(R"({"amount": -0.01, "currency": "USD"})") << amount;
    QTest::newRow("amount as text")
        << QByteArray(R"({"amount": "5", "currency": "USD"})") << amount;
    QTest::newRow("no amount") << QByteArray(R"({"currency": "USD"})") << amount;
    QTest::newRow("lower case") << QByteArray(R"({"amount": 5, "currency": "usd"})") << currency;
    QTest::newRow("two letters") << QByteArray(R"({"amount": 5, "currency": "US"})") << currency;
    QTest::newRow("four letters") << QByteArray(R"({"amount": 5, "currency": "USDT"})") << currency;
    QTest::newRow("symbol") << QByteArray(R"({"amount": 5, "currency": "$"})") << currency;
    QTest::newRow("no currency") << QByteArray(R"({"amount": 5})") << currency;
    QTest::newRow("unknown key") << QByteArray(R"({"amount": 5, "currency": "USD", "x": 1})")
                                 << QStringLiteral("spend.limit.x: unknown key");
}

void TestMoney::refusesWhatIsNotMoney()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    QStringList errors;
    QVERIFY(!parseText(json, &errors));
    QCOMPARE(errors, QStringList{error});
}

void TestMoney::reportsEveryProblem()
{
    QStringList errors{QStringLiteral("an earlier key's error")};
    QVERIFY(!parseText(R"({"amount": -1, "currency": "usd", "rate": 2})", &errors));
    QCOMPARE(errors, (QStringList{
                         QStringLiteral("an earlier key's error"),
                         QStringLiteral("spend.limit.rate: unknown key"),
                         QStringLiteral("spend.limit.amount: must be a number >= 0"),
                         QStringLiteral("spend.limit.currency: must be a three-letter ISO 4217 "
                                        "code such as \"USD\""),
                     }));
    // An unknown key's name is bounded in the message.
    errors.clear();
    const QByteArray longKey(300, 'k');
    QVERIFY(!parseText("{\"amount\": 1, \"currency\": \"USD\", \"" + longKey + "\": 1}", &errors));
    QCOMPARE(errors,
             QStringList{
                 QStringLiteral("spend.limit.%1: unknown key").arg(QString(64, QLatin1Char('k')))});
}

void TestMoney::currencyCodes()
{
    QVERIFY(Money::isCurrencyCode(QStringLiteral("USD")));
    QVERIFY(Money::isCurrencyCode(QStringLiteral("JPY")));
    QVERIFY(!Money::isCurrencyCode(QString()));
    QVERIFY(!Money::isCurrencyCode(QStringLiteral("Usd")));
    QVERIFY(!Money::isCurrencyCode(QStringLiteral(" USD")));
    QVERIFY(!Money::isCurrencyCode(QStringLiteral("USD ")));
    QVERIFY(!Money::isCurrencyCode(QStringLiteral("USD\n")));
    QVERIFY(!Money::isCurrencyCode(QStringLiteral("USDX")));
    QVERIFY(!Money::isCurrencyCode(QStringLiteral("ÜSD")));
}

void TestMoney::aboveNeverConverts()
{
    const Money limit{500, QStringLiteral("USD")};
    QVERIFY(!(Money{499.99, QStringLiteral("USD")}.above(limit)));
    QVERIFY(!(Money{500, QStringLiteral("USD")}.above(limit))); // exactly at it is not above
    QVERIFY((Money{500.01, QStringLiteral("USD")}.above(limit)));
    // Another currency cannot be compared: it counts as above, however small.
    QVERIFY((Money{0, QStringLiteral("EUR")}.above(limit)));
    QVERIFY((Money{0, QStringLiteral("USD")}.above(Money{0, QStringLiteral("EUR")})));
    // Equality is of both members.
    QVERIFY((Money{5, QStringLiteral("USD")} == Money{5, QStringLiteral("USD")}));
    QVERIFY(!(Money{5, QStringLiteral("USD")} == Money{5, QStringLiteral("EUR")}));
    QVERIFY(!(Money{5, QStringLiteral("USD")} == Money{5.5, QStringLiteral("USD")}));
}

void TestMoney::displayAndJson()
{
    QCOMPARE((Money{1000, QStringLiteral("USD")}.display()), QStringLiteral("USD 1,000.00"));
    QCOMPARE((Money{0.5, QStringLiteral("EUR")}.display()), QStringLiteral("EUR 0.50"));
    QCOMPARE((Money{1234567.891, QStringLiteral("GBP")}.display()),
             QStringLiteral("GBP 1,234,567.89"));
    const Money m{12.25, QStringLiteral("USD")};
    QCOMPARE(m.toJson(), (QJsonObject{{"amount", 12.25}, {"currency", "USD"}}));
    // The JSON form parses back to the same value.
    QStringList errors;
    QCOMPARE(Money::parse(m.toJson(), QStringLiteral("k"), &errors), m);
}

QTEST_GUILESS_MAIN(TestMoney)
#include "tst_money.moc"
