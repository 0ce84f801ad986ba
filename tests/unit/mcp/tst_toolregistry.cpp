// ToolRegistry: toolset parsing, gating, order, cached tools/list bytes.
#include "TestEnvironment.h"
#include "mcp/ClientInfo.h"
#include "mcp/ToolRegistry.h"

#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

using namespace fb::mcp;

namespace {
ToolDefinition tool(const QString &name, const QString &toolset)
{
    ToolDefinition t;
    t.name = name;
    t.title = name.toUpper();
    t.description = "desc " + name;
    t.inputSchema = QJsonObject{{"type", "object"}};
    t.toolset = toolset;
    t.handler = [](ToolCall *) {};
    return t;
}
QStringList names(const QByteArray &json)
{
    QStringList out;
    for (const QJsonValue &v : QJsonDocument::fromJson(json).object().value("tools").toArray())
        out.append(v.toObject().value("name").toString());
    return out;
}
} // namespace

class TestToolRegistry : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void parseToolsets_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("read") << "read" << true << QStringList{"read"};
        QTest::newRow("both") << "read,mutate" << true << QStringList{"read", "mutate"};
        QTest::newRow("reversed spaces")
            << " mutate , read " << true << QStringList{"read", "mutate"};
        QTest::newRow("dup") << "read,read," << true << QStringList{"read"};
        QTest::newRow("case") << "READ" << true << QStringList{"read"};
        QTest::newRow("unknown") << "read,admin" << false << QStringList{};
        QTest::newRow("empty") << "" << false << QStringList{};
        QTest::newRow("commas") << ",," << false << QStringList{};
        QTest::newRow("one spec toolset") << "routing" << true << QStringList{"routing"};
        QTest::newRow("all-read") << "all-read" << true
                                  << QStringList{"read",          "estate",         "routing",
                                                 "observability", "precision-time", "marketplace",
                                                 "account"};
        QTest::newRow("all-read never implies mutate, naming it does")
            << "mutate, ALL-READ,routing" << true
            << QStringList{"read",           "estate",      "routing", "observability",
                           "precision-time", "marketplace", "account", "mutate"};
        QTest::newRow("all is not a name") << "all" << false << QStringList{};
    }
    void parseToolsets()
    {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QFETCH(QStringList, expected);
        QStringList out{"untouched"};
        QString error;
        QCOMPARE(ToolRegistry::parseToolsets(text, &out, &error), ok);
        if (ok) {
            QCOMPARE(out, expected);
        } else {
            QVERIFY(!error.isEmpty());
            QCOMPARE(out, QStringList{"untouched"});
        }
        if (QTest::currentDataTag() == QByteArray("unknown"))
            QVERIFY(error.contains("admin"));
    }
    void gatingAndOrder()
    {
        ToolRegistry r;
        QCOMPARE(r.servedToolsets(), QStringList{"read"});
        r.registerTool(tool("b_read", "read"));
        r.registerTool(tool("a_mutate", "mutate"));
        r.registerTool(tool("c_read", "read"));
        QCOMPARE(r.servedTools().size(), 2);
        QCOMPARE(r.servedTools().at(0)->name, QString("b_read"));
        QVERIFY(!r.servedTool("a_mutate"));
        QVERIFY(r.anyTool("a_mutate"));
        QVERIFY(!r.servedTool("zzz"));
        QCOMPARE(names(r.toolsListJson()), (QStringList{"b_read", "c_read"}));
        QSignalSpy changed(&r, &ToolRegistry::toolsChanged);
        r.setServedToolsets({"mutate", "read"});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(names(r.toolsListJson()), (QStringList{"b_read", "a_mutate", "c_read"}));
        r.setServedToolsets({"read", "mutate"}); // same set
        QCOMPARE(changed.count(), 1);
        r.setServedToolsets({"mutate"});
        QCOMPARE(names(r.toolsListJson()), QStringList{"a_mutate"});
        QVERIFY(!r.servedTool("b_read"));
    }
    void cacheInvalidatedOnRegister()
    {
        ToolRegistry r;
        r.registerTool(tool("one", "read"));
        const QByteArray first = r.toolsListJson();
        QCOMPARE(r.toolsListJson(), first);
        QCOMPARE(r.toolsListJson().constData(), first.constData()); // cached, shared bytes
        QSignalSpy changed(&r, &ToolRegistry::toolsChanged);
        r.registerTool(tool("two", "read"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(names(r.toolsListJson()), (QStringList{"one", "two"}));
        r.registerTool(tool("three", "mutate")); // not served: no change
        QCOMPARE(changed.count(), 1);
        QVERIFY(!r.toolsListJson().contains('\n')); // compact
    }
    void toolEntryShape()
    {
        ToolRegistry r;
        ToolDefinition t = tool("x", "read");
        t.outputSchema = QJsonObject{{"type", "object"}};
        t.annotations = QJsonObject{{"readOnlyHint", true}};
        r.registerTool(t);
        r.registerTool(tool("y", "read"));
        const QJsonArray tools =
            QJsonDocument::fromJson(r.toolsListJson()).object().value("tools").toArray();
        const QJsonObject x = tools.at(0).toObject();
        QCOMPARE(x.value("title").toString(), QString("X"));
        QCOMPARE(x.value("description").toString(), QString("desc x"));
        QVERIFY(x.value("outputSchema").isObject());
        QCOMPARE(x.value("annotations").toObject().value("readOnlyHint").toBool(), true);
        QVERIFY(!tools.at(1).toObject().contains("outputSchema"));
        QVERIFY(tools.at(1).toObject().value("annotations").isObject());
    }
    void clientInfoElicitation()
    {
        ClientInfo c;
        QVERIFY(!c.supportsFormElicitation());
        c.capabilities = QJsonObject{{"elicitation", QJsonObject()}};
        QVERIFY(c.supportsFormElicitation());
        c.capabilities = QJsonObject{{"elicitation", QJsonObject{{"form", QJsonObject()}}}};
        QVERIFY(c.supportsFormElicitation());
        c.capabilities = QJsonObject{{"elicitation", QJsonObject{{"url", QJsonObject()}}}};
        QVERIFY(!c.supportsFormElicitation());
        c.capabilities = QJsonObject{{"elicitation", true}};
        QVERIFY(!c.supportsFormElicitation());
        QCOMPARE(c.toJson().value("capabilities").toObject(), c.capabilities);
    }
};

QTEST_GUILESS_MAIN(TestToolRegistry)
#include "tst_toolregistry.moc"
