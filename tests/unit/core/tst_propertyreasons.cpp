// PropertyReasons (src/core/PropertyReasons): a Fabric error's additionalInfo as the JSON array
// both the client's error report and the sandbox write: in order, an empty part left out.
#include "TestEnvironment.h"
#include "core/PropertyReasons.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace fb;

class TestPropertyReasons : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void pairsInOrder()
    {
        const PropertyReasons info{{"/bandwidth", "not supported"}, {"/name", "too long"}};
        const QJsonArray expected{
            QJsonObject{{"property", "/bandwidth"}, {"reason", "not supported"}},
            QJsonObject{{"property", "/name"}, {"reason", "too long"}}};
        QCOMPARE(propertyReasonsJson(info), expected);
    }

    void emptyPartsAreLeftOut()
    {
        const PropertyReasons info{{"", "only a reason"}, {"/only/a/property", ""}, {"", ""}};
        const QJsonArray expected{QJsonObject{{"reason", "only a reason"}},
                                  QJsonObject{{"property", "/only/a/property"}}, QJsonObject{}};
        QCOMPARE(propertyReasonsJson(info), expected);
    }

    void noneIsAnEmptyArray() { QCOMPARE(propertyReasonsJson({}), QJsonArray()); }
};

QTEST_APPLESS_MAIN(TestPropertyReasons)
#include "tst_propertyreasons.moc"
