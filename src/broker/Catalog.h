#pragma once
// Catalog: the read-only tools. Toolset "read" (served by default) is the core catalog: each tool
// maps simple typed arguments an agent can fill onto one Fabric v4 read. The other read toolsets
// (estate, routing, observability, precision-time, marketplace, account) are one tool per row of
// the read-operation table (ReadOperations.h), all served by one handler: the spec's own
// arguments, checked against the row's strict schema, and Fabric's answer shaped to fit
// (ReadAnswer.h). Fabric's data + pagination shape is kept in structuredContent; nothing is ever
// mutated. There is no delete tool of any kind.
#include <QJsonObject>
#include <QObject>
#include <optional>

namespace fb::mcp {
class ToolRegistry;
} // namespace fb::mcp

namespace fb {

class FabricClient;
class ProposalStore;
class Clock;

// The Fabric search a catalog search tool (fabric_search_*) runs for args: its path and body;
// nullopt for a tool that is not one. For callers other than an agent (CreateLookup).
struct CatalogSearch {
    QString path;
    QJsonObject body;
};
std::optional<CatalogSearch> catalogSearch(const QString &tool, const QJsonObject &args);

// How many tools a read toolset has ("read": the core catalog; the others: their rows of the
// read-operation table); 0 for any other name.
int readToolCount(const QString &toolset);
// README's toolset table (Markdown): every toolset, its tool count and what it reads; all-read;
// mutate. tst_catalog fails when README.md and this differ.
QString toolsetsMarkdownTable();

class Catalog : public QObject {
    Q_OBJECT
public:
    Catalog(FabricClient *fabric, ProposalStore *store, Clock *clock, QObject *parent = nullptr);
    void registerTools(mcp::ToolRegistry *registry);

private:
    FabricClient *m_fabric;
    ProposalStore *m_store;
    Clock *m_clock;
};

} // namespace fb
