// The read catalog: tool arguments are checked by the published input schemas in ToolRegistry
// before a handler runs, plus the two bounds the schemas cannot state without changing
// tools/list. What tools/list publishes from the table: tst_catalogtable. The spec's read
// toolsets (one tool per row of the read-operation table): what each serves, their arguments
// refused before Fabric, Fabric's refusal as a tool error, and README's toolset table.
#include "BrokerHarness.h"
#include "TestEnvironment.h"
#include "broker/ReadOperations.h"

#include <QFile>

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

    void everyReadToolsetServesItsRows()
    {
        fbtest::BrokerHarness h;
        QStringList all;
        QStringList served;
        for (const QString &set : fb::mcp::ToolRegistry::readToolsets()) {
            h.registry.setServedToolsets({set});
            QStringList names;
            for (const fb::mcp::ToolDefinition *t : h.registry.servedTools()) {
                QCOMPARE(t->toolset, set);
                QCOMPARE(t->annotations.value(u"readOnlyHint"_s), QJsonValue(true));
                QCOMPARE(t->annotations.value(u"openWorldHint"_s), QJsonValue(true));
                names << t->name;
            }
            QCOMPARE(names.size(), fb::readToolCount(set));
            all += names;
        }
        QStringList parsed;
        QVERIFY(fb::mcp::ToolRegistry::parseToolsets(u"all-read"_s, &parsed, nullptr));
        h.registry.setServedToolsets(parsed);
        for (const fb::mcp::ToolDefinition *t : h.registry.servedTools())
            served << t->name;
        QCOMPARE(served, all);
        QVERIFY(!served.contains(u"fabric_propose_change"_s));
        for (const fb::readops::ReadOperation &op : fb::readops::table().operations)
            QVERIFY2(served.contains(op.tool), qPrintable(op.tool));
    }

    void aSpecToolsArgumentsAreCheckedBeforeFabric()
    {
        fbtest::BrokerHarness h;
        h.registry.setServedToolsets({u"routing"_s});
        h.initialize();
        const qsizetype before = h.sandbox.requests().size();
        const QJsonObject r =
            h.callTool(u"fabric_get_cloud_router_by_uuid"_s, {{"routerId", "../../connections"}});
        QCOMPARE(r.value("isError").toBool(), true);
        const QString text = r.value("content").toArray().at(0).toObject().value("text").toString();
        QVERIFY2(text.startsWith(u"Invalid arguments: routerId: must match the pattern"_s),
                 qPrintable(text));
        QCOMPARE(h.sandbox.requests().size(), before);
    }

    void fabricsRefusalIsAToolError()
    {
        fbtest::BrokerHarness h;
        h.registry.setServedToolsets({u"routing"_s});
        h.initialize();
        // A router the estate does not have: Fabric's 404 with its error list, as a tool error.
        const QJsonObject r = h.callTool(u"fabric_get_cloud_router_by_uuid"_s,
                                         {{"routerId", "00000000-0000-4000-8000-000000000000"}});
        QCOMPARE(r.value("isError").toBool(), true);
        const QJsonObject error = r.value("structuredContent").toObject().value("error").toObject();
        QCOMPARE(error.value("http_status").toInt(), 404);
        QVERIFY2(error.value("message").toString().startsWith(
                     u"Fabric could not answer getCloudRouterByUuid"_s),
                 qPrintable(error.value("message").toString()));
        QVERIFY(!error.value("fabric_errors").toArray().isEmpty());
        const auto sent = h.sandbox.requests();
        QVERIFY(!sent.isEmpty());
        QCOMPARE(sent.last().path, u"/fabric/v4/routers/00000000-0000-4000-8000-000000000000"_s);
    }

    void readmeListsTheToolsets()
    {
        QFile readme(qEnvironmentVariable("FB_SOURCE_DIR") + u"/README.md"_s);
        QVERIFY(readme.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(readme.readAll());
        const QString begin = u"<!-- toolsets-table: generated by toolsetsMarkdownTable()"_s;
        const qsizetype at = text.indexOf(begin);
        QVERIFY2(at >= 0, "README.md has no toolsets-table marker");
        const qsizetype start = text.indexOf(u'\n', at) + 1;
        const qsizetype end = text.indexOf(u"<!-- /toolsets-table -->"_s, start);
        QVERIFY(end > start);
        const QString expected = fb::toolsetsMarkdownTable();
        if (text.mid(start, end - start) != expected)
            qInfo().noquote() << u"README.md's toolsets table should read:\n"_s + expected;
        QCOMPARE(text.mid(start, end - start), expected);
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
