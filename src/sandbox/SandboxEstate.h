#pragma once
// SandboxEstate: the sandbox's in-memory Fabric estate, seeded deterministically with fixed
// UUIDs (see SandboxIds.h) from the seed document resources/sandbox/estate.json (SandboxSeed.h):
// metros, ports, service profiles, connections, networks, service tokens, cloud routers and a
// rate card. Resources use the Fabric v4 response shapes.
#include "core/Clock.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace fb {

enum class SandboxKind { Connection, Network, ServiceToken };

// A created (or seeded) resource and how far its provisioning got.
struct SandboxResource {
    QJsonObject json;
    qint64 createdMs = 0;
    int reads = 0;
    bool pending = false; // still PROVISIONING (connections, networks) / INACTIVE (tokens)
};

struct SandboxRate {
    int bandwidthMbps = 0;
    double monthlyUsd = 0;
};

class SandboxEstate {
public:
    explicit SandboxEstate(const Clock *clock = nullptr);

    void setClock(const Clock *clock) { m_clock = clock ? clock : Clock::system(); }
    // Drops everything and seeds the fixed estate; hrefs are built on baseUrl
    // ("http://127.0.0.1:port").
    void seed(const QString &baseUrl);
    QString baseUrl() const { return m_baseUrl; }
    QString href(const QString &collection, const QString &id) const;

    // A create stays pending until provisioningDelayMs passed or it was read readsBeforeReady
    // times; the read after that shows the final state.
    void setProvisioning(int delayMs, int readsBeforeReady);
    int provisioningDelayMs() const { return m_delayMs; }
    int provisioningReads() const { return m_readsBeforeReady; }

    const QList<QJsonObject> &metros() const { return m_metros; }
    const QList<QJsonObject> &ports() const { return m_ports; }
    const QList<QJsonObject> &serviceProfiles() const { return m_profiles; }
    const QList<QJsonObject> &routers() const { return m_routers; }
    QList<SandboxResource> &resources(SandboxKind kind);
    const QList<SandboxResource> &resources(SandboxKind kind) const;

    const QJsonObject *metro(const QString &code) const;
    const QJsonObject *port(const QString &uuid) const;
    const QJsonObject *serviceProfile(const QString &uuid) const;
    const QJsonObject *router(const QString &uuid) const;
    SandboxResource *find(SandboxKind kind, const QString &uuid);
    const SandboxResource *find(SandboxKind kind, const QString &uuid) const;

    // Counts a read of the resource, settles it when due and returns its current JSON.
    QJsonObject read(SandboxKind kind, SandboxResource &resource);
    // Adds a freshly created resource (pending) and returns it.
    SandboxResource &add(SandboxKind kind, const QJsonObject &json);

    // Fills in hrefs, names and locations of an access point from the estate (port, profile,
    // network, router) the way Fabric echoes them.
    QJsonObject enrichAccessPoint(const QJsonObject &accessPoint) const;
    // Fills in href, type, portName and location of a service token selector's port from the
    // estate's port of its uuid; false (port unchanged) when there is no such port.
    bool enrichSelectorPort(QJsonObject &port) const;

    // VLANs reserved on a port by connections and service tokens (LinkProtocolResponse items).
    QJsonArray linkProtocols(const QString &portUuid) const;
    bool vlanInUse(const QString &portUuid, const QJsonObject &linkProtocol) const;

    const QList<SandboxRate> &rateCard() const { return m_rates; }
    static double remoteMultiplier() { return 1.5; }

    QJsonObject account() const;
    QString nowIso() const;
    qint64 nowMs() const { return m_clock->nowMs(); }

    QJsonObject toJson() const;
    QString describe() const;

private:
    void settle(SandboxKind kind, SandboxResource &resource) const;
    // Build the resources of one kind from the seed document's items (SandboxSeed.h).
    void seedMetros(const QJsonArray &metros);
    void seedPorts(const QJsonArray &ports);
    void seedProfiles(const QJsonArray &profiles);
    void seedConnections(const QJsonArray &connections);
    void seedNetworks(const QJsonArray &networks);
    void seedTokens(const QJsonArray &tokens);
    void seedRouters(const QJsonArray &routers);

    const Clock *m_clock;
    QString m_baseUrl;
    int m_delayMs = 2000;
    int m_readsBeforeReady = 1;
    QList<QJsonObject> m_metros;
    QList<QJsonObject> m_ports;
    QList<QJsonObject> m_profiles;
    QList<QJsonObject> m_routers;
    QList<SandboxResource> m_connections;
    QList<SandboxResource> m_networks;
    QList<SandboxResource> m_tokens;
    QList<SandboxRate> m_rates;
};

} // namespace fb
