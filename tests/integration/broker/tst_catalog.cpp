// The read catalog: tool arguments are checked by the published input schemas in ToolRegistry
// before a handler runs, plus the two bounds the schemas cannot state without changing
// tools/list. What tools/list publishes from the table: tst_catalogtable.
#include "BrokerHarness.h"
#include "TestEnvironment.h"

using namespace Qt::StringLiterals;

class TestCatalog : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void arguments_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QJsonObject>("args");
        QTest::addColumn<QString>("error"); // empty: the call succeeds

        const QString uuid = u"3fa85f64-5717-4562-b3fc-2c963f66afa6"_s;
        QTest::newRow("valid page")
            << u"fabric_list_ports"_s << QJsonObject{{"limit", 2}, {"offset", 1}} << QString();
        QTest::newRow("no arguments")
            << u"fabric_search_connections"_s << QJsonObject{} << QString();
        QTest::newRow("bad uuid") << u"fabric_get_connection"_s << QJsonObject{{"uuid", "nope"}}
                                  << u"Invalid arguments: uuid: must match the pattern"_s;
        QTest::newRow("uuid missing") << u"fabric_get_network"_s << QJsonObject{}
                                      << u"Invalid arguments: uuid: required field missing"_s;
        QTest::newRow("uuid not a string") << u"fabric_get_port"_s << QJsonObject{{"uuid", 7}}
                                           << u"Invalid arguments: uuid: must be a string"_s;
        QTest::newRow("limit 0") << u"fabric_list_metros"_s << QJsonObject{{"limit", 0}}
                                 << u"Invalid arguments: limit: must be an integer"_s;
        QTest::newRow("limit 101") << u"fabric_search_networks"_s << QJsonObject{{"limit", 101}}
                                   << u"Invalid arguments: limit: must be an integer"_s;
        QTest::newRow("limit 2.5") << u"fabric_search_networks"_s << QJsonObject{{"limit", 2.5}}
                                   << u"Invalid arguments: limit: must be an integer"_s;
        QTest::newRow("offset -1") << u"fabric_list_ports"_s << QJsonObject{{"offset", -1}}
                                   << u"Invalid arguments: offset: must be an integer"_s;
        QTest::newRow("offset beyond 10^9")
            << u"fabric_list_ports"_s << QJsonObject{{"offset", 2e9}}
            << u"Invalid arguments: offset: must be 0 or more"_s;
        QTest::newRow("empty name") << u"fabric_search_connections"_s << QJsonObject{{"name", ""}}
                                    << u"Invalid arguments: name: must be 1 to 200 characters"_s;
        QTest::newRow("name over 200 code units")
            << u"fabric_search_connections"_s
            << QJsonObject{{"name", u"\U0001F600"_s.repeated(101)}}
            << u"Invalid arguments: name: must be a non-empty string (at most 200 characters)"_s;
        QTest::newRow("unknown argument")
            << u"fabric_get_service_token"_s << QJsonObject{{"uuid", uuid}, {"spec", 1}}
            << u"Invalid arguments: spec: unknown field; allowed: uuid"_s;
        QTest::newRow("proposals take none")
            << u"fabric_list_proposals"_s << QJsonObject{{"all", true}}
            << u"Invalid arguments: all: unknown field"_s;
    }

    void arguments()
    {
        QFETCH(QString, tool);
        QFETCH(QJsonObject, args);
        QFETCH(QString, error);
        fbtest::BrokerHarness h;
        h.initialize();
        const QJsonObject r = h.callTool(tool, args);
        const QString text = r.value("content").toArray().at(0).toObject().value("text").toString();
        if (error.isEmpty()) {
            QVERIFY2(!r.value("isError").toBool(), qPrintable(text));
            return;
        }
        QCOMPARE(r.value("isError").toBool(), true);
        QVERIFY2(text.startsWith(error), qPrintable(text));
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
