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

using namespace Qt::StringLiterals;

namespace {

using L1 = QLatin1String;

const QString kConnections = u"/fabric/v4/connections"_s;
const QString kNetworks = u"/fabric/v4/networks"_s;
const QString kTokens = u"/fabric/v4/serviceTokens"_s;

QString newUuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

// The changeLog of a resource the sandbox's user creates now (ISO 8601).
QJsonObject createdChangeLog(const QString &now)
{
    return QJsonObject{{u"createdBy"_s, "sandbox-user"_L1},
                       {u"createdDateTime"_s, now},
                       {u"updatedBy"_s, "sandbox-user"_L1},
                       {u"updatedDateTime"_s, now}};
}

// Gives a resource created in collection its new uuid, its href and its first state; the uuid.
QString stampCreated(const SandboxEstate &estate, QJsonObject &resource, const QString &collection,
                     QLatin1String state)
{
    const QString uuid = newUuid();
    resource.insert(u"uuid"_s, uuid);
    resource.insert(u"href"_s, estate.href(collection, uuid));
    resource.insert(u"state"_s, state);
    return uuid;
}

SandboxReply notFound(const QString &cid, const QString &id,
                      QLatin1String code = SandboxErrors::UuidNotFound,
                      QLatin1String message = SandboxErrors::UuidNotFoundMessage)
{
    return SandboxReply::error(404, code, message, cid, QString(message), u"uuid"_s,
                               u"%1 not found"_s.arg(id));
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
        problem = SandboxSearch::readPage(body.value(u"pagination"_s).toObject(), page);
    if (problem.isEmpty())
        problem = SandboxSearch::validateFilter(body.value(u"filter"_s), u"filter"_s);
    return problem;
}

} // namespace

SandboxApi::SandboxApi(SandboxEstate *estate)
    : m_estate(estate)
    , m_readOps(estate)
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
    if (method != "POST"_L1)
        return false;
    QString p = path;
    while (p.endsWith(QLatin1Char('/')))
        p.chop(1);
    return p == kConnections || p == kNetworks || p == kTokens;
}

bool SandboxApi::isDryRun(const QUrlQuery &query)
{
    return query.queryItemValue(u"dryRun"_s).compare("true"_L1, Qt::CaseInsensitive) == 0;
}

SandboxReply SandboxApi::handle(const QString &method, const QString &rawPath,
                                const QUrlQuery &query, const QByteArray &body, const QString &cid)
{
    if (std::optional<SandboxReply> read = m_readOps.handle(method, rawPath, query, body, cid))
        return *read;
    QString path = rawPath;
    while (path.size() > 1 && path.endsWith(QLatin1Char('/')))
        path.chop(1);
    const QStringList seg = path.mid(u"/fabric/v4/"_s.size()).split(QLatin1Char('/'));
    const QString collection = seg.value(0);
    const bool get = method == "GET"_L1;
    const bool post = method == "POST"_L1;

    QJsonObject json;
    if (post) {
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
        if (!body.trimmed().isEmpty() && (err.error != QJsonParseError::NoError || !doc.isObject()))
            return SandboxReply::error(
                400, SandboxErrors::InvalidArgument, SandboxErrors::InvalidArgumentMessage, cid,
                u"Json syntax error, please check request body"_s, u"body"_s,
                err.error != QJsonParseError::NoError ? err.errorString()
                                                      : u"must be a JSON object"_s);
        json = doc.object();
    }
    const bool dryRun = isDryRun(query);
    const auto methodNotAllowed = [&]() {
        return SandboxReply::error(405, SandboxErrors::MethodNotSupported,
                                   SandboxErrors::MethodNotSupportedMessage, cid,
                                   u"Method:"_s + method);
    };
    const auto route = [&](bool allowed, auto &&handler) -> SandboxReply {
        return allowed ? handler() : methodNotAllowed();
    };

    const auto noSuchPath = [&]() {
        return SandboxReply::error(404, SandboxErrors::PathNotFound,
                                   SandboxErrors::PathNotFoundMessage, cid,
                                   u"No such path: "_s + path);
    };
    if (!path.startsWith("/fabric/v4/"_L1) || collection.isEmpty())
        return noSuchPath();
    const bool isSearch = seg.size() == 2 && seg[1] == "search"_L1;

    // The three kinds agents create: <collection> goes to create(), POST <collection>/search
    // searches and GET <collection>/{uuid} reads one (or answers code and message).
    const auto createdKind = [&](SandboxKind kind, QLatin1String code, QLatin1String message,
                                 auto &&create) -> SandboxReply {
        if (seg.size() == 1)
            return create();
        if (isSearch)
            return route(post, [&] { return search(kind, json, query, path, cid); });
        if (seg.size() == 2)
            return route(get, [&] {
                SandboxResource *r = m_estate->find(kind, seg[1]);
                if (!r)
                    return notFound(cid, seg[1], code, message);
                return SandboxReply::json(200, m_estate->read(kind, *r));
            });
        return noSuchPath();
    };
    // GET <collection>/{id} of the fixed estate (ports, metros, service profiles, routers).
    const auto readFixed = [&](const QJsonObject *o) {
        return route(get, [&] { return o ? SandboxReply::json(200, *o) : notFound(cid, seg[1]); });
    };
    // POST <collection>/search of the fixed estate (echoSort: the page repeats the sort).
    const auto searchFixed = [&](const QList<QJsonObject> &items, bool echoSort) {
        return route(post, [&] { return searchList(items, json, query, path, cid, echoSort); });
    };

    if (collection == "connections"_L1)
        return createdKind(
            SandboxKind::Connection, SandboxErrors::ConnectionNotFound,
            SandboxErrors::ConnectionNotFoundMessage,
            [&] { return route(post, [&] { return createConnection(json, dryRun, cid); }); });
    if (collection == "networks"_L1)
        return createdKind(
            SandboxKind::Network, SandboxErrors::UuidNotFound, SandboxErrors::UuidNotFoundMessage,
            [&] { return route(post, [&] { return createNetwork(json, dryRun, cid); }); });
    if (collection == "serviceTokens"_L1) // GET serviceTokens lists them all
        return createdKind(SandboxKind::ServiceToken, SandboxErrors::TokenNotFound,
                           SandboxErrors::TokenNotFoundMessage, [&] {
                               if (post)
                                   return createServiceToken(json, dryRun, cid);
                               return route(get, [&] {
                                   return search(SandboxKind::ServiceToken, {}, query, path, cid);
                               });
                           });
    if (collection == "ports"_L1) {
        if (seg.size() == 1)
            return route(get, [&] {
                QList<QJsonObject> ports = m_estate->ports();
                const QString name = query.queryItemValue(u"name"_s);
                if (!name.isEmpty())
                    ports.removeIf([&](const QJsonObject &p) {
                        return p.value(u"name"_s).toString() != name;
                    });
                return searchList(ports, {}, query, path, cid, false);
            });
        const QJsonObject *port = m_estate->port(seg[1]);
        if (seg.size() == 2)
            return readFixed(port);
        if (seg.size() == 3 && seg[2] == "linkProtocols"_L1)
            return route(get, [&] {
                if (!port)
                    return notFound(cid, seg[1]);
                QList<QJsonObject> items;
                const QJsonArray lps = m_estate->linkProtocols(seg[1]);
                for (const QJsonValue &v : lps)
                    items.append(v.toObject());
                return searchList(items, {}, query, path, cid, false);
            });
    } else if (collection == "metros"_L1) {
        if (seg.size() == 1)
            return route(get, [&] {
                QList<QJsonObject> metros = m_estate->metros();
                const QString presence = query.queryItemValue(u"presence"_s);
                if (!presence.isEmpty() && presence != "MY_SERVICES"_L1)
                    return SandboxReply::error(400, "EQ-3036013"_L1, "Invalid Query Parameter"_L1,
                                               cid, {}, u"presence"_s,
                                               u"Allowed value for presence is "
                                               "MY_SERVICES"_s);
                if (!presence.isEmpty()) {
                    metros.removeIf([&](const QJsonObject &m) {
                        const QString code = m.value(u"code"_s).toString();
                        return std::none_of(m_estate->ports().begin(), m_estate->ports().end(),
                                            [&](const QJsonObject &p) {
                                                return SandboxSearch::valueAt(
                                                           p, u"/location/metroCode"_s)
                                                           .toString() == code;
                                            });
                    });
                }
                return searchList(metros, {}, query, path, cid, false);
            });
        if (seg.size() == 2)
            return readFixed(m_estate->metro(seg[1]));
    } else if (collection == "serviceProfiles"_L1) {
        if (seg.size() == 1)
            return route(get, [&] {
                return searchList(m_estate->serviceProfiles(), {}, query, path, cid, false);
            });
        if (isSearch)
            return searchFixed(m_estate->serviceProfiles(), true);
        if (seg.size() == 2)
            return readFixed(m_estate->serviceProfile(seg[1]));
    } else if (collection == "routers"_L1) {
        if (isSearch)
            return searchFixed(m_estate->routers(), false);
        if (seg.size() == 2)
            return readFixed(m_estate->router(seg[1]));
    } else if (collection == "prices"_L1) {
        if (isSearch)
            return route(post, [&] { return searchPrices(json, cid); });
    }
    return noSuchPath();
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
        if (SandboxSearch::matches(body.value(u"filter"_s), item, nullptr))
            matched.append(item);
    }
    const QJsonArray sort = body.value(u"sort"_s).toArray();
    SandboxSearch::sort(matched, sort);
    QJsonObject out = SandboxSearch::pageOf(matched, page, basePath);
    if (echoSort && !sort.isEmpty())
        out.insert(u"sort"_s, sort);
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
    if (dryRun && dryRunBlocked(collection, body.value(u"type"_s).toString()))
        return SandboxReply::error(400, SandboxErrors::DryRunUnsupported,
                                   SandboxErrors::DryRunUnsupportedMessage, cid, {}, {},
                                   u"queryParam:dryRun"_s);
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
    const QString type = body.value(u"type"_s).toString();

    QJsonObject c = body;
    QStringList metros;
    for (const char *side : {"aSide", "zSide"}) {
        QJsonObject sideObj = c.value(L1(side)).toObject();
        if (sideObj.contains(u"accessPoint"_s)) {
            const QJsonObject ap =
                m_estate->enrichAccessPoint(sideObj.value(u"accessPoint"_s).toObject());
            sideObj.insert(u"accessPoint"_s, ap);
            metros << SandboxSearch::valueAt(ap, u"/location/metroCode"_s).toString();
        }
        if (sideObj.contains(u"serviceToken"_s)) {
            QJsonObject token = sideObj.value(u"serviceToken"_s).toObject();
            token.insert(u"href"_s,
                         m_estate->href(u"serviceTokens"_s, token.value(u"uuid"_s).toString()));
            sideObj.insert(u"serviceToken"_s, token);
        }
        c.insert(L1(side), sideObj);
    }
    c.insert(u"isRemote"_s, metros.size() == 2 && metros[0] != metros[1]);
    c.insert(u"direction"_s, "OUTGOING"_L1);
    c.insert(u"account"_s, m_estate->account());
    if (dryRun) {
        qCInfo(lcSandbox) << "dry run of connection create validated, type" << type;
        return SandboxReply::json(200, c);
    }
    const QString uuid = stampCreated(*m_estate, c, u"connections"_s, "PROVISIONING"_L1);
    const QString now = m_estate->nowIso();
    c.insert(u"operation"_s, QJsonObject{{u"providerStatus"_s, "PROVISIONING"_L1},
                                         {u"equinixStatus"_s, "PROVISIONING"_L1},
                                         {u"operationalStatus"_s, "DOWN"_L1}});
    c.insert(u"change"_s, QJsonObject{{u"uuid"_s, newUuid()},
                                      {u"type"_s, "CONNECTION_CREATION"_L1},
                                      {u"status"_s, "REQUESTED"_L1},
                                      {u"createdDateTime"_s, now},
                                      {u"updatedDateTime"_s, now}});
    c.insert(u"changeLog"_s, createdChangeLog(now));
    m_estate->add(SandboxKind::Connection, c);
    qCInfo(lcSandbox) << "connection created" << uuid << "type" << type;
    return SandboxReply::created(c);
}

SandboxReply SandboxApi::createNetwork(const QJsonObject &body, bool dryRun, const QString &cid)
{
    if (auto rejected = rejectCreate(body, dryRun, cid, kNetworks, &SandboxValidator::networkSchema,
                                     &SandboxValidator::networkRules))
        return *rejected;

    QJsonObject n = body;
    const QString metroCode = SandboxSearch::valueAt(body, u"/location/metroCode"_s).toString();
    if (const QJsonObject *m = m_estate->metro(metroCode)) {
        QJsonObject loc = n.value(u"location"_s).toObject();
        loc.insert(u"metroHref"_s, m->value(u"href"_s));
        loc.insert(u"metroName"_s, m->value(u"name"_s));
        loc.insert(u"region"_s, m->value(u"region"_s));
        n.insert(u"location"_s, loc);
    }
    n.insert(u"account"_s, m_estate->account());
    if (dryRun) {
        // The v4.31 spec lists only 201 and 202 for POST /fabric/v4/networks; dry runs use 202.
        return SandboxReply::json(202, n);
    }
    const QString uuid = stampCreated(*m_estate, n, u"networks"_s, "INACTIVE"_L1);
    const QString now = m_estate->nowIso();
    n.insert(u"connectionsCount"_s, 0);
    n.insert(u"operation"_s, QJsonObject{{u"equinixStatus"_s, "PROVISIONING"_L1}});
    const QString changeId = newUuid();
    n.insert(u"change"_s, QJsonObject{{u"href"_s, QString(m_estate->href(u"networks"_s, uuid) +
                                                          u"/changes/"_s + changeId)},
                                      {u"uuid"_s, changeId},
                                      {u"type"_s, "NETWORK_CREATION"_L1}});
    n.insert(u"changeLog"_s, createdChangeLog(now));
    m_estate->add(SandboxKind::Network, n);
    qCInfo(lcSandbox) << "network created" << uuid;
    return SandboxReply::created(n);
}

SandboxReply SandboxApi::createServiceToken(const QJsonObject &body, bool dryRun,
                                            const QString &cid)
{
    if (auto rejected =
            rejectCreate(body, dryRun, cid, kTokens, &SandboxValidator::serviceTokenSchema,
                         &SandboxValidator::serviceTokenRules))
        return *rejected;

    QJsonObject t = body;
    QJsonObject connection = t.value(u"connection"_s).toObject();
    for (const char *side : {"aSide", "zSide"}) {
        QJsonObject sideObj = connection.value(L1(side)).toObject();
        if (sideObj.isEmpty())
            continue;
        QJsonArray selectors = sideObj.value(u"accessPointSelectors"_s).toArray();
        for (qsizetype i = 0; i < selectors.size(); ++i) {
            QJsonObject sel = selectors.at(i).toObject();
            QJsonObject port = sel.value(u"port"_s).toObject();
            if (m_estate->enrichSelectorPort(port))
                sel.insert(u"port"_s, port);
            selectors[i] = sel;
        }
        sideObj.insert(u"accessPointSelectors"_s, selectors);
        connection.insert(L1(side), sideObj);
    }
    t.insert(u"connection"_s, connection);
    t.insert(u"account"_s, m_estate->account());
    if (!t.contains(u"issuerSide"_s))
        t.insert(u"issuerSide"_s, connection.contains(u"aSide"_s) ? "ASIDE"_L1 : "ZSIDE"_L1);
    if (dryRun)
        return SandboxReply::json(200, t);
    const QString uuid = stampCreated(*m_estate, t, u"serviceTokens"_s, "INACTIVE"_L1);
    t.insert(u"changelog"_s, createdChangeLog(m_estate->nowIso()));
    m_estate->add(SandboxKind::ServiceToken, t);
    qCInfo(lcSandbox) << "service token created" << uuid;
    return SandboxReply::created(t);
}

} // namespace fb
