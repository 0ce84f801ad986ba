#pragma once
// ToolRegistry: every MCP tool registers here (name, title, description, input and output
// schema, annotations, toolset, handler). Toolsets gate what is served: "read" by default, the
// other read toolsets when named (one by one, or all with "all-read"), "mutate" only when the
// operator names it. Tools outside the served toolsets are absent from
// tools/list and calling them is an unknown tool.
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <functional>

namespace fb {
struct SchemaViolation;
}

namespace fb::mcp {

class ToolCall;

// Who checks a call's arguments against the tool's inputSchema.
enum class ArgumentCheck {
    // The handler checks them itself, because its refusal is part of the tool's own result (the
    // broker's tools answer invalid arguments with structured, audited results, and
    // fabric_confirm_change consumes the token a call names before it reports an extra argument).
    Handler,
    // The registry, before the handler runs: the schema is compiled once when the tool is
    // registered, and a call that breaks it finishes with "Invalid arguments: <path>: <what>; ..."
    // (every violation, in document order) without reaching the handler.
    Schema,
};

struct ToolDefinition {
    QString name;
    QString title;
    QString description;
    QJsonObject inputSchema;  // JSON Schema, type object
    QJsonObject outputSchema; // JSON Schema, type object; empty = none declared
    QJsonObject annotations;  // readOnlyHint, destructiveHint, idempotentHint, openWorldHint
    QString toolset;          // one of ToolRegistry::knownToolsets()
    // Called once per tools/call with validated-as-object arguments (valid against inputSchema
    // with ArgumentCheck::Schema). The handler (or whatever it starts) must call
    // ToolCall::finish exactly once, synchronously or later.
    std::function<void(ToolCall *call)> handler;
    ArgumentCheck argumentCheck = ArgumentCheck::Handler; // aggregate initializers stay valid
    // MCP 2025-11-25 execution.taskSupport: "optional" (the call may run as a task: TaskStore)
    // or empty (forbidden, not listed). Last, like argumentCheck.
    QString taskSupport = {};
};

class ToolRegistry : public QObject {
    Q_OBJECT
public:
    explicit ToolRegistry(QObject *parent = nullptr);

    // "read" (the core catalog), the spec's read toolsets (src/broker/readops), in that order.
    static QStringList readToolsets();
    static QStringList knownToolsets(); // readToolsets() and "mutate", last
    // Stands for every read toolset; never for mutate.
    static inline const QString kAllRead = QStringLiteral("all-read");
    // Parses "read,mutate" or "all-read,mutate" (also from EQUINIX_MCP_TOOLSETS); unknown
    // names -> error message.
    static bool parseToolsets(const QString &text, QStringList *out, QString *error);

    // With ArgumentCheck::Schema the handler is wrapped in the check of inputSchema.
    void registerTool(ToolDefinition tool);
    // "Invalid arguments: uuid: must match the pattern ...; limit: ..." (paths without "$.").
    static QString invalidArgumentsMessage(const QList<SchemaViolation> &violations);
    void setServedToolsets(const QStringList &toolsets); // emits toolsChanged when it changes
    QStringList servedToolsets() const;

    // Served tools in deterministic order (registration order).
    QList<const ToolDefinition *> servedTools() const;
    const ToolDefinition *servedTool(const QString &name) const; // nullptr = unknown or gated
    const ToolDefinition *anyTool(const QString &name) const;    // regardless of toolsets
    // The cached compact serialization of {"tools": [...]} for tools/list.
    QByteArray toolsListJson() const;
    // The same for a session narrowed to some toolsets: served tools of those toolsets only.
    QByteArray toolsListJson(const QStringList &onlyToolsets) const;

signals:
    void toolsChanged();

private:
    QList<ToolDefinition> m_tools;
    QStringList m_served;
    QByteArray buildToolsListJson(const QStringList &onlyToolsets) const;
    mutable QByteArray m_cache;
    mutable QHash<QString, QByteArray> m_narrowedCache; // by the selection, comma-joined
};

} // namespace fb::mcp
