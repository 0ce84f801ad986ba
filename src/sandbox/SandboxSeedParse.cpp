// SandboxSeed::parse(): the strict reader of the seed document (resources/sandbox/estate.json).
#include "sandbox/SandboxSeed.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QUuid>

#include <cmath>
#include <initializer_list>

// Q_INIT_RESOURCE declares an extern function, so it must be used outside namespace fb. The
// sandbox is a static library, where the resource's static initializer would otherwise be dropped
// by the linker.
static void fbInitSandboxResources()
{
    Q_INIT_RESOURCE(sandbox);
}

namespace fb::SandboxSeed {

using namespace Qt::StringLiterals;

namespace {

constexpr QLatin1String Format{"fabric-broker-sandbox-estate/1"};
constexpr QLatin1String ResourcePath{":/fabric-broker/sandbox/estate.json"};

enum class Type { String, Int, Number, Bool, Object, Array };

struct Field {
    const char *name;
    Type type;
    bool required = true;
};

constexpr const char *TypeNames[] = {"a string",  "an integer", "a number",
                                     "a boolean", "an object",  "an array"};

// Checks values and remembers the first failure as "<path>: <why>"; every check returns false
// once anything failed, so callers can stop at the first false.
class Checker {
public:
    QString error;

    bool fail(const QString &path, const QString &why)
    {
        if (error.isEmpty())
            error = (path.isEmpty() ? u"/"_s : path) + u": "_s + why;
        return false;
    }

    bool type(const QJsonValue &v, const QString &path, Type t)
    {
        const double d = v.toDouble();
        const bool ok = t == Type::String ? v.isString()
                        : t == Type::Int ? v.isDouble() && std::isfinite(d) && d == std::trunc(d) &&
                                               std::fabs(d) <= 2e9
                        : t == Type::Number ? v.isDouble() && std::isfinite(d)
                        : t == Type::Bool   ? v.isBool()
                        : t == Type::Object ? v.isObject()
                                            : v.isArray();
        if (!ok)
            return fail(path, u"must be "_s + QLatin1String(TypeNames[static_cast<int>(t)]));
        if (t == Type::String && (v.toString().isEmpty() || v.toString().size() > MaxStringLength))
            return fail(path, u"must be 1 to %1 characters"_s.arg(MaxStringLength));
        if (t == Type::Array && v.toArray().size() > MaxItems)
            return fail(path, u"has more than %1 items"_s.arg(MaxItems));
        return error.isEmpty();
    }

    // v is an object with exactly the listed fields (optional ones may be absent), typed.
    bool object(const QJsonValue &v, const QString &path, std::initializer_list<Field> fields)
    {
        if (!type(v, path, Type::Object))
            return false;
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            bool known = false;
            for (const Field &f : fields)
                known = known || it.key() == QLatin1String(f.name);
            if (!known)
                return fail(path + u'/' + it.key(), u"is not a known field"_s);
        }
        for (const Field &f : fields) {
            const QString key = QLatin1String(f.name);
            if (!o.contains(key)) {
                if (f.required)
                    return fail(path + u'/' + key, u"is missing"_s);
                continue;
            }
            if (!type(o.value(key), path + u'/' + key, f.type))
                return false;
        }
        return true;
    }

    bool intIn(const QJsonValue &v, const QString &path, int lo, int hi)
    {
        const int n = v.toInt();
        return (n >= lo && n <= hi) || fail(path, u"must be between %1 and %2"_s.arg(lo).arg(hi));
    }

    bool oneOf(const QJsonValue &v, const QString &path,
               std::initializer_list<const char *> allowed)
    {
        QStringList names;
        for (const char *a : allowed) {
            if (v.toString() == QLatin1String(a))
                return true;
            names << QLatin1String(a);
        }
        return fail(path, u"must be one of "_s + names.join(u", "_s));
    }

    // A canonical UUID (lower case, no braces) not used by anything else in the document.
    bool uuid(const QJsonValue &v, const QString &path, QSet<QString> *seen)
    {
        const QString s = v.toString();
        if (QUuid::fromString(s).toString(QUuid::WithoutBraces) != s)
            return fail(path, u"must be a lower-case UUID"_s);
        return unique(s, path, seen);
    }

    bool unique(const QString &key, const QString &path, QSet<QString> *seen)
    {
        if (seen->contains(key))
            return fail(path, u"\"%1\" is already used"_s.arg(key));
        seen->insert(key);
        return true;
    }

    bool known(const QString &key, const QString &path, const QSet<QString> &keys, const char *what)
    {
        return keys.contains(key) ||
               fail(path, u"unknown %1 \"%2\""_s.arg(QLatin1String(what), key));
    }
};

QString at(const QString &path, qsizetype i)
{
    return path + u'/' + QString::number(i);
}

// What later items refer to.
struct Seen {
    QSet<QString> uuids, metros, ports, portIds, rates;
    QHash<QString, QHash<QString, QSet<QString>>> profileRegions; // profile -> metro -> regions
};

bool checkMetros(Checker &c, const QJsonArray &metros, Seen &seen)
{
    for (qsizetype i = 0; i < metros.size(); ++i) {
        const QString p = at(u"/metros"_s, i);
        const QJsonObject m = metros.at(i).toObject();
        if (!c.object(metros.at(i), p,
                      {{"code", Type::String},
                       {"name", Type::String},
                       {"region", Type::String},
                       {"country", Type::String},
                       {"latitude", Type::Number},
                       {"longitude", Type::Number},
                       {"geoScope", Type::String, false}}) ||
            !c.oneOf(m.value(u"region"_s), p + u"/region"_s, {"AMER", "EMEA", "APAC"}) ||
            !c.unique(m.value(u"code"_s).toString(), p + u"/code"_s, &seen.metros))
            return false;
        if (std::fabs(m.value(u"latitude"_s).toDouble()) > 90)
            return c.fail(p + u"/latitude"_s, u"must be between -90 and 90"_s);
        if (std::fabs(m.value(u"longitude"_s).toDouble()) > 180)
            return c.fail(p + u"/longitude"_s, u"must be between -180 and 180"_s);
    }
    return true;
}

bool checkPorts(Checker &c, const QJsonArray &ports, Seen &seen)
{
    for (qsizetype i = 0; i < ports.size(); ++i) {
        const QString p = at(u"/ports"_s, i);
        const QJsonObject o = ports.at(i).toObject();
        if (!c.object(ports.at(i), p,
                      {{"uuid", Type::String},
                       {"id", Type::Int},
                       {"name", Type::String},
                       {"metro", Type::String},
                       {"ibx", Type::String},
                       {"encapsulation", Type::String},
                       {"speedMbps", Type::Int},
                       {"priority", Type::String}}) ||
            !c.uuid(o.value(u"uuid"_s), p + u"/uuid"_s, &seen.uuids) ||
            !c.intIn(o.value(u"id"_s), p + u"/id"_s, 1, 999999999) ||
            !c.unique(QString::number(o.value(u"id"_s).toInt()), p + u"/id"_s, &seen.portIds) ||
            !c.known(o.value(u"metro"_s).toString(), p + u"/metro"_s, seen.metros, "metro") ||
            !c.oneOf(o.value(u"encapsulation"_s), p + u"/encapsulation"_s, {"DOT1Q", "QINQ"}) ||
            !c.intIn(o.value(u"speedMbps"_s), p + u"/speedMbps"_s, 1, 400000) ||
            !c.oneOf(o.value(u"priority"_s), p + u"/priority"_s, {"PRIMARY", "SECONDARY"}))
            return false;
        seen.ports.insert(o.value(u"uuid"_s).toString());
    }
    return true;
}

bool checkBandwidths(Checker &c, const QJsonValue &v, const QString &path)
{
    const QJsonArray a = v.toArray();
    if (a.isEmpty())
        return c.fail(path, u"must list at least one bandwidth"_s);
    for (qsizetype i = 0; i < a.size(); ++i) {
        if (!c.type(a.at(i), at(path, i), Type::Int) || !c.intIn(a.at(i), at(path, i), 1, 400000))
            return false;
    }
    return true;
}

bool checkProfiles(Checker &c, const QJsonArray &profiles, Seen &seen)
{
    for (qsizetype i = 0; i < profiles.size(); ++i) {
        const QString p = at(u"/serviceProfiles"_s, i);
        const QJsonObject o = profiles.at(i).toObject();
        if (!c.object(profiles.at(i), p,
                      {{"uuid", Type::String},
                       {"name", Type::String},
                       {"organization", Type::String},
                       {"description", Type::String},
                       {"tag", Type::String},
                       {"bandwidths", Type::Array},
                       {"authenticationKey", Type::Object},
                       {"metros", Type::Array}}) ||
            !c.uuid(o.value(u"uuid"_s), p + u"/uuid"_s, &seen.uuids) ||
            !checkBandwidths(c, o.value(u"bandwidths"_s), p + u"/bandwidths"_s) ||
            !c.object(o.value(u"authenticationKey"_s), p + u"/authenticationKey"_s,
                      {{"required", Type::Bool}, {"label", Type::String}}))
            return false;
        auto &regionsByMetro = seen.profileRegions[o.value(u"uuid"_s).toString()];
        const QJsonArray metros = o.value(u"metros"_s).toArray();
        if (metros.isEmpty())
            return c.fail(p + u"/metros"_s, u"must list at least one metro"_s);
        for (qsizetype j = 0; j < metros.size(); ++j) {
            const QString mp = at(p + u"/metros"_s, j);
            const QJsonObject m = metros.at(j).toObject();
            const QString code = m.value(u"code"_s).toString();
            if (!c.object(metros.at(j), mp,
                          {{"code", Type::String}, {"sellerRegions", Type::Object, false}}) ||
                !c.known(code, mp + u"/code"_s, seen.metros, "metro"))
                return false;
            if (regionsByMetro.contains(code))
                return c.fail(mp + u"/code"_s, u"\"%1\" is already listed"_s.arg(code));
            QSet<QString> &regions = regionsByMetro[code];
            const QJsonObject sellerRegions = m.value(u"sellerRegions"_s).toObject();
            for (auto it = sellerRegions.begin(); it != sellerRegions.end(); ++it) {
                const QString rp = mp + u"/sellerRegions/"_s + it.key();
                if (it.key().isEmpty() || it.key().size() > MaxStringLength)
                    return c.fail(
                        rp, u"a seller region must be 1 to %1 characters"_s.arg(MaxStringLength));
                if (!c.type(it.value(), rp, Type::String))
                    return false;
                regions.insert(it.key());
            }
        }
    }
    return true;
}

bool checkRouters(Checker &c, const QJsonArray &routers, Seen &seen)
{
    for (qsizetype i = 0; i < routers.size(); ++i) {
        const QString p = at(u"/routers"_s, i);
        const QJsonObject o = routers.at(i).toObject();
        if (!c.object(routers.at(i), p,
                      {{"uuid", Type::String},
                       {"name", Type::String},
                       {"metro", Type::String},
                       {"package", Type::String}}) ||
            !c.uuid(o.value(u"uuid"_s), p + u"/uuid"_s, &seen.uuids) ||
            !c.known(o.value(u"metro"_s).toString(), p + u"/metro"_s, seen.metros, "metro") ||
            !c.oneOf(o.value(u"package"_s), p + u"/package"_s,
                     {"LAB", "BASIC", "STANDARD", "ADVANCED", "PREMIUM"}))
            return false;
    }
    return true;
}

bool checkNetworks(Checker &c, const QJsonArray &networks, Seen &seen)
{
    for (qsizetype i = 0; i < networks.size(); ++i) {
        const QString p = at(u"/networks"_s, i);
        const QJsonObject o = networks.at(i).toObject();
        if (!c.object(networks.at(i), p,
                      {{"uuid", Type::String},
                       {"name", Type::String},
                       {"type", Type::String},
                       {"scope", Type::String},
                       {"region", Type::String, false}}) ||
            !c.uuid(o.value(u"uuid"_s), p + u"/uuid"_s, &seen.uuids) ||
            !c.oneOf(o.value(u"type"_s), p + u"/type"_s,
                     {"EVPLAN", "EPLAN", "IPWAN", "EVPTREE", "EPTREE"}) ||
            !c.oneOf(o.value(u"scope"_s), p + u"/scope"_s, {"GLOBAL", "REGIONAL", "LOCAL"}))
            return false;
        if (o.contains(u"region"_s) &&
            !c.oneOf(o.value(u"region"_s), p + u"/region"_s, {"AMER", "EMEA", "APAC"}))
            return false;
    }
    return true;
}

bool checkTokens(Checker &c, const QJsonArray &tokens, Seen &seen)
{
    for (qsizetype i = 0; i < tokens.size(); ++i) {
        const QString p = at(u"/serviceTokens"_s, i);
        const QJsonObject o = tokens.at(i).toObject();
        if (!c.object(tokens.at(i), p,
                      {{"uuid", Type::String},
                       {"name", Type::String},
                       {"state", Type::String},
                       {"expirationDateTime", Type::String},
                       {"port", Type::String},
                       {"vlanTag", Type::Int}}) ||
            !c.uuid(o.value(u"uuid"_s), p + u"/uuid"_s, &seen.uuids) ||
            !c.oneOf(o.value(u"state"_s), p + u"/state"_s,
                     {"ACTIVE", "INACTIVE", "EXPIRED", "DELETED"}) ||
            !c.known(o.value(u"port"_s).toString(), p + u"/port"_s, seen.ports, "port") ||
            !c.intIn(o.value(u"vlanTag"_s), p + u"/vlanTag"_s, 1, 4094))
            return false;
    }
    return true;
}

bool checkLinkProtocol(Checker &c, const QJsonValue &v, const QString &p)
{
    if (!c.type(v, p, Type::Object) || !c.type(v[u"type"_s], p + u"/type"_s, Type::String) ||
        !c.oneOf(v[u"type"_s], p + u"/type"_s, {"DOT1Q", "QINQ"}))
        return false;
    if (v[u"type"_s].toString() == "QINQ"_L1)
        return c.object(
                   v, p,
                   {{"type", Type::String}, {"vlanSTag", Type::Int}, {"vlanCTag", Type::Int}}) &&
               c.intIn(v[u"vlanSTag"_s], p + u"/vlanSTag"_s, 1, 4094) &&
               c.intIn(v[u"vlanCTag"_s], p + u"/vlanCTag"_s, 1, 4094);
    return c.object(v, p, {{"type", Type::String}, {"vlanTag", Type::Int}}) &&
           c.intIn(v[u"vlanTag"_s], p + u"/vlanTag"_s, 1, 4094);
}

bool checkAccessPoint(Checker &c, const QJsonValue &v, const QString &p, const Seen &seen)
{
    if (!c.type(v, p, Type::Object) || !c.type(v[u"type"_s], p + u"/type"_s, Type::String) ||
        !c.oneOf(v[u"type"_s], p + u"/type"_s, {"COLO", "SP"}))
        return false;
    if (v[u"type"_s].toString() == "SP"_L1) {
        if (!c.object(v, p,
                      {{"type", Type::String},
                       {"profile", Type::String},
                       {"metro", Type::String},
                       {"sellerRegion", Type::String}}))
            return false;
        const auto profile = seen.profileRegions.constFind(v[u"profile"_s].toString());
        if (profile == seen.profileRegions.cend())
            return c.fail(p + u"/profile"_s,
                          u"unknown service profile \"%1\""_s.arg(v[u"profile"_s].toString()));
        const QString metro = v[u"metro"_s].toString();
        if (!profile->contains(metro))
            return c.fail(p + u"/metro"_s, u"the profile is not offered in \"%1\""_s.arg(metro));
        const QSet<QString> regions = profile->value(metro);
        return regions.contains(v[u"sellerRegion"_s].toString()) ||
               c.fail(p + u"/sellerRegion"_s,
                      u"the profile has no seller region \"%1\" in %2"_s.arg(
                          v[u"sellerRegion"_s].toString(), metro));
    }
    return c.object(
               v, p,
               {{"type", Type::String}, {"port", Type::String}, {"linkProtocol", Type::Object}}) &&
           c.known(v[u"port"_s].toString(), p + u"/port"_s, seen.ports, "port") &&
           checkLinkProtocol(c, v[u"linkProtocol"_s], p + u"/linkProtocol"_s);
}

bool checkConnections(Checker &c, const QJsonArray &connections, Seen &seen)
{
    for (qsizetype i = 0; i < connections.size(); ++i) {
        const QString p = at(u"/connections"_s, i);
        const QJsonObject o = connections.at(i).toObject();
        if (!c.object(connections.at(i), p,
                      {{"uuid", Type::String},
                       {"name", Type::String},
                       {"bandwidth", Type::Int},
                       {"aSide", Type::Object},
                       {"zSide", Type::Object},
                       {"redundancyGroup", Type::String},
                       {"priority", Type::String},
                       {"createdDay", Type::Int}}) ||
            !c.uuid(o.value(u"uuid"_s), p + u"/uuid"_s, &seen.uuids) ||
            !c.intIn(o.value(u"bandwidth"_s), p + u"/bandwidth"_s, 1, 400000) ||
            !checkAccessPoint(c, o.value(u"aSide"_s), p + u"/aSide"_s, seen) ||
            !checkAccessPoint(c, o.value(u"zSide"_s), p + u"/zSide"_s, seen) ||
            !c.oneOf(o.value(u"priority"_s), p + u"/priority"_s, {"PRIMARY", "SECONDARY"}) ||
            !c.intIn(o.value(u"createdDay"_s), p + u"/createdDay"_s, 1, 30))
            return false;
    }
    return true;
}

bool checkRates(Checker &c, const QJsonArray &rates, Seen &seen)
{
    for (qsizetype i = 0; i < rates.size(); ++i) {
        const QString p = at(u"/rateCard"_s, i);
        const QJsonObject o = rates.at(i).toObject();
        if (!c.object(rates.at(i), p,
                      {{"bandwidthMbps", Type::Int}, {"monthlyUsd", Type::Number}}) ||
            !c.intIn(o.value(u"bandwidthMbps"_s), p + u"/bandwidthMbps"_s, 1, 400000) ||
            !c.unique(QString::number(o.value(u"bandwidthMbps"_s).toInt()), p + u"/bandwidthMbps"_s,
                      &seen.rates))
            return false;
        if (o.value(u"monthlyUsd"_s).toDouble() < 0)
            return c.fail(p + u"/monthlyUsd"_s, u"must not be negative"_s);
    }
    return true;
}

} // namespace

QByteArray resourceBytes()
{
    fbInitSandboxResources();
    QFile file(ResourcePath);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.read(MaxBytes + 1);
}

std::optional<QJsonObject> parse(const QByteArray &bytes, QString *error)
{
    Checker c;
    if (bytes.size() > MaxBytes) {
        c.fail(QString(), u"the document is larger than %1 bytes"_s.arg(MaxBytes));
    } else {
        QJsonParseError parseError{};
        const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
        const QJsonObject o = doc.object();
        Seen seen;
        if (parseError.error != QJsonParseError::NoError) {
            c.fail(QString(), u"not JSON (%1 at offset %2)"_s.arg(parseError.errorString())
                                  .arg(parseError.offset));
        } else if (c.object(doc.isObject() ? QJsonValue(o) : QJsonValue(), QString(),
                            {{"format", Type::String},
                             {"metros", Type::Array},
                             {"ports", Type::Array},
                             {"serviceProfiles", Type::Array},
                             {"routers", Type::Array},
                             {"networks", Type::Array},
                             {"serviceTokens", Type::Array},
                             {"connections", Type::Array},
                             {"rateCard", Type::Array}}) &&
                   (o.value(u"format"_s).toString() == Format ||
                    c.fail(u"/format"_s, u"must be \"%1\""_s.arg(Format))) &&
                   checkMetros(c, o.value(u"metros"_s).toArray(), seen) &&
                   checkPorts(c, o.value(u"ports"_s).toArray(), seen) &&
                   checkProfiles(c, o.value(u"serviceProfiles"_s).toArray(), seen) &&
                   checkRouters(c, o.value(u"routers"_s).toArray(), seen) &&
                   checkNetworks(c, o.value(u"networks"_s).toArray(), seen) &&
                   checkTokens(c, o.value(u"serviceTokens"_s).toArray(), seen) &&
                   checkConnections(c, o.value(u"connections"_s).toArray(), seen) &&
                   checkRates(c, o.value(u"rateCard"_s).toArray(), seen)) {
            return o;
        }
    }
    if (error)
        *error = c.error;
    return std::nullopt;
}

const QJsonObject &builtin()
{
    static const QJsonObject seed = [] {
        QString error;
        const QByteArray bytes = resourceBytes();
        if (bytes.isEmpty())
            qFatal("sandbox seed %s is missing from the build", ResourcePath.data());
        const std::optional<QJsonObject> parsed = parse(bytes, &error);
        if (!parsed)
            qFatal("sandbox seed %s is malformed: %s", ResourcePath.data(), qPrintable(error));
        return *parsed;
    }();
    return seed;
}

} // namespace fb::SandboxSeed
