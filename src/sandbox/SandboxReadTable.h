#pragma once
// SandboxReadTable: what the sandbox knows about the read operations of Fabric v4. Joins the
// broker's read-operation table (src/broker/readops/read_operations.json: method, path template,
// parameters and the strict input schema of every operation) with the sandbox's read estate
// (resources/sandbox/readops.json, made by scripts/gen-sandbox-readops.py: the collection each
// operation is served from, its answer's shape, the seeded items and a sample request). Both are
// compiled in (sandbox.qrc); both are ours, so a malformed one stops the process (qFatal).
#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace fb {

struct SandboxReadOperation {
    QString operationId;
    QString method;       // GET or POST
    QString pathTemplate; // "/fabric/v4/routers/{routerId}/routes/search"
    QStringList segments; // the template's segments after the leading '/'
    QStringList pathParams;
    QHash<QString, QString> queryParams; // name -> array style: "multi" (repeated), "csv" or ""
    QString body;                        // "required", "optional" or empty
    QJsonObject inputSchema;             // empty for the core catalog's rows
    // Served here when collection is set ("@ports": the estate's ports); otherwise SandboxApi's
    // older handlers answer.
    QString collection;
    QString shape;                      // one, page, data or file
    int status = 200;                   // the spec's success status (202 for a few)
    QHash<QString, QString> queryMatch; // query parameter -> JSON pointer it filters on
    bool echoSort = false;              // the page repeats the search's sort (the spec requires it)
    QJsonObject sample;                 // {path, query?, body?}: answered with success
};

struct SandboxReadItem {
    QHash<QString, QString> ids; // path parameter -> value under which the item is found
    QJsonObject item;            // hrefs start with ${BASE}
};

class SandboxReadTable {
public:
    // The compiled-in table and estate, parsed once.
    static const SandboxReadTable &builtin();

    const QList<SandboxReadOperation> &operations() const { return m_operations; }
    const SandboxReadOperation *operation(const QString &operationId) const;
    // The operation whose method and path template fit (literal segments beat parameters), with
    // the path parameters' values; nullptr when none does.
    const SandboxReadOperation *match(const QString &method, const QString &path,
                                      QHash<QString, QString> *params) const;
    QList<SandboxReadItem> items(const QString &collection) const
    {
        return m_collections.value(collection);
    }
    // The bytes and content type of a file answer; false when there is no such file.
    bool file(const QString &name, QByteArray *bytes, QByteArray *contentType) const;

    // Parses the two documents; an empty error when both are well-formed and agree.
    static SandboxReadTable parse(const QByteArray &table, const QByteArray &estate,
                                  QString *error);

private:
    QList<SandboxReadOperation> m_operations;
    QHash<QString, QList<SandboxReadItem>> m_collections;
    QHash<QString, QPair<QByteArray, QByteArray>> m_files; // name -> (content type, bytes)
};

} // namespace fb
