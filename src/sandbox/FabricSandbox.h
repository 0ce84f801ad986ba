#pragma once
// FabricSandbox: an embedded Equinix Fabric v4 sandbox on 127.0.0.1 for trying the app and for
// end-to-end tests. Serves the OAuth token endpoint, the Fabric v4 paths the broker uses (the
// spec's shapes and error codes) over an in-memory, deterministically seeded estate, records
// every request, and injects faults (latency, 5xx, dropped connections, 401). Loopback admin
// endpoints under /sandbox/v1 expose the same controls to tests that run it as a process.
// No DELETE, PATCH or PUT is ever served (405).
#include "core/Clock.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QUrl>
#include <QUrlQuery>
#include <memory>

namespace fb {

class SandboxApi;
class SandboxAuth;
class SandboxEstate;
class SandboxHttpServer;
struct SandboxHttpRequest;
struct SandboxReply;

class FabricSandbox : public QObject {
    Q_OBJECT
public:
    explicit FabricSandbox(QObject *parent = nullptr);
    ~FabricSandbox() override;

    // Binds 127.0.0.1 only; port 0 picks a free port. Re-seeds the estate so hrefs carry the
    // real base URL.
    bool listen(quint16 port = 0);
    QUrl baseUrl() const;
    quint16 port() const;

    // Source of "now" for token expiry and provisioning progress (default: system clock).
    void setClock(const Clock *clock);
    void setTokenLifetimeSeconds(int seconds);
    // Every Fabric/OAuth response is delayed by this many milliseconds (0: off).
    void setLatencyMs(int ms);
    // The next count requests are answered with httpStatus and a Fabric ErrorList, unprocessed
    // (or, with applyRequest, processed first: a create commits, then its answer is the error).
    void failNext(int count, int httpStatus = 503, bool applyRequest = false);
    // Responses of the OAuth token endpoint are delayed by this many milliseconds (0: off), to
    // hold a call before its request leaves the client.
    void setTokenDelayMs(int ms);
    // The next count matching requests get their TCP connection aborted after the request was
    // read, without any response. method/pathPrefix empty match all; onlyRealCreates matches
    // only POSTs to the create collections without dryRun=true.
    void dropNext(int count = 1, const QString &method = {}, const QString &pathPrefix = {},
                  bool onlyRealCreates = false);
    // Whether a dropped request is still processed (the create happens, its answer is lost;
    // default true) or dropped before it changes anything.
    void setDropAppliesRequest(bool applies);
    // The next Fabric call is answered 401 EQ-3000039 whatever its token.
    void unauthorizeNext();
    // Makes ?dryRun=true fail with EQ-3142411 for a connection type ("EVPL_VC"), a change type
    // name ("service_token_create") or a collection path ("/fabric/v4/networks").
    void setDryRunUnsupported(const QString &changeTypeOrPath, bool unsupported);
    // A create stays PROVISIONING until delayMs passed or it was read readsBeforeReady times
    // (defaults 2000 ms, 1 read).
    void setProvisioning(int delayMs, int readsBeforeReady);
    void clearFaults();
    // Back to the freshly started state: estate re-seeded, request log and faults cleared,
    // settings to defaults. Issued access tokens stay valid.
    void reset();

    struct RecordedRequest {
        QString method, path;
        QUrlQuery query;
        QByteArray body;
        QString correlationId; // X-CORRELATION-ID as sent (empty when absent)
        bool dryRun = false;
        int status = 0; // HTTP status answered; 0 when the connection was dropped
        bool dropped = false;
    };
    // Fabric and OAuth requests in arrival order (admin requests are not recorded).
    QList<RecordedRequest> requests() const;
    void clearRequests();
    // Creates (POST connections/networks/serviceTokens without dryRun) that changed the estate.
    int realCreateCount() const;

    // Human-readable listing of the seeded estate: metros, ports (uuid, name, metro, VLANs in
    // use), service profiles (uuid, name, type, metros, bandwidths, seller regions, auth key),
    // connections, networks, tokens, routers and the rate card.
    static QString estateDescription();
    // The current estate (including creates) as JSON.
    QJsonObject estateJson() const;
    // Current fault and settings state, in the format POST /sandbox/v1/faults accepts.
    QJsonObject faultsJson() const;
    // Applies a POST /sandbox/v1/faults document; false with a reason on a malformed one.
    bool applyFaults(const QJsonObject &faults, QString *error = nullptr);

Q_SIGNALS:
    void requestHandled(const QString &method, const QString &path, int status);

private:
    void onRequest(const SandboxHttpRequest &request, quint64 ticket);
    SandboxReply process(const QString &method, const QString &path, const QUrlQuery &query,
                         const QByteArray &body, const QByteArray &authorization,
                         const QString &correlationId);
    // The loopback admin API (FabricSandboxAdmin.cpp): answered only for a loopback Host.
    static const QString AdminPrefix;
    void serveAdmin(const QString &method, const QString &path, const QByteArray &body,
                    const QByteArray &hostHeader, quint64 ticket, const QString &correlationId,
                    bool close);
    SandboxReply admin(const QString &method, const QString &path, const QByteArray &body);
    void send(quint64 ticket, const SandboxReply &reply, const QString &correlationId, bool close,
              int delayMs);
    bool takeDrop(const QString &method, const QString &path, const QUrlQuery &query);

    std::unique_ptr<SandboxEstate> m_estate;
    std::unique_ptr<SandboxAuth> m_auth;
    std::unique_ptr<SandboxApi> m_api;
    SandboxHttpServer *m_server = nullptr;
    quint16 m_port = 0;

    QList<RecordedRequest> m_requests;
    int m_realCreates = 0;

    int m_latencyMs = 0;
    int m_failCount = 0;
    int m_failStatus = 503;
    bool m_failApplies = false;
    int m_tokenDelayMs = 0;
    int m_dropCount = 0;
    QString m_dropMethod;
    QString m_dropPathPrefix;
    bool m_dropOnlyRealCreates = false;
    bool m_dropApplies = true;
    bool m_unauthorizeNext = false;
};

} // namespace fb
