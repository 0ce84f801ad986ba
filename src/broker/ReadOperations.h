#pragma once
// ReadOperations: every non-deprecated read operation of the Fabric v4 spec, as the table
// scripts/gen-read-operations.py derives from it (src/broker/readops/read_operations.json, a
// resource of this library), and the one way a tool's arguments become that operation's HTTP
// request. The table is data: one row per operation (method, path template, path and query
// parameters, the search body, the strict input schema of its tool, its toolset). Rows with
// core=true are served by the core catalog's tools (toolset "read"); every other row is a tool of
// its own (SpecCatalog).
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrlQuery>

namespace fb::readops {

struct QueryParam {
    enum class Array { No, Csv, Multi }; // how an array value is written: a,b or x=a&x=b
    QString name;
    Array array = Array::No;
};

struct ReadOperation {
    QString operationId;
    QString tool; // the MCP tool that serves it
    bool core = false;
    QString toolset; // "read" for core rows
    QString tag;     // the spec's tag
    QString method;  // "GET" or "POST" (a .../search)
    QString path;    // template: /fabric/v4/routers/{routerId}/routes/search
    QStringList pathParams;
    QList<QueryParam> queryParams;
    enum class Body { None, Optional, Required } body = Body::None;
    bool fileAnswer = false; // answers a file (an image, a PDF), not JSON
    QString title;
    QString description;
    QJsonObject inputSchema; // empty for core rows
};

struct Toolset {
    QString name;
    QString summary; // what it reads, in a few words
    QString description;
    QStringList tags;
};

struct Table {
    QString specTitle;
    QString specVersion;
    QString specSha256;
    QList<Toolset> toolsets; // the spec-derived read toolsets, in the table's order
    QList<ReadOperation> operations;
};

// The table, parsed once. A table that does not parse is a build defect: it is reported with
// qFatal (the generator and tst_readoperations keep it valid).
const Table &table();

// The tools of one toolset (core rows belong to "read"), in table order.
QList<const ReadOperation *> operationsOf(const QString &toolset);

// The HTTP request of a row for arguments that passed its input schema. Path parameters are
// percent-encoded into the template; query parameters are written in the row's order (numbers
// as JSON writes them, booleans as true/false, arrays per QueryParam::Array); "body" is the search
// body; "projection" and unknown names are not Fabric's and are not sent.
struct Request {
    QString method;
    QString path;
    QUrlQuery query;
    QJsonObject body;
    bool hasBody = false;
};
Request requestFor(const ReadOperation &op, const QJsonObject &args);

} // namespace fb::readops
