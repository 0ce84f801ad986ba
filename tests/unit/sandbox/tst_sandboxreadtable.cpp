// SandboxReadTable: the compiled-in read-operation table joined with the read estate. Every row
// of the broker's table is present with the estate's serving entry, the collections every served
// operation names are seeded, a path finds its operation (literal segments beat parameters,
// parameters are captured), and a malformed or disagreeing pair of documents is refused with a
// reason.
#include "TestEnvironment.h"
#include "sandbox/SandboxReadTable.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace fb;

namespace {

QByteArray resource(const char *name)
{
    QFile f(QStringLiteral(":/fabric-broker/sandbox/") + QLatin1String(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestSandboxReadTable : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { (void)SandboxReadTable::builtin(); } // initialises the resources
    void init() { fbtest::failOnWarnings(); }

    void everyRowIsKnown()
    {
        const SandboxReadTable &t = SandboxReadTable::builtin();
        const QJsonArray rows =
            QJsonDocument::fromJson(resource("read_operations.json"))["operations"].toArray();
        QVERIFY(rows.size() > 100);
        QCOMPARE(t.operations().size(), rows.size());
        int served = 0;
        for (const SandboxReadOperation &op : t.operations()) {
            QVERIFY(!op.sample.value("path").toString().isEmpty());
            if (op.collection.isEmpty())
                continue;
            ++served;
            QVERIFY2(QStringList({"one", "page", "data", "file"}).contains(op.shape),
                     qPrintable(op.operationId));
            QVERIFY(op.collection.startsWith('@') || !t.items(op.collection).isEmpty());
        }
        QVERIFY(served > 100);
        const SandboxReadOperation *rule = t.operation("getRouteFilterRuleByUuid");
        QVERIFY(rule);
        QCOMPARE(rule->status, 202); // the spec's success status for this one
        QCOMPARE(t.operation("getConnectionByUuid")->collection, QString()); // SandboxApi's
        QCOMPARE(t.operation("listTags")->queryMatch.value("type"), QStringLiteral("/type"));
    }

    void matchPrefersLiteralSegments()
    {
        const SandboxReadTable &t = SandboxReadTable::builtin();
        QHash<QString, QString> params;
        const SandboxReadOperation *op =
            t.match("GET", "/fabric/v4/streams/s-1/alertRules/r-1", &params);
        QVERIFY(op);
        QCOMPARE(op->operationId, QStringLiteral("getStreamAlertRuleByUuid"));
        QCOMPARE(params.value("streamId"), QStringLiteral("s-1"));
        QCOMPARE(params.value("alertRuleId"), QStringLiteral("r-1"));
        op = t.match("GET", "/fabric/v4/streams/s-1/ports/p-1", &params);
        QCOMPARE(op->operationId, QStringLiteral("getStreamAssetByUuid"));
        QCOMPARE(params.value("asset"), QStringLiteral("ports"));
        QCOMPARE(t.match("GET", "/fabric/v4/connections/c-1/cloudevents", &params)->operationId,
                 QStringLiteral("getCloudEventByAssetId"));
        QCOMPARE(t.match("POST", "/fabric/v4/routers/search", nullptr)->operationId,
                 QStringLiteral("searchCloudRouters"));
        QVERIFY(!t.match("GET", "/fabric/v4/routers/search/more/than/any", nullptr));
        QVERIFY(!t.match("DELETE", "/fabric/v4/streams/s-1", nullptr));
        QVERIFY(!t.match("GET", "/fabric/v4/streams//alertRules", nullptr));
    }

    void filesAreDecoded()
    {
        QByteArray bytes, type;
        QVERIFY(SandboxReadTable::builtin().file("10600000-0000-4000-8000-000000000001", &bytes,
                                                 &type));
        QCOMPARE(type, QByteArray("image/png"));
        QVERIFY(bytes.startsWith("\x89PNG"));
        QVERIFY(!SandboxReadTable::builtin().file("nope", &bytes, &type));
    }

    void malformedDocumentsAreRefused()
    {
        const QByteArray table = resource("read_operations.json");
        const QByteArray estate = resource("readops.json");
        QString error;
        SandboxReadTable::parse(table, estate, &error);
        QCOMPARE(error, QString());
        SandboxReadTable::parse("[]", estate, &error);
        QVERIFY(error.startsWith("read_operations.json: not a JSON object"));
        SandboxReadTable::parse(table, R"({"format":"other"})", &error);
        QVERIFY(error.contains("format"));
        QJsonObject e = QJsonDocument::fromJson(estate).object();
        QJsonObject ops = e["operations"].toObject();
        ops.remove("getStreamByUuid");
        e["operations"] = ops;
        SandboxReadTable::parse(table, QJsonDocument(e).toJson(), &error);
        QCOMPARE(error, QStringLiteral("readops.json: operation getStreamByUuid is missing"));
        e = QJsonDocument::fromJson(estate).object();
        QJsonObject collections = e["collections"].toObject();
        collections.remove("streams");
        e["collections"] = collections;
        SandboxReadTable::parse(table, QJsonDocument(e).toJson(), &error);
        QVERIFY(error.contains("collection streams of "));
    }
};

QTEST_GUILESS_MAIN(TestSandboxReadTable)
#include "tst_sandboxreadtable.moc"
