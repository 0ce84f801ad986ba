// The change specs' cross-field rules (core/ChangeSpecRules.h), one function per change type.
#include "core/ChangeSpecRules.h"

#include "core/JsonSchema.h"
#include "core/NameTable.h"

#include <QJsonArray>

namespace fb::ChangeSpec {

namespace {

// Cross-field rules. They run on the raw spec alongside the schema and must tolerate any JSON
// shape: wrong types are the schema's to report, so a rule simply skips what it cannot read.
// Each rule stays only with an Equinix source (listed in src/sandbox/CONTRACT.md, "The broker's
// cross-field rules"), and none may refuse an official request example inside the subset (the
// example walk, tests/e2e/contract/spec-examples.mjs, checks that).

QString child(const QString &path, const QString &key)
{
    return JsonSchema::childPath(path, key);
}

QString str(const QJsonObject &o, QStringView key)
{
    return o.value(key).toString();
}

class Rules {
public:
    explicit Rules(QList<SpecViolation> &out)
        : m_out(out)
    {
    }
    void add(const QString &path, const QString &message) { m_out.append({path, message}); }

    // DOT1Q: vlanTag only. QINQ: vlanSTag, optional vlanCTag. UNTAGGED: no tags.
    void linkProtocol(const QJsonObject &lp, const QString &path)
    {
        const QString type = str(lp, u"type");
        const auto need = [&](QStringView key) {
            if (!lp.contains(key))
                add(child(path, key.toString()), QStringLiteral("required for ") + type);
        };
        const auto forbid = [&](QStringView key) {
            if (lp.contains(key)) {
                add(child(path, key.toString()),
                    QStringLiteral("not allowed for ") + type +
                        (type == u"UNTAGGED" ? QStringLiteral(" (no VLAN tags)")
                         : type == u"DOT1Q"  ? QStringLiteral(" (use vlanTag)")
                                             : QStringLiteral(" (use vlanSTag and vlanCTag)")));
            }
        };
        if (type == u"DOT1Q") {
            need(u"vlanTag");
            forbid(u"vlanSTag");
            forbid(u"vlanCTag");
        } else if (type == u"QINQ") {
            need(u"vlanSTag");
            forbid(u"vlanTag");
        } else if (type == u"UNTAGGED") {
            forbid(u"vlanTag");
            forbid(u"vlanSTag");
            forbid(u"vlanCTag");
        }
    }

    // Fields an access point (or token selector) of a given type may and must carry.
    // Fields outside `known` are unknown to the schema, which reports them already.
    void fieldsForType(const QJsonObject &ap, const QString &path, const QStringList &known,
                       const QString &what, const QStringList &allowed, const QStringList &required)
    {
        for (auto it = ap.begin(); it != ap.end(); ++it) {
            if (known.contains(it.key()) && !allowed.contains(it.key())) {
                add(child(path, it.key()), QStringLiteral("not allowed for ") + what +
                                               QStringLiteral("; allowed: ") +
                                               allowed.join(QStringLiteral(", ")));
            }
        }
        for (const auto &key : required) {
            if (!ap.contains(key))
                add(child(path, key), QStringLiteral("required for ") + what);
        }
    }

private:
    QList<SpecViolation> &m_out;
};

bool isTaggedFamily(QStringView t)
{
    return t == u"EVPL_VC" || t == u"EVPLAN_VC" || t == u"EVPTREE_VC";
}
bool isPortBasedFamily(QStringView t)
{
    return t == u"EPL_VC" || t == u"EPLAN_VC" || t == u"EPTREE_VC" || t == u"ACCESS_EPL_VC";
}
bool isTreeType(QStringView t)
{
    return t == u"EVPTREE_VC" || t == u"EPTREE_VC";
}
// EVPLAN_VC -> EVPLAN etc.; empty for connection types that do not attach to a network.
QString networkTypeFor(QStringView connectionType)
{
    if (connectionType == u"EVPLAN_VC" || connectionType == u"EPLAN_VC" ||
        connectionType == u"EVPTREE_VC" || connectionType == u"EPTREE_VC")
        return connectionType.chopped(3).toString();
    return {};
}

const QStringList kAccessPointFields = {QStringLiteral("type"),
                                        QStringLiteral("port"),
                                        QStringLiteral("linkProtocol"),
                                        QStringLiteral("location"),
                                        QStringLiteral("profile"),
                                        QStringLiteral("sellerRegion"),
                                        QStringLiteral("authenticationKey"),
                                        QStringLiteral("peeringType"),
                                        QStringLiteral("network"),
                                        QStringLiteral("role"),
                                        QStringLiteral("virtualDevice"),
                                        QStringLiteral("interface")};
const QStringList kSelectorFields = {
    QStringLiteral("type"),          QStringLiteral("port"),      QStringLiteral("linkProtocol"),
    QStringLiteral("virtualDevice"), QStringLiteral("interface"), QStringLiteral("network")};

const QString kNetworkConnectionTypes =
    QStringLiteral("EVPLAN_VC, EPLAN_VC, EVPTREE_VC or EPTREE_VC");

// linkProtocol rules of a COLO port by connection type (connections and token selectors alike).
// An access point or a token selector: its type, the path of its type, and what the messages call
// it ("a COLO access point").
struct TypedSide {
    QString type;
    QString typePath;
    QString what;
};

TypedSide typedSide(const QJsonObject &o, const QString &path, const QString &noun)
{
    const QString type = str(o, u"type");
    return {type, child(path, QStringLiteral("type")), QStringLiteral("a ") + type + noun};
}

void coloLinkProtocol(Rules &rules, const QJsonObject &ap, const QString &path,
                      const QString &connType)
{
    const QString lpPath = child(path, QStringLiteral("linkProtocol"));
    const QJsonValue lpValue = ap.value(u"linkProtocol");
    if (lpValue.isUndefined()) {
        if (isTaggedFamily(connType)) {
            rules.add(lpPath, QStringLiteral("required for a COLO port of an ") + connType +
                                  QStringLiteral(" connection (DOT1Q, QINQ or UNTAGGED)"));
        }
        return;
    }
    const QJsonObject lp = lpValue.toObject();
    const QString lpType = str(lp, u"type");
    if (connType == u"ACCESS_EPL_VC") {
        if (!lpType.isEmpty() && lpType != u"QINQ") {
            rules.add(child(lpPath, QStringLiteral("type")),
                      QStringLiteral("must be QINQ (with vlanSTag only) for ACCESS_EPL_VC, or omit "
                                     "linkProtocol"));
        } else if (lp.contains(u"vlanCTag")) {
            rules.add(child(lpPath, QStringLiteral("vlanCTag")),
                      QStringLiteral("not allowed for ACCESS_EPL_VC (only vlanSTag)"));
        }
    } else if (isPortBasedFamily(connType) && !lpType.isEmpty() && lpType != u"UNTAGGED") {
        rules.add(child(lpPath, QStringLiteral("type")),
                  connType + QStringLiteral(" uses the whole port: omit linkProtocol or use "
                                            "UNTAGGED"));
    }
    rules.linkProtocol(lp, lpPath);
}

void connectionAccessPoint(Rules &rules, const QJsonObject &ap, const QString &path, bool isASide,
                           const QString &connType)
{
    const auto [apType, typePath, what] = typedSide(ap, path, QStringLiteral(" access point"));
    if (apType == u"COLO") {
        rules.fieldsForType(ap, path, kAccessPointFields, what,
                            {QStringLiteral("type"), QStringLiteral("port"),
                             QStringLiteral("linkProtocol"), QStringLiteral("location")},
                            {QStringLiteral("port")});
        coloLinkProtocol(rules, ap, path, connType);
    } else if (apType == u"SP") {
        rules.fieldsForType(ap, path, kAccessPointFields, what,
                            {QStringLiteral("type"), QStringLiteral("profile"),
                             QStringLiteral("location"), QStringLiteral("sellerRegion"),
                             QStringLiteral("authenticationKey"), QStringLiteral("peeringType")},
                            // No location required: the spec's Vd2Sp-Primary has none (the
                            // metro follows from the other side).
                            {QStringLiteral("profile")});
        if (isASide)
            rules.add(typePath, QStringLiteral("a service profile (SP) can only be on the zSide"));
        else if (!connType.isEmpty() && connType != u"EVPL_VC")
            rules.add(typePath, QStringLiteral("SP access points need connection type EVPL_VC"));
    } else if (apType == u"NETWORK") {
        QStringList allowed = {QStringLiteral("type"), QStringLiteral("network")};
        QStringList required = {QStringLiteral("network")};
        if (isTreeType(connType)) {
            allowed.append(QStringLiteral("role"));
            required.append(QStringLiteral("role"));
        }
        rules.fieldsForType(ap, path, kAccessPointFields,
                            isTreeType(connType) ? what : what + QStringLiteral(" outside E-Tree"),
                            allowed, required);
        if (isASide)
            rules.add(typePath, QStringLiteral("a NETWORK access point can only be on the zSide"));
        else if (!connType.isEmpty() && networkTypeFor(connType).isEmpty())
            rules.add(typePath, QStringLiteral("NETWORK access points need connection type ") +
                                    kNetworkConnectionTypes);
    } else if (apType == u"VD") {
        // location is allowed: the spec's Vd2Colo-WithGeoScope gives the device's metro.
        rules.fieldsForType(ap, path, kAccessPointFields, what,
                            {QStringLiteral("type"), QStringLiteral("virtualDevice"),
                             QStringLiteral("interface"), QStringLiteral("location")},
                            {QStringLiteral("virtualDevice")});
        if (isPortBasedFamily(connType))
            rules.add(typePath, QStringLiteral("a virtual device cannot be on a port-based ") +
                                    connType + QStringLiteral(" connection"));
    }
    if (!isASide && !networkTypeFor(connType).isEmpty() && !apType.isEmpty() &&
        apType != u"NETWORK") {
        rules.add(typePath, QStringLiteral("must be NETWORK for an ") + connType +
                                QStringLiteral(" connection (or use a zSide serviceToken)"));
    }
}

void connectionRules(Rules &rules, const QJsonObject &spec)
{
    const QString connType = str(spec, u"type");
    for (const bool isASide : {true, false}) {
        const QString sideName = isASide ? QStringLiteral("aSide") : QStringLiteral("zSide");
        const QJsonValue sideValue = spec.value(sideName);
        if (!sideValue.isObject())
            continue;
        const QJsonObject side = sideValue.toObject();
        const QString sidePath = child(QStringLiteral("$"), sideName);
        const bool hasAccessPoint = side.contains(u"accessPoint");
        const bool hasToken = side.contains(u"serviceToken");
        if (hasAccessPoint && hasToken) {
            rules.add(sidePath,
                      QStringLiteral("give exactly one of accessPoint or serviceToken, not both"));
        } else if (!hasAccessPoint && !hasToken) {
            rules.add(sidePath, QStringLiteral("needs accessPoint or serviceToken"));
        }
        const QJsonValue ap = side.value(u"accessPoint");
        if (ap.isObject()) {
            connectionAccessPoint(rules, ap.toObject(),
                                  child(sidePath, QStringLiteral("accessPoint")), isASide,
                                  connType);
        }
    }
}

// Networks: no cross-field rules. NetworkPostRequest (Fabric v4.31) requires name,
// notifications, scope and type, and documents no tie between scope and location: the spec's
// own Create-Local-*-Network examples have no location. Rules that were here (REGIONAL needs
// location.region, GLOBAL and LOCAL restrictions) had no Equinix source and were removed.
void networkRules(Rules &, const QJsonObject &) {}

void tokenSelector(Rules &rules, const QJsonObject &sel, const QString &path, bool isASide,
                   const QString &connType)
{
    const auto [selType, typePath, what] = typedSide(sel, path, QStringLiteral(" selector"));
    if (selType == u"COLO") {
        rules.fieldsForType(
            sel, path, kSelectorFields, what,
            {QStringLiteral("type"), QStringLiteral("port"), QStringLiteral("linkProtocol")},
            {QStringLiteral("port")});
        coloLinkProtocol(rules, sel, path, connType);
    } else if (selType == u"VD") {
        rules.fieldsForType(
            sel, path, kSelectorFields, what,
            {QStringLiteral("type"), QStringLiteral("virtualDevice"), QStringLiteral("interface")},
            {QStringLiteral("virtualDevice")});
        if (isASide)
            rules.add(typePath, QStringLiteral("a VD selector can only be on a zSide token"));
        if (isPortBasedFamily(connType))
            rules.add(typePath, QStringLiteral("a virtual device cannot be on a port-based ") +
                                    connType + QStringLiteral(" connection"));
    } else if (selType == u"NETWORK") {
        rules.fieldsForType(sel, path, kSelectorFields, what,
                            {QStringLiteral("type"), QStringLiteral("network")},
                            {QStringLiteral("network")});
        const QString expected = networkTypeFor(connType);
        if (isASide) {
            rules.add(typePath, QStringLiteral("a NETWORK selector can only be on a zSide token"));
        } else if (!connType.isEmpty() && expected.isEmpty()) {
            rules.add(typePath, QStringLiteral("NETWORK selectors need connection type ") +
                                    kNetworkConnectionTypes);
        }
        const QJsonObject network = sel.value(u"network").toObject();
        const QString networkType = str(network, u"type");
        if (!expected.isEmpty() && !networkType.isEmpty() && networkType != expected) {
            rules.add(child(child(path, QStringLiteral("network")), QStringLiteral("type")),
                      QStringLiteral("must be ") + expected + QStringLiteral(" for an ") +
                          connType + QStringLiteral(" token"));
        }
    }
    if (!isASide && !networkTypeFor(connType).isEmpty() && !selType.isEmpty() &&
        selType != u"NETWORK") {
        rules.add(typePath,
                  QStringLiteral("must be NETWORK for an ") + connType + QStringLiteral(" token"));
    }
}

void serviceTokenRules(Rules &rules, const QJsonObject &spec)
{
    const QJsonValue connValue = spec.value(u"connection");
    if (!connValue.isObject())
        return;
    const QJsonObject conn = connValue.toObject();
    const QString connPath = QStringLiteral("$.connection");
    const QString connType = str(conn, u"type");
    if (str(spec, u"type") == u"EPL_TOKEN" && !connType.isEmpty() && connType != u"EPL_VC")
        rules.add(child(connPath, QStringLiteral("type")),
                  QStringLiteral("must be EPL_VC for an EPL_TOKEN"));

    const bool hasA = conn.contains(u"aSide");
    const bool hasZ = conn.contains(u"zSide");
    if (hasA && hasZ) {
        rules.add(connPath, QStringLiteral("give exactly one of aSide (a token for your port, with "
                                           "bandwidthLimit) or zSide (a token others connect to, "
                                           "with supportedBandwidths), not both"));
    } else if (!hasA && !hasZ) {
        rules.add(connPath, QStringLiteral("needs aSide (with bandwidthLimit) or zSide (with "
                                           "supportedBandwidths)"));
    }
    // The one side given decides which bandwidth field the token needs and which it must not have.
    const auto sideBandwidth = [&](const QString &token, const QString &needed,
                                   const QString &wrong) {
        if (!conn.contains(needed))
            rules.add(child(connPath, needed), QStringLiteral("required for %1 token").arg(token));
        if (conn.contains(wrong))
            rules.add(child(connPath, wrong),
                      QStringLiteral("not allowed for %1 token (use %2)").arg(token, needed));
    };
    if (hasA && !hasZ)
        sideBandwidth(QStringLiteral("an A-side"), QStringLiteral("bandwidthLimit"),
                      QStringLiteral("supportedBandwidths"));
    if (hasZ && !hasA)
        sideBandwidth(QStringLiteral("a Z-side"), QStringLiteral("supportedBandwidths"),
                      QStringLiteral("bandwidthLimit"));
    for (const bool isASide : {true, false}) {
        const QString sideName = isASide ? QStringLiteral("aSide") : QStringLiteral("zSide");
        const QJsonArray selectors =
            conn.value(sideName).toObject().value(u"accessPointSelectors").toArray();
        const QString selectorsPath =
            child(child(connPath, sideName), QStringLiteral("accessPointSelectors"));
        for (qsizetype i = 0; i < selectors.size(); ++i) {
            if (selectors.at(i).isObject()) {
                tokenSelector(rules, selectors.at(i).toObject(),
                              JsonSchema::indexPath(selectorsPath, i), isASide, connType);
            }
        }
    }
}

// The cross-field rules of each change type, beyond its JSON schema.
struct RulesRow {
    ChangeType value;
    void (*apply)(Rules &, const QJsonObject &);
};
constexpr RulesRow kRules[] = {
    {ChangeType::ConnectionCreate, connectionRules},
    {ChangeType::NetworkCreate, networkRules},
    {ChangeType::ServiceTokenCreate, serviceTokenRules},
};

} // namespace

void addCrossFieldViolations(ChangeType type, const QJsonObject &spec, QList<SpecViolation> *out)
{
    Rules rules(*out);
    if (const RulesRow *row = findRow(kRules, type))
        row->apply(rules, spec);
}

} // namespace fb::ChangeSpec
