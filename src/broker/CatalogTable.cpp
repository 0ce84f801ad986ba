// The catalog's table: every read tool as data (name, title, description, endpoint, arguments,
// how it fetches), and what tools/list publishes for it (input schema, output schema,
// annotations), built from that data. Catalog.cpp has the one handler that runs them.
#include "broker/CatalogTable.h"

#include <QJsonArray>

namespace fb::catalog {

namespace {

const QString kUuidPattern =
    QStringLiteral("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");

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

QJsonObject proposalsOutputSchema()
{
    return {{QStringLiteral("type"), QStringLiteral("object")},
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
}

// The catalog: every read tool, in the order tools/list shows them.
QList<CatalogTool> makeCatalog()
{
    const Arg nameLike{QStringLiteral("name"), QStringLiteral("string"),
                       QStringLiteral("Part of the name (case-sensitive substring match)."),
                       QStringLiteral("/name"), QStringLiteral("LIKE")};
    const Arg project{QStringLiteral("project"), QStringLiteral("string"),
                      QStringLiteral("Project ID to restrict the search to."),
                      QStringLiteral("/project/projectId")};

    return {
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
        {QStringLiteral("fabric_get_connection"),
         QStringLiteral("Get a connection"),
         QStringLiteral("One virtual connection by UUID, with both sides, state and bandwidth."),
         QStringLiteral("/fabric/v4/connections/%1"),
         QStringLiteral("connection"),
         {uuidArg(QStringLiteral("connection"))},
         Fetch::GetByUuid},
        {QStringLiteral("fabric_get_service_profile"),
         QStringLiteral("Get a service profile"),
         QStringLiteral("One service profile by UUID: supported bandwidths, seller regions, "
                        "metros, whether an authentication key is required."),
         QStringLiteral("/fabric/v4/serviceProfiles/%1"),
         QStringLiteral("service profile"),
         {uuidArg(QStringLiteral("service profile"))},
         Fetch::GetByUuid},
        {QStringLiteral("fabric_get_network"),
         QStringLiteral("Get a network"),
         QStringLiteral("One Fabric network by UUID."),
         QStringLiteral("/fabric/v4/networks/%1"),
         QStringLiteral("network"),
         {uuidArg(QStringLiteral("network"))},
         Fetch::GetByUuid},
        {QStringLiteral("fabric_get_service_token"),
         QStringLiteral("Get a service token"),
         QStringLiteral("One service token by UUID."),
         QStringLiteral("/fabric/v4/serviceTokens/%1"),
         QStringLiteral("service token"),
         {uuidArg(QStringLiteral("service token"))},
         Fetch::GetByUuid},
        {QStringLiteral("fabric_list_metros"),
         QStringLiteral("List metros"),
         QStringLiteral("Fabric metros (code, name, region). Works with no arguments."),
         QStringLiteral("/fabric/v4/metros"),
         QStringLiteral("metros"),
         {limitArg(), offsetArg()},
         Fetch::GetPage},
        // Ports: the name filter is Fabric's; metro, state and pagination are applied here on
        // Fabric's own data + pagination shape.
        {QStringLiteral("fabric_list_ports"),
         QStringLiteral("List ports"),
         QStringLiteral("Your Fabric ports (uuid, name, metro, bandwidth, state). Filter by name, "
                        "metro or state. Works with no arguments."),
         QStringLiteral("/fabric/v4/ports"),
         QStringLiteral("ports"),
         {{QStringLiteral("name"), QStringLiteral("string"), QStringLiteral("Exact port name.")},
          {QStringLiteral("metro"), QStringLiteral("string"),
           QStringLiteral("Metro code, e.g. SV.")},
          {QStringLiteral("state"), QStringLiteral("string"),
           QStringLiteral("Port state, e.g. ACTIVE.")},
          limitArg(),
          offsetArg()},
         Fetch::ListPorts},
        // One port with the VLANs in use on it (two reads).
        {QStringLiteral("fabric_get_port"),
         QStringLiteral("Get a port"),
         QStringLiteral("One port by UUID, with the VLANs already in use on it (vlans_in_use, "
                        "from the port's link protocols): pick a free VLAN before proposing a "
                        "connection."),
         QStringLiteral("/fabric/v4/ports/"),
         QStringLiteral("port"),
         {uuidArg(QStringLiteral("port"))},
         Fetch::GetPortAndVlans},
        {QStringLiteral("fabric_list_proposals"),
         QStringLiteral("List pending proposals"),
         QStringLiteral("Proposals of this broker process awaiting confirmation: change type, "
                        "target, age, expiry, request hash and price. Tokens are never listed."),
         QString(),
         QStringLiteral("proposals"),
         {},
         Fetch::Proposals},
    };
}

} // namespace

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

QJsonObject readOnlyAnnotations(const QString &title)
{
    return {{QStringLiteral("title"), title},
            {QStringLiteral("readOnlyHint"), true},
            {QStringLiteral("destructiveHint"), false},
            {QStringLiteral("idempotentHint"), true},
            {QStringLiteral("openWorldHint"), true}};
}

QJsonObject outputSchemaFor(const CatalogTool &t)
{
    switch (t.fetch) {
    case Fetch::Search:
    case Fetch::GetPage:
    case Fetch::ListPorts:
        return listOutputSchema(t.what);
    case Fetch::GetByUuid:
    case Fetch::GetPortAndVlans:
        return entityOutputSchema(t.what);
    case Fetch::Proposals:
        break;
    }
    return proposalsOutputSchema();
}

const QList<CatalogTool> &catalogTools()
{
    static const QList<CatalogTool> tools = makeCatalog();
    return tools;
}

} // namespace fb::catalog
