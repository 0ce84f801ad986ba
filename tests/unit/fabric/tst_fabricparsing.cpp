// Fabric's rate card answer as price context (priceContextFromResponse): a price is shown to the
// person only with an ISO 4217 currency code (^[A-Z]{3}$); any other currency makes the
// proposal unpriced, with the reason naming it (escaped) and one short summary line.
#include "TestEnvironment.h"
#include "fabric/FabricParsing.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

QJsonObject rateCard(const QJsonValue &currency)
{
    QJsonObject price{
        {"code", "ECX00015.PROD"},
        {"termLength", 1},
        {"charges", QJsonArray{QJsonObject{{"type", "MONTHLY_RECURRING"}, {"price", 150}}}}};
    if (!currency.isUndefined())
        price.insert("currency", currency);
    return QJsonObject{{"data", QJsonArray{price}}};
}

} // namespace

class TestFabricParsing : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void isoCurrencyIsPriced()
    {
        const QJsonObject p = fb::priceContextFromResponse(rateCard(u"USD"_s));
        QCOMPARE(p.value("priced").toBool(), true);
        QCOMPARE(p.value("currency").toString(), u"USD"_s);
        QCOMPARE(p.value("monthly_recurring").toDouble(), 150.0);
    }

    void otherCurrenciesAreUnpriced_data()
    {
        QTest::addColumn<QJsonValue>("currency");
        QTest::addColumn<QString>("shownAs");
        QTest::newRow("lower case") << QJsonValue(u"usd"_s) << u"\"usd\""_s;
        QTest::newRow("two letters") << QJsonValue(u"US"_s) << u"\"US\""_s;
        QTest::newRow("four letters") << QJsonValue(u"USDT"_s) << u"\"USDT\""_s;
        QTest::newRow("empty") << QJsonValue(QString()) << u"\"\""_s;
        QTest::newRow("missing") << QJsonValue(QJsonValue::Undefined) << u"\"\""_s;
        QTest::newRow("number") << QJsonValue(840) << u"\"\""_s;
        QTest::newRow("a forged line")
            << QJsonValue(u"USD\nPrice: USD 0.00"_s) << u"\"USD\\nPrice: USD 0\u2026\""_s;
        QTest::newRow("bidi") << QJsonValue(u"\u202EDSU"_s) << u"\"\\u202EDSU\""_s;
        QTest::newRow("lookalike") << QJsonValue(u"\u0423SD"_s) << u"\"\u0423SD\""_s;
    }
    void otherCurrenciesAreUnpriced()
    {
        QFETCH(QJsonValue, currency);
        QFETCH(QString, shownAs);
        const QJsonObject p = fb::priceContextFromResponse(rateCard(currency));
        QCOMPARE(p.value("priced").toBool(true), false);
        QVERIFY(!p.contains("currency"));
        QVERIFY(!p.contains("monthly_recurring"));
        const QString reason = p.value("reason").toString();
        QVERIFY2(reason.contains(u"the currency "_s + shownAs + u", not a three-letter ISO 4217"_s),
                 qPrintable(reason));
        QCOMPARE(p.value("summary").toString(),
                 u"the rate card's currency is not an ISO 4217 code"_s);
    }
};

QTEST_MAIN(TestFabricParsing)
#include "tst_fabricparsing.moc"
