// SandboxSearch over real loopback HTTP: filter expressions, sort criteria and pagination of the
// sandbox's searches and lists.
#include "SandboxSuite.h"
#include "TestEnvironment.h"

class TestSandboxSearch : public SandboxSuite {
    Q_OBJECT
private Q_SLOTS:
    void init() { fbtest::failOnWarnings(); }

    void connectionSearchFilterSortAndPagination()
    {
        QJsonObject search{
            {"filter", QJsonObject{{"and", QJsonArray{QJsonObject{
                                               {"property", "/aSide/accessPoint/port/uuid"},
                                               {"operator", "="},
                                               {"values", QJsonArray{s(Ids::PortSvPrimary)}}}}}}},
            {"pagination", QJsonObject{{"offset", 0}, {"limit", 1}}},
            {"sort", QJsonArray{QJsonObject{{"property", "/name"}, {"direction", "ASC"}}}}};
        HttpResult r = client->post("/fabric/v4/connections/search", search);
        QCOMPARE(r.status, 200);
        QJsonObject page = r.object()["pagination"].toObject();
        QCOMPARE(page["total"].toInt(), 2);
        QCOMPARE(page["limit"].toInt(), 1);
        QVERIFY(page.contains("next"));
        QVERIFY(!page.contains("previous"));
        QCOMPARE(r.object()["data"].toArray().size(), 1);
        QCOMPARE(r.object()["data"][0]["name"].toString(), QStringLiteral("sv-aws-primary"));
        QCOMPARE(r.object()["sort"][0]["property"].toString(), QStringLiteral("/name"));

        search["pagination"] = QJsonObject{{"offset", 1}, {"limit", 1}};
        r = client->post("/fabric/v4/connections/search", search);
        QCOMPARE(r.object()["data"][0]["name"].toString(), QStringLiteral("sv-dc-evpl"));
        QVERIFY(r.object()["pagination"].toObject().contains("previous"));

        const QJsonObject orSearch{
            {"filter",
             QJsonObject{{"or", QJsonArray{QJsonObject{{"property", "/name"},
                                                       {"operator", "LIKE"},
                                                       {"values", QJsonArray{"ny-%"}}},
                                           QJsonObject{{"property", "/bandwidth"},
                                                       {"operator", ">="},
                                                       {"values", QJsonArray{"1000"}}}}}}}};
        r = client->post("/fabric/v4/connections/search", orSearch);
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 3);

        const QJsonObject badOp{
            {"filter",
             QJsonObject{{"property", "/name"}, {"operator", "~~"}, {"values", QJsonArray{"x"}}}}};
        r = client->post("/fabric/v4/connections/search", badOp);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.firstErrorCode(), QStringLiteral("EQ-3142501"));
        QCOMPARE(r.array()[0]["additionalInfo"][0]["property"].toString(),
                 QStringLiteral("filter.operator"));
        r = client->post("/fabric/v4/connections/search",
                         QJsonObject{{"pagination", QJsonObject{{"limit", 0}}}});
        QCOMPARE(r.status, 400);
    }

    void metrosWithPagination()
    {
        HttpResult r = client->get("/fabric/v4/metros");
        QCOMPARE(r.object()["pagination"]["total"].toInt(), 6);
        r = client->get("/fabric/v4/metros?offset=2&limit=2");
        QCOMPARE(r.object()["data"].toArray().size(), 2);
        QCOMPARE(r.object()["data"][0]["code"].toString(), QStringLiteral("NY"));
        QCOMPARE(r.object()["pagination"]["next"].toString(),
                 QStringLiteral("/fabric/v4/metros?offset=4&limit=2"));
        QCOMPARE(client->get("/fabric/v4/metros?limit=1000").status, 400);
        QCOMPARE(client->get("/fabric/v4/metros?presence=EVERYWHERE").status, 400);
        QCOMPARE(client->get("/fabric/v4/metros/LD").object()["name"].toString(),
                 QStringLiteral("London"));
    }
};

QTEST_GUILESS_MAIN(TestSandboxSearch)
#include "tst_sandboxsearch.moc"
