#include "broker/Catalog.h"

#include "broker/ProposalView.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrlQuery>

namespace fb {

namespace {

const QString kUuidPattern =
    QStringLiteral("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");

// One simple argument of a read tool.
struct Arg {
    Arg(QString name_, QString type_, QString description_, QString property_ = {},
        QString op_ = QStringLiteral("="), QStringList alsoProperties_ = {})
        : name(std::move(name_))
        , type(std::move(type_))
        , description(std::move(description_))
        , property(std::move(property_))
        , op(std::move(op_))
        , alsoProperties(std::move(alsoProperties_))
    {
    }
    QString name;
    QString type; // "string" | "integer"
    QString description;
    QString property;           // Fabric filter property; empty = not a filter
    QString op;                 // filter operator ("LIKE" wraps the value in %)
    QStringList alsoProperties; // OR-ed with property (e.g. aSide/zSide metro)
    bool required = false;
    QStringList enumValues;
};

Arg limitArg()
{
    return {QStringLiteral("limit"), QStringLiteral("integer"),
            QStringLiteral("Page size, 1-100 (default 20).")};
}
Arg offsetArg()
{
    return {QStringLiteral("offset"), QStringLiteral("integer"),
            QStringLiteral("Index of the first item (default 0).")};
}
Arg uuidArg(const QString &what)
{
    Arg a{QStringLiteral("uuid"), QStringLiteral("string"),
          QStringLiteral("The %1's UUID.").arg(what)};
    a.required = true;
    return a;
}

QJsonObject inputSchemaFor(const QList<Arg> &args)
{
    QJsonObject props;
    QJsonArray required;
    for (const Arg &a : args) {
        QJsonObject p{{QStringLiteral("type"), a.type},
                      {QStringLiteral("description"), a.description}};
        if (a.name == u"limit") {
            p.insert(QStringLiteral("minimum"), 1);
            p.insert(QStringLiteral("maximum"), 100);
        } else if (a.name == u"offset") {
            p.insert(QStringLiteral("minimum"), 0);
        } else if (a.name == u"uuid") {
            p.insert(QStringLiteral("pattern"), kUuidPattern);
        } else if (a.type == u"string") {
            p.insert(QStringLiteral("minLength"), 1);
            p.insert(QStringLiteral("maxLength"), 200);
        }
        if (!a.enumValues.isEmpty())
            p.insert(QStringLiteral("enum"), QJsonArray::fromStringList(a.enumValues));
        props.insert(a.name, p);
        if (a.required)
            required.append(a.name);
    }
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("properties"), props},
                       {QStringLiteral("additionalProperties"), false}};
    if (!required.isEmpty())
        schema.insert(QStringLiteral("required"), required);
    return schema;
}

// Validates arguments against the declared simple args; every problem is named.
QStringList validateArgs(const QJsonObject &args, const QList<Arg> &spec)
{
    QStringList problems;
    QStringList names;
    for (const Arg &a : spec)
        names << a.name;
    for (auto it = args.begin(); it != args.end(); ++it) {
        if (!names.contains(it.key()))
            problems << QStringLiteral("%1: unknown argument; allowed: %2")
                            .arg(it.key(), names.isEmpty() ? QStringLiteral("none")
                                                           : names.join(QStringLiteral(", ")));
    }
    for (const Arg &a : spec) {
        const QJsonValue v = args.value(a.name);
        if (v.isUndefined()) {
            if (a.required)
                problems << QStringLiteral("%1: required").arg(a.name);
            continue;
        }
        if (a.type == u"integer") {
            const double d = v.toDouble(-1);
            if (!v.isDouble() || d != std::floor(d)) {
                problems << QStringLiteral("%1: must be an integer").arg(a.name);
                continue;
            }
            if (a.name == u"limit" && (d < 1 || d > 100))
                problems << QStringLiteral("limit: must be between 1 and 100");
            if (a.name == u"offset" && (d < 0 || d > 1e9))
                problems << QStringLiteral("offset: must be 0 or more");
        } else {
            if (!v.isString() || v.toString().isEmpty() || v.toString().size() > 200) {
                problems << QStringLiteral(
                                "%1: must be a non-empty string (at most 200 characters)")
                                .arg(a.name);
                continue;
            }
            if (a.name == u"uuid" &&
                !QRegularExpression(kUuidPattern).match(v.toString()).hasMatch())
                problems << QStringLiteral("uuid: must be a UUID like "
                                           "3fa85f64-5717-4562-b3fc-2c963f66afa6");
            if (!a.enumValues.isEmpty() && !a.enumValues.contains(v.toString()))
                problems << QStringLiteral("%1: must be one of %2")
                                .arg(a.name, a.enumValues.join(QStringLiteral(", ")));
        }
    }
    return problems;
}

// Finishes the call with every argument problem named and returns false, or returns true.
bool argumentsValid(mcp::ToolCall *call, const QList<Arg> &spec)
{
    const QStringList problems = validateArgs(call->arguments(), spec);
    if (problems.isEmpty())
        return true;
    call->finishError(QStringLiteral("Invalid arguments: ") + problems.join(QStringLiteral("; ")));
    return false;
}

QJsonObject listOutputSchema(const QString &what)
{
    return {{QStringLiteral("type"), QStringLiteral("object")},
            {QStringLiteral("description"),
             QStringLiteral("Fabric's own shape: data (the %1) and pagination {offset, limit, "
                            "total, next?, previous?}. On isError: error {kind, message, "
                            "fabric_errors?}.")
                 .arg(what)},
            {QStringLiteral("properties"),
             QJsonObject{
                 {QStringLiteral("data"),
                  QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                              {QStringLiteral("items"),
                               QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}}},
                 {QStringLiteral("pagination"),
                  QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}},
                 {QStringLiteral("error"),
                  QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}}}};
}

QJsonObject entityOutputSchema(const QString &what)
{
    return {{QStringLiteral("type"), QStringLiteral("object")},
            {QStringLiteral("description"),
             QStringLiteral("The %1 exactly as Fabric returns it. On isError: error {kind, "
                            "message, fabric_errors?}.")
                 .arg(what)}};
}

QJsonObject readOnlyAnnotations(const QString &title)
{
    return {{QStringLiteral("title"), title},
            {QStringLiteral("readOnlyHint"), true},
            {QStringLiteral("destructiveHint"), false},
            {QStringLiteral("idempotentHint"), true},
            {QStringLiteral("openWorldHint"), true}};
}

void finishFabricError(mcp::ToolCall *call, const FabricResult &r, const QString &what)
{
    QJsonArray errors;
    for (const FabricError &e : r.errors)
        errors.append(e.toJson());
    QString hint;
    if (r.httpStatus == 404)
        hint = QStringLiteral(" Check the UUID, or search/list to find it.");
    else if (r.kind == FabricResult::Kind::AuthError)
        hint = QStringLiteral(" Check the Fabric credentials of the broker (not something the "
                              "agent can fix).");
    const QString message = QStringLiteral("Fabric could not %1: %2.%3").arg(what, r.message, hint);
    const QJsonObject structured{
        {QStringLiteral("error"),
         QJsonObject{{QStringLiteral("kind"), FabricResult::kindName(r.kind)},
                     {QStringLiteral("message"), message},
                     {QStringLiteral("http_status"), r.httpStatus},
                     {QStringLiteral("correlation_id"), r.correlationId},
                     {QStringLiteral("fabric_errors"), errors}}}};
    call->finishStructured(structured, message, true);
}

QString textFor(const QJsonObject &structured, const QString &summary)
{
    return summary + u'\n' +
           QString::fromUtf8(QJsonDocument(structured).toJson(QJsonDocument::Compact));
}

QJsonObject paginationOf(const QJsonObject &args)
{
    return {{QStringLiteral("offset"), args.value(QStringLiteral("offset")).toInt(0)},
            {QStringLiteral("limit"), args.value(QStringLiteral("limit")).toInt(20)}};
}

QJsonObject filterFor(const QJsonObject &args, const QList<Arg> &spec)
{
    QJsonArray conditions;
    for (const Arg &a : spec) {
        if (a.property.isEmpty() || !args.contains(a.name))
            continue;
        QString value = args.value(a.name).toString();
        if (a.op == u"LIKE")
            value = u'%' + value + u'%';
        auto condition = [&](const QString &property) {
            return QJsonObject{{QStringLiteral("property"), property},
                               {QStringLiteral("operator"), a.op},
                               {QStringLiteral("values"), QJsonArray{value}}};
        };
        if (a.alsoProperties.isEmpty()) {
            conditions.append(condition(a.property));
        } else {
            QJsonArray any{condition(a.property)};
            for (const QString &p : a.alsoProperties)
                any.append(condition(p));
            conditions.append(QJsonObject{{QStringLiteral("or"), any}});
        }
    }
    return QJsonObject{{QStringLiteral("and"), conditions}};
}

struct SearchTool {
    QString name;
    QString title;
    QString description;
    QString path; // POST search endpoint
    QString what; // plural noun
    QList<Arg> args;
};

struct GetTool {
    QString name;
    QString title;
    QString description;
    QString pathTemplate; // "%1" = uuid
    QString what;
};

} // namespace

Catalog::Catalog(FabricClient *fabric, ProposalStore *store, Clock *clock, QObject *parent)
    : QObject(parent)
    , m_fabric(fabric)
    , m_store(store)
    , m_clock(clock)
{
}

void Catalog::registerTools(mcp::ToolRegistry *registry)
{
    const Arg nameLike{QStringLiteral("name"), QStringLiteral("string"),
                       QStringLiteral("Part of the name (case-sensitive substring match)."),
                       QStringLiteral("/name"), QStringLiteral("LIKE")};
    const Arg project{QStringLiteral("project"), QStringLiteral("string"),
                      QStringLiteral("Project ID to restrict the search to."),
                      QStringLiteral("/project/projectId")};

    const QList<SearchTool> searches = {
        {QStringLiteral("fabric_search_connections"),
         QStringLiteral("Search connections"),
         QStringLiteral("Search Fabric virtual connections by name, state, metro (either side) "
                        "or project. Works with no arguments (first page of all connections)."),
         QStringLiteral("/fabric/v4/connections/search"),
         QStringLiteral("connections"),
         {nameLike,
          {QStringLiteral("state"), QStringLiteral("string"),
           QStringLiteral("Equinix status, e.g. PROVISIONED, PROVISIONING, PENDING_APPROVAL."),
           QStringLiteral("/operation/equinixStatus")},
          {QStringLiteral("metro"),
           QStringLiteral("string"),
           QStringLiteral("Metro code of either side, e.g. SV, DC, AM."),
           QStringLiteral("/aSide/accessPoint/location/metroCode"),
           QStringLiteral("="),
           {QStringLiteral("/zSide/accessPoint/location/metroCode")}},
          project,
          limitArg(),
          offsetArg()}},
        {QStringLiteral("fabric_search_service_profiles"),
         QStringLiteral("Search service profiles"),
         QStringLiteral("Search service profiles (clouds and other sellers) by exact name, "
                        "state, metro or project. Works with no arguments."),
         QStringLiteral("/fabric/v4/serviceProfiles/search"),
         QStringLiteral("service profiles"),
         {{QStringLiteral("name"), QStringLiteral("string"),
           QStringLiteral("Exact service profile name, e.g. \"AWS Direct Connect\"."),
           QStringLiteral("/name")},
          {QStringLiteral("state"), QStringLiteral("string"),
           QStringLiteral("Profile state, e.g. ACTIVE."), QStringLiteral("/state")},
          {QStringLiteral("metro"), QStringLiteral("string"),
           QStringLiteral("Metro code where the profile is offered, e.g. SV."),
           QStringLiteral("/metros/code")},
          project,
          limitArg(),
          offsetArg()}},
        {QStringLiteral("fabric_search_networks"),
         QStringLiteral("Search networks"),
         QStringLiteral("Search Fabric networks (EVPLAN, EPLAN, EVPTREE, EPTREE) by name, state, "
                        "metro or project. Works with no arguments."),
         QStringLiteral("/fabric/v4/networks/search"),
         QStringLiteral("networks"),
         {nameLike,
          {QStringLiteral("state"), QStringLiteral("string"),
           QStringLiteral("Network state, e.g. ACTIVE, INACTIVE, PROVISIONING."),
           QStringLiteral("/state")},
          {QStringLiteral("metro"), QStringLiteral("string"),
           QStringLiteral("Metro code of a LOCAL network, e.g. SV."),
           QStringLiteral("/location/metroCode")},
          project,
          limitArg(),
          offsetArg()}},
        {QStringLiteral("fabric_search_service_tokens"),
         QStringLiteral("Search service tokens"),
         QStringLiteral("Search service tokens by name, state or project. Works with no "
                        "arguments."),
         QStringLiteral("/fabric/v4/serviceTokens/search"),
         QStringLiteral("service tokens"),
         {nameLike,
          {QStringLiteral("state"), QStringLiteral("string"),
           QStringLiteral("Token state, e.g. INACTIVE, ACTIVE, EXPIRED."),
           QStringLiteral("/state")},
          project,
          limitArg(),
          offsetArg()}},
        {QStringLiteral("fabric_search_cloud_routers"),
         QStringLiteral("Search cloud routers"),
         QStringLiteral("Search Fabric Cloud Routers by name, state, metro or project. Works with "
                        "no arguments."),
         QStringLiteral("/fabric/v4/routers/search"),
         QStringLiteral("cloud routers"),
         {nameLike,
          {QStringLiteral("state"), QStringLiteral("string"),
           QStringLiteral("Router state, e.g. PROVISIONED."), QStringLiteral("/state")},
          {QStringLiteral("metro"), QStringLiteral("string"), QStringLiteral("Metro code."),
           QStringLiteral("/location/metroCode")},
          project,
          limitArg(),
          offsetArg()}},
        {QStringLiteral("fabric_search_prices"),
         QStringLiteral("Search the rate card"),
         QStringLiteral("Rate-card prices for virtual connections (context, not a quote): filter "
                        "by connection type, bandwidth in Mbps, metros, access point types or "
                        "service profile. Works with no arguments."),
         QStringLiteral("/fabric/v4/prices/search"),
         QStringLiteral("prices"),
         {{QStringLiteral("connection_type"), QStringLiteral("string"),
           QStringLiteral("Connection type, e.g. EVPL_VC, EPL_VC, IP_VC."),
           QStringLiteral("/connection/type")},
          {QStringLiteral("bandwidth"), QStringLiteral("string"),
           QStringLiteral("Bandwidth in Mbps, e.g. \"1000\"."),
           QStringLiteral("/connection/bandwidth")},
          {QStringLiteral("a_side_metro"), QStringLiteral("string"),
           QStringLiteral("A-side metro code."),
           QStringLiteral("/connection/aSide/accessPoint/location/metroCode")},
          {QStringLiteral("z_side_metro"), QStringLiteral("string"),
           QStringLiteral("Z-side metro code."),
           QStringLiteral("/connection/zSide/accessPoint/location/metroCode")},
          {QStringLiteral("a_side_type"), QStringLiteral("string"),
           QStringLiteral("A-side access point type, e.g. COLO."),
           QStringLiteral("/connection/aSide/accessPoint/type")},
          {QStringLiteral("z_side_type"), QStringLiteral("string"),
           QStringLiteral("Z-side access point type, e.g. SP, COLO."),
           QStringLiteral("/connection/zSide/accessPoint/type")},
          {QStringLiteral("profile"), QStringLiteral("string"),
           QStringLiteral("Z-side service profile UUID."),
           QStringLiteral("/connection/zSide/accessPoint/profile/uuid")},
          limitArg(),
          offsetArg()}},
    };

    for (const SearchTool &s : searches) {
        mcp::ToolDefinition t;
        t.name = s.name;
        t.title = s.title;
        t.description = s.description;
        t.inputSchema = inputSchemaFor(s.args);
        t.outputSchema = listOutputSchema(s.what);
        t.annotations = readOnlyAnnotations(s.title);
        t.toolset = QStringLiteral("read");
        t.handler = [this, s](mcp::ToolCall *call) {
            const QJsonObject args = call->arguments();
            if (!argumentsValid(call, s.args))
                return;
            QJsonObject body{{QStringLiteral("pagination"), paginationOf(args)}};
            QJsonObject filter = filterFor(args, s.args);
            if (s.name == u"fabric_search_prices") {
                QJsonArray and_ = filter.value(QStringLiteral("and")).toArray();
                and_.prepend(
                    QJsonObject{{QStringLiteral("property"), QStringLiteral("/type")},
                                {QStringLiteral("operator"), QStringLiteral("=")},
                                {QStringLiteral("values"),
                                 QJsonArray{QStringLiteral("VIRTUAL_CONNECTION_PRODUCT")}}});
                filter.insert(QStringLiteral("and"), and_);
                body.remove(QStringLiteral("pagination")); // FilterBody has no pagination
            }
            if (!filter.value(QStringLiteral("and")).toArray().isEmpty())
                body.insert(QStringLiteral("filter"), filter);
            FabricCall *fc = m_fabric->search(s.path, body);
            QObject::connect(call, &mcp::ToolCall::cancelled, fc, &FabricCall::abort);
            QObject::connect(fc, &FabricCall::finished, call, [call, s](const FabricResult &r) {
                if (!r.ok())
                    return finishFabricError(call, r, QStringLiteral("search ") + s.what);
                QJsonObject out = r.body.toObject();
                if (!out.value(QStringLiteral("data")).isArray())
                    out.insert(QStringLiteral("data"), QJsonArray());
                const qsizetype n = out.value(QStringLiteral("data")).toArray().size();
                const int total = out.value(QStringLiteral("pagination"))
                                      .toObject()
                                      .value(QStringLiteral("total"))
                                      .toInt(static_cast<int>(n));
                call->finishStructured(
                    out,
                    textFor(out, QStringLiteral("%1 %2 (of %3).").arg(n).arg(s.what).arg(total)));
            });
        };
        registry->registerTool(std::move(t));
    }

    const QList<GetTool> gets = {
        {QStringLiteral("fabric_get_connection"), QStringLiteral("Get a connection"),
         QStringLiteral("One virtual connection by UUID, with both sides, state and bandwidth."),
         QStringLiteral("/fabric/v4/connections/%1"), QStringLiteral("connection")},
        {QStringLiteral("fabric_get_service_profile"), QStringLiteral("Get a service profile"),
         QStringLiteral("One service profile by UUID: supported bandwidths, seller regions, "
                        "metros, whether an authentication key is required."),
         QStringLiteral("/fabric/v4/serviceProfiles/%1"), QStringLiteral("service profile")},
        {QStringLiteral("fabric_get_network"), QStringLiteral("Get a network"),
         QStringLiteral("One Fabric network by UUID."), QStringLiteral("/fabric/v4/networks/%1"),
         QStringLiteral("network")},
        {QStringLiteral("fabric_get_service_token"), QStringLiteral("Get a service token"),
         QStringLiteral("One service token by UUID."),
         QStringLiteral("/fabric/v4/serviceTokens/%1"), QStringLiteral("service token")},
    };
    for (const GetTool &g : gets) {
        mcp::ToolDefinition t;
        t.name = g.name;
        t.title = g.title;
        t.description = g.description;
        const QList<Arg> args{uuidArg(g.what)};
        t.inputSchema = inputSchemaFor(args);
        t.outputSchema = entityOutputSchema(g.what);
        t.annotations = readOnlyAnnotations(g.title);
        t.toolset = QStringLiteral("read");
        t.handler = [this, g, args](mcp::ToolCall *call) {
            if (!argumentsValid(call, args))
                return;
            const QString uuid = call->arguments().value(QStringLiteral("uuid")).toString();
            FabricCall *fc = m_fabric->get(g.pathTemplate.arg(uuid));
            QObject::connect(call, &mcp::ToolCall::cancelled, fc, &FabricCall::abort);
            QObject::connect(fc, &FabricCall::finished, call, [call, g](const FabricResult &r) {
                if (!r.ok())
                    return finishFabricError(call, r, QStringLiteral("get the ") + g.what);
                const QJsonObject out = r.body.toObject();
                call->finishStructured(
                    out, textFor(out, QStringLiteral("%1 %2").arg(
                                          g.what, out.value(QStringLiteral("name")).toString())));
            });
        };
        registry->registerTool(std::move(t));
    }

    // Metros: GET with offset/limit.
    {
        mcp::ToolDefinition t;
        t.name = QStringLiteral("fabric_list_metros");
        t.title = QStringLiteral("List metros");
        t.description = QStringLiteral("Fabric metros (code, name, region). Works with no "
                                       "arguments.");
        const QList<Arg> args{limitArg(), offsetArg()};
        t.inputSchema = inputSchemaFor(args);
        t.outputSchema = listOutputSchema(QStringLiteral("metros"));
        t.annotations = readOnlyAnnotations(t.title);
        t.toolset = QStringLiteral("read");
        t.handler = [this, args](mcp::ToolCall *call) {
            const QJsonObject a = call->arguments();
            if (!argumentsValid(call, args))
                return;
            QUrlQuery q;
            q.addQueryItem(QStringLiteral("offset"),
                           QString::number(a.value(QStringLiteral("offset")).toInt(0)));
            q.addQueryItem(QStringLiteral("limit"),
                           QString::number(a.value(QStringLiteral("limit")).toInt(20)));
            FabricCall *fc = m_fabric->get(QStringLiteral("/fabric/v4/metros"), q);
            QObject::connect(call, &mcp::ToolCall::cancelled, fc, &FabricCall::abort);
            QObject::connect(fc, &FabricCall::finished, call, [call](const FabricResult &r) {
                if (!r.ok())
                    return finishFabricError(call, r, QStringLiteral("list metros"));
                const QJsonObject out = r.body.toObject();
                call->finishStructured(
                    out,
                    textFor(out, QStringLiteral("%1 metros.")
                                     .arg(out.value(QStringLiteral("data")).toArray().size())));
            });
        };
        registry->registerTool(std::move(t));
    }

    // Ports: GET /fabric/v4/ports (name filter server-side), metro/state/pagination applied here
    // on Fabric's own data + pagination shape.
    {
        mcp::ToolDefinition t;
        t.name = QStringLiteral("fabric_list_ports");
        t.title = QStringLiteral("List ports");
        t.description = QStringLiteral("Your Fabric ports (uuid, name, metro, bandwidth, state). "
                                       "Filter by name, metro or state. Works with no arguments.");
        const QList<Arg> args{
            {QStringLiteral("name"), QStringLiteral("string"), QStringLiteral("Exact port name.")},
            {QStringLiteral("metro"), QStringLiteral("string"),
             QStringLiteral("Metro code, e.g. SV.")},
            {QStringLiteral("state"), QStringLiteral("string"),
             QStringLiteral("Port state, e.g. ACTIVE.")},
            limitArg(),
            offsetArg()};
        t.inputSchema = inputSchemaFor(args);
        t.outputSchema = listOutputSchema(QStringLiteral("ports"));
        t.annotations = readOnlyAnnotations(t.title);
        t.toolset = QStringLiteral("read");
        t.handler = [this, args](mcp::ToolCall *call) {
            const QJsonObject a = call->arguments();
            if (!argumentsValid(call, args))
                return;
            QUrlQuery q;
            if (a.contains(QStringLiteral("name")))
                q.addQueryItem(QStringLiteral("name"), a.value(QStringLiteral("name")).toString());
            FabricCall *fc = m_fabric->get(QStringLiteral("/fabric/v4/ports"), q);
            QObject::connect(call, &mcp::ToolCall::cancelled, fc, &FabricCall::abort);
            QObject::connect(fc, &FabricCall::finished, call, [call, a](const FabricResult &r) {
                if (!r.ok())
                    return finishFabricError(call, r, QStringLiteral("list ports"));
                const QString metro = a.value(QStringLiteral("metro")).toString();
                const QString state = a.value(QStringLiteral("state")).toString();
                QJsonArray matching;
                for (const QJsonValue &p :
                     r.body.toObject().value(QStringLiteral("data")).toArray()) {
                    const QJsonObject port = p.toObject();
                    const QString portMetro = port.value(QStringLiteral("location"))
                                                  .toObject()
                                                  .value(QStringLiteral("metroCode"))
                                                  .toString();
                    if (!metro.isEmpty() && portMetro.compare(metro, Qt::CaseInsensitive) != 0)
                        continue;
                    if (!state.isEmpty() && port.value(QStringLiteral("state"))
                                                    .toString()
                                                    .compare(state, Qt::CaseInsensitive) != 0)
                        continue;
                    matching.append(port);
                }
                const int offset = a.value(QStringLiteral("offset")).toInt(0);
                const int limit = a.value(QStringLiteral("limit")).toInt(20);
                QJsonArray page;
                for (int i = offset; i < matching.size() && i < offset + limit; ++i)
                    page.append(matching.at(i));
                const QJsonObject out{
                    {QStringLiteral("data"), page},
                    {QStringLiteral("pagination"),
                     QJsonObject{{QStringLiteral("offset"), offset},
                                 {QStringLiteral("limit"), limit},
                                 {QStringLiteral("total"), static_cast<int>(matching.size())}}}};
                call->finishStructured(
                    out,
                    textFor(
                        out,
                        QStringLiteral("%1 ports (of %2).").arg(page.size()).arg(matching.size())));
            });
        };
        registry->registerTool(std::move(t));
    }

    // One port with the VLANs in use on it (two reads).
    {
        mcp::ToolDefinition t;
        t.name = QStringLiteral("fabric_get_port");
        t.title = QStringLiteral("Get a port");
        t.description = QStringLiteral("One port by UUID, with the VLANs already in use on it "
                                       "(vlans_in_use, from the port's link protocols): pick a "
                                       "free VLAN before proposing a connection.");
        const QList<Arg> args{uuidArg(QStringLiteral("port"))};
        t.inputSchema = inputSchemaFor(args);
        t.outputSchema = entityOutputSchema(QStringLiteral("port"));
        t.annotations = readOnlyAnnotations(t.title);
        t.toolset = QStringLiteral("read");
        t.handler = [this, args](mcp::ToolCall *call) {
            if (!argumentsValid(call, args))
                return;
            const QString uuid = call->arguments().value(QStringLiteral("uuid")).toString();
            FabricCall *portCall = m_fabric->get(QStringLiteral("/fabric/v4/ports/") + uuid);
            QObject::connect(call, &mcp::ToolCall::cancelled, portCall, &FabricCall::abort);
            QObject::connect(
                portCall, &FabricCall::finished, call, [this, call, uuid](const FabricResult &r) {
                    if (!r.ok())
                        return finishFabricError(call, r, QStringLiteral("get the port"));
                    const QJsonObject port = r.body.toObject();
                    FabricCall *vlans = m_fabric->get(
                        QStringLiteral("/fabric/v4/ports/%1/linkProtocols").arg(uuid));
                    QObject::connect(call, &mcp::ToolCall::cancelled, vlans, &FabricCall::abort);
                    QObject::connect(
                        vlans, &FabricCall::finished, call, [call, port](const FabricResult &v) {
                            QJsonObject out = port;
                            if (v.ok())
                                out.insert(QStringLiteral("vlans_in_use"),
                                           v.body.toObject().value(QStringLiteral("data")));
                            else
                                out.insert(QStringLiteral("vlans_in_use_error"), v.message);
                            call->finishStructured(
                                out,
                                textFor(out, QStringLiteral("Port %1").arg(
                                                 port.value(QStringLiteral("name")).toString())));
                        });
                });
        };
        registry->registerTool(std::move(t));
    }

    // This process's pending proposals: never the tokens.
    {
        mcp::ToolDefinition t;
        t.name = QStringLiteral("fabric_list_proposals");
        t.title = QStringLiteral("List pending proposals");
        t.description = QStringLiteral(
            "Proposals of this broker process awaiting confirmation: change type, target, age, "
            "expiry, request hash and price. Tokens are never listed.");
        t.inputSchema = inputSchemaFor({});
        t.outputSchema = {
            {QStringLiteral("type"), QStringLiteral("object")},
            {QStringLiteral("properties"),
             QJsonObject{
                 {QStringLiteral("proposals"),
                  QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                              {QStringLiteral("items"),
                               QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}}},
                 {QStringLiteral("max_pending"),
                  QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")}}},
                 {QStringLiteral("ttl_seconds"),
                  QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")}}}}},
            {QStringLiteral("required"), QJsonArray{QStringLiteral("proposals")}}};
        t.annotations = readOnlyAnnotations(t.title);
        t.toolset = QStringLiteral("read");
        t.handler = [this](mcp::ToolCall *call) {
            if (!argumentsValid(call, QList<Arg>{}))
                return;
            const qint64 now = m_clock->nowMs();
            QJsonArray rows;
            for (const Proposal &p : m_store->pending())
                rows.append(ProposalView::listRow(p, now));
            const QJsonObject out{
                {QStringLiteral("proposals"), rows},
                {QStringLiteral("max_pending"), m_store->maxPending()},
                {QStringLiteral("ttl_seconds"), static_cast<int>(m_store->ttlMs() / 1000)}};
            call->finishStructured(
                out, textFor(out, QStringLiteral("%1 pending proposal(s).").arg(rows.size())));
        };
        registry->registerTool(std::move(t));
    }
}

} // namespace fb
