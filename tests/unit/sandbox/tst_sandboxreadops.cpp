// SandboxReadOps (through SandboxApi, which hands it the reads its own handlers do not serve):
// every row of the read-operation table answers its sample request with the spec's success
// status and hrefs on the sandbox's base URL; an unknown id is a 404 ErrorList; searches apply
// the body's filter, sort and pagination, lists the query's offset/limit and filters; a body or
// query parameter the operation's input schema rejects is a 400 ErrorList; the logo is a PNG.
#include "TestEnvironment.h"
#include "sandbox/SandboxApi.h"
#include "sandbox/SandboxEstate.h"
#include "sandbox/SandboxReadTable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace fb;

namespace {

const QString kBase = QStringLiteral("http://127.0.0.1:18080");
const QString kRouterSv = QStringLiteral("a0000000-0000-4000-8000-000000000001");
const QString kConnectionAwsPrimary = QStringLiteral("c0000000-0000-4000-8000-000000000001");
const QString kRouteFilterInbound = QStringLiteral("f1000000-0000-4000-8000-000000000001");
const QString kUnknown = QStringLiteral("ffffffff-0000-4000-8000-000000000000");

QJsonObject parse(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

int paging(const QJsonObject &page, const char *key)
{
    return page.value("pagination").toObject().value(QLatin1String(key)).toInt();
}

QJsonObject firstError(const SandboxReply &r)
{
    return QJsonDocument::fromJson(r.body).array().first().toObject();
}

} // namespace

class TestSandboxReadOps : public QObject {
    Q_OBJECT

    SandboxEstate estate;
    SandboxApi api{&estate};

    SandboxReply get(const QString &path, const QUrlQuery &query = {})
    {
        return api.handle(QStringLiteral("GET"), path, query, {}, QStringLiteral("cid-1"));
    }
    SandboxReply post(const QString &path, const QJsonObject &body)
    {
        return api.handle(QStringLiteral("POST"), path, {},
                          QJsonDocument(body).toJson(QJsonDocument::Compact),
                          QStringLiteral("cid-1"));
    }
    static QJsonObject object(const SandboxReply &r)
    {
        return QJsonDocument::fromJson(r.body).object();
    }

private slots:
    void initTestCase() { estate.seed(kBase); }
    void init() { fbtest::failOnWarnings(); }

    void everyRowAnswersItsSample_data()
    {
        QTest::addColumn<QString>("operationId");
        for (const SandboxReadOperation &op : SandboxReadTable::builtin().operations())
            QTest::newRow(qPrintable(op.operationId)) << op.operationId;
    }
    void everyRowAnswersItsSample()
    {
        QFETCH(QString, operationId);
        const SandboxReadOperation *op = SandboxReadTable::builtin().operation(operationId);
        QVERIFY(op);
        const QJsonObject sample = op->sample;
        QUrlQuery query;
        const QJsonObject q = sample.value("query").toObject();
        for (auto it = q.begin(); it != q.end(); ++it)
            query.addQueryItem(it.key(), it.value().toString());
        const QByteArray body =
            sample.contains("body")
                ? QJsonDocument(sample.value("body").toObject()).toJson(QJsonDocument::Compact)
                : QByteArray();
        const SandboxReply r = api.handle(op->method, sample.value("path").toString(), query, body,
                                          QStringLiteral("cid-1"));
        QVERIFY2(r.status == op->status, r.body.constData());
        if (op->shape == "file") {
            QCOMPARE(r.contentType, QByteArray("image/png"));
            QVERIFY(r.body.startsWith("\x89PNG\r\n\x1a\n"));
            return;
        }
        QCOMPARE(r.contentType.left(16), QByteArray("application/json"));
        QVERIFY(!r.body.contains("${BASE}"));
        const QJsonObject answer = object(r);
        QVERIFY(!answer.isEmpty());
        if (op->shape == "page" || op->shape == "data")
            QVERIFY2(!answer.value("data").toArray().isEmpty(), r.body.constData());
    }

    void entitiesAreTiedToTheEstate()
    {
        const QString path = "/fabric/v4/connections/" + kConnectionAwsPrimary +
                             "/routingProtocols/b6000000-0000-4000-8000-000000000001";
        const QJsonObject bgp = object(get(path));
        QCOMPARE(bgp.value("type").toString(), QStringLiteral("BGP"));
        QCOMPARE(bgp["bgpIpv4"]["operation"]["operationalStatus"].toString(), QStringLiteral("UP"));
        QCOMPARE(bgp["connection"]["uuid"].toString(), kConnectionAwsPrimary);
        QCOMPARE(bgp.value("href").toString(), kBase + path);
        // The secondary AWS connection's session is down, and only its own protocols show.
        const QJsonArray secondary =
            object(get("/fabric/v4/connections/c0000000-0000-4000-8000-000000000003/"
                       "routingProtocols"))
                .value("data")
                .toArray();
        QCOMPARE(secondary.size(), 1);
        QCOMPARE(secondary[0]["bgpIpv4"]["operation"]["operationalStatus"].toString(),
                 QStringLiteral("DOWN"));
        // Ports searched are the estate's own.
        const QJsonObject ports =
            object(post("/fabric/v4/ports/search", parse(R"({"filter":{"and":[{"property":
            "/location/metroCode","operator":"=","values":["SV"]}]}})")));
        QCOMPARE(paging(ports, "total"), 2);
        QCOMPARE(ports["data"][0]["uuid"].toString(),
                 QStringLiteral("50000000-0000-4000-8000-000000000001"));
    }

    void unknownIdIs404()
    {
        const QStringList paths{
            "/fabric/v4/routeFilters/" + kUnknown,
            "/fabric/v4/streams/" + kUnknown,
            "/fabric/v4/connections/" + kConnectionAwsPrimary + "/routingProtocols/" + kUnknown,
            "/fabric/v4/connections/" + kUnknown + "/routingProtocols/" +
                "b6000000-0000-4000-8000-000000000001",
            "/fabric/v4/routers/" + kRouterSv + "/commands/" + kUnknown,
            "/fabric/v4/logos/" + kUnknown,
            "/fabric/v4/routerPackages/BASIC"}; // a package code the spec has, not seeded
        for (const QString &path : paths) {
            const SandboxReply r = get(path);
            QVERIFY2(r.status == 404, qPrintable(path + u": " + QString::fromUtf8(r.body)));
            const QJsonObject e = firstError(r);
            QCOMPARE(e.value("errorCode").toString(), QStringLiteral("EQ-3045811"));
            QCOMPARE(e.value("correlationId").toString(), QStringLiteral("cid-1"));
            QVERIFY(e["additionalInfo"][0]["reason"].toString().endsWith(" not found"));
        }
        // A path no operation has stays SandboxApi's 404.
        QCOMPARE(firstError(get("/fabric/v4/nothing-here")).value("errorCode").toString(),
                 QStringLiteral("EQ-3034003"));
    }

    void searchAppliesFilterSortAndPagination()
    {
        const QString routes = "/fabric/v4/routers/" + kRouterSv + "/routes/search";
        QJsonObject page = object(post(routes, parse(R"({"sort":[{"property":"/prefix",
            "direction":"ASC"}],"pagination":{"offset":1,"limit":1}})")));
        QCOMPARE(paging(page, "total"), 3);
        QCOMPARE(paging(page, "offset"), 1);
        QCOMPARE(page["data"].toArray().size(), 1);
        QCOMPARE(page["data"][0]["prefix"].toString(), QStringLiteral("10.20.0.0/16"));

        page = object(post(routes, parse(R"({"filter":{"and":[{"property":"/connection/uuid",
            "operator":"=","values":["c0000000-0000-4000-8000-000000000001"]}]}})")));
        QCOMPARE(paging(page, "total"), 2);

        page = object(post("/fabric/v4/routeFilters/search",
                           parse(R"({"filter":{"and":[{"property":"/name","operator":"LIKE",
            "values":["%outbound%"]}]}})")));
        QCOMPARE(page["data"].toArray().size(), 1);
        QCOMPARE(page["data"][0]["name"].toString(), QStringLiteral("aws-outbound-summary"));
    }

    void listsPageAndFilterFromTheQuery()
    {
        QJsonObject page =
            object(get("/fabric/v4/routeFilters/" + kRouteFilterInbound + "/routeFilterRules",
                       QUrlQuery("offset=1&limit=1")));
        QCOMPARE(paging(page, "total"), 2);
        QCOMPARE(page["data"].toArray().size(), 1);
        QCOMPARE(page["data"][0]["name"].toString(), QStringLiteral("permit-172-16"));

        page = object(
            get("/fabric/v4/metrics", QUrlQuery("name=equinix.fabric.metro.*.latency&value=last")));
        QCOMPARE(paging(page, "total"), 3);
        page = object(get("/fabric/v4/tags", QUrlQuery("type=NOTHING")));
        QCOMPARE(page["data"].toArray().size(), 0);
        page = object(get("/fabric/v4/tags", QUrlQuery("type=NOTHING&type=COMPANY_PROFILE")));
        QCOMPARE(page["data"].toArray().size(), 3);
        const QString appLinks =
            "/fabric/v4/appDomains/ad000000-0000-4000-8000-000000000001/appLinks";
        QCOMPARE(object(get(appLinks, QUrlQuery("state=PROVISIONED,DEPROVISIONED")))["data"]
                     .toArray()
                     .size(),
                 1);
        QCOMPARE(object(get(appLinks, QUrlQuery("state=DEPROVISIONED")))["data"].toArray().size(),
                 0);
        // The company profile's own tags are the approved two.
        page = object(get("/fabric/v4/companyProfiles/cf000000-0000-4000-8000-000000000001/tags"));
        QCOMPARE(page["data"].toArray().size(), 2);
    }

    void argumentsTheSchemaRejectsAre400()
    {
        SandboxReply r = post("/fabric/v4/loas/search", parse(R"({"filter":{"and":[{"property":
            "/nope","operator":"=","values":["x"]}]}})"));
        QCOMPARE(r.status, 400);
        QJsonObject e = firstError(r);
        QCOMPARE(e.value("errorCode").toString(), QStringLiteral("EQ-3142501"));
        QVERIFY(e["additionalInfo"][0]["property"].toString().startsWith("filter.and[0]"));

        r = api.handle("POST", "/fabric/v4/loas/search", {}, "{not json", "cid-1");
        QCOMPARE(r.status, 400);
        QCOMPARE(firstError(r)["additionalInfo"][0]["property"].toString(), QStringLiteral("body"));
        // A required body left out, an unknown query parameter, a limit that is not a number.
        QCOMPARE(api.handle("POST", "/fabric/v4/loas/search", {}, {}, "cid-1").status, 400);
        QCOMPARE(get("/fabric/v4/streams", QUrlQuery("bogus=1")).status, 400);
        QCOMPARE(get("/fabric/v4/streams", QUrlQuery("limit=many")).status, 400);
        QCOMPARE(get("/fabric/v4/routers/not-a-uuid/commands").status, 400);
        QCOMPARE(get("/fabric/v4/timeServicePackages/NTP_UNKNOWN").status, 400);
    }

    void theLogoIsAFile()
    {
        const SandboxReply r = get("/fabric/v4/logos/10600000-0000-4000-8000-000000000001");
        QCOMPARE(r.status, 200);
        QCOMPARE(r.contentType, QByteArray("image/png"));
        QVERIFY(r.body.startsWith("\x89PNG\r\n\x1a\n"));
        QVERIFY(r.body.endsWith(QByteArray("IEND\xae\x42\x60\x82", 8)));
    }
};

QTEST_GUILESS_MAIN(TestSandboxReadOps)
#include "tst_sandboxreadops.moc"
