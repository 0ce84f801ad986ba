// The sandbox's seed document (resources/sandbox/estate.json) and its strict reader
// SandboxSeed::parse(): what the loaded estate holds and that every reference in it resolves,
// and that a malformed document is refused naming the path of the bad value.
#include "TestEnvironment.h"
#include "sandbox/SandboxEstate.h"
#include "sandbox/SandboxIds.h"
#include "sandbox/SandboxSeed.h"

#include <QJsonDocument>
#include <QTest>

#include <optional>

using fb::SandboxEstate;
using fb::SandboxKind;
namespace Ids = fb::SandboxIds;
namespace Seed = fb::SandboxSeed;
using namespace Qt::StringLiterals;

namespace {

QString str(const QJsonValue &v, const QString &path)
{
    QJsonValue at = v;
    const QStringList keys = path.split(u'/', Qt::SkipEmptyParts);
    for (const QString &k : keys)
        at = at.isArray() ? at.toArray().at(k.toInt()) : at.toObject().value(k);
    return at.toString();
}

// node with the value at keys replaced (or removed when value is empty).
QJsonValue edited(const QJsonValue &node, QStringList keys, const std::optional<QJsonValue> &value)
{
    const QString key = keys.takeFirst();
    if (node.isArray()) {
        QJsonArray a = node.toArray();
        const int i = key.toInt();
        if (!keys.isEmpty())
            a[i] = edited(a.at(i), keys, value);
        else if (value)
            a[i] = *value;
        else
            a.removeAt(i);
        return a;
    }
    QJsonObject o = node.toObject();
    if (!keys.isEmpty())
        o[key] = edited(o.value(key), keys, value);
    else if (value)
        o[key] = *value;
    else
        o.remove(key);
    return o;
}

QJsonObject builtinDocument()
{
    return QJsonDocument::fromJson(Seed::resourceBytes()).object();
}

QByteArray withEdit(const QString &path, const std::optional<QJsonValue> &value)
{
    const QJsonValue doc = edited(builtinDocument(), path.split(u'/', Qt::SkipEmptyParts), value);
    return QJsonDocument(doc.toObject()).toJson();
}

} // namespace

class TestFabricSandboxSeedParse : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { fbtest::failOnWarnings(); }

    void builtinDocumentIsValid()
    {
        const QByteArray bytes = Seed::resourceBytes();
        QVERIFY(!bytes.isEmpty());
        QString error;
        const std::optional<QJsonObject> doc = Seed::parse(bytes, &error);
        QVERIFY2(doc.has_value(), qPrintable(error));
        QVERIFY(error.isEmpty());
        QCOMPARE(*doc, Seed::builtin());
    }

    void estateHoldsTheSeededResources()
    {
        const SandboxEstate estate;
        QCOMPARE(estate.metros().size(), 6);
        QCOMPARE(estate.ports().size(), 7);
        QCOMPARE(estate.serviceProfiles().size(), 3);
        QCOMPARE(estate.routers().size(), 2);
        QCOMPARE(estate.resources(SandboxKind::Connection).size(), 4);
        QCOMPARE(estate.resources(SandboxKind::Network).size(), 2);
        QCOMPARE(estate.resources(SandboxKind::ServiceToken).size(), 2);
        QCOMPARE(estate.rateCard().size(), 11);

        QCOMPARE(estate.metro("LD")->value("name").toString(), u"London"_s);
        QVERIFY(!estate.metro("SG")->contains("geoScopes"));
        QCOMPARE(estate.metro("AM")->value("geoScopes").toArray(), QJsonArray{"EU"});
        QCOMPARE(estate.metro("SV")->value("connectedMetros").toArray().size(), 5);
        const QJsonObject *ny = estate.port(Ids::PortNyQinq);
        QVERIFY(ny);
        QCOMPARE(ny->value("name").toString(), u"NY-QINQ-1"_s);
        QCOMPARE(ny->value("id").toInt(), 7004);
        QCOMPARE(str(*ny, "/encapsulation/type"), u"QINQ"_s);
        QCOMPARE(estate.port(Ids::PortAm)->value("bandwidth").toInt(), 1000);
        QCOMPARE(estate.port(Ids::PortAm)->value("physicalPortsType").toString(), u"1000BASE_LX"_s);
        const QJsonObject *aws = estate.serviceProfile(Ids::ProfileAwsDirectConnect);
        QVERIFY(aws);
        QCOMPARE(aws->value("name").toString(), u"AWS Direct Connect"_s);
        QCOMPARE(str(*aws, "/metros/0/sellerRegions/us-west-1"), u"US West (N. California)"_s);
        QCOMPARE(str(*aws, "/account/organizationName"), u"Sandbox Cloud Provider A"_s);
        QCOMPARE(str(*estate.router(Ids::RouterLdLab), "/package/code"), u"LAB"_s);
        const fb::SandboxResource *expired =
            estate.find(SandboxKind::ServiceToken, Ids::ServiceTokenLdExpired);
        QVERIFY(expired);
        QCOMPARE(expired->json.value("state").toString(), u"EXPIRED"_s);
        const fb::SandboxResource *qinq =
            estate.find(SandboxKind::Connection, Ids::ConnectionNyLdEvpl);
        QVERIFY(qinq);
        QCOMPARE(qinq->json.value("bandwidth").toInt(), 200);
        QVERIFY(qinq->json.value("isRemote").toBool());
        QCOMPARE(str(qinq->json, "/aSide/accessPoint/linkProtocol/type"), u"QINQ"_s);
        QCOMPARE(estate.linkProtocols(Ids::PortSvPrimary).size(), 3); // 2 connections, 1 token
        QCOMPARE(estate.rateCard().first().bandwidthMbps, 10);
        QCOMPARE(estate.rateCard().last().monthlyUsd, 2500.0);
    }

    void everyFixedIdentifierIsSeeded()
    {
        const SandboxEstate estate;
        for (const QLatin1String id : {Ids::PortSvPrimary, Ids::PortSvSecondary, Ids::PortDc,
                                       Ids::PortNyQinq, Ids::PortAm, Ids::PortLd, Ids::PortSg})
            QVERIFY2(estate.port(id), id.data());
        for (const QLatin1String id :
             {Ids::ProfileAwsDirectConnect, Ids::ProfileAzureExpressRoute, Ids::ProfileGenericL2})
            QVERIFY2(estate.serviceProfile(id), id.data());
        for (const QLatin1String id : {Ids::RouterSvStandard, Ids::RouterLdLab})
            QVERIFY2(estate.router(id), id.data());
        for (const QLatin1String id : {Ids::ConnectionSvAwsPrimary, Ids::ConnectionSvDcEvpl,
                                       Ids::ConnectionSvAwsSecondary, Ids::ConnectionNyLdEvpl})
            QVERIFY2(estate.find(SandboxKind::Connection, id), id.data());
        for (const QLatin1String id : {Ids::NetworkGlobalEvplan, Ids::NetworkAmerEplan})
            QVERIFY2(estate.find(SandboxKind::Network, id), id.data());
        for (const QLatin1String id : {Ids::ServiceTokenSv, Ids::ServiceTokenLdExpired})
            QVERIFY2(estate.find(SandboxKind::ServiceToken, id), id.data());
    }

    void everyReferenceResolves()
    {
        const SandboxEstate estate;
        const auto checkMetro = [&](const QJsonObject &location) {
            const QJsonObject *m = estate.metro(location.value("metroCode").toString());
            QVERIFY2(m, qPrintable(location.value("metroCode").toString()));
            QCOMPARE(location.value("metroHref"), m->value("href"));
            QCOMPARE(location.value("metroName"), m->value("name"));
        };
        for (const QJsonObject &m : estate.metros()) {
            const QJsonArray connected = m.value("connectedMetros").toArray();
            for (const QJsonValue &c : connected)
                QVERIFY(estate.metro(c["code"].toString()));
        }
        for (const QJsonObject &p : estate.ports())
            checkMetro(p.value("location").toObject());
        for (const QJsonObject &r : estate.routers())
            checkMetro(r.value("location").toObject());
        for (const QJsonObject &sp : estate.serviceProfiles()) {
            const QJsonArray metros = sp.value("metros").toArray();
            QVERIFY(!metros.isEmpty());
            for (const QJsonValue &m : metros)
                QVERIFY(estate.metro(m["code"].toString()));
        }
        for (const fb::SandboxResource &t : estate.resources(SandboxKind::ServiceToken)) {
            const QString port = str(t.json, "/connection/aSide/accessPointSelectors/0/port/uuid");
            QVERIFY2(estate.port(port), qPrintable(port));
        }
        for (const fb::SandboxResource &c : estate.resources(SandboxKind::Connection)) {
            for (const char *side : {"/aSide/accessPoint", "/zSide/accessPoint"}) {
                const QString at = QLatin1String(side);
                if (str(c.json, at + "/type") == "COLO") {
                    const QJsonObject *p = estate.port(str(c.json, at + "/port/uuid"));
                    QVERIFY2(p, qPrintable(c.json.value("name").toString() + at));
                    QCOMPARE(str(c.json, at + "/port/name"), p->value("name").toString());
                } else {
                    QCOMPARE(str(c.json, at + "/type"), u"SP"_s);
                    const QJsonObject *sp =
                        estate.serviceProfile(str(c.json, at + "/profile/uuid"));
                    QVERIFY2(sp, qPrintable(c.json.value("name").toString() + at));
                    QCOMPARE(str(c.json, at + "/profile/name"), sp->value("name").toString());
                }
                QVERIFY(estate.metro(str(c.json, at + "/location/metroCode")));
            }
        }
    }

    void malformedDocumentIsRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        const QString sv = QString(Ids::PortSvPrimary);
        QTest::newRow("not JSON") << QByteArray("{\"metros\": [") << "/: not JSON";
        QTest::newRow("array") << QByteArray("[]") << "/: must be an object";
        QTest::newRow("empty object") << QByteArray("{}") << "/format: is missing";
        QTest::newRow("format") << withEdit("/format", QJsonValue("estate/2"))
                                << "/format: must be \"fabric-broker-sandbox-estate/1\"";
        QTest::newRow("unknown top-level field")
            << withEdit("/widgets", QJsonArray()) << "/widgets: is not a known field";
        QTest::newRow("kind not an array")
            << withEdit("/ports", QJsonObject()) << "/ports: must be an array";
        QTest::newRow("string for integer") << withEdit("/ports/0/speedMbps", QJsonValue("10000"))
                                            << "/ports/0/speedMbps: must be an integer";
        QTest::newRow("fraction for integer")
            << withEdit("/ports/1/id", QJsonValue(7002.5)) << "/ports/1/id: must be an integer";
        QTest::newRow("bool for number") << withEdit("/rateCard/3/monthlyUsd", QJsonValue(true))
                                         << "/rateCard/3/monthlyUsd: must be a number";
        QTest::newRow("number for string")
            << withEdit("/metros/2/name", QJsonValue(7)) << "/metros/2/name: must be a string";
        QTest::newRow("string for bool")
            << withEdit("/serviceProfiles/0/authenticationKey/required", QJsonValue("yes"))
            << "/serviceProfiles/0/authenticationKey/required: must be a boolean";
        QTest::newRow("missing field")
            << withEdit("/connections/1/name", std::nullopt) << "/connections/1/name: is missing";
        QTest::newRow("unknown field") << withEdit("/metros/0/timezone", QJsonValue("PST"))
                                       << "/metros/0/timezone: is not a known field";
        QTest::newRow("empty string") << withEdit("/routers/0/name", QJsonValue(""))
                                      << "/routers/0/name: must be 1 to 256 characters";
        QTest::newRow("long string") << withEdit("/networks/1/name", QString(257, u'n'))
                                     << "/networks/1/name: must be 1 to 256 characters";
        QTest::newRow("enum") << withEdit("/ports/3/encapsulation", QJsonValue("UNTAGGED"))
                              << "/ports/3/encapsulation: must be one of DOT1Q, QINQ";
        QTest::newRow("bad uuid") << withEdit("/networks/0/uuid", QJsonValue("e0000000"))
                                  << "/networks/0/uuid: must be a lower-case UUID";
        QTest::newRow("duplicate uuid")
            << withEdit("/routers/1/uuid", sv) << "/routers/1/uuid: \"" + sv + "\" is already used";
        QTest::newRow("duplicate metro") << withEdit("/metros/5/code", QJsonValue("SV"))
                                         << "/metros/5/code: \"SV\" is already used";
        QTest::newRow("unknown metro") << withEdit("/ports/2/metro", QJsonValue("XX"))
                                       << "/ports/2/metro: unknown metro \"XX\"";
        QTest::newRow("unknown profile metro")
            << withEdit("/serviceProfiles/2/metros/1/code", QJsonValue("TY"))
            << "/serviceProfiles/2/metros/1/code: unknown metro \"TY\"";
        QTest::newRow("unknown token port")
            << withEdit("/serviceTokens/1/port", QJsonValue("50000000-0000-4000-8000-000000000099"))
            << "/serviceTokens/1/port: unknown port \"50000000-0000-4000-8000-000000000099\"";
        QTest::newRow("vlan range") << withEdit("/serviceTokens/0/vlanTag", QJsonValue(4095))
                                    << "/serviceTokens/0/vlanTag: must be between 1 and 4094";
        QTest::newRow("unknown connection port")
            << withEdit("/connections/3/zSide/port",
                        QJsonValue("50000000-0000-4000-8000-00000000ffff"))
            << "/connections/3/zSide/port: unknown port";
        QTest::newRow("unknown profile")
            << withEdit("/connections/0/zSide/profile",
                        QJsonValue("5e000000-0000-4000-8000-000000000009"))
            << "/connections/0/zSide/profile: unknown service profile";
        QTest::newRow("metro the profile lacks")
            << withEdit("/connections/0/zSide/metro", QJsonValue("SG"))
            << "/connections/0/zSide/metro: the profile is not offered in \"SG\"";
        QTest::newRow("seller region the profile lacks")
            << withEdit("/connections/2/zSide/sellerRegion", QJsonValue("eu-west-9"))
            << "/connections/2/zSide/sellerRegion: the profile has no seller region \"eu-west-9\"";
        QTest::newRow("access point type")
            << withEdit("/connections/1/aSide/type", QJsonValue("NETWORK"))
            << "/connections/1/aSide/type: must be one of COLO, SP";
        QTest::newRow("link protocol field")
            << withEdit("/connections/3/aSide/linkProtocol/vlanTag", QJsonValue(5))
            << "/connections/3/aSide/linkProtocol/vlanTag: is not a known field";
        QTest::newRow("no bandwidths") << withEdit("/serviceProfiles/1/bandwidths", QJsonArray())
                                       << "/serviceProfiles/1/bandwidths: must list at least one";
        QTest::newRow("duplicate rate") << withEdit("/rateCard/1/bandwidthMbps", QJsonValue(10))
                                        << "/rateCard/1/bandwidthMbps: \"10\" is already used";
        QTest::newRow("negative rate") << withEdit("/rateCard/0/monthlyUsd", QJsonValue(-1))
                                       << "/rateCard/0/monthlyUsd: must not be negative";
        QJsonArray many;
        for (int i = 0; i <= Seed::MaxItems; ++i)
            many.append(QJsonObject());
        QTest::newRow("too many items")
            << withEdit("/networks", many) << "/networks: has more than 1000 items";
        QTest::newRow("oversize") << Seed::resourceBytes() + QByteArray(Seed::MaxBytes, ' ')
                                  << "/: the document is larger than 1048576 bytes";
    }

    void malformedDocumentIsRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        QString why;
        QVERIFY(!Seed::parse(bytes, &why).has_value());
        QVERIFY2(why.startsWith(error), qPrintable(why));
    }
};

QTEST_GUILESS_MAIN(TestFabricSandboxSeedParse)
#include "tst_sandboxseed.moc"
