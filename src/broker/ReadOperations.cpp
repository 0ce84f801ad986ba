#include "broker/ReadOperations.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QResource>
#include <QUrl>
#include <QtGlobal>

// Q_INIT_RESOURCE declares an extern function, so it must be used outside namespace fb. The table
// lives in a static library, where the resource's static initializer would otherwise be dropped.
static void fbInitReadOpsResources()
{
    Q_INIT_RESOURCE(readops);
}

namespace fb::readops {

namespace {

using namespace Qt::StringLiterals;

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &s : v.toArray())
        out.append(s.toString());
    return out;
}

ReadOperation parseRow(const QJsonObject &o)
{
    ReadOperation op;
    op.operationId = o.value(u"operationId").toString();
    op.tool = o.value(u"tool").toString();
    op.core = o.value(u"core").toBool();
    op.toolset = o.value(u"toolset").toString();
    op.tag = o.value(u"tag").toString();
    op.method = o.value(u"method").toString();
    op.path = o.value(u"path").toString();
    op.pathParams = strings(o.value(u"pathParams"));
    for (const QJsonValue &q : o.value(u"queryParams").toArray()) {
        const QString array = q.toObject().value(u"array").toString();
        op.queryParams.append(
            {q.toObject().value(u"name").toString(), array == u"csv"     ? QueryParam::Array::Csv
                                                     : array == u"multi" ? QueryParam::Array::Multi
                                                                         : QueryParam::Array::No});
    }
    const QString body = o.value(u"body").toString();
    op.body = body == u"required"   ? ReadOperation::Body::Required
              : body == u"optional" ? ReadOperation::Body::Optional
                                    : ReadOperation::Body::None;
    op.fileAnswer = o.value(u"answer").toString() == u"file";
    op.title = o.value(u"title").toString();
    op.description = o.value(u"description").toString();
    op.inputSchema = o.value(u"inputSchema").toObject();
    return op;
}

Table load()
{
    fbInitReadOpsResources();
    // Stored uncompressed (readops.qrc): the bytes where the binary is mapped, no copy.
    const QResource resource(u":/fabric-broker/readops/read_operations.json"_s);
    const QByteArray bytes = resource.uncompressedData();
    if (!resource.isValid() || bytes.isEmpty())
        qFatal("the read-operation table is missing from the resources");
    QJsonParseError error{};
    const QJsonObject root = QJsonDocument::fromJson(bytes, &error).object();
    if (error.error != QJsonParseError::NoError || root.isEmpty())
        qFatal("the read-operation table does not parse: %s", qPrintable(error.errorString()));
    Table t;
    const QJsonObject spec = root.value(u"spec").toObject();
    t.specTitle = spec.value(u"title").toString();
    t.specVersion = spec.value(u"version").toString();
    t.specSha256 = spec.value(u"sha256").toString();
    for (const QJsonValue &set : root.value(u"toolsets").toArray()) {
        const QJsonObject s = set.toObject();
        t.toolsets.append({s.value(u"name").toString(), s.value(u"summary").toString(),
                           s.value(u"description").toString(), strings(s.value(u"tags"))});
    }
    for (const QJsonValue &row : root.value(u"operations").toArray())
        t.operations.append(parseRow(row.toObject()));
    return t;
}

// A query value as Fabric reads it: strings as they are, numbers as JSON writes them.
QString scalarText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isBool())
        return v.toBool() ? u"true"_s : u"false"_s;
    if (v.isDouble()) {
        const double d = v.toDouble();
        if (d == static_cast<double>(static_cast<qint64>(d)) && qAbs(d) < 1e15)
            return QString::number(static_cast<qint64>(d));
        return QString::number(d, 'g', 17);
    }
    return {};
}

// Percent-encoded, so '+', '&', '=', '#' and '%' in a value reach Fabric as the value's own
// characters (QUrlQuery keeps an encoded value as it is).
QString encoded(const QString &value)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(value));
}

} // namespace

const Table &table()
{
    static const Table t = load();
    return t;
}

QList<const ReadOperation *> operationsOf(const QString &toolset)
{
    QList<const ReadOperation *> out;
    for (const ReadOperation &op : table().operations)
        if (op.toolset == toolset)
            out.append(&op);
    return out;
}

Request requestFor(const ReadOperation &op, const QJsonObject &args)
{
    Request r;
    r.method = op.method;
    r.path = op.path;
    for (const QString &name : op.pathParams) {
        const QString value = args.value(name).toString();
        // The schema's pattern already refuses these; a path segment never leaves its place.
        if (value.isEmpty() || value == u"." || value == u".." || value.contains(u'/') ||
            value.contains(u'?') || value.contains(u'#') || value.contains(u'%'))
            return {};
        r.path.replace(u'{' + name + u'}', value);
    }
    for (const QueryParam &q : op.queryParams) {
        const QJsonValue v = args.value(q.name);
        if (v.isUndefined() || v.isNull())
            continue;
        if (!v.isArray()) {
            r.query.addQueryItem(q.name, encoded(scalarText(v)));
            continue;
        }
        QStringList items;
        for (const QJsonValue &item : v.toArray())
            items.append(encoded(scalarText(item)));
        if (q.array == QueryParam::Array::Csv)
            r.query.addQueryItem(q.name, items.join(u','));
        else
            for (const QString &item : items)
                r.query.addQueryItem(q.name, item);
    }
    if (op.body != ReadOperation::Body::None && args.value(u"body").isObject()) {
        r.body = args.value(u"body").toObject();
        r.hasBody = true;
    } else if (op.method == u"POST") {
        r.hasBody = true; // a search without a body sends {}
    }
    return r;
}

} // namespace fb::readops
