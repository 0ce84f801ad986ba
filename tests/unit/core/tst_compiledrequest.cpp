// CompiledRequest (src/core/CompiledRequest): the request binding formula, sha256(change type
// name + "\n" + body), and the request as results and the audit log show it.
#include "TestEnvironment.h"
#include "core/CompiledRequest.h"

#include <QJsonObject>
#include <QTest>

using namespace fb;

class TestCompiledRequest : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void bindingFormula()
    {
        const QByteArray body = R"({"name":"n"})";
        // Reference values: sha256sum of "<change type>\n<body>".
        QCOMPARE(requestSha256(ChangeType::NetworkCreate, body),
                 "749524b62104dd1c3a81f1204099f4d824bde84dc85d06fe514e5cc4d68308e5");
        QCOMPARE(requestSha256(ChangeType::ConnectionCreate, body),
                 "52187a3e9e5c6d3d3305a68a05cbbd922e8222b24c20ba8df817a725ff1e2bbf");
        CompiledRequest r;
        r.changeType = ChangeType::NetworkCreate;
        r.path = "/fabric/v4/networks";
        r.body = body;
        QCOMPARE(r.sha256Hex(), requestSha256(ChangeType::NetworkCreate, body));
    }

    void everyByteIsBound()
    {
        const QString base = requestSha256(ChangeType::NetworkCreate, R"({"name":"n"})");
        QVERIFY(requestSha256(ChangeType::NetworkCreate, R"({"name":"n"} )") != base);
        QVERIFY(requestSha256(ChangeType::NetworkCreate, R"({"name":"m"})") != base);
        QVERIFY(requestSha256(ChangeType::ServiceTokenCreate, R"({"name":"n"})") != base);
        QCOMPARE(base.size(), 64);
        QCOMPARE(base, base.toLower());
    }

    void toJsonShowsMethodPathAndParsedBody()
    {
        CompiledRequest r;
        r.changeType = ChangeType::ConnectionCreate;
        r.path = "/fabric/v4/connections";
        r.body = R"({"bandwidth":50,"name":"lab"})";
        const QJsonObject json = r.toJson();
        QCOMPARE(json.keys(), QStringList({"body", "method", "path"}));
        QCOMPARE(json.value("method").toString(), "POST");
        QCOMPARE(json.value("path").toString(), "/fabric/v4/connections");
        QCOMPARE(json.value("body").toObject(), QJsonObject({{"bandwidth", 50}, {"name", "lab"}}));
    }

    void equalityCoversEveryMember()
    {
        CompiledRequest a;
        a.path = "/fabric/v4/connections";
        a.body = "{}";
        CompiledRequest b = a;
        QVERIFY(a == b);
        b.body = "{ }";
        QVERIFY(!(a == b));
        b = a;
        b.changeType = ChangeType::NetworkCreate;
        QVERIFY(!(a == b));
        b = a;
        b.method = "PUT";
        QVERIFY(!(a == b));
    }
};

QTEST_APPLESS_MAIN(TestCompiledRequest)
#include "tst_compiledrequest.moc"
