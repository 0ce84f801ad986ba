#include "sandbox/SandboxReadOps.h"

#include "core/JsonSchema.h"
#include "sandbox/SandboxEstate.h"
#include "sandbox/SandboxReadTable.h"
#include "sandbox/SandboxSearch.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>

namespace fb {

using namespace Qt::StringLiterals;

namespace {

constexpr int kDefaultLimit = 20;

// A query parameter's text as the input schema's type wants it (a number, a boolean); left a
// string when it is not one, so the schema reports it.
QJsonValue typed(const QString &text, const QJsonObject &schema)
{
    const QString type = schema.value(u"type"_s).toString();
    bool ok = false;
    if (type == "integer"_L1) {
        const qlonglong n = text.toLongLong(&ok);
        return ok ? QJsonValue(n) : QJsonValue(text);
    }
    if (type == "number"_L1) {
        const double d = text.toDouble(&ok);
        return ok ? QJsonValue(d) : QJsonValue(text);
    }
    if (type == "boolean"_L1 && (text == "true"_L1 || text == "false"_L1))
        return text == "true"_L1;
    return text;
}

// "$.body.filter.and[0]" -> "filter.and[0]", as Fabric names a property of the request.
QString fabricProperty(QString path)
{
    if (path.startsWith(u"$."_s))
        path = path.mid(2);
    else if (path == "$"_L1)
        path.clear();
    if (path.startsWith(u"body."_s))
        path = path.mid(5);
    return path;
}

// A query value with '*' wildcards ("equinix.fabric.metro.*.latency") against a text.
bool queryMatches(const QString &pattern, const QJsonValue &value)
{
    const QString text = value.isDouble() ? QString::number(value.toDouble()) : value.toString();
    if (!pattern.contains(u'*'))
        return text == pattern;
    QString rx = QRegularExpression::escape(pattern);
    rx.replace(u"\\*"_s, u".*"_s);
    return QRegularExpression(QRegularExpression::anchoredPattern(rx)).match(text).hasMatch();
}

int intOr(const QJsonValue &v, int fallback)
{
    return v.isDouble() ? v.toInt() : fallback;
}

} // namespace

SandboxReadOps::SandboxReadOps(const SandboxEstate *estate)
    : m_estate(estate)
{
}

// Parsed on the first read request, not when the sandbox starts: a server that only initializes
// (every MCP client's spawn) never pays for the 320 KB table.
const SandboxReadTable *SandboxReadOps::table()
{
    return &SandboxReadTable::builtin();
}

std::optional<QJsonObject> SandboxReadOps::arguments(const SandboxReadOperation &op,
                                                     const QHash<QString, QString> &params,
                                                     const QUrlQuery &query, const QByteArray &body,
                                                     QString *error)
{
    QJsonObject args;
    for (auto it = params.begin(); it != params.end(); ++it)
        args.insert(it.key(), it.value());
    const QJsonObject properties = op.inputSchema.value(u"properties"_s).toObject();
    const auto items = query.queryItems(QUrl::FullyDecoded);
    for (const auto &[name, text] : items) {
        const QJsonObject schema = properties.value(name).toObject();
        const QString style = op.queryParams.value(name);
        if (style.isEmpty()) {
            args.insert(name, typed(text, schema));
            continue;
        }
        // An array: the parameter repeats ("multi") or holds the values comma-separated.
        QJsonArray values = args.value(name).toArray();
        const QStringList parts = style == "csv"_L1 ? text.split(u',') : QStringList{text};
        for (const QString &part : parts)
            values.append(typed(part, schema.value(u"items"_s).toObject()));
        args.insert(name, values);
    }
    if (op.method == "POST"_L1 && !body.trimmed().isEmpty()) {
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject()) {
            *error = err.error != QJsonParseError::NoError ? err.errorString()
                                                           : u"must be a JSON object"_s;
            return std::nullopt;
        }
        args.insert(u"body"_s, doc.object());
    }
    return args;
}

std::optional<SandboxReply> SandboxReadOps::handle(const QString &method, const QString &rawPath,
                                                   const QUrlQuery &query, const QByteArray &body,
                                                   const QString &cid) const
{
    QString path = rawPath;
    while (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    QHash<QString, QString> params;
    const SandboxReadOperation *op = table()->match(method, path, &params);
    if (!op || op->collection.isEmpty())
        return std::nullopt;

    QString problem;
    const std::optional<QJsonObject> args = arguments(*op, params, query, body, &problem);
    if (!args)
        return SandboxReply::error(
            400, SandboxErrors::InvalidArgument, SandboxErrors::InvalidArgumentMessage, cid,
            u"Json syntax error, please check request body"_s, u"body"_s, problem);
    PropertyReasons reasons;
    const QList<SchemaViolation> violations = JsonSchema(op->inputSchema).validate(*args);
    for (const SchemaViolation &v : violations)
        reasons.append({fabricProperty(v.path), v.message});
    if (problem = SandboxSearch::validateFilter(args->value(u"body"_s)[u"filter"_s], u"filter"_s);
        !problem.isEmpty())
        reasons.append({problem.section(u'|', 0, 0), problem.section(u'|', 1)});
    if (!reasons.isEmpty())
        return SandboxReply::errors(
            400, QJsonArray{fabricError(SandboxErrors::InvalidArgument,
                                        SandboxErrors::InvalidArgumentMessage, cid, {}, reasons)});

    QList<QJsonObject> items = candidates(*op, params, query);
    if (op->shape == "page"_L1 || op->shape == "data"_L1)
        return withBase(list(*op, items, *args, path));

    // An entity's path ends in its own id (the health check has none).
    const QString own =
        op->segments.last().startsWith(u'{') ? op->segments.last().mid(1).chopped(1) : QString();
    const auto notFound = [&] {
        return SandboxReply::error(404, SandboxErrors::UuidNotFound,
                                   SandboxErrors::UuidNotFoundMessage, cid,
                                   QString(SandboxErrors::UuidNotFoundMessage), own,
                                   u"%1 not found"_s.arg(params.value(own)));
    };
    if (items.isEmpty())
        return notFound();
    if (op->shape == "file"_L1) {
        SandboxReply reply;
        if (!table()->file(items.first().value(u"file"_s).toString(), &reply.body,
                           &reply.contentType))
            return notFound();
        reply.status = op->status;
        return reply;
    }
    return withBase(SandboxReply::json(op->status, items.first()));
}

QList<QJsonObject> SandboxReadOps::candidates(const SandboxReadOperation &op,
                                              const QHash<QString, QString> &params,
                                              const QUrlQuery &query) const
{
    QList<QJsonObject> out;
    if (op.collection == "@ports"_L1) {
        out = m_estate->ports();
    } else {
        const QList<SandboxReadItem> items = table()->items(op.collection);
        for (const SandboxReadItem &it : items) {
            const bool fits =
                std::all_of(op.pathParams.begin(), op.pathParams.end(),
                            [&](const QString &p) { return it.ids.value(p) == params.value(p); });
            if (fits)
                out.append(it.item);
        }
    }
    // A query parameter naming a property keeps the items with one of its values there (an
    // array parameter repeats: ?state=A&state=B).
    for (auto m = op.queryMatch.begin(); m != op.queryMatch.end(); ++m) {
        QStringList wanted = query.allQueryItemValues(m.key(), QUrl::FullyDecoded);
        if (op.queryParams.value(m.key()) == "csv"_L1)
            wanted = wanted.join(u',').split(u',', Qt::SkipEmptyParts);
        if (wanted.isEmpty())
            continue;
        out.removeIf([&](const QJsonObject &item) {
            const QJsonArray values = SandboxSearch::valuesAt(item, m.value());
            return std::none_of(values.begin(), values.end(), [&](const QJsonValue &v) {
                return std::any_of(wanted.begin(), wanted.end(),
                                   [&](const QString &w) { return queryMatches(w, v); });
            });
        });
    }
    return out;
}

SandboxReply SandboxReadOps::list(const SandboxReadOperation &op, QList<QJsonObject> items,
                                  const QJsonObject &args, const QString &path) const
{
    const QJsonObject body = args.value(u"body"_s).toObject();
    QJsonArray matched;
    for (const QJsonObject &item : items) {
        if (SandboxSearch::matches(body.value(u"filter"_s), item, nullptr))
            matched.append(item);
    }
    const QJsonValue sortValue = body.value(u"sort"_s);
    const QJsonArray sort = sortValue.isObject() ? QJsonArray{sortValue} : sortValue.toArray();
    SandboxSearch::sort(matched, sort);
    if (op.shape == "data"_L1)
        return SandboxReply::json(op.status, QJsonObject{{u"data"_s, matched}});
    const QJsonObject pagination = body.value(u"pagination"_s).toObject();
    SandboxSearch::Page page;
    page.offset =
        std::max(0, intOr(pagination.value(u"offset"_s), intOr(args.value(u"offset"_s), 0)));
    page.limit = std::max(
        1, intOr(pagination.value(u"limit"_s), intOr(args.value(u"limit"_s), kDefaultLimit)));
    QJsonObject out = SandboxSearch::pageOf(matched, page, path);
    if (op.echoSort)
        out.insert(u"sort"_s, sort);
    return SandboxReply::json(op.status, out);
}

SandboxReply SandboxReadOps::withBase(SandboxReply reply) const
{
    reply.body.replace(QByteArrayLiteral("${BASE}"), m_estate->baseUrl().toUtf8());
    return reply;
}

} // namespace fb
