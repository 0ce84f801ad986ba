#pragma once
// FabricClient: the Fabric v4 REST client, on an HTTP/1.1 client of its own on the caller's
// thread (FabricHttpTransport: QTcpSocket / QSslSocket, no QNetworkAccessManager). Owns the OAuth2
// client-credentials token cache, the three creates (dry run and real), the read endpoints of
// the catalog and the price search. It has no method for DELETE, PATCH or PUT, by design, and
// it never retries a real create.
//
// Transport rules (all calls): HTTP/1.1 only, GET and POST only (the transport refuses any other
// method itself); at most 6 connections per origin at once (as QNetworkAccessManager), idle
// ones included, further requests wait in a FIFO queue having sent nothing; keep-alive
// connections are reused per origin (at most 4 idle, closed after 30 s unused or when the server
// says Connection: close, and never reused when a byte or a hang-up is waiting on them, even
// one the event loop has not seen yet), except by a real create, which always opens a fresh
// connection and writes its bytes once; a read or dry run whose reused connection turns out
// closed before any byte of the answer is sent once more on a fresh one. Two timeouts per HTTP
// request, both reported as a timeout (for a create whose bytes left: OutcomeUnknown, never
// resent): FabricConfig::timeoutMs without a byte moving, and an overall deadline of 4 x
// timeoutMs from the start of the request however the bytes trickle in (a waiting turn in the
// queue counts). A fresh X-CORRELATION-ID (UUID) per HTTP request, no cookies, no cache, no
// Accept-Encoding; replies capped at FabricConfig::maxResponseBytes as they are on the wire
// (the reading stops there; chunked framing, extensions and trailers count, a chunk-size line
// is at most 1 KiB), their status line and header block at 64 KiB and 100 fields,
// Content-Length or chunked framing checked strictly, and bodies parsed as strict JSON. HTTPS
// (system CA store, hostname verification, TLS 1.2 or later) is required except for 127.0.0.1, ::1
// and localhost; the application's (by default the system's) proxy settings apply. Redirects: GET
// reads follow same-origin redirects within /fabric/v4/ only; POSTs (searches, dry runs, creates,
// the token) never follow one. Calls refused on the client side (bad endpoint, a path outside
// /fabric/v4/, a compiled request whose path is not its change type's collection) finish with
// Kind::NetworkError and requestSent=false, so nothing reached Fabric.
// Secrets: the client secret and every access token (the current one, former ones, a static
// token) are replaced by "[redacted]" in every result before it is emitted: the message, the
// ErrorList entries and every string of the body (object keys too), so a reply that echoes one
// never carries it further.
// Lifetimes: a handler of finished or requestFinished may delete the client (its calls are then
// finished first: Cancelled, or OutcomeUnknown for a create that left).
// Logging: category "fabricbroker.fabric.client", one debug line per exchange (method, path,
// status, correlation id, elapsed); never headers, bodies or secrets.
#include "core/Clock.h"
#include "core/CompiledRequest.h"
#include "fabric/FabricConfig.h"
#include "fabric/FabricResult.h"

#include <QJsonObject>
#include <QObject>
#include <QUrlQuery>

namespace fb {

// One in-flight Fabric call. Emits finished exactly once (also after abort(), with Kind::Cancelled
// unless a real create was already sent, in which case the outcome is reported as it is known),
// then deletes itself later.
class FabricCall : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual void abort() = 0;
    virtual bool isFinished() const = 0;
    // Aborts the call only if no byte of its request has left this process yet (a create still
    // waiting for its access token or its connection): then finished has been emitted with
    // Kind::Cancelled and requestSent=false, and this returns true. Once a byte may have left,
    // nothing is done and it returns false: the outcome arrives as it is known.
    virtual bool abortIfNotSent() { return false; }
signals:
    void finished(const fb::FabricResult &result);
};

class FabricClient : public QObject {
    Q_OBJECT
public:
    explicit FabricClient(FabricConfig config, QObject *parent = nullptr);
    ~FabricClient() override;

    const FabricConfig &config() const;
    void setConfig(FabricConfig config); // drops the cached token
    // The operator policy's fabric.endpoint (docs/policy.md; endpoint in
    // FabricConfig::bindingEndpoint() form, empty: no lock; source: the file that set it). While
    // the configured endpoint is another one, every call (read, dry run, create, price, token,
    // test connection) finishes with Kind::NetworkError and requestSent=false: the credentials
    // never go to an endpoint the policy forbids. The embedded sandbox is exempt. Drops the
    // cached token when the lock changes.
    void setEndpointLock(const QString &endpoint, const QString &source);
    // The clock token expiry is measured with (default Clock::system()); for tests.
    void setClock(const Clock *clock);

    // POST <path>?dryRun=true with the compiled body bytes unchanged. A reply carrying a "uuid"
    // is an InvalidResponse (a dry run must not create). EQ-3142411 -> DryRunUnsupported.
    FabricCall *dryRun(const CompiledRequest &request);
    // POST <path> with the compiled body bytes unchanged. Sent at most once: no retry, not even
    // after a 401. The answer is classified by decideCreateOutcome() (FabricResult.h): Ok only
    // for a 2xx with a uuid, FabricError/AuthError only for a 4xx with a Fabric ErrorList, and
    // OutcomeUnknown with lookup hints for everything else once the request left (5xx, 3xx,
    // malformed or oversized body, 2xx without a uuid, timeout, lost connection).
    FabricCall *create(const CompiledRequest &request);
    // GET <path>?<query> (reads; refreshed and retried once on 401). <path> must be under
    // /fabric/v4/; offset/limit pagination is the caller's query.
    FabricCall *get(const QString &path, const QUrlQuery &query = {});
    // POST <path> with a JSON body, for the spec's search endpoints (reads; retried once on 401).
    // <path> must be under /fabric/v4/ and end in "/search", so it can never reach a create.
    FabricCall *search(const QString &path, const QJsonObject &body, const QUrlQuery &query = {});
    // GET <path>?<query> of an operation that answers a file (an image, a PDF): the body is not
    // parsed nor kept; the result body is {"content_type", "bytes", "sha256"}. Same rules as get().
    FabricCall *getFile(const QString &path, const QUrlQuery &query = {});
    // Rate-card context for a compiled request: result body is the price context object
    // ({"priced": true, ...} or {"priced": false, "reason": ...}). Never fails: a failed lookup
    // finishes Ok with priced=false and the reason.
    FabricCall *priceContext(const CompiledRequest &request);
    // Obtains (or reuses) an access token; for "Test connection" buttons. The result body is
    // {"endpoint", "credential_source", "sandbox"}, never the token. With a static token (or the
    // sandbox without credentials) nothing is sent and the result is Ok.
    FabricCall *testConnection();

signals:
    // setConfig() ran (Settings saved an endpoint or credentials).
    void configChanged();
    // For the activity log: method, path, status, correlation id. Never secrets.
    void requestFinished(const QString &method, const QString &path, int httpStatus,
                         const QString &correlationId, qint64 elapsedMs);

private:
    class Private;
    Private *d;
};

} // namespace fb
