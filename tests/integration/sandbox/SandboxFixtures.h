#pragma once
// Request bodies for the sandbox tests (kept out of the Q_OBJECT file: moc in Qt 6.4 cannot
// read raw string literals).
#include "sandbox/SandboxIds.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <functional>

namespace fixtures {

inline QJsonObject parse(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

inline QString id(QLatin1String s)
{
    return QString(s);
}

// EVPL from the SV primary port (VLAN 777, free) to the AWS-like profile in SV.
inline QJsonObject cloudConnection()
{
    QJsonObject body = parse(R"({
      "type": "EVPL_VC",
      "name": "test-aws-sv",
      "bandwidth": 100,
      "notifications": [{"type": "ALL", "emails": ["noc@example.com"]}],
      "order": {"purchaseOrderNumber": "PO-1"},
      "aSide": {"accessPoint": {"type": "COLO", "port": {"uuid": "PORT"},
                                "linkProtocol": {"type": "DOT1Q", "vlanTag": 777}}},
      "zSide": {"accessPoint": {"type": "SP", "profile": {"uuid": "PROFILE"},
                                "location": {"metroCode": "SV"}, "sellerRegion": "us-west-1",
                                "authenticationKey": "123456789012"}}
    })");
    QJsonObject a = body["aSide"].toObject();
    QJsonObject ap = a["accessPoint"].toObject();
    ap["port"] = QJsonObject{{"uuid", id(fb::SandboxIds::PortSvPrimary)}};
    a["accessPoint"] = ap;
    body["aSide"] = a;
    QJsonObject z = body["zSide"].toObject();
    QJsonObject zap = z["accessPoint"].toObject();
    zap["profile"] = QJsonObject{{"uuid", id(fb::SandboxIds::ProfileAwsDirectConnect)}};
    z["accessPoint"] = zap;
    body["zSide"] = z;
    return body;
}

// Sets a nested member by a dotted path ("zSide.accessPoint.location.metroCode"); an undefined
// value removes it.
inline void setAt(QJsonObject &root, const QString &path, const QJsonValue &value)
{
    const QStringList parts = path.split('.');
    std::function<void(QJsonObject &, int)> go = [&](QJsonObject &o, int i) {
        if (i == parts.size() - 1) {
            if (value.isUndefined())
                o.remove(parts[i]);
            else
                o[parts[i]] = value;
            return;
        }
        QJsonObject child = o[parts[i]].toObject();
        go(child, i + 1);
        o[parts[i]] = child;
    };
    go(root, 0);
}

inline QJsonObject network()
{
    return parse(R"({
      "type": "EVPLAN", "name": "test-net", "scope": "REGIONAL",
      "location": {"region": "EMEA"},
      "project": {"projectId": "sandbox-project"},
      "notifications": [{"type": "ALL", "emails": ["noc@example.com"]}]
    })");
}

inline QJsonObject serviceToken()
{
    QJsonObject body = parse(R"({
      "type": "VC_TOKEN", "name": "test-token", "expirationDateTime": "2035-01-01T00:00:00Z",
      "notifications": [{"type": "ALL", "emails": ["noc@example.com"]}],
      "connection": {"type": "EVPL_VC", "bandwidthLimit": 500,
        "aSide": {"accessPointSelectors": [{"type": "COLO", "port": {"uuid": "PORT"},
                   "linkProtocol": {"type": "DOT1Q", "vlanTag": 888}}]}}
    })");
    QJsonObject c = body["connection"].toObject();
    QJsonObject a = c["aSide"].toObject();
    QJsonArray sel = a["accessPointSelectors"].toArray();
    QJsonObject s = sel[0].toObject();
    s["port"] = QJsonObject{{"uuid", id(fb::SandboxIds::PortDc)}};
    sel[0] = s;
    a["accessPointSelectors"] = sel;
    c["aSide"] = a;
    body["connection"] = c;
    return body;
}

inline QJsonObject priceSearch(const char *bandwidthValuesJson, const char *zMetro)
{
    QJsonObject body = parse(R"({"filter": {"and": [
      {"property": "/type", "operator": "=", "values": ["VIRTUAL_CONNECTION_PRODUCT"]},
      {"property": "/connection/type", "operator": "=", "values": ["EVPL_VC"]},
      {"property": "/connection/aSide/accessPoint/type", "operator": "=", "values": ["COLO"]},
      {"property": "/connection/aSide/accessPoint/location/metroCode", "operator": "=", "values": ["SV"]},
      {"property": "/connection/aSide/accessPoint/port/settings/buyout", "operator": "=", "values": ["false"]},
      {"property": "/connection/zSide/accessPoint/type", "operator": "=", "values": ["SP"]}
    ]}})");
    QJsonObject filter = body["filter"].toObject();
    QJsonArray terms = filter["and"].toArray();
    terms.append(QJsonObject{{"property", "/connection/bandwidth"},
                             {"operator", "IN"},
                             {"values", QJsonDocument::fromJson(bandwidthValuesJson).array()}});
    terms.append(QJsonObject{{"property", "/connection/zSide/accessPoint/location/metroCode"},
                             {"operator", "="},
                             {"values", QJsonArray{QString::fromLatin1(zMetro)}}});
    filter["and"] = terms;
    body["filter"] = filter;
    return body;
}

} // namespace fixtures
