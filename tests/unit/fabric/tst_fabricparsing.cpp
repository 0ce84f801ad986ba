// FabricParsing (src/fabric/FabricParsing), the network-free parsers. Strict JSON (one object or
// array, nothing after it); the Fabric ErrorList (an array or a single object, every entry with
// an errorCode or errorMessage) and its sentence (at most three errors, bounded and on one
// line). Fabric's rate card answer as price context (priceContextFromResponse): a price is shown
// to the person only with an ISO 4217 currency code (^[A-Z]{3}$); any other currency makes the
// proposal unpriced, with the reason naming it (escaped) and one short summary line.
#include "TestEnvironment.h"
#include "fabric/FabricParsing.h"

#include <QJsonArray>
#include <QJsonDocument>
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

    void strictJson()
    {
        QString error;
        QCOMPARE(fb::parseStrictJson("{\"a\":1}", &error), QJsonValue(QJsonObject{{"a", 1}}));
        QCOMPARE(fb::parseStrictJson("[1,2]"), QJsonValue(QJsonArray{1, 2}));
        QVERIFY(!fb::parseStrictJson("  ", &error));
        QCOMPARE(error, u"empty body"_s);
        QVERIFY(!fb::parseStrictJson("{\"a\":1} x", &error));
        QVERIFY2(error.startsWith(u"invalid JSON at offset"_s), qPrintable(error));
        QVERIFY(!fb::parseStrictJson("42"));
    }

    void errorList()
    {
        const auto one = fb::parseFabricErrorList(
            "{\"errorCode\":\"EQ-3142306\",\"errorMessage\":\"bandwidth not supported\","
            "\"additionalInfo\":[{\"property\":\"/bandwidth\",\"reason\":\"max 50\"}]}");
        QVERIFY(one);
        QCOMPARE(one->size(), 1);
        QCOMPARE(one->first().errorCode, u"EQ-3142306"_s);
        QCOMPARE(fb::describeFabricErrors(*one),
                 u"EQ-3142306 bandwidth not supported (at /bandwidth: max 50)"_s);
        QVERIFY(!fb::parseFabricErrorList("[]"));
        QVERIFY(!fb::parseFabricErrorList("[{\"code\":1}]"));
        QVERIFY(!fb::parseFabricErrorList("[{\"errorCode\":\"E\"}, 7]"));
        QVERIFY(!fb::parseFabricErrorList("<html>"));
    }

    void errorFieldsAreInertAndBounded()
    {
        const QString hostile = u"deny\u202Eexe\u200B\x1b[31m"_s;
        QJsonObject info{{"property", hostile}, {"reason", QString(5000, u'r')}};
        QJsonArray infos;
        for (int i = 0; i < 30; ++i)
            infos.append(info);
        const QJsonObject e{{"errorCode", hostile},
                            {"errorMessage", QString(5000, u'm')},
                            {"details", hostile},
                            {"correlationId", hostile},
                            {"additionalInfo", infos}};
        const auto list =
            fb::parseFabricErrorList(QJsonDocument(QJsonArray{e}).toJson(QJsonDocument::Compact));
        QVERIFY(list);
        const fb::FabricError &f = list->first();
        for (const QString &s : {f.errorCode, f.details, f.correlationId}) {
            QVERIFY2(!s.contains(QChar(0x202E)) && !s.contains(QChar(0x200B)) &&
                         !s.contains(QChar(0x1b)),
                     qPrintable(s));
            QVERIFY2(s.contains(u"\\u202E"_s), qPrintable(s));
        }
        QCOMPARE(f.errorMessage.size(), 1000);
        QCOMPARE(f.additionalInfo.size(), 20);
        QCOMPARE(f.additionalInfo.first().second.size(), 1000);
        QVERIFY(!fb::sanitizeRemoteText(hostile).contains(QChar(0x202E)));
    }

    void errorSentenceIsBounded()
    {
        QList<fb::FabricError> errors(5);
        for (qsizetype i = 0; i < errors.size(); ++i) {
            errors[i].errorCode = u"EQ-%1"_s.arg(i);
            errors[i].errorMessage = u"line one\n  line two"_s;
        }
        QCOMPARE(fb::describeFabricErrors(errors),
                 u"EQ-0 line one line two; EQ-1 line one line two; EQ-2 line one line two; "
                 u"and 2 more"_s);
        QCOMPARE(fb::sanitizeRemoteText(QString(400, u'x')).size(), 300);
        QVERIFY(fb::sanitizeRemoteText(QString(400, u'x')).endsWith(QChar(0x2026)));
        QCOMPARE(fb::sanitizeRemoteText(u" a\t\r\nb "_s), u"a b"_s);
    }

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
