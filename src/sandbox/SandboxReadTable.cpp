#include "sandbox/SandboxReadTable.h"

#include "sandbox/SandboxSeed.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace fb {

using namespace Qt::StringLiterals;

namespace {

const QString kTablePath = u":/fabric-broker/sandbox/read_operations.json"_s;
const QString kEstatePath = u":/fabric-broker/sandbox/readops.json"_s;
constexpr QLatin1String kEstateFormat{"fabric-broker-sandbox-readops/1"};

QJsonObject parseObject(const QByteArray &bytes, const QString &what, QString *error)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        *error = what + u": not a JSON object ("_s + err.errorString() + u')';
        return {};
    }
    return doc.object();
}

QHash<QString, QString> stringMap(const QJsonObject &o)
{
    QHash<QString, QString> out;
    for (auto it = o.begin(); it != o.end(); ++it)
        out.insert(it.key(), it.value().toString());
    return out;
}

QStringList strings(const QJsonArray &a)
{
    QStringList out;
    for (const QJsonValue &v : a)
        out.append(v.toString());
    return out;
}

QByteArray readResource(const QString &path)
{
    // The sandbox's resources are initialised by the seed's loader (a static library).
    (void)SandboxSeed::resourceBytes();
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

const SandboxReadTable &SandboxReadTable::builtin()
{
    static const SandboxReadTable table = [] {
        QString error;
        SandboxReadTable t = parse(readResource(kTablePath), readResource(kEstatePath), &error);
        if (!error.isEmpty())
            qFatal("sandbox read operations: %s", qPrintable(error));
        return t;
    }();
    return table;
}

SandboxReadTable SandboxReadTable::parse(const QByteArray &tableBytes,
                                         const QByteArray &estateBytes, QString *error)
{
    SandboxReadTable t;
    error->clear();
    const QJsonObject table = parseObject(tableBytes, u"read_operations.json"_s, error);
    if (!error->isEmpty())
        return t;
    const QJsonObject estate = parseObject(estateBytes, u"readops.json"_s, error);
    if (!error->isEmpty())
        return t;
    if (estate.value(u"format"_s).toString() != kEstateFormat) {
        *error = u"readops.json: format is not "_s + kEstateFormat;
        return t;
    }
    const QJsonObject served = estate.value(u"operations"_s).toObject();
    const QJsonArray rows = table.value(u"operations"_s).toArray();
    for (const QJsonValue &v : rows) {
        const QJsonObject row = v.toObject();
        SandboxReadOperation op;
        op.operationId = row.value(u"operationId"_s).toString();
        op.method = row.value(u"method"_s).toString();
        op.pathTemplate = row.value(u"path"_s).toString();
        op.segments = op.pathTemplate.mid(1).split(u'/');
        op.pathParams = strings(row.value(u"pathParams"_s).toArray());
        const QJsonArray query = row.value(u"queryParams"_s).toArray();
        for (const QJsonValue &q : query)
            op.queryParams.insert(q[u"name"_s].toString(), q[u"array"_s].toString());
        op.body = row.value(u"body"_s).toString();
        op.inputSchema = row.value(u"inputSchema"_s).toObject();
        if (!served.contains(op.operationId)) {
            *error = u"readops.json: operation "_s + op.operationId + u" is missing"_s;
            return t;
        }
        const QJsonObject entry = served.value(op.operationId).toObject();
        op.collection = entry.value(u"collection"_s).toString();
        op.shape = entry.value(u"shape"_s).toString();
        op.status = entry.value(u"status"_s).toInt(200);
        op.queryMatch = stringMap(entry.value(u"query"_s).toObject());
        op.echoSort = entry.value(u"echoSort"_s).toBool();
        op.sample = entry.value(u"sample"_s).toObject();
        t.m_operations.append(op);
    }
    if (t.m_operations.size() != served.size()) {
        *error = u"readops.json: operations differ from the table"_s;
        return t;
    }
    const QJsonObject collections = estate.value(u"collections"_s).toObject();
    for (auto it = collections.begin(); it != collections.end(); ++it) {
        QList<SandboxReadItem> items;
        const QJsonArray list = it.value().toArray();
        for (const QJsonValue &v : list)
            items.append({stringMap(v[u"ids"_s].toObject()), v[u"item"_s].toObject()});
        t.m_collections.insert(it.key(), items);
    }
    const QJsonObject files = estate.value(u"files"_s).toObject();
    for (auto it = files.begin(); it != files.end(); ++it)
        t.m_files.insert(it.key(),
                         {it.value()[u"contentType"_s].toString().toLatin1(),
                          QByteArray::fromBase64(it.value()[u"base64"_s].toString().toLatin1())});
    for (const SandboxReadOperation &op : std::as_const(t.m_operations)) {
        if (!op.collection.isEmpty() && !op.collection.startsWith(u'@') &&
            !t.m_collections.contains(op.collection)) {
            *error = u"readops.json: collection "_s + op.collection + u" of "_s + op.operationId +
                     u" is not seeded"_s;
            return t;
        }
    }
    return t;
}

const SandboxReadOperation *SandboxReadTable::operation(const QString &operationId) const
{
    for (const SandboxReadOperation &op : m_operations) {
        if (op.operationId == operationId)
            return &op;
    }
    return nullptr;
}

const SandboxReadOperation *SandboxReadTable::match(const QString &method, const QString &path,
                                                    QHash<QString, QString> *params) const
{
    const QStringList segments = path.mid(1).split(u'/');
    const SandboxReadOperation *best = nullptr;
    int bestLiterals = -1;
    for (const SandboxReadOperation &op : m_operations) {
        if (op.method != method || op.segments.size() != segments.size())
            continue;
        int literals = 0;
        bool fits = true;
        for (qsizetype i = 0; fits && i < segments.size(); ++i) {
            const QString &s = op.segments.at(i);
            if (s.startsWith(u'{'))
                fits = !segments.at(i).isEmpty();
            else if ((fits = s == segments.at(i)))
                ++literals;
        }
        if (fits && literals > bestLiterals) {
            best = &op;
            bestLiterals = literals;
        }
    }
    if (best && params) {
        params->clear();
        for (qsizetype i = 0; i < segments.size(); ++i) {
            const QString &s = best->segments.at(i);
            if (s.startsWith(u'{'))
                params->insert(s.mid(1, s.size() - 2), segments.at(i));
        }
    }
    return best;
}

bool SandboxReadTable::file(const QString &name, QByteArray *bytes, QByteArray *contentType) const
{
    const auto it = m_files.constFind(name);
    if (it == m_files.constEnd())
        return false;
    *contentType = it->first;
    *bytes = it->second;
    return true;
}

} // namespace fb
