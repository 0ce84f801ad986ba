#include "sandbox/SandboxApi.h"

#include "core/ChangeType.h"
#include "sandbox/SandboxIds.h"
#include "sandbox/SandboxLog.h"
#include "sandbox/SandboxSearch.h"
#include "sandbox/SandboxValidator.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QUuid>
#include <algorithm>

namespace fb {

namespace {

using L1 = QLatin1String;

const QString kConnections = QStringLiteral("/fabric/v4/connections");
const QString kNetworks = QStringLiteral("/fabric/v4/networks");
const QString kTokens = QStringLiteral("/fabric/v4/serviceTokens");

QString newUuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

SandboxReply notFound(const QString &cid, const QString &id,
                      QLatin1String code = SandboxErrors::UuidNotFound,
                      QLatin1String message = SandboxErrors::UuidNotFoundMessage)
{
    return SandboxReply::error(404, code, message, cid, QString(message), QStringLiteral("uuid"),
                               QStringLiteral("%1 not found").arg(id));
}

SandboxReply badRequest(const QString &cid, const QString &pathAndReason)
{
    const QString property = pathAndReason.section(QLatin1Char('|'), 0, 0);
    const QString reason = pathAndReason.section(QLatin1Char('|'), 1);
    return SandboxReply::error(400, SandboxErrors::InvalidArgument,
                               SandboxErrors::InvalidArgumentMessage, cid, {}, property, reason);
}

// The paging and the filter of a search request, checked before anything is read: empty, or
// "property|reason" for badRequest().
QString checkSearch(const QUrlQuery &query, const QJsonObject &body, SandboxSearch::Page *page)
{
    QString problem = SandboxSearch::readPage(query, page);
    if (problem.isEmpty())
        problem =
            SandboxSearch::readPage(body.value(QStringLiteral("pagination")).toObject(), page);
    if (problem.isEmpty())
        problem = SandboxSearch::validateFilter(body.value(QStringLiteral("filter")),
                                                QStringLiteral("filter"));
    return problem;
}

} // namespace

SandboxApi::SandboxApi(SandboxEstate *estate)
    : m_estate(estate)
{
}

void SandboxApi::setDryRunUnsupported(const QString &changeTypeOrPath, bool unsupported)
{
    QString key = changeTypeOrPath.trimmed();
    if (const auto type = changeTypeFromName(key))
        key = changeTypePath(*type);
    if (unsupported)
        m_noDryRun.insert(key);
    else
        m_noDryRun.remove(key);
}

QStringList SandboxApi::dryRunUnsupported() const
{
    QStringList keys(m_noDryRun.begin(), m_noDryRun.end());
    keys.sort();
    return keys;
}

bool SandboxApi::dryRunBlocked(const QString &collectionPath, const QString &subtype) const
{
    return m_noDryRun.contains(collectionPath) ||
           (!subtype.isEmpty() && m_noDryRun.contains(subtype));
}

bool SandboxApi::isCreate(const QString &method, const QString &path)
{
    if (method != QLatin1String("POST"))
        return false;
    QString p = path;
    while (p.endsWith(QLatin1Char('/')))
        p.chop(1);
    return p == kConnections || p == kNetworks || p == kTokens;
}

bool SandboxApi::isDryRun(const QUrlQuery &query)
{
    return query.queryItemValue(QStringLiteral("dryRun"))
               .compare(QLatin1String("true"), Qt::CaseInsensitive) == 0;
}

SandboxReply SandboxApi::handle(const QString &method, const QString &rawPath,
                                const QUrlQuery &query, const QByteArray &body, const QString &cid)
{
    QString path = rawPath;
    while (path.size() > 1 && path.endsWith(QLatin1Char('/')))
        path.chop(1);
    const QStringList seg = path.mid(QStringLiteral("/fabric/v4/").size()).split(QLatin1Char('/'));
    const QString collection = seg.value(0);
    const bool get = method == QLatin1String("GET");
    const bool post = method == QLatin1String("POST");

    QJsonObject json;
    if (post) {
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
        if (!body.trimmed().isEmpty() && (err.error != QJsonParseError::NoError || !doc.isObject()))
            return SandboxReply::error(
                400, SandboxErrors::InvalidArgument, SandboxErrors::InvalidArgumentMessage, cid,
                QStringLiteral("Json syntax error, please check request body"),
                QStringLiteral("body"),
                err.error != QJsonParseError::NoError ? err.errorString()
                                                      : QStringLiteral("must be a JSON object"));
        json = doc.object();
    }
    const bool dryRun = isDryRun(query);
    const auto methodNotAllowed = [&]() {
        return SandboxReply::error(405, SandboxErrors::MethodNotSupported,
                                   SandboxErrors::MethodNotSupportedMessage, cid,
                                   QStringLiteral("Method:") + method);
    };
    const auto route = [&](bool allowed, auto &&handler) -> SandboxReply {
        return allowed ? handler() : methodNotAllowed();
    };

    if (!path.startsWith(QLatin1String("/fabric/v4/")) || collection.isEmpty())
        return SandboxReply::error(404, SandboxErrors::PathNotFound,
                                   SandboxErrors::PathNotFoundMessage, cid,
                                   QStringLiteral("No such path: ") + path);

    // POST <collection>/search and GET <collection>/{uuid} of the three kinds agents create.
    const bool isSearch = seg.size() == 2 && seg[1] == QLatin1String("search");
    const auto searchKind = [&](SandboxKind kind) {
        return route(post, [&] { return search(kind, json, query, path, cid); });
    };
    // GET <collection>/{id} of the fixed estate (ports, metros, service profiles, routers).
    const auto readFixed = [&](const QJsonObject *o) {
        return route(get, [&] { return o ? SandboxReply::json(200, *o) : notFound(cid, seg[1]); });
    };
    const auto readOne = [&](SandboxKind kind, QLatin1String code, QLatin1String message) {
        return route(get, [&] {
            SandboxResource *r = m_estate->find(kind, seg[1]);
            if (!r)
                return notFound(cid, seg[1], code, message);
            return SandboxReply::json(200, m_estate->read(kind, *r));
        });
    };

    if (collection == QLatin1String("connections")) {
        if (seg.size() == 1)
            return route(post, [&] { return createConnection(json, dryRun, cid); });
        if (isSearch)
            return searchKind(SandboxKind::Connection);
        if (seg.size() == 2)
            return readOne(SandboxKind::Connection, SandboxErrors::ConnectionNotFound,
                           SandboxErrors::ConnectionNotFoundMessage);
    } else if (collection == QLatin1String("networks")) {
        if (seg.size() == 1)
            return route(post, [&] { return createNetwork(json, dryRun, cid); });
        if (isSearch)
            return searchKind(SandboxKind::Network);
        if (seg.size() == 2)
            return readOne(SandboxKind::Network, SandboxErrors::UuidNotFound,
                           SandboxErrors::UuidNotFoundMessage);
    } else if (collection == QLatin1String("serviceTokens")) {
        if (seg.size() == 1) {
            if (post)
                return createServiceToken(json, dryRun, cid);
            return route(get,
                         [&] { return search(SandboxKind::ServiceToken, {}, query, path, cid); });
        }
        if (isSearch)
            return searchKind(SandboxKind::ServiceToken);
        if (seg.size() == 2)
            return readOne(SandboxKind::ServiceToken, SandboxErrors::TokenNotFound,
                           SandboxErrors::TokenNotFoundMessage);
    } else if (collection == QLatin1String("ports")) {
        if (seg.size() == 1)
            return route(get, [&] {
                QList<QJsonObject> ports = m_estate->ports();
                const QString name = query.queryItemValue(QStringLiteral("name"));
                if (!name.isEmpty())
                    ports.removeIf([&](const QJsonObject &p) {
                        return p.value(QStringLiteral("name")).toString() != name;
                    });
                return searchList(ports, {}, query, path, cid, false);
            });
        const QJsonObject *port = m_estate->port(seg[1]);
        if (seg.size() == 2)
            return readFixed(port);
        if (seg.size() == 3 && seg[2] == QLatin1String("linkProtocols"))
            return route(get, [&] {
                if (!port)
                    return notFound(cid, seg[1]);
                QList<QJsonObject> items;
                const QJsonArray lps = m_estate->linkProtocols(seg[1]);
                for (const QJsonValue &v : lps)
                    items.append(v.toObject());
                return searchList(items, {}, query, path, cid, false);
            });
    } else if (collection == QLatin1String("metros")) {
        if (seg.size() == 1)
            return route(get, [&] {
                QList<QJsonObject> metros = m_estate->metros();
                const QString presence = query.queryItemValue(QStringLiteral("presence"));
                if (!presence.isEmpty() && presence != QLatin1String("MY_SERVICES"))
                    return SandboxReply::error(400, L1("EQ-3036013"), L1("Invalid Query Parameter"),
                                               cid, {}, QStringLiteral("presence"),
                                               QStringLiteral("Allowed value for presence is "
                                                              "MY_SERVICES"));
                if (!presence.isEmpty()) {
                    metros.removeIf([&](const QJsonObject &m) {
                        const QString code = m.value(QStringLiteral("code")).toString();
                        return std::none_of(m_estate->ports().begin(), m_estate->ports().end(),
                                            [&](const QJsonObject &p) {
                                                return SandboxSearch::valueAt(
                                                           p, QStringLiteral("/location/metroCode"))
                                                           .toString() == code;
                                            });
                    });
                }
                return searchList(metros, {}, query, path, cid, false);
            });
        if (seg.size() == 2)
            return readFixed(m_estate->metro(seg[1]));
    } else if (collection == QLatin1String("serviceProfiles")) {
        if (seg.size() == 1)
            return route(get, [&] {
                return searchList(m_estate->serviceProfiles(), {}, query, path, cid, false);
            });
        if (seg.size() == 2 && seg[1] == QLatin1String("search"))
            return route(post, [&] {
                return searchList(m_estate->serviceProfiles(), json, query, path, cid, true);
            });
        if (seg.size() == 2)
            return readFixed(m_estate->serviceProfile(seg[1]));
    } else if (collection == QLatin1String("routers")) {
        if (seg.size() == 2 && seg[1] == QLatin1String("search"))
            return route(post, [&] {
                return searchList(m_estate->routers(), json, query, path, cid, false);
            });
        if (seg.size() == 2)
            return readFixed(m_estate->router(seg[1]));
    } else if (collection == QLatin1String("prices")) {
        if (seg.size() == 2 && seg[1] == QLatin1String("search"))
            return route(post, [&] { return searchPrices(json, cid); });
    }
    return SandboxReply::error(404, SandboxErrors::PathNotFound, SandboxErrors::PathNotFoundMessage,
                               cid, QStringLiteral("No such path: ") + path);
}

// ---- searches -----------------------------------------------------------------------------

SandboxReply SandboxApi::searchList(const QList<QJsonObject> &items, const QJsonObject &body,
                                    const QUrlQuery &query, const QString &basePath,
                                    const QString &cid, bool echoSort)
{
    SandboxSearch::Page page;
    if (const QString problem = checkSearch(query, body, &page); !problem.isEmpty())
        return badRequest(cid, problem);
    QJsonArray matched;
    for (const QJsonObject &item : items) {
        if (SandboxSearch::matches(body.value(QStringLiteral("filter")), item, nullptr))
            matched.append(item);
    }
    const QJsonArray sort = body.value(QStringLiteral("sort")).toArray();
    SandboxSearch::sort(matched, sort);
    QJsonObject out = SandboxSearch::pageOf(matched, page, basePath);
    if (echoSort && !sort.isEmpty())
        out.insert(QStringLiteral("sort"), sort);
    return SandboxReply::json(200, out);
}

SandboxReply SandboxApi::search(SandboxKind kind, const QJsonObject &body, const QUrlQuery &query,
                                const QString &basePath, const QString &cid)
{
    // Validate before reading so a bad request does not advance provisioning.
    SandboxSearch::Page page;
    if (const QString problem = checkSearch(query, body, &page); !problem.isEmpty())
        return badRequest(cid, problem);
    QList<QJsonObject> items;
    for (SandboxResource &r : m_estate->resources(kind))
        items.append(m_estate->read(kind, r));
    return searchList(items, body, query, basePath, cid, kind != SandboxKind::ServiceToken);
}

// ---- creates ------------------------------------------------------------------------------

// What every create checks first, in Fabric's order: the schema, then whether this type can be
// dry-run at all, then the estate rules. nullopt = the request may proceed.
std::optional<SandboxReply> SandboxApi::rejectCreate(const QJsonObject &body, bool dryRun,
                                                     const QString &cid, const QString &collection,
                                                     Check schema, Check rules) const
{
    SandboxValidator validator(*m_estate, cid);
    QJsonArray errors = (validator.*schema)(body);
    if (!errors.isEmpty())
        return SandboxReply::errors(400, errors);
    if (dryRun && dryRunBlocked(collection, body.value(QStringLiteral("type")).toString()))
        return SandboxReply::error(400, SandboxErrors::DryRunUnsupported,
                                   SandboxErrors::DryRunUnsupportedMessage, cid, {}, {},
                                   QStringLiteral("queryParam:dryRun"));
    errors = (validator.*rules)(body);
    if (!errors.isEmpty())
        return SandboxReply::errors(400, errors);
    return std::nullopt;
}

SandboxReply SandboxApi::createConnection(const QJsonObject &body, bool dryRun, const QString &cid)
{
    if (auto rejected =
            rejectCreate(body, dryRun, cid, kConnections, &SandboxValidator::connectionSchema,
                         &SandboxValidator::connectionRules))
        return *rejected;
    const QString type = body.value(QStringLiteral("type")).toString();

    QJsonObject c = body;
    QStringList metros;
    for (const char *side : {"aSide", "zSide"}) {
        QJsonObject sideObj = c.value(L1(side)).toObject();
        if (sideObj.contains(QStringLiteral("accessPoint"))) {
            const QJsonObject ap = m_estate->enrichAccessPoint(
                sideObj.value(QStringLiteral("accessPoint")).toObject());
            sideObj.insert(QStringLiteral("accessPoint"), ap);
            metros << SandboxSearch::valueAt(ap, QStringLiteral("/location/metroCode")).toString();
        }
        if (sideObj.contains(QStringLiteral("serviceToken"))) {
            QJsonObject token = sideObj.value(QStringLiteral("serviceToken")).toObject();
            token.insert(QStringLiteral("href"),
                         m_estate->href(QStringLiteral("serviceTokens"),
                                        token.value(QStringLiteral("uuid")).toString()));
            sideObj.insert(QStringLiteral("serviceToken"), token);
        }
        c.insert(L1(side), sideObj);
    }
    c.insert(QStringLiteral("isRemote"), metros.size() == 2 && metros[0] != metros[1]);
    c.insert(QStringLiteral("direction"), L1("OUTGOING"));
    c.insert(QStringLiteral("account"), m_estate->account());
    if (dryRun) {
        qCInfo(lcSandbox) << "dry run of connection create validated, type" << type;
        return SandboxReply::json(200, c);
    }
    const QString uuid = newUuid();
    const QString now = m_estate->nowIso();
    c.insert(QStringLiteral("uuid"), uuid);
    c.insert(QStringLiteral("href"), m_estate->href(QStringLiteral("connections"), uuid));
    c.insert(QStringLiteral("state"), L1("PROVISIONING"));
    c.insert(QStringLiteral("operation"),
             QJsonObject{{QStringLiteral("providerStatus"), L1("PROVISIONING")},
                         {QStringLiteral("equinixStatus"), L1("PROVISIONING")},
                         {QStringLiteral("operationalStatus"), L1("DOWN")}});
    c.insert(QStringLiteral("change"),
             QJsonObject{{QStringLiteral("uuid"), newUuid()},
                         {QStringLiteral("type"), L1("CONNECTION_CREATION")},
                         {QStringLiteral("status"), L1("REQUESTED")},
                         {QStringLiteral("createdDateTime"), now},
                         {QStringLiteral("updatedDateTime"), now}});
    c.insert(QStringLiteral("changeLog"),
             QJsonObject{{QStringLiteral("createdBy"), L1("sandbox-user")},
                         {QStringLiteral("createdDateTime"), now},
                         {QStringLiteral("updatedBy"), L1("sandbox-user")},
                         {QStringLiteral("updatedDateTime"), now}});
    m_estate->add(SandboxKind::Connection, c);
    qCInfo(lcSandbox) << "connection created" << uuid << "type" << type;
    SandboxReply reply = SandboxReply::json(201, c);
    reply.realCreate = true;
    return reply;
}

SandboxReply SandboxApi::createNetwork(const QJsonObject &body, bool dryRun, const QString &cid)
{
    if (auto rejected = rejectCreate(body, dryRun, cid, kNetworks, &SandboxValidator::networkSchema,
                                     &SandboxValidator::networkRules))
        return *rejected;

    QJsonObject n = body;
    const QString metroCode =
        SandboxSearch::valueAt(body, QStringLiteral("/location/metroCode")).toString();
    if (const QJsonObject *m = m_estate->metro(metroCode)) {
        QJsonObject loc = n.value(QStringLiteral("location")).toObject();
        loc.insert(QStringLiteral("metroHref"), m->value(QStringLiteral("href")));
        loc.insert(QStringLiteral("metroName"), m->value(QStringLiteral("name")));
        loc.insert(QStringLiteral("region"), m->value(QStringLiteral("region")));
        n.insert(QStringLiteral("location"), loc);
    }
    n.insert(QStringLiteral("account"), m_estate->account());
    if (dryRun) {
        // The v4.31 spec lists only 201 and 202 for POST /fabric/v4/networks; dry runs use 202.
        return SandboxReply::json(202, n);
    }
    const QString uuid = newUuid();
    const QString now = m_estate->nowIso();
    n.insert(QStringLiteral("uuid"), uuid);
    n.insert(QStringLiteral("href"), m_estate->href(QStringLiteral("networks"), uuid));
    n.insert(QStringLiteral("state"), L1("INACTIVE"));
    n.insert(QStringLiteral("connectionsCount"), 0);
    n.insert(QStringLiteral("operation"),
             QJsonObject{{QStringLiteral("equinixStatus"), L1("PROVISIONING")}});
    const QString changeId = newUuid();
    n.insert(QStringLiteral("change"),
             QJsonObject{
                 {QStringLiteral("href"), QString(m_estate->href(QStringLiteral("networks"), uuid) +
                                                  QStringLiteral("/changes/") + changeId)},
                 {QStringLiteral("uuid"), changeId},
                 {QStringLiteral("type"), L1("NETWORK_CREATION")}});
    n.insert(QStringLiteral("changeLog"),
             QJsonObject{{QStringLiteral("createdBy"), L1("sandbox-user")},
                         {QStringLiteral("createdDateTime"), now},
                         {QStringLiteral("updatedBy"), L1("sandbox-user")},
                         {QStringLiteral("updatedDateTime"), now}});
    m_estate->add(SandboxKind::Network, n);
    qCInfo(lcSandbox) << "network created" << uuid;
    SandboxReply reply = SandboxReply::json(201, n);
    reply.realCreate = true;
    return reply;
}

SandboxReply SandboxApi::createServiceToken(const QJsonObject &body, bool dryRun,
                                            const QString &cid)
{
    if (auto rejected =
            rejectCreate(body, dryRun, cid, kTokens, &SandboxValidator::serviceTokenSchema,
                         &SandboxValidator::serviceTokenRules))
        return *rejected;

    QJsonObject t = body;
    QJsonObject connection = t.value(QStringLiteral("connection")).toObject();
    for (const char *side : {"aSide", "zSide"}) {
        QJsonObject sideObj = connection.value(L1(side)).toObject();
        if (sideObj.isEmpty())
            continue;
        QJsonArray selectors = sideObj.value(QStringLiteral("accessPointSelectors")).toArray();
        for (qsizetype i = 0; i < selectors.size(); ++i) {
            QJsonObject sel = selectors.at(i).toObject();
            QJsonObject port = sel.value(QStringLiteral("port")).toObject();
            if (const QJsonObject *known =
                    m_estate->port(port.value(QStringLiteral("uuid")).toString())) {
                port.insert(QStringLiteral("href"), known->value(QStringLiteral("href")));
                port.insert(QStringLiteral("type"), L1("XF_PORT"));
                port.insert(QStringLiteral("portName"), known->value(QStringLiteral("name")));
                port.insert(QStringLiteral("location"), known->value(QStringLiteral("location")));
                sel.insert(QStringLiteral("port"), port);
            }
            selectors[i] = sel;
        }
        sideObj.insert(QStringLiteral("accessPointSelectors"), selectors);
        connection.insert(L1(side), sideObj);
    }
    t.insert(QStringLiteral("connection"), connection);
    t.insert(QStringLiteral("account"), m_estate->account());
    if (!t.contains(QStringLiteral("issuerSide")))
        t.insert(QStringLiteral("issuerSide"),
                 connection.contains(QStringLiteral("aSide")) ? L1("ASIDE") : L1("ZSIDE"));
    if (dryRun)
        return SandboxReply::json(200, t);
    const QString uuid = newUuid();
    const QString now = m_estate->nowIso();
    t.insert(QStringLiteral("uuid"), uuid);
    t.insert(QStringLiteral("href"), m_estate->href(QStringLiteral("serviceTokens"), uuid));
    t.insert(QStringLiteral("state"), L1("INACTIVE"));
    t.insert(QStringLiteral("changelog"),
             QJsonObject{{QStringLiteral("createdBy"), L1("sandbox-user")},
                         {QStringLiteral("createdDateTime"), now},
                         {QStringLiteral("updatedBy"), L1("sandbox-user")},
                         {QStringLiteral("updatedDateTime"), now}});
    m_estate->add(SandboxKind::ServiceToken, t);
    qCInfo(lcSandbox) << "service token created" << uuid;
    SandboxReply reply = SandboxReply::json(201, t);
    reply.realCreate = true;
    return reply;
}

} // namespace fb
