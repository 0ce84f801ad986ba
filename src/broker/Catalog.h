#pragma once
// Catalog: the read-only tools (toolset "read", served by default). Each maps simple typed
// arguments an agent can fill onto one Fabric v4 read, keeps Fabric's data + pagination shape in
// structuredContent, and never mutates anything. There is no delete tool of any kind.
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
