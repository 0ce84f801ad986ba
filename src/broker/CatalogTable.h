#pragma once
// CatalogTable: the read tools as a table of descriptors (see CatalogTable.cpp), for Catalog.
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace fb::catalog {

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

// How a read tool gets its data.
enum class Fetch {
    Search,          // POST <path> (a .../search endpoint) with the filter of the arguments
    GetByUuid,       // GET <path> with %1 = the uuid argument
    GetPage,         // GET <path>?offset=&limit=
    ListPorts,       // GET <path>?name=, then metro/state/pagination applied here
    GetPortAndVlans, // GET <path>/<uuid>, then GET <path>/<uuid>/linkProtocols
    Proposals,       // this process's pending proposals (never the tokens); no Fabric call
};

// One read tool: what tools/list publishes (the input schema is built from args, the
// annotations from title; the output schema from fetch and what) and the Fabric call.
struct CatalogTool {
    QString name;
    QString title;
    QString description;
    QString path; // the endpoint (or its template)
    QString what; // the noun of the data, for schemas and messages
    QList<Arg> args;
    Fetch fetch = Fetch::Search;
};

// Every read tool, in the order tools/list shows them.
const QList<CatalogTool> &catalogTools();

// {"type": "object", "properties": {...}, "additionalProperties": false, "required"?: [...]}
QJsonObject inputSchemaFor(const QList<Arg> &args);
QJsonObject outputSchemaFor(const CatalogTool &tool);
// readOnlyHint, not destructive, idempotent, open world.
QJsonObject readOnlyAnnotations(const QString &title);

} // namespace fb::catalog
