// ReadOperations (src/broker/ReadOperations): the read-operation table as the broker loads it, and
// how a tool's arguments become the operation's request: path parameters in their place (never a
// dot segment or a second segment), query values percent-encoded, arrays as the spec's style
// says, the search body as given, and nothing that is not Fabric's (projection) sent.
#include "ReadOperationRow.h"
#include "TestEnvironment.h"
#include "broker/ReadOperations.h"
#include "core/JsonSchema.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <QTest>
#include <QUrl>

using namespace fb;
using namespace fb::readops;

namespace {

const ReadOperation &row(const QString &operationId)
{
    return fbtest::readOperation(operationId);
}

QString encodedQuery(const QUrlQuery &q)
{
    QUrl u(QStringLiteral("http://x/"));
    u.setQuery(q);
    return QString::fromLatin1(
               u.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority | QUrl::RemovePath))
        .mid(1);
}

} // namespace

class TestReadOperations : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void theTableIsTheSpecsReadOperations()
    {
        const Table &t = table();
        QCOMPARE(t.specVersion, QStringLiteral("4.31"));
        QCOMPARE(t.specSha256.size(), 64);
        QCOMPARE(t.operations.size(), 136); // 138 read operations, 2 deprecated
        QSet<QString> ids;
        QSet<QString> tools;
        for (const ReadOperation &op : t.operations) {
            QVERIFY2(!ids.contains(op.operationId), qPrintable(op.operationId));
            ids.insert(op.operationId);
            QVERIFY(op.method == u"GET" || (op.method == u"POST" && op.path.endsWith(u"/search")));
            QVERIFY(op.path.startsWith(u"/fabric/v4/"));
            QVERIFY(op.tool.startsWith(u"fabric_") && op.tool.size() <= 64);
            for (const QString &p : op.pathParams)
                QVERIFY2(op.path.contains(u'{' + p + u'}'), qPrintable(op.operationId));
            if (op.core) {
                QCOMPARE(op.toolset, QStringLiteral("read"));
                QVERIFY(op.inputSchema.isEmpty());
                continue;
            }
            QVERIFY2(!tools.contains(op.tool), qPrintable(op.tool));
            tools.insert(op.tool);
            QCOMPARE(op.inputSchema.value(u"additionalProperties"), QJsonValue(false));
            QVERIFY(!op.title.isEmpty() && !op.description.isEmpty());
        }
    }

    void toolsetsAgreeWithTheRegistry()
    {
        QStringList names{QStringLiteral("read")};
        for (const Toolset &s : table().toolsets)
            names.append(s.name);
        QCOMPARE(names, mcp::ToolRegistry::readToolsets());
        for (const QString &name : names)
            QVERIFY2(!operationsOf(name).isEmpty(), qPrintable(name));
        QVERIFY(operationsOf(QStringLiteral("mutate")).isEmpty());
        qsizetype n = 0;
        for (const QString &name : names)
            n += operationsOf(name).size();
        QCOMPARE(n, table().operations.size());
    }

    void everySchemaCompilesAndRefusesUnknownArguments()
    {
        for (const ReadOperation &op : table().operations) {
            if (op.core)
                continue;
            const JsonSchema schema(op.inputSchema);
            QJsonObject args;
            for (const QJsonValue &r : op.inputSchema.value(u"required").toArray())
                args.insert(r.toString(), QJsonValue());
            args.insert(QStringLiteral("unknown_argument"), 1);
            const QList<SchemaViolation> v = schema.validate(args);
            bool named = false;
            for (const SchemaViolation &x : v) {
                QVERIFY2(!x.message.startsWith(u"schema error"), qPrintable(x.message));
                named = named || x.path == u"$.unknown_argument";
            }
            QVERIFY2(named, qPrintable(op.tool));
        }
    }

    void pathParametersGoInTheirPlace()
    {
        const ReadOperation &op = row(QStringLiteral("getRouteFilterRuleByUuid"));
        const Request r = requestFor(op, {{"routeFilterId", "rf-1"},
                                          {"routeFilterRuleId", "rule-2"},
                                          {"projection", QJsonArray{"/name"}}});
        QCOMPARE(r.method, QStringLiteral("GET"));
        QCOMPARE(r.path, QStringLiteral("/fabric/v4/routeFilters/rf-1/routeFilterRules/rule-2"));
        QVERIFY(r.query.isEmpty());
        QVERIFY(!r.hasBody);
    }

    void aPathParameterNeverLeavesItsSegment_data()
    {
        QTest::addColumn<QString>("value");
        for (const char *v : {"..", ".", "a/b", "a?b", "a#b", "%2e%2e", ""})
            QTest::newRow(v) << QString::fromLatin1(v);
    }
    void aPathParameterNeverLeavesItsSegment()
    {
        QFETCH(QString, value);
        const ReadOperation &op = row(QStringLiteral("getMetroByCode"));
        QVERIFY(requestFor(op, {{"metroCode", value}}).path.isEmpty());
        // The schema refuses them before: requestFor is the second line.
        const JsonSchema schema(op.inputSchema);
        QVERIFY(!schema.validate(QJsonObject{{"metroCode", value}}).isEmpty());
    }

    void queryValuesAreEncodedAndArraysFollowTheSpec()
    {
        const ReadOperation &tags = row(QStringLiteral("listTags"));
        Request r = requestFor(tags, {{"type", QJsonArray{"a+b", "c&d%"}},
                                      {"offset", 40},
                                      {"limit", 20},
                                      {"projection", QJsonArray{"/data"}}});
        QCOMPARE(r.path, QStringLiteral("/fabric/v4/tags"));
        QCOMPARE(encodedQuery(r.query),
                 QStringLiteral("type=a%2Bb&type=c%26d%25&offset=40&limit=20"));
        QCOMPARE(r.query.allQueryItemValues(QStringLiteral("type"), QUrl::FullyDecoded),
                 QStringList({"a+b", "c&d%"}));

        const ReadOperation &links = row(QStringLiteral("getAttachedAppLinksByAppDomainId"));
        r = requestFor(links, {{"appDomainId", "3f1c0e62-2b4f-4a0e-9d55-0c7a4b1e9a01"},
                               {"state", QJsonArray{"PROVISIONED", "PROVISIONING"}}});
        QVERIFY2(encodedQuery(r.query).contains(u"state=PROVISIONED,PROVISIONING"),
                 qPrintable(encodedQuery(r.query)));
    }

    void aSearchSendsItsBodyOrAnEmptyOne()
    {
        const ReadOperation &op = row(QStringLiteral("searchCloudRouterRoutes"));
        const QJsonObject body{{"pagination", QJsonObject{{"limit", 5}}}};
        Request r = requestFor(op, {{"routerId", "r1"}, {"body", body}});
        QCOMPARE(r.method, QStringLiteral("POST"));
        QCOMPARE(r.path, QStringLiteral("/fabric/v4/routers/r1/routes/search"));
        QVERIFY(r.hasBody);
        QCOMPARE(r.body, body);
        r = requestFor(op, {{"routerId", "r1"}});
        QVERIFY(r.hasBody);
        QCOMPARE(r.body, QJsonObject());
    }

    void theCoreRowsNameTheCoreTools()
    {
        QCOMPARE(row(QStringLiteral("searchConnections")).tool,
                 QStringLiteral("fabric_search_connections"));
        QCOMPARE(row(QStringLiteral("getPortByUuid")).tool, QStringLiteral("fabric_get_port"));
        QVERIFY(row(QStringLiteral("getMetros")).core);
        QVERIFY(!row(QStringLiteral("getMetroByCode")).core);
        QVERIFY(row(QStringLiteral("getLogoByUuid")).fileAnswer);
    }
};

QTEST_GUILESS_MAIN(TestReadOperations)
#include "tst_readoperations.moc"
