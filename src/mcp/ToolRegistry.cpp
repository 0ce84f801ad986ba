#include "mcp/ToolRegistry.h"

#include "core/JsonSchema.h"
#include "mcp/Logging.h"
#include "mcp/ToolCall.h"

#include <QJsonDocument>

#include <memory>

using namespace Qt::StringLiterals;

namespace fb::mcp {

ToolRegistry::ToolRegistry(QObject *parent)
    : QObject(parent)
    , m_served{u"read"_s}
{
}

QStringList ToolRegistry::readToolsets()
{
    return {u"read"_s,           u"estate"_s,      u"routing"_s, u"observability"_s,
            u"precision-time"_s, u"marketplace"_s, u"account"_s};
}

QStringList ToolRegistry::knownToolsets()
{
    return readToolsets() << u"mutate"_s;
}

bool ToolRegistry::parseToolsets(const QString &text, QStringList *out, QString *error)
{
    const QStringList known = knownToolsets();
    const QString named = (known + QStringList{kAllRead}).join(u", "_s);
    QStringList result;
    const QStringList parts = text.split(u',', Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        const QString name = part.trimmed().toLower();
        if (name.isEmpty())
            continue;
        if (!known.contains(name) && name != kAllRead) {
            if (error)
                *error = u"Unknown toolset: %1 (known toolsets: %2)"_s.arg(part.trimmed(), named);
            return false;
        }
        for (const QString &n : name == kAllRead ? readToolsets() : QStringList{name})
            if (!result.contains(n))
                result.append(n);
    }
    if (result.isEmpty()) {
        if (error)
            *error = u"No toolset named (known toolsets: %1)"_s.arg(named);
        return false;
    }
    // Deterministic order: that of knownToolsets().
    std::sort(result.begin(), result.end(), [&known](const QString &a, const QString &b) {
        return known.indexOf(a) < known.indexOf(b);
    });
    if (out)
        *out = result;
    return true;
}

QString ToolRegistry::invalidArgumentsMessage(const QList<SchemaViolation> &violations)
{
    QStringList problems;
    for (const SchemaViolation &v : violations) {
        const QString where = v.path.startsWith(u"$.") ? v.path.mid(2) : v.path;
        problems << where + u": "_s + v.message;
    }
    return u"Invalid arguments: "_s + problems.join(u"; "_s);
}

void ToolRegistry::registerTool(ToolDefinition tool)
{
    if (tool.argumentCheck == ArgumentCheck::Schema && tool.handler) {
        // Compiled once, here (tools register at start-up); every call is checked against it.
        auto schema = std::make_shared<const JsonSchema>(
            tool.inputSchema.isEmpty() ? QJsonObject{{u"type"_s, u"object"_s}} : tool.inputSchema);
        tool.handler = [schema, handler = std::move(tool.handler)](ToolCall *call) {
            const QList<SchemaViolation> violations = schema->validate(call->arguments());
            if (!violations.isEmpty())
                return call->finishError(invalidArgumentsMessage(violations));
            handler(call);
        };
    }
    const bool served = m_served.contains(tool.toolset);
    for (ToolDefinition &existing : m_tools) {
        if (existing.name == tool.name) {
            qCWarning(lcMcpServer) << "tool registered twice, replacing:" << tool.name;
            const bool wasServed = m_served.contains(existing.toolset);
            existing = std::move(tool);
            m_cache.clear();
            m_narrowedCache.clear();
            if (served || wasServed)
                emit toolsChanged();
            return;
        }
    }
    m_tools.append(std::move(tool));
    m_cache.clear();
    m_narrowedCache.clear();
    if (served)
        emit toolsChanged();
}

void ToolRegistry::setServedToolsets(const QStringList &toolsets)
{
    QStringList normalized;
    const QStringList known = knownToolsets();
    for (const QString &k : known) {
        if (toolsets.contains(k))
            normalized.append(k);
    }
    for (const QString &t : toolsets) {
        if (!known.contains(t))
            qCWarning(lcMcpServer) << "ignoring unknown toolset" << t;
    }
    if (normalized == m_served)
        return;
    m_served = normalized;
    m_cache.clear();
    m_narrowedCache.clear();
    emit toolsChanged();
}

QStringList ToolRegistry::servedToolsets() const
{
    return m_served;
}

QList<const ToolDefinition *> ToolRegistry::servedTools() const
{
    QList<const ToolDefinition *> out;
    out.reserve(m_tools.size());
    for (const ToolDefinition &t : m_tools) {
        if (m_served.contains(t.toolset))
            out.append(&t);
    }
    return out;
}

const ToolDefinition *ToolRegistry::servedTool(const QString &name) const
{
    const ToolDefinition *t = anyTool(name);
    return t && m_served.contains(t->toolset) ? t : nullptr;
}

const ToolDefinition *ToolRegistry::anyTool(const QString &name) const
{
    for (const ToolDefinition &t : m_tools) {
        if (t.name == name)
            return &t;
    }
    return nullptr;
}

QByteArray ToolRegistry::toolsListJson() const
{
    if (m_cache.isEmpty())
        m_cache = buildToolsListJson(m_served);
    return m_cache;
}

QByteArray ToolRegistry::toolsListJson(const QStringList &onlyToolsets) const
{
    // A relayed session's narrowing: built once per selection (a handful: the toolset names).
    const QString key = onlyToolsets.join(u',');
    if (const auto it = m_narrowedCache.constFind(key); it != m_narrowedCache.cend())
        return it.value();
    QByteArray built = buildToolsListJson(onlyToolsets);
    if (m_narrowedCache.size() < 64)
        m_narrowedCache.insert(key, built);
    return built;
}

QByteArray ToolRegistry::buildToolsListJson(const QStringList &onlyToolsets) const
{
    QJsonArray tools;
    for (const ToolDefinition *t : servedTools()) {
        if (!onlyToolsets.contains(t->toolset))
            continue;
        QJsonObject o;
        o.insert(u"name"_s, t->name);
        if (!t->title.isEmpty())
            o.insert(u"title"_s, t->title);
        o.insert(u"description"_s, t->description);
        o.insert(u"inputSchema"_s,
                 t->inputSchema.isEmpty() ? QJsonObject{{u"type"_s, u"object"_s}} : t->inputSchema);
        if (!t->outputSchema.isEmpty())
            o.insert(u"outputSchema"_s, t->outputSchema);
        o.insert(u"annotations"_s, t->annotations);
        if (!t->taskSupport.isEmpty())
            o.insert(u"execution"_s, QJsonObject{{u"taskSupport"_s, t->taskSupport}});
        tools.append(o);
    }
    return QJsonDocument(QJsonObject{{u"tools"_s, tools}}).toJson(QJsonDocument::Compact);
}

} // namespace fb::mcp
