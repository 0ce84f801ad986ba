// ChangeSpecRules (src/core/ChangeSpecRules): the cross-field rules on their own, beyond each
// change type's schema. Each rule reports its exact JSON path; the rules read the raw spec and
// skip what has another shape (the schema reports that), append to what is already there, and
// accept every valid fixture. The same rules through ChangeSpec::validate: tst_changespec.
#include "JsonRpc.h"
#include "TestEnvironment.h"
#include "changespec_fixtures.h"
#include "core/ChangeSpec.h"
#include "core/ChangeSpecRules.h"

#include <QTest>

using namespace fb;

namespace {

// "path: message" of each violation of type's cross-field rules in json, in order.
QStringList violations(ChangeType type, const QByteArray &json)
{
    QList<SpecViolation> out;
    ChangeSpec::addCrossFieldViolations(type, fbtest::parseJsonFixture(json).toObject(), &out);
    QStringList lines;
    for (const SpecViolation &v : out)
        lines << v.path + QStringLiteral(": ") + v.message;
    return lines;
}

} // namespace

class TestChangeSpecRules : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void validFixturesPass()
    {
        for (const auto &f : fixtures::kValid) {
            const auto type = changeTypeFromName(QString::fromLatin1(f.changeType));
            QVERIFY(type);
            QVERIFY2(violations(*type, f.json).isEmpty(), f.name);
        }
    }

    void rules_data()
    {
        QTest::addColumn<ChangeType>("type");
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QStringList>("expected");
        const ChangeType cc = ChangeType::ConnectionCreate;
        const ChangeType st = ChangeType::ServiceTokenCreate;
        QTest::newRow("DOT1Q needs vlanTag, refuses vlanSTag")
            << cc
            << QByteArray("{\"type\":\"EVPL_VC\",\"aSide\":{\"accessPoint\":{\"type\":\"COLO\","
                          "\"port\":{},\"linkProtocol\":{\"type\":\"DOT1Q\",\"vlanSTag\":5}}}}")
            << QStringList{"$.aSide.accessPoint.linkProtocol.vlanTag: required for DOT1Q",
                           "$.aSide.accessPoint.linkProtocol.vlanSTag: not allowed for DOT1Q "
                           "(use vlanTag)"};
        QTest::newRow("tagged connection needs a link protocol")
            << cc
            << QByteArray("{\"type\":\"EVPL_VC\",\"aSide\":{\"accessPoint\":{\"type\":\"COLO\","
                          "\"port\":{}}}}")
            << QStringList{"$.aSide.accessPoint.linkProtocol: required for a COLO port of an "
                           "EVPL_VC connection (DOT1Q, QINQ or UNTAGGED)"};
        QTest::newRow("port-based connection takes the whole port")
            << cc
            << QByteArray("{\"type\":\"EPL_VC\",\"aSide\":{\"accessPoint\":{\"type\":\"COLO\","
                          "\"port\":{},\"linkProtocol\":{\"type\":\"DOT1Q\",\"vlanTag\":1}}}}")
            << QStringList{"$.aSide.accessPoint.linkProtocol.type: EPL_VC uses the whole port: "
                           "omit linkProtocol or use UNTAGGED"};
        QTest::newRow("SP on the aSide, without a profile")
            << cc
            << QByteArray("{\"type\":\"EVPL_VC\",\"aSide\":{\"accessPoint\":{\"type\":\"SP\"}}}")
            << QStringList{"$.aSide.accessPoint.profile: required for a SP access point",
                           "$.aSide.accessPoint.type: a service profile (SP) can only be on the "
                           "zSide"};
        QTest::newRow("both and neither side")
            << cc << QByteArray("{\"aSide\":{\"accessPoint\":7,\"serviceToken\":{}},\"zSide\":{}}")
            << QStringList{"$.aSide: give exactly one of accessPoint or serviceToken, not both",
                           "$.zSide: needs accessPoint or serviceToken"};
        QTest::newRow("network connection needs a NETWORK zSide")
            << cc
            << QByteArray("{\"type\":\"EVPLAN_VC\",\"zSide\":{\"accessPoint\":{\"type\":\"VD\","
                          "\"virtualDevice\":{}}}}")
            << QStringList{"$.zSide.accessPoint.type: must be NETWORK for an EVPLAN_VC "
                           "connection (or use a zSide serviceToken)"};
        QTest::newRow("token with both sides")
            << st << QByteArray("{\"connection\":{\"aSide\":{},\"zSide\":{}}}")
            << QStringList{"$.connection: give exactly one of aSide (a token for your port, with "
                           "bandwidthLimit) or zSide (a token others connect to, with "
                           "supportedBandwidths), not both"};
        QTest::newRow("A-side token")
            << st << QByteArray("{\"connection\":{\"aSide\":{},\"supportedBandwidths\":[50]}}")
            << QStringList{"$.connection.bandwidthLimit: required for an A-side token",
                           "$.connection.supportedBandwidths: not allowed for an A-side token "
                           "(use bandwidthLimit)"};
        QTest::newRow("EPL token, VD selector on the aSide")
            << st
            << QByteArray("{\"type\":\"EPL_TOKEN\",\"connection\":{\"type\":\"EVPL_VC\","
                          "\"bandwidthLimit\":50,\"aSide\":{\"accessPointSelectors\":[{\"type\":"
                          "\"VD\",\"virtualDevice\":{}}]}}}")
            << QStringList{"$.connection.type: must be EPL_VC for an EPL_TOKEN",
                           "$.connection.aSide.accessPointSelectors[0].type: a VD selector can "
                           "only be on a zSide token"};
        QTest::newRow("network selector of another type")
            << st
            << QByteArray("{\"connection\":{\"type\":\"EVPLAN_VC\",\"supportedBandwidths\":[50],"
                          "\"zSide\":{\"accessPointSelectors\":[{\"type\":\"NETWORK\","
                          "\"network\":{\"type\":\"EPLAN\"}}]}}}")
            << QStringList{"$.connection.zSide.accessPointSelectors[0].network.type: must be "
                           "EVPLAN for an EVPLAN_VC token"};
        QTest::newRow("networks have none")
            << ChangeType::NetworkCreate << QByteArray("{\"type\":\"EVPLAN\",\"scope\":7}")
            << QStringList{};
        QTest::newRow("other shapes are skipped")
            << cc
            << QByteArray("{\"type\":5,\"aSide\":[],\"zSide\":{\"accessPoint\":{\"type\":\"COLO\","
                          "\"port\":{},\"linkProtocol\":\"DOT1Q\"}}}")
            << QStringList{};
        QTest::newRow("token connection not an object")
            << st << QByteArray("{\"connection\":[]}") << QStringList{};
    }

    void rules()
    {
        QFETCH(ChangeType, type);
        QFETCH(QByteArray, json);
        QFETCH(QStringList, expected);
        QCOMPARE(violations(type, json), expected);
    }

    void violationsAreAppended()
    {
        QList<SpecViolation> out{{QStringLiteral("$.name"), QStringLiteral("from the schema")}};
        ChangeSpec::addCrossFieldViolations(ChangeType::ConnectionCreate,
                                            fbtest::parseJsonFixture("{\"zSide\":{}}").toObject(),
                                            &out);
        QCOMPARE(out.size(), 2);
        QCOMPARE(out.at(0).path, QStringLiteral("$.name"));
        QCOMPARE(out.at(1).path, QStringLiteral("$.zSide"));
    }
};

QTEST_APPLESS_MAIN(TestChangeSpecRules)
#include "tst_changespecrules.moc"
