// The typed change specs: every supported variant validates and compiles, every kind of mistake is
// rejected with its JSON path, all violations are reported at once, the compiled body is the
// canonical spec (byte-identical for permuted input); the person-facing target line is
// ProposalView's (tst_proposalview).
#include "JsonRpc.h"
#include "TestEnvironment.h"
#include "changespec_fixtures.h"
#include "core/CanonicalJson.h"
#include "core/ChangeSpec.h"
#include "core/JsonSchema.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimeZone>
#include <QtTest>

using namespace fb;

namespace {

constexpr auto parse = &fbtest::parseJsonFixture;

ChangeType typeOf(const QString &name)
{
    const auto t = changeTypeFromName(name);
    if (!t)
        qFatal("bad change type %s", qPrintable(name));
    return *t;
}

// Sets (or with an undefined value removes) the member at a JSON pointer like "/aSide/port/uuid".
QJsonValue setAt(const QJsonValue &root, QStringList tokens, const QJsonValue &value)
{
    if (tokens.isEmpty())
        return value;
    const QString key = tokens.takeFirst();
    if (root.isArray()) {
        QJsonArray a = root.toArray();
        const int index = key.toInt();
        if (tokens.isEmpty() && value.isUndefined())
            a.removeAt(index);
        else if (index == a.size())
            a.append(setAt(QJsonValue(), tokens, value));
        else
            a[index] = setAt(a.at(index), tokens, value);
        return a;
    }
    QJsonObject o = root.toObject();
    if (tokens.isEmpty() && value.isUndefined())
        o.remove(key);
    else
        o[key] = setAt(o.value(key), tokens, value);
    return o;
}

QJsonValue mutated(const QByteArray &base, const QString &pointer, const QByteArray &valueText)
{
    const QJsonValue value =
        valueText == "<remove>" ? QJsonValue(QJsonValue::Undefined) : parse(valueText);
    return setAt(parse(base), pointer.split(u'/', Qt::SkipEmptyParts), value);
}

bool hasViolation(const QList<SpecViolation> &violations, const QString &path,
                  const QString &messagePart)
{
    for (const auto &v : violations) {
        if (v.path == path && v.message.contains(messagePart))
            return true;
    }
    return false;
}

const QByteArray kSpAccessPoint = "{\"type\":\"SP\",\"profile\":{\"uuid\":"
                                  "\"22d4e853-ef33-4ff0-b5b2-a2b1d5dfa50c\"},"
                                  "\"location\":{\"metroCode\":\"SV\"}}";
const QByteArray kColoAccessPoint = "{\"type\":\"COLO\",\"port\":{\"uuid\":"
                                    "\"22d4e853-ef33-4ff0-b5b2-a2b1d5dfa50c\"},"
                                    "\"linkProtocol\":{\"type\":\"DOT1Q\",\"vlanTag\":5}}";

} // namespace

class TestChangeSpec : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void validSpecs_data()
    {
        QTest::addColumn<QString>("changeType");
        QTest::addColumn<QByteArray>("json");
        for (const auto &f : fixtures::kValid)
            QTest::newRow(f.name) << QString::fromLatin1(f.changeType) << QByteArray(f.json);
    }
    void validSpecs()
    {
        QFETCH(QString, changeType);
        QFETCH(QByteArray, json);
        const ChangeType type = typeOf(changeType);
        const QJsonValue spec = parse(json);
        const auto violations = ChangeSpec::validate(type, spec);
        QVERIFY2(violations.isEmpty(), qPrintable(formatViolations(violations)));

        const CompileResult result = ChangeCompiler().compile(type, spec);
        QVERIFY(result.ok());
        QVERIFY(result.violations.isEmpty());
        QCOMPARE(result.request->changeType, type);
        QCOMPARE(result.request->method, QByteArray("POST"));
        QCOMPARE(result.request->path, changeTypePath(type));
        // No field added or dropped: the body is exactly the spec, canonicalized.
        QCOMPARE(result.request->body, canonicalJson(spec));
        QCOMPARE(QJsonDocument::fromJson(result.request->body).object(), spec.toObject());
    }

    void boundariesAccepted_data()
    {
        QTest::addColumn<QString>("changeType");
        QTest::addColumn<QByteArray>("base");
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QByteArray>("value");
        const QByteArray aws = fixtures::kConnPortToAwsDot1q;
        const QByteArray qinq = fixtures::kConnPortToProfileQinq;
        const QByteArray tokA = fixtures::kTokVcASideDot1q;
        const QByteArray tokZ = fixtures::kTokVcZSideColo;
        const QString cc = QStringLiteral("connection_create");
        const QString st = QStringLiteral("service_token_create");
        QTest::newRow("vlanTag 2")
            << cc << aws << "/aSide/accessPoint/linkProtocol/vlanTag" << QByteArray("2");
        QTest::newRow("vlanTag 4092")
            << cc << aws << "/aSide/accessPoint/linkProtocol/vlanTag" << QByteArray("4092");
        QTest::newRow("vlanTag 4092.0")
            << cc << aws << "/aSide/accessPoint/linkProtocol/vlanTag" << QByteArray("4092.0");
        QTest::newRow("vlanSTag 2")
            << cc << qinq << "/aSide/accessPoint/linkProtocol/vlanSTag" << QByteArray("2");
        QTest::newRow("vlanSTag 4092")
            << cc << qinq << "/aSide/accessPoint/linkProtocol/vlanSTag" << QByteArray("4092");
        QTest::newRow("vlanCTag 2")
            << cc << qinq << "/aSide/accessPoint/linkProtocol/vlanCTag" << QByteArray("2");
        QTest::newRow("vlanCTag 4092")
            << cc << qinq << "/aSide/accessPoint/linkProtocol/vlanCTag" << QByteArray("4092");
        QTest::newRow("token vlanTag 4092")
            << st << tokA << "/connection/aSide/accessPointSelectors/0/linkProtocol/vlanTag"
            << QByteArray("4092");
        QTest::newRow("bandwidth 100000") << cc << aws << "/bandwidth" << QByteArray("100000");
        QTest::newRow("bandwidth 1") << cc << aws << "/bandwidth" << QByteArray("1");
        QTest::newRow("name 24 chars")
            << cc << aws << "/name" << QByteArray("\"abcdefghijklmnopqrstuvwx\"");
        QTest::newRow("name 24 code points with emoji")
            << cc << aws << "/name" << QByteArray("\"abcdefghijklmnopqrstuvw\\ud83d\\ude00\"");
        QTest::newRow("bandwidthLimit 100000")
            << st << tokA << "/connection/bandwidthLimit" << QByteArray("100000");
        QTest::newRow("supportedBandwidths 100000")
            << st << tokZ << "/connection/supportedBandwidths" << QByteArray("[100000]");
        QTest::newRow("uppercase uuid") << cc << aws << "/aSide/accessPoint/port/uuid"
                                        << QByteArray("\"A00CEF6F-8E35-4794-9FF9-665E084E4E6D\"");
    }
    void boundariesAccepted()
    {
        QFETCH(QString, changeType);
        QFETCH(QByteArray, base);
        QFETCH(QString, pointer);
        QFETCH(QByteArray, value);
        const auto violations =
            ChangeSpec::validate(typeOf(changeType), mutated(base, pointer, value));
        QVERIFY2(violations.isEmpty(), qPrintable(formatViolations(violations)));
    }

    void rejected_data()
    {
        QTest::addColumn<QString>("changeType");
        QTest::addColumn<QByteArray>("base");
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        const QString cc = QStringLiteral("connection_create");
        const QString nc = QStringLiteral("network_create");
        const QString st = QStringLiteral("service_token_create");
        const QByteArray aws = fixtures::kConnPortToAwsDot1q;
        const QByteArray qinq = fixtures::kConnPortToProfileQinq;
        const QByteArray untagged = fixtures::kConnPortToProfileUntagged;
        const QByteArray evplan = fixtures::kConnPortToEvplan;
        const QByteArray evptree = fixtures::kConnPortToEvptree;
        const QByteArray portToToken = fixtures::kConnPortToToken;
        const QByteArray tokToTok = fixtures::kConnTokenToToken;
        const QByteArray epl = fixtures::kConnEplPortToPort;
        const QByteArray accessEpl = fixtures::kConnAccessEpl;
        const QByteArray vd = fixtures::kConnVdToPort;
        const QByteArray netGlobal = fixtures::kNetEvplanGlobal;
        const QByteArray netRegional = fixtures::kNetEplanRegional;
        const QByteArray tokA = fixtures::kTokVcASideDot1q;
        const QByteArray tokZ = fixtures::kTokVcZSideColo;
        const QByteArray tokNet = fixtures::kTokVcZSideNetwork;
        const QByteArray tokEpl = fixtures::kTokEplASide;
        const QByteArray rm = "<remove>";
        const QString lp = QStringLiteral("$.aSide.accessPoint.linkProtocol");
        const QString sel0 = QStringLiteral("$.connection.aSide.accessPointSelectors[0]");
        const QString zsel0 = QStringLiteral("$.connection.zSide.accessPointSelectors[0]");
        const QString vlanRange = QStringLiteral("must be an integer between 2 and 4092");

        // Unknown fields, at several depths.
        QTest::newRow("unknown root") << cc << aws << "/foo" << QByteArray("1") << "$.foo"
                                      << "unknown field; allowed: aSide, bandwidth";
        QTest::newRow("unknown in side")
            << cc << aws << "/zSide/extra" << QByteArray("{}") << "$.zSide.extra"
            << "unknown field; allowed: accessPoint, serviceToken";
        QTest::newRow("unknown in access point")
            << cc << aws << "/aSide/accessPoint/foo" << QByteArray("1") << "$.aSide.accessPoint.foo"
            << "unknown field";
        QTest::newRow("unknown in link protocol")
            << cc << aws << "/aSide/accessPoint/linkProtocol/vlan" << QByteArray("5")
            << lp + ".vlan"
            << "unknown field; allowed: type, vlanCTag, vlanSTag, vlanTag";
        QTest::newRow("unknown in array item") << cc << aws << "/notifications/0/phone"
                                               << QByteArray("[]") << "$.notifications[0].phone"
                                               << "unknown field";
        QTest::newRow("unknown odd key") << cc << aws << "/a b" << QByteArray("1") << "$['a b']"
                                         << "unknown field";
        QTest::newRow("unknown response-only field")
            << cc << aws << "/aSide/accessPoint/port/href" << QByteArray("\"https://x\"")
            << "$.aSide.accessPoint.port.href"
            << "unknown field";
        QTest::newRow("network unknown in location")
            << nc << netRegional << "/location/city" << QByteArray("\"x\"") << "$.location.city"
            << "unknown field";
        QTest::newRow("token account not in subset")
            << st << tokA << "/account" << QByteArray("{\"accountNumber\":272010}") << "$.account"
            << "unknown field";
        QTest::newRow("token deprecated selector field")
            << st << tokA << "/connection/aSide/accessPointSelectors/0/hideAssetInfo"
            << QByteArray("true") << sel0 + ".hideAssetInfo"
            << "unknown field";

        // Missing required fields.
        QTest::newRow("missing name") << cc << aws << "/name" << rm << "$.name"
                                      << "required field missing";
        QTest::newRow("missing notifications")
            << cc << aws << "/notifications" << rm << "$.notifications"
            << "required field missing";
        QTest::newRow("missing port uuid")
            << cc << aws << "/aSide/accessPoint/port/uuid" << rm << "$.aSide.accessPoint.port.uuid"
            << "required field missing";
        QTest::newRow("missing link protocol type")
            << cc << aws << "/aSide/accessPoint/linkProtocol/type" << rm << lp + ".type"
            << "required field missing";
        QTest::newRow("missing emails")
            << cc << aws << "/notifications/0/emails" << rm << "$.notifications[0].emails"
            << "required field missing";
        QTest::newRow("missing token uuid")
            << cc << tokToTok << "/aSide/serviceToken/uuid" << rm << "$.aSide.serviceToken.uuid"
            << "required field missing";
        QTest::newRow("network missing scope") << nc << netGlobal << "/scope" << rm << "$.scope"
                                               << "required field missing";
        QTest::newRow("token missing expiry")
            << st << tokA << "/expirationDateTime" << rm << "$.expirationDateTime"
            << "required field missing";

        // Enums.
        QTest::newRow("bad connection type")
            << cc << aws << "/type" << QByteArray("\"EVPL\"") << "$.type"
            << "must be one of: EVPL_VC, EPL_VC";
        QTest::newRow("IP_VC not in subset")
            << cc << aws << "/type" << QByteArray("\"IP_VC\"") << "$.type"
            << "must be one of";
        QTest::newRow("bad link protocol") << cc << aws << "/aSide/accessPoint/linkProtocol/type"
                                           << QByteArray("\"VXLAN\"") << lp + ".type"
                                           << "must be one of: UNTAGGED, DOT1Q, QINQ";
        QTest::newRow("bad access point type")
            << cc << aws << "/aSide/accessPoint/type" << QByteArray("\"CLOUD_ROUTER\"")
            << "$.aSide.accessPoint.type"
            << "must be one of";
        QTest::newRow("bad notification type")
            << cc << aws << "/notifications/0/type" << QByteArray("\"EVERYTHING\"")
            << "$.notifications[0].type"
            << "must be one of";
        QTest::newRow("bad priority") << cc << aws << "/redundancy/priority"
                                      << QByteArray("\"TERTIARY\"") << "$.redundancy.priority"
                                      << "must be one of: PRIMARY, SECONDARY";
        QTest::newRow("bad term length")
            << cc << aws << "/order/termLength" << QByteArray("6") << "$.order.termLength"
            << "must be one of: 1, 12, 24, 36";
        QTest::newRow("network IPWAN not in subset")
            << nc << netGlobal << "/type" << QByteArray("\"IPWAN\"") << "$.type"
            << "must be one of";
        QTest::newRow("network bad scope")
            << nc << netGlobal << "/scope" << QByteArray("\"WORLD\"") << "$.scope"
            << "must be one of: REGIONAL, GLOBAL, LOCAL";
        QTest::newRow("network bad region") << nc << netRegional << "/location/region"
                                            << QByteArray("\"LATAM\"") << "$.location.region"
                                            << "must be one of: AMER, APAC, EMEA";
        QTest::newRow("token bad type")
            << st << tokA << "/type" << QByteArray("\"PORT_TOKEN\"") << "$.type"
            << "must be one of: VC_TOKEN, EPL_TOKEN";

        // VLAN ranges and integer-ness.
        QTest::newRow("vlanTag 1") << cc << aws << "/aSide/accessPoint/linkProtocol/vlanTag"
                                   << QByteArray("1") << lp + ".vlanTag" << vlanRange;
        QTest::newRow("vlanTag 4093") << cc << aws << "/aSide/accessPoint/linkProtocol/vlanTag"
                                      << QByteArray("4093") << lp + ".vlanTag" << vlanRange;
        QTest::newRow("vlanTag 100.5")
            << cc << aws << "/aSide/accessPoint/linkProtocol/vlanTag" << QByteArray("100.5")
            << lp + ".vlanTag" << vlanRange + " (got number)";
        QTest::newRow("vlanTag string")
            << cc << aws << "/aSide/accessPoint/linkProtocol/vlanTag" << QByteArray("\"100\"")
            << lp + ".vlanTag" << vlanRange + " (got string)";
        QTest::newRow("vlanSTag 1") << cc << qinq << "/aSide/accessPoint/linkProtocol/vlanSTag"
                                    << QByteArray("1") << lp + ".vlanSTag" << vlanRange;
        QTest::newRow("vlanCTag 4093") << cc << qinq << "/aSide/accessPoint/linkProtocol/vlanCTag"
                                       << QByteArray("4093") << lp + ".vlanCTag" << vlanRange;
        QTest::newRow("token vlanCTag 4093")
            << st << tokZ << "/connection/zSide/accessPointSelectors/0/linkProtocol/vlanCTag"
            << QByteArray("4093") << zsel0 + ".linkProtocol.vlanCTag" << vlanRange;

        // UUIDs.
        QTest::newRow("bad port uuid")
            << cc << aws << "/aSide/accessPoint/port/uuid" << QByteArray("\"not-a-uuid\"")
            << "$.aSide.accessPoint.port.uuid"
            << "must be a UUID";
        QTest::newRow("uuid with newline")
            << cc << aws << "/aSide/accessPoint/port/uuid"
            << QByteArray("\"a00cef6f-8e35-4794-9ff9-665e084e4e6d\\n\"")
            << "$.aSide.accessPoint.port.uuid"
            << "must be a UUID";
        QTest::newRow("uuid too long") << cc << aws << "/zSide/accessPoint/profile/uuid"
                                       << QByteArray("\"22d4e853-ef33-4ff0-b5b2-a2b1d5dfa50c0\"")
                                       << "$.zSide.accessPoint.profile.uuid"
                                       << "must be a UUID";
        QTest::newRow("bad redundancy group")
            << cc << aws << "/redundancy/group"
            << QByteArray("\"m167f685-41b0-1b07-6de0-320a5c00abeu\"") << "$.redundancy.group"
            << "must be a UUID";
        QTest::newRow("bad network uuid")
            << cc << evplan << "/zSide/accessPoint/network/uuid" << QByteArray("\"25f8884e\"")
            << "$.zSide.accessPoint.network.uuid"
            << "must be a UUID";
        QTest::newRow("bad selector port uuid")
            << st << tokA << "/connection/aSide/accessPointSelectors/0/port/uuid"
            << QByteArray("\"b840a1db_5758_758f_97e0_328a5c00a874\"") << sel0 + ".port.uuid"
            << "must be a UUID";

        // E-mail lists.
        QTest::newRow("bad email in list")
            << cc << aws << "/notifications/0/emails/1" << QByteArray("\"ops@\"")
            << "$.notifications[0].emails[1]"
            << "must be an e-mail address";
        QTest::newRow("email with space")
            << nc << netGlobal << "/notifications/0/emails/0" << QByteArray("\"a b@example.com\"")
            << "$.notifications[0].emails[0]"
            << "must be an e-mail address";
        QTest::newRow("empty email list") << cc << aws << "/notifications/0/emails"
                                          << QByteArray("[]") << "$.notifications[0].emails"
                                          << "must have at least 1 item";
        QTest::newRow("empty notifications")
            << cc << aws << "/notifications" << QByteArray("[]") << "$.notifications"
            << "must have at least 1 item";

        // Lengths and bandwidths.
        QTest::newRow("name 25 chars")
            << cc << aws << "/name" << QByteArray("\"abcdefghijklmnopqrstuvwxy\"") << "$.name"
            << "must be 1 to 24 characters long (got 25)";
        QTest::newRow("name empty") << cc << aws << "/name" << QByteArray("\"\"") << "$.name"
                                    << "must be 1 to 24 characters long (got 0)";
        QTest::newRow("network name 25 chars")
            << nc << netGlobal << "/name" << QByteArray("\"abcdefghijklmnopqrstuvwxy\"") << "$.name"
            << "must be 1 to 24 characters long";
        QTest::newRow("token name 51 chars")
            << st << tokA << "/name" << QByteArray('"' + QByteArray(51, 'n') + '"') << "$.name"
            << "must be 1 to 50 characters long";
        QTest::newRow("token description 376 chars")
            << st << tokA << "/description" << QByteArray('"' + QByteArray(376, 'd') + '"')
            << "$.description"
            << "must be 1 to 375 characters long";
        QTest::newRow("bandwidth -1")
            << cc << aws << "/bandwidth" << QByteArray("-1") << "$.bandwidth"
            << "must be an integer between 0 and 100000";
        QTest::newRow("bandwidth 100001")
            << cc << aws << "/bandwidth" << QByteArray("100001") << "$.bandwidth"
            << "must be an integer between 0 and 100000";
        QTest::newRow("bandwidth fractional")
            << cc << aws << "/bandwidth" << QByteArray("1.5") << "$.bandwidth"
            << "(got number)";
        QTest::newRow("token bandwidthLimit 100001")
            << st << tokA << "/connection/bandwidthLimit" << QByteArray("100001")
            << "$.connection.bandwidthLimit"
            << "must be an integer between 0 and 100000";
        QTest::newRow("token supported bandwidth -1")
            << st << tokZ << "/connection/supportedBandwidths" << QByteArray("[50, -1]")
            << "$.connection.supportedBandwidths[1]"
            << "must be an integer between 0 and 100000";
        QTest::newRow("token supported bandwidth duplicate")
            << st << tokZ << "/connection/supportedBandwidths" << QByteArray("[50, 50]")
            << "$.connection.supportedBandwidths[1]"
            << "duplicate of item [0]";

        // Wrong JSON types.
        QTest::newRow("bandwidth string")
            << cc << aws << "/bandwidth" << QByteArray("\"1000\"") << "$.bandwidth"
            << "must be an integer";
        QTest::newRow("notifications object")
            << cc << aws << "/notifications" << QByteArray("{}") << "$.notifications"
            << "must be an array (got object)";
        QTest::newRow("aSide array") << cc << aws << "/aSide" << QByteArray("[]") << "$.aSide"
                                     << "must be an object (got array)";
        QTest::newRow("name number") << cc << aws << "/name" << QByteArray("42") << "$.name"
                                     << "must be a string (got integer)";
        QTest::newRow("projectId number")
            << cc << aws << "/project/projectId" << QByteArray("5") << "$.project.projectId"
            << "must be a string";
        QTest::newRow("allowRemoteConnection string")
            << st << tokA << "/connection/allowRemoteConnection" << QByteArray("\"yes\"")
            << "$.connection.allowRemoteConnection"
            << "must be a boolean (got string)";
        QTest::newRow("email null") << cc << aws << "/notifications/0/emails/0"
                                    << QByteArray("null") << "$.notifications[0].emails[0]"
                                    << "must be a string (got null)";

        // Patterns and date-times.
        QTest::newRow("metro lowercase")
            << cc << aws << "/zSide/accessPoint/location/metroCode" << QByteArray("\"sv\"")
            << "$.zSide.accessPoint.location.metroCode"
            << "must match the pattern ^[A-Z]{2}$";
        QTest::newRow("metro with newline")
            << cc << aws << "/zSide/accessPoint/location/metroCode" << QByteArray("\"SV\\n\"")
            << "$.zSide.accessPoint.location.metroCode"
            << "must match the pattern";
        QTest::newRow("expiry month 13")
            << st << tokA << "/expirationDateTime" << QByteArray("\"2030-13-01T00:00:00Z\"")
            << "$.expirationDateTime"
            << "RFC 3339 date-time";
        QTest::newRow("expiry without zone")
            << st << tokA << "/expirationDateTime" << QByteArray("\"2030-01-01T00:00:00\"")
            << "$.expirationDateTime"
            << "RFC 3339 date-time";
        QTest::newRow("expiry Feb 29 non-leap")
            << st << tokA << "/expirationDateTime" << QByteArray("\"2031-02-29T00:00:00Z\"")
            << "$.expirationDateTime"
            << "RFC 3339 date-time";

        // Cross-field rules: link protocols.
        QTest::newRow("DOT1Q without vlanTag")
            << cc << aws << "/aSide/accessPoint/linkProtocol/vlanTag" << rm << lp + ".vlanTag"
            << "required for DOT1Q";
        QTest::newRow("DOT1Q with vlanSTag")
            << cc << aws << "/aSide/accessPoint/linkProtocol/vlanSTag" << QByteArray("5")
            << lp + ".vlanSTag"
            << "not allowed for DOT1Q";
        QTest::newRow("QINQ without vlanSTag")
            << cc << qinq << "/aSide/accessPoint/linkProtocol/vlanSTag" << rm << lp + ".vlanSTag"
            << "required for QINQ";
        QTest::newRow("QINQ with vlanTag")
            << cc << qinq << "/aSide/accessPoint/linkProtocol/vlanTag" << QByteArray("5")
            << lp + ".vlanTag"
            << "not allowed for QINQ";
        QTest::newRow("UNTAGGED with vlanTag")
            << cc << untagged << "/aSide/accessPoint/linkProtocol/vlanTag" << QByteArray("5")
            << lp + ".vlanTag"
            << "not allowed for UNTAGGED";
        QTest::newRow("EVPL port without link protocol")
            << cc << aws << "/aSide/accessPoint/linkProtocol" << rm << lp
            << "required for a COLO port of an EVPL_VC connection";
        QTest::newRow("EPL with DOT1Q")
            << cc << epl << "/aSide/accessPoint/linkProtocol"
            << QByteArray("{\"type\":\"DOT1Q\",\"vlanTag\":5}") << lp + ".type"
            << "uses the whole port";
        QTest::newRow("ACCESS_EPL with vlanCTag")
            << cc << accessEpl << "/aSide/accessPoint/linkProtocol/vlanCTag" << QByteArray("7")
            << lp + ".vlanCTag"
            << "not allowed for ACCESS_EPL_VC";
        QTest::newRow("token selector DOT1Q without vlanTag")
            << st << tokA << "/connection/aSide/accessPointSelectors/0/linkProtocol/vlanTag" << rm
            << sel0 + ".linkProtocol.vlanTag"
            << "required for DOT1Q";

        // Cross-field rules: access points and connection types.
        QTest::newRow("COLO without port")
            << cc << aws << "/aSide/accessPoint/port" << rm << "$.aSide.accessPoint.port"
            << "required for a COLO access point";
        QTest::newRow("COLO with profile")
            << cc << aws << "/aSide/accessPoint/profile"
            << QByteArray("{\"uuid\":\"22d4e853-ef33-4ff0-b5b2-a2b1d5dfa50c\"}")
            << "$.aSide.accessPoint.profile"
            << "not allowed for a COLO access point";
        QTest::newRow("SP without profile")
            << cc << aws << "/zSide/accessPoint/profile" << rm << "$.zSide.accessPoint.profile"
            << "required for a SP access point";
        QTest::newRow("SP with link protocol")
            << cc << aws << "/zSide/accessPoint/linkProtocol"
            << QByteArray("{\"type\":\"UNTAGGED\"}") << "$.zSide.accessPoint.linkProtocol"
            << "not allowed for a SP access point";
        QTest::newRow("SP on aSide")
            << cc << aws << "/aSide/accessPoint" << kSpAccessPoint << "$.aSide.accessPoint.type"
            << "only be on the zSide";
        QTest::newRow("NETWORK on EVPL_VC")
            << cc << evplan << "/type" << QByteArray("\"EVPL_VC\"") << "$.zSide.accessPoint.type"
            << "NETWORK access points need connection type";
        QTest::newRow("EVPLAN_VC to SP")
            << cc << aws << "/type" << QByteArray("\"EVPLAN_VC\"") << "$.zSide.accessPoint.type"
            << "must be NETWORK for an EVPLAN_VC connection";
        QTest::newRow("NETWORK without network")
            << cc << evplan << "/zSide/accessPoint/network" << rm << "$.zSide.accessPoint.network"
            << "required for a NETWORK access point";
        QTest::newRow("EVPTREE without role")
            << cc << evptree << "/zSide/accessPoint/role" << rm << "$.zSide.accessPoint.role"
            << "required for a NETWORK access point";
        QTest::newRow("role outside E-Tree") << cc << evplan << "/zSide/accessPoint/role"
                                             << QByteArray("\"LEAF\"") << "$.zSide.accessPoint.role"
                                             << "not allowed";
        QTest::newRow("VD without virtualDevice") << cc << vd << "/aSide/accessPoint/virtualDevice"
                                                  << rm << "$.aSide.accessPoint.virtualDevice"
                                                  << "required for a VD access point";
        QTest::newRow("VD on EPL")
            << cc << vd << "/type" << QByteArray("\"EPL_VC\"") << "$.aSide.accessPoint.type"
            << "cannot be on a port-based EPL_VC";
        QTest::newRow("side with token and access point")
            << cc << portToToken << "/zSide/accessPoint" << kColoAccessPoint << "$.zSide"
            << "exactly one of accessPoint or serviceToken";
        QTest::newRow("empty side") << cc << aws << "/zSide" << QByteArray("{}") << "$.zSide"
                                    << "needs accessPoint or serviceToken";

        // Cross-field rules: service tokens.
        QTest::newRow("token with both sides")
            << st << tokA << "/connection/zSide"
            << QByteArray(
                   "{\"accessPointSelectors\":[{\"type\":\"COLO\",\"port\":{\"uuid\":\"b840a1db-"
                   "5758-758f-97e0-328a5c00a874\"},\"linkProtocol\":{\"type\":\"UNTAGGED\"}}]}")
            << "$.connection"
            << "exactly one of aSide";
        QTest::newRow("token with no side")
            << st << tokA << "/connection/aSide" << rm << "$.connection"
            << "needs aSide";
        QTest::newRow("A-side token without bandwidthLimit")
            << st << tokA << "/connection/bandwidthLimit" << rm << "$.connection.bandwidthLimit"
            << "required for an A-side token";
        QTest::newRow("A-side token with supportedBandwidths")
            << st << tokA << "/connection/supportedBandwidths" << QByteArray("[50]")
            << "$.connection.supportedBandwidths"
            << "not allowed for an A-side token";
        QTest::newRow("Z-side token without supportedBandwidths")
            << st << tokZ << "/connection/supportedBandwidths" << rm
            << "$.connection.supportedBandwidths"
            << "required for a Z-side token";
        QTest::newRow("Z-side token with bandwidthLimit")
            << st << tokZ << "/connection/bandwidthLimit" << QByteArray("50")
            << "$.connection.bandwidthLimit"
            << "not allowed for a Z-side token";
        QTest::newRow("EPL_TOKEN for EVPL_VC") << st << tokEpl << "/connection/type"
                                               << QByteArray("\"EVPL_VC\"") << "$.connection.type"
                                               << "must be EPL_VC for an EPL_TOKEN";
        QTest::newRow("VD selector on A-side")
            << st << tokA << "/connection/aSide/accessPointSelectors/0"
            << QByteArray("{\"type\":\"VD\",\"virtualDevice\":{\"uuid\":\"20d32a80-0d61-4333-bc03-"
                          "707b591ae2f4\"}}")
            << sel0 + ".type"
            << "only be on a zSide token";
        QTest::newRow("NETWORK selector type mismatch")
            << st << tokNet << "/connection/zSide/accessPointSelectors/0/network/type"
            << QByteArray("\"EPLAN\"") << zsel0 + ".network.type"
            << "must be EVPLAN for an EVPLAN_VC token";
        QTest::newRow("NETWORK selector for EVPL_VC")
            << st << tokNet << "/connection/type" << QByteArray("\"EVPL_VC\"") << zsel0 + ".type"
            << "NETWORK selectors need connection type";
        QTest::newRow("COLO selector without port")
            << st << tokA << "/connection/aSide/accessPointSelectors/0/port" << rm << sel0 + ".port"
            << "required for a COLO selector";
        QTest::newRow("no selectors")
            << st << tokA << "/connection/aSide/accessPointSelectors" << QByteArray("[]")
            << "$.connection.aSide.accessPointSelectors"
            << "must have at least 1 item";
    }
    void rejected()
    {
        QFETCH(QString, changeType);
        QFETCH(QByteArray, base);
        QFETCH(QString, pointer);
        QFETCH(QByteArray, value);
        QFETCH(QString, path);
        QFETCH(QString, message);
        const ChangeType type = typeOf(changeType);
        // The base is valid; the mutation alone must cause the violation.
        QVERIFY(ChangeSpec::validate(type, parse(base)).isEmpty());
        const QJsonValue spec = mutated(base, pointer, value);
        const auto violations = ChangeSpec::validate(type, spec);
        QVERIFY2(hasViolation(violations, path, message),
                 qPrintable(QStringLiteral("expected %1: %2\n got: %3")
                                .arg(path, message, formatViolations(violations))));
        const CompileResult result = ChangeCompiler().compile(type, spec);
        QVERIFY(!result.ok());
        QCOMPARE(result.violations, violations);
    }

    void nonObjectSpec_data()
    {
        QTest::addColumn<QString>("changeType");
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("got");
        for (const auto &name : changeTypeNames()) {
            const QByteArray n = name.toLatin1();
            QTest::addRow("%s array", n.constData()) << name << QByteArray("[]") << "array";
            QTest::addRow("%s string", n.constData()) << name << QByteArray("\"spec\"") << "string";
            QTest::addRow("%s number", n.constData()) << name << QByteArray("1.5") << "number";
            QTest::addRow("%s null", n.constData()) << name << QByteArray("null") << "null";
            QTest::addRow("%s bool", n.constData()) << name << QByteArray("true") << "boolean";
        }
    }
    void nonObjectSpec()
    {
        QFETCH(QString, changeType);
        QFETCH(QByteArray, json);
        QFETCH(QString, got);
        const auto violations = ChangeSpec::validate(typeOf(changeType), parse(json));
        const QList<SpecViolation> expected = {
            {QStringLiteral("$"), QStringLiteral("must be an object (got %1)").arg(got)}};
        QCOMPARE(violations, expected);
        QVERIFY(!ChangeCompiler().compile(typeOf(changeType), parse(json)).ok());
        QVERIFY(!ChangeCompiler().compile(typeOf(changeType), QJsonValue()).ok());
    }

    void everyViolationIsReported()
    {
        QJsonValue spec = parse(fixtures::kConnPortToAwsDot1q);
        spec = setAt(spec, {"aSide", "accessPoint", "linkProtocol", "vlanTag"}, 1);
        spec = setAt(spec, {"notifications", "0", "emails", "1"}, QStringLiteral("nobody"));
        spec = setAt(spec, {"zSide", "accessPoint", "colour"}, QStringLiteral("blue"));
        spec = setAt(spec, {"name"}, QJsonValue(QJsonValue::Undefined));
        spec = setAt(spec, {"bandwidth"}, 100001);
        spec = setAt(spec, {"zSide", "accessPoint", "profile"}, QJsonValue(QJsonValue::Undefined));
        const auto violations = ChangeSpec::validate(ChangeType::ConnectionCreate, spec);
        const QStringList expectedPaths = {"$.aSide.accessPoint.linkProtocol.vlanTag",
                                           "$.notifications[0].emails[1]",
                                           "$.zSide.accessPoint.colour",
                                           "$.name",
                                           "$.bandwidth",
                                           "$.zSide.accessPoint.profile"};
        QStringList paths;
        for (const auto &v : violations)
            paths.append(v.path);
        for (const auto &p : expectedPaths)
            QVERIFY2(paths.contains(p),
                     qPrintable(p + " missing from " + formatViolations(violations)));
        QCOMPARE(violations.size(), expectedPaths.size());
        // No duplicates.
        for (qsizetype i = 0; i < violations.size(); ++i)
            QCOMPARE(violations.count(violations.at(i)), 1);
        const QString text = formatViolations(violations);
        QVERIFY(text.contains("$.bandwidth: must be an integer between 0 and 100000"));
        for (const auto &v : violations)
            QVERIFY(text.contains(v.path + ": " + v.message));
        QVERIFY(text.startsWith(violations.first().path + ": "));
    }

    void formatViolationsText()
    {
        QCOMPARE(formatViolations({}), QString());
        QCOMPARE(formatViolations({{"$.a", "x"}, {"$.b[0]", "y"}}), QString("$.a: x; $.b[0]: y"));
    }

    void compiledBodyIsCanonicalAndStable()
    {
        const QJsonValue spec = parse(fixtures::kNetEplanRegional);
        const QJsonValue permuted = parse(fixtures::kNetEplanRegionalPermuted);
        const QByteArray canonical = fixtures::kNetEplanRegionalCanonical;
        const ChangeCompiler compiler;
        const CompileResult a = compiler.compile(ChangeType::NetworkCreate, spec);
        const CompileResult b = compiler.compile(ChangeType::NetworkCreate, permuted);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(a.request->body, canonical);
        QCOMPARE(b.request->body, canonical);
        QCOMPARE(*a.request, *b.request);
        QCOMPARE(a.request->path, QString("/fabric/v4/networks"));
        QCOMPARE(a.request->method, QByteArray("POST"));
        QCOMPARE(canonicalizeText(a.request->body).value_or(QByteArray()), canonical);

        // The binding hash: sha256("network_create\n" + body), independent of member order.
        const QByteArray expectedHash =
            QCryptographicHash::hash(QByteArray("network_create\n" + canonical),
                                     QCryptographicHash::Sha256)
                .toHex();
        QCOMPARE(a.request->sha256Hex(), QString::fromLatin1(expectedHash));
        QCOMPARE(b.request->sha256Hex(), a.request->sha256Hex());
        QCOMPARE(a.request->sha256Hex(), requestSha256(ChangeType::NetworkCreate, canonical));

        // Any change to the spec changes the hash; so does the change type.
        const CompileResult c = compiler.compile(
            ChangeType::NetworkCreate, setAt(spec, {"location", "region"}, QStringLiteral("AMER")));
        QVERIFY(c.ok());
        QVERIFY(c.request->sha256Hex() != a.request->sha256Hex());
        QVERIFY(requestSha256(ChangeType::ConnectionCreate, canonical) != a.request->sha256Hex());
    }

    void compiledPathsPerType_data()
    {
        QTest::addColumn<QString>("changeType");
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("path");
        QTest::newRow("connection") << "connection_create" << QByteArray(fixtures::kConnPortToPort)
                                    << "/fabric/v4/connections";
        QTest::newRow("network") << "network_create" << QByteArray(fixtures::kNetEvplanGlobal)
                                 << "/fabric/v4/networks";
        QTest::newRow("token") << "service_token_create" << QByteArray(fixtures::kTokVcZSideVd)
                               << "/fabric/v4/serviceTokens";
    }
    void compiledPathsPerType()
    {
        QFETCH(QString, changeType);
        QFETCH(QByteArray, json);
        QFETCH(QString, path);
        const CompileResult r = ChangeCompiler().compile(typeOf(changeType), parse(json));
        QVERIFY(r.ok());
        QCOMPARE(r.request->path, path);
        QCOMPARE(r.request->toJson().value("body").toObject(), parse(json).toObject());
        // Wrong change type for a valid spec: rejected, not compiled.
        for (const auto &other : changeTypeNames()) {
            if (other != changeType)
                QVERIFY(!ChangeCompiler().compile(typeOf(other), parse(json)).ok());
        }
    }

    void bandwidthText_data()
    {
        QTest::addColumn<double>("mbps");
        QTest::addColumn<QString>("text");
        QTest::newRow("50") << 50.0 << "50 Mbps";
        QTest::newRow("0") << 0.0 << "0 Mbps";
        QTest::newRow("999") << 999.0 << "999 Mbps";
        QTest::newRow("1000") << 1000.0 << "1 Gbps";
        QTest::newRow("1500") << 1500.0 << "1500 Mbps";
        QTest::newRow("10000") << 10000.0 << "10 Gbps";
        QTest::newRow("100000") << 100000.0 << "100 Gbps";
    }
    void bandwidthText()
    {
        QFETCH(double, mbps);
        QFETCH(QString, text);
        QCOMPARE(ChangeSpec::bandwidthText(mbps), text);
    }

    void expiryIsCheckedAgainstAnInjectedNow()
    {
        const QJsonValue spec =
            parse(fixtures::kTokVcASideDot1q); // expires 2030-03-18T06:43:49.980Z
        const qint64 expiryMs =
            QDateTime(QDate(2030, 3, 18), QTime(6, 43, 49, 980), QTimeZone::utc())
                .toMSecsSinceEpoch();
        const auto type = ChangeType::ServiceTokenCreate;
        QVERIFY(ChangeSpec::validateTimes(type, spec, expiryMs - 1).isEmpty());
        const auto atExpiry = ChangeSpec::validateTimes(type, spec, expiryMs);
        QCOMPARE(atExpiry.size(), 1);
        QCOMPARE(atExpiry.first().path, QString("$.expirationDateTime"));
        QVERIFY(atExpiry.first().message.startsWith("must be in the future"));
        // The offset is honoured: 08:43:49+02:00 is 06:43:49Z.
        const QJsonValue offset =
            setAt(spec, {"expirationDateTime"}, QStringLiteral("2030-03-18T08:43:49+02:00"));
        QVERIFY(ChangeSpec::validateTimes(type, offset, expiryMs - 981).isEmpty());
        QCOMPARE(ChangeSpec::validateTimes(type, offset, expiryMs - 980).size(), 1);
        // Other types and malformed expiries (validate()'s job) yield nothing.
        QVERIFY(ChangeSpec::validateTimes(ChangeType::NetworkCreate, spec, expiryMs + 1).isEmpty());
        QVERIFY(
            ChangeSpec::validateTimes(type, setAt(spec, {"expirationDateTime"}, 5), 0).isEmpty());
        // validate() itself never depends on the time.
        QVERIFY(ChangeSpec::validate(type, setAt(spec, {"expirationDateTime"},
                                                 QStringLiteral("2001-01-01T00:00:00Z")))
                    .isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestChangeSpec)
#include "tst_changespec.moc"
