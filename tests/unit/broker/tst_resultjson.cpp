// ResultJson (src/broker/ResultJson): the pieces every broker tool result shares: violations and
// Fabric errors as JSON arrays, the text content (summary, blank line, indented JSON) and the
// arguments a tool does not declare.
#include "TestEnvironment.h"
#include "broker/ResultJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace fb;

class TestResultJson : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void violationsInOrder()
    {
        const QList<SpecViolation> v{{"$.bandwidth", "must be one of 50, 100"},
                                     {"$.name", "too long"}};
        const QJsonArray expected{
            QJsonObject{{"path", "$.bandwidth"}, {"message", "must be one of 50, 100"}},
            QJsonObject{{"path", "$.name"}, {"message", "too long"}}};
        QCOMPARE(result::violationsJson(v), expected);
        QCOMPARE(result::violationsJson({}), QJsonArray());
    }

    void fabricErrorsAsTheirJson()
    {
        FabricResult r;
        FabricError a;
        a.errorCode = "EQ-3142306";
        a.errorMessage = "bandwidth not supported";
        a.additionalInfo = {{"/bandwidth", "not offered"}};
        FabricError b;
        b.errorCode = "EQ-1";
        r.errors = {a, b};
        const QJsonArray out = result::fabricErrorsJson(r);
        QCOMPARE(out.size(), 2);
        QCOMPARE(out.at(0).toObject(), a.toJson());
        QCOMPARE(out.at(1).toObject(), b.toJson());
        QCOMPARE(result::fabricErrorsJson(FabricResult()), QJsonArray());
    }

    void textIsSummaryBlankLineAndIndentedJson()
    {
        const QJsonObject structured{{"status", "ok"}, {"n", 2}};
        const QString text = result::renderText("Proposed.", structured);
        QVERIFY(text.startsWith("Proposed.\n\n{\n"));
        const QString json = text.mid(QStringLiteral("Proposed.\n\n").size());
        QCOMPARE(json.toUtf8(), QJsonDocument(structured).toJson(QJsonDocument::Indented));
        QCOMPARE(QJsonDocument::fromJson(json.toUtf8()).object(), structured);
    }

    void unknownArgumentsAreTheUndeclaredKeys()
    {
        const QStringList allowed{"change_type", "spec"};
        QCOMPARE(result::unknownArguments({{"change_type", 1}, {"spec", 2}}, allowed),
                 QStringList());
        QCOMPARE(result::unknownArguments({}, allowed), QStringList());
        QCOMPARE(result::unknownArguments({{"spec", 1}, {"Spec", 2}, {"zz", 3}, {"a", 4}}, allowed),
                 QStringList({"Spec", "a", "zz"})); // exact names, in key order
        QCOMPARE(result::unknownArguments({{"spec", 1}}, {}), QStringList({"spec"}));
    }
};

QTEST_APPLESS_MAIN(TestResultJson)
#include "tst_resultjson.moc"
