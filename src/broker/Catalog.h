#pragma once
// Catalog: the read-only tools (toolset "read", served by default). Each maps simple typed
// arguments an agent can fill onto one Fabric v4 read, keeps Fabric's data + pagination shape in
// structuredContent, and never mutates anything. There is no delete tool of any kind.
#include <QObject>

namespace fb::mcp {
class ToolRegistry;
} // namespace fb::mcp

namespace fb {

class FabricClient;
class ProposalStore;
class Clock;

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
