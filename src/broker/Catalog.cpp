#include "broker/Catalog.h"

#include "broker/CatalogTable.h"
#include "broker/ProposalView.h"
#include "broker/ReadAnswer.h"
#include "broker/ReadOperations.h"
#include "broker/ResultJson.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>

namespace fb {

namespace {

using namespace catalog;

void finishFabricError(mcp::ToolCall *call, const FabricResult &r, const QString &what)
{
    const QJsonArray errors = result::fabricErrorsJson(r);
    QString hint;
    if (r.httpStatus == 404)
        hint = QStringLiteral(" Check the UUID, or search/list to find it.");
    else if (r.kind == FabricResult::Kind::AuthError)
        hint = QStringLiteral(" Check the Fabric credentials of the broker (not something the "
                              "agent can fix).");
    const QString message = QStringLiteral("Fabric could not %1: %2.%3").arg(what, r.message, hint);
    QJsonObject error{{QStringLiteral("kind"), FabricResult::kindName(r.kind)},
                      {QStringLiteral("message"), message},
                      {QStringLiteral("http_status"), r.httpStatus},
                      {QStringLiteral("correlation_id"), r.correlationId},
                      {QStringLiteral("fabric_errors"), errors}};
    if (r.errors.size() > errors.size())
        error.insert(QStringLiteral("fabric_errors_left_out"),
                     static_cast<qint64>(r.errors.size() - errors.size()));
    call->finishStructured(QJsonObject{{QStringLiteral("error"), error}}, message, true);
}

// A catalog result: the summary line, then the structured content as compact JSON, as text;
// serialized once (ToolCall::finishStructuredJson reuses the bytes for the frame).
void finishWithText(mcp::ToolCall *call, const QJsonObject &structured, const QString &summary)
{
    call->finishStructuredJson(structured, summary + u'\n',
                               QJsonDocument(structured).toJson(QJsonDocument::Compact));
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

// What "Fabric could not ..." says when the read fails.
QString verbFor(const CatalogTool &t)
{
    switch (t.fetch) {
    case Fetch::Search:
        return QStringLiteral("search ") + t.what;
    case Fetch::GetByUuid:
    case Fetch::GetPortAndVlans:
        return QStringLiteral("get the ") + t.what;
    case Fetch::GetPage:
    case Fetch::ListPorts:
    case Fetch::Proposals:
        break;
    }
    return QStringLiteral("list ") + t.what;
}

// The bounds the published schemas cannot state without changing tools/list (which stays as it
// was): an offset above 10^9, and a string over 200 UTF-16 code units (the schema's maxLength
// counts code points).
QStringList beyondSchema(const QJsonObject &args, const QList<Arg> &spec)
{
    QStringList problems;
    for (const Arg &a : spec) {
        const QJsonValue v = args.value(a.name);
        if (a.name == u"offset" && v.toDouble(0) > 1e9)
            problems << QStringLiteral("offset: must be 0 or more");
        else if (a.type == u"string" && v.toString().size() > 200)
            problems << QStringLiteral("%1: must be a non-empty string (at most 200 characters)")
                            .arg(a.name);
    }
    return problems;
}

// The body of a Fetch::Search call: Fabric's pagination and the filter of the arguments. The
// prices search is a FilterBody (no pagination) restricted to virtual connection products.
QJsonObject searchBody(const CatalogTool &s, const QJsonObject &args)
{
    QJsonObject body{{QStringLiteral("pagination"), paginationOf(args)}};
    QJsonObject filter = filterFor(args, s.args);
    if (s.name == u"fabric_search_prices") {
        QJsonArray and_ = filter.value(QStringLiteral("and")).toArray();
        and_.prepend(QJsonObject{
            {QStringLiteral("property"), QStringLiteral("/type")},
            {QStringLiteral("operator"), QStringLiteral("=")},
            {QStringLiteral("values"), QJsonArray{QStringLiteral("VIRTUAL_CONNECTION_PRODUCT")}}});
        filter.insert(QStringLiteral("and"), and_);
        body.remove(QStringLiteral("pagination")); // FilterBody has no pagination
    }
    if (!filter.value(QStringLiteral("and")).toArray().isEmpty())
        body.insert(QStringLiteral("filter"), filter);
    return body;
}

// Fabric's answer as the tool's structuredContent, and the one-line summary before it.
QJsonObject shape(const CatalogTool &t, const QJsonObject &args, const QJsonObject &body,
                  QString *summary)
{
    switch (t.fetch) {
    case Fetch::Search: {
        QJsonObject out = body;
        if (!out.value(QStringLiteral("data")).isArray())
            out.insert(QStringLiteral("data"), QJsonArray());
        const qsizetype n = out.value(QStringLiteral("data")).toArray().size();
        const int total = out.value(QStringLiteral("pagination"))
                              .toObject()
                              .value(QStringLiteral("total"))
                              .toInt(static_cast<int>(n));
        *summary = QStringLiteral("%1 %2 (of %3).").arg(n).arg(t.what).arg(total);
        return out;
    }
    case Fetch::GetPage:
        *summary = QStringLiteral("%1 %2.")
                       .arg(body.value(QStringLiteral("data")).toArray().size())
                       .arg(t.what);
        return body;
    case Fetch::ListPorts: {
        const QString metro = args.value(QStringLiteral("metro")).toString();
        const QString state = args.value(QStringLiteral("state")).toString();
        QJsonArray matching;
        for (const QJsonValue &p : body.value(QStringLiteral("data")).toArray()) {
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
        const int offset = args.value(QStringLiteral("offset")).toInt(0);
        const int limit = args.value(QStringLiteral("limit")).toInt(20);
        QJsonArray page;
        for (int i = offset; i < matching.size() && i < offset + limit; ++i)
            page.append(matching.at(i));
        *summary =
            QStringLiteral("%1 %2 (of %3).").arg(page.size()).arg(t.what).arg(matching.size());
        return {{QStringLiteral("data"), page},
                {QStringLiteral("pagination"),
                 QJsonObject{{QStringLiteral("offset"), offset},
                             {QStringLiteral("limit"), limit},
                             {QStringLiteral("total"), static_cast<int>(matching.size())}}}};
    }
    case Fetch::GetByUuid:
        *summary =
            QStringLiteral("%1 %2").arg(t.what, body.value(QStringLiteral("name")).toString());
        return body;
    case Fetch::GetPortAndVlans:
        *summary = QStringLiteral("Port %1").arg(body.value(QStringLiteral("name")).toString());
        return body;
    case Fetch::Proposals:
        break;
    }
    return body;
}

// The second read of fabric_get_port: the VLANs in use, or why they are not known.
void finishWithVlans(mcp::ToolCall *call, FabricClient *fabric, const QString &uuid,
                     const QJsonObject &port)
{
    FabricCall *vlans = fabric->get(QStringLiteral("/fabric/v4/ports/%1/linkProtocols").arg(uuid));
    QObject::connect(call, &mcp::ToolCall::cancelled, vlans, &FabricCall::abort);
    QObject::connect(vlans, &FabricCall::finished, call, [call, port](const FabricResult &v) {
        QJsonObject out = port;
        if (v.ok())
            out.insert(QStringLiteral("vlans_in_use"),
                       v.body.toObject().value(QStringLiteral("data")));
        else
            out.insert(QStringLiteral("vlans_in_use_error"), v.message);
        finishWithText(
            call, out,
            QStringLiteral("Port %1").arg(port.value(QStringLiteral("name")).toString()));
    });
}

// The one handler of every read tool. The registry has checked the arguments against the
// tool's input schema before this runs.
void runCatalogTool(const CatalogTool &t, mcp::ToolCall *call, FabricClient *fabric,
                    ProposalStore *store, const Clock *clock)
{
    const QJsonObject args = call->arguments();
    if (const QStringList problems = beyondSchema(args, t.args); !problems.isEmpty())
        return call->finishError(QStringLiteral("Invalid arguments: ") +
                                 problems.join(QStringLiteral("; ")));
    const QString uuid = args.value(QStringLiteral("uuid")).toString();
    FabricCall *fc = nullptr;
    switch (t.fetch) {
    case Fetch::Proposals: {
        const qint64 now = clock->nowMs();
        QJsonArray rows;
        for (const Proposal &p : store->pending())
            rows.append(ProposalView::listRow(p, now));
        const QJsonObject out{
            {QStringLiteral("proposals"), rows},
            {QStringLiteral("max_pending"), store->maxPending()},
            {QStringLiteral("ttl_seconds"), static_cast<int>(store->ttlMs() / 1000)}};
        return finishWithText(call, out,
                              QStringLiteral("%1 pending proposal(s).").arg(rows.size()));
    }
    case Fetch::Search:
        fc = fabric->search(t.path, searchBody(t, args));
        break;
    case Fetch::GetByUuid:
        fc = fabric->get(t.path.arg(uuid));
        break;
    case Fetch::GetPage: {
        QUrlQuery q;
        q.addQueryItem(QStringLiteral("offset"),
                       QString::number(args.value(QStringLiteral("offset")).toInt(0)));
        q.addQueryItem(QStringLiteral("limit"),
                       QString::number(args.value(QStringLiteral("limit")).toInt(20)));
        fc = fabric->get(t.path, q);
        break;
    }
    case Fetch::ListPorts: {
        QUrlQuery q;
        if (args.contains(QStringLiteral("name")))
            q.addQueryItem(QStringLiteral("name"), args.value(QStringLiteral("name")).toString());
        fc = fabric->get(t.path, q);
        break;
    }
    case Fetch::GetPortAndVlans:
        fc = fabric->get(t.path + uuid);
        break;
    }
    QObject::connect(call, &mcp::ToolCall::cancelled, fc, &FabricCall::abort);
    QObject::connect(fc, &FabricCall::finished, call,
                     [call, &t, args, fabric, uuid](const FabricResult &r) {
                         if (!r.ok())
                             return finishFabricError(call, r, verbFor(t));
                         QString summary;
                         const QJsonObject out = shape(t, args, r.body.toObject(), &summary);
                         if (t.fetch == Fetch::GetPortAndVlans)
                             return finishWithVlans(call, fabric, uuid, out);
                         finishWithText(call, out, summary);
                     });
}

// The one handler of every tool of the spec's read toolsets: the row's request, Fabric's answer
// shaped to fit (ReadAnswer.h). The registry has checked the arguments against the row's schema.
void runReadOperation(const readops::ReadOperation &op, mcp::ToolCall *call, FabricClient *fabric)
{
    const QJsonObject args = call->arguments();
    const readops::Request req = readops::requestFor(op, args);
    if (req.path.isEmpty())
        return call->finishError(QStringLiteral("Invalid arguments: a path parameter must be one "
                                                "path segment; nothing was sent."));
    FabricCall *fc = op.fileAnswer           ? fabric->getFile(req.path, req.query)
                     : req.method == u"POST" ? fabric->search(req.path, req.body, req.query)
                                             : fabric->get(req.path, req.query);
    QObject::connect(call, &mcp::ToolCall::cancelled, fc, &FabricCall::abort);
    QObject::connect(fc, &FabricCall::finished, call, [call, &op, args](const FabricResult &r) {
        if (!r.ok())
            return finishFabricError(call, r, QStringLiteral("answer %1").arg(op.operationId));
        if (op.fileAnswer) {
            const QJsonObject file = r.body.toObject();
            return finishWithText(
                call, QJsonObject{{QStringLiteral("file"), file}},
                QStringLiteral("%1: a file (%2, %3 bytes); its bytes are not returned.")
                    .arg(op.title, file.value(QStringLiteral("content_type")).toString())
                    .arg(file.value(QStringLiteral("bytes")).toInteger()));
        }
        QStringList projection;
        for (const QJsonValue &p : args.value(QStringLiteral("projection")).toArray())
            projection.append(p.toString());
        const readops::ShapedAnswer shaped = readops::shapeAnswer(op, r.body, projection, args);
        call->finishStructuredJson(shaped.structured, shaped.summary + u'\n', shaped.json);
    });
}

} // namespace

int readToolCount(const QString &toolset)
{
    if (toolset == u"read")
        return static_cast<int>(catalogTools().size());
    int n = 0;
    for (const readops::ReadOperation *op : readops::operationsOf(toolset))
        n += op->core ? 0 : 1;
    return n;
}

QString toolsetsMarkdownTable()
{
    QStringList lines{QStringLiteral("| toolset | tools | what the agent can read |"),
                      QStringLiteral("|---|---|---|")};
    lines << QStringLiteral("| `read` (the default) | %1 | the core catalog: connections, ports "
                            "(with VLANs in use), metros, networks, service profiles and tokens, "
                            "cloud routers, prices, and this broker's pending proposals; simple "
                            "arguments |")
                 .arg(readToolCount(QStringLiteral("read")));
    int all = readToolCount(QStringLiteral("read"));
    for (const readops::Toolset &set : readops::table().toolsets) {
        lines << QStringLiteral("| `%1` | %2 | %3 |")
                     .arg(set.name)
                     .arg(readToolCount(set.name))
                     .arg(set.description);
        all += readToolCount(set.name);
    }
    lines << QStringLiteral("| `all-read` | %1 | every toolset above |").arg(all);
    lines << QStringLiteral("| `mutate` | 2 | `fabric_propose_change` and `fabric_confirm_change` "
                            "(creates, each approved by a person); only when named, never "
                            "implied by another name |");
    return lines.join(u'\n') + u'\n';
}

std::optional<CatalogSearch> catalogSearch(const QString &tool, const QJsonObject &args)
{
    for (const CatalogTool &c : catalogTools())
        if (c.name == tool && c.fetch == Fetch::Search)
            return CatalogSearch{c.path, searchBody(c, args)};
    return std::nullopt;
}

Catalog::Catalog(FabricClient *fabric, ProposalStore *store, Clock *clock, QObject *parent)
    : QObject(parent)
    , m_fabric(fabric)
    , m_store(store)
    , m_clock(clock)
{
}

void Catalog::registerTools(mcp::ToolRegistry *registry)
{
    for (const CatalogTool &c : catalogTools()) {
        mcp::ToolDefinition t;
        t.name = c.name;
        t.title = c.title;
        t.description = c.description;
        t.inputSchema = inputSchemaFor(c.args);
        t.outputSchema = outputSchemaFor(c);
        t.annotations = readOnlyAnnotations(c.title);
        t.toolset = QStringLiteral("read");
        t.argumentCheck = mcp::ArgumentCheck::Schema;
        t.handler = [this, &c](mcp::ToolCall *call) {
            runCatalogTool(c, call, m_fabric, m_store, m_clock);
        };
        registry->registerTool(std::move(t));
    }
    for (const readops::ReadOperation &op : readops::table().operations) {
        if (op.core)
            continue;
        mcp::ToolDefinition t;
        t.name = op.tool;
        t.title = op.title;
        t.description =
            op.description + QStringLiteral(" (Fabric %1 %2; read-only.)").arg(op.method, op.path);
        t.inputSchema = op.inputSchema;
        t.annotations = readOnlyAnnotations(op.title);
        t.toolset = op.toolset;
        t.argumentCheck = mcp::ArgumentCheck::Schema;
        t.handler = [this, &op](mcp::ToolCall *call) { runReadOperation(op, call, m_fabric); };
        registry->registerTool(std::move(t));
    }
}

} // namespace fb
