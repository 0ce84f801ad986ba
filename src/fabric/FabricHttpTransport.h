#pragma once
// FabricHttpTransport: the Fabric client's HTTP/1.1 client, on the caller's thread, on buffered
// QTcpSocket / QSslSocket (a response is read in a few large reads, a request is written with one
// write). It owns the pool of idle keep-alive connections, per origin (scheme, host, port): at
// most kMaxIdlePerOrigin, each closed after idleTimeoutMs unused, or as soon as the server closes
// it or sends a byte while it is idle. Before an idle connection is reused, its descriptor is
// polled (non-blocking): a byte waiting in the kernel (an answer nobody asked for, which would
// otherwise be read as the next request's answer) or a half-close drops it, and the request
// takes another one or a fresh one.
//
// At most kMaxConnectionsPerOrigin (6, as QNetworkAccessManager) connections per origin are
// open at once, idle ones included (an idle one is closed to make room for a fresh one); a
// request that finds all of them busy waits in a FIFO queue, having sent nothing (bytesLeft()
// false, isQueued() true), until one is released. Its timeouts run while it waits.
//
// FabricHttpRequest is one request (and its answer): one connection (a fresh one when
// freshConnection, else an idle one when there is one), the request written once, the answer
// parsed by HttpResponseParser (bounded, strict), an inactivity timeout (timeoutMs without a byte
// moving fails it) and an overall deadline (kDeadlineFactor x timeoutMs from start(), however
// the bytes trickle in: a server sending a byte per timeoutMs - 1 cannot hold it for ever); both
// fail it with Error::Timeout. When retryOnStale and a reused idle connection fails before any
// byte of the answer (the server had closed it: the classic keep-alive race), the request is
// sent once more, on a fresh connection; a request without retryOnStale (a real create, which
// also always uses a fresh connection) is never written twice. bytesLeft() becomes true when the
// request is handed to a connected socket and stays true. It emits finished exactly once,
// unless abort() stopped it first; a connection goes back to the pool only after a complete
// answer that allows it. Only GET and POST are ever sent: any other method fails the request
// (Error::Other) before anything is sent.
//
// HTTPS: QSslSocket with the system CA store, peer and hostname verification, TLS 1.2 or later,
// SNI, ALPN http/1.1; certificate errors are never ignored. Proxies: the application's proxy
// settings (by default the system's, as QNetworkAccessManager used them) for the request's URL;
// an HTTP proxy is used as a CONNECT tunnel. No cookies, no cache, no redirects (the caller
// decides), no Accept-Encoding: identity only.
#include "fabric/FabricHttpParser.h"

#include <QAbstractSocket>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

namespace fb {

struct FabricHttpRequestSpec {
    QByteArray method = QByteArrayLiteral("GET");
    QUrl url;                                     // http:// or https://
    QList<QPair<QByteArray, QByteArray>> headers; // besides Host and Content-Length
    QByteArray body;
    bool sendBody = false;        // POST: Content-Length and the body, even when empty
    bool freshConnection = false; // never an idle keep-alive connection (a real create)
    bool retryOnStale = false;    // reads and dry runs: see FabricHttpRequest
    int timeoutMs = 30000;        // inactivity; the overall deadline is kDeadlineFactor times it
    qint64 maxResponseBytes = 16 * 1024 * 1024;
};

struct FabricHttpResponse {
    enum class Error {
        None,
        Timeout,
        Closed,
        Refused,
        HostNotFound,
        Tls,
        Proxy,
        Protocol,
        TooLarge,
        Other
    };
    int status = 0; // 0: no complete status line and header block arrived
    QList<QPair<QByteArray, QByteArray>> headers; // names in lower case
    QByteArray body;
    Error error = Error::None;
    QString errorString;
    QByteArray header(QByteArrayView lowerName) const;
};

class FabricHttpTransport;

class FabricHttpRequest : public QObject {
    Q_OBJECT
public:
    // The overall deadline of a request, from start() to its last byte: this many timeoutMs.
    static constexpr int kDeadlineFactor = 4;

    ~FabricHttpRequest() override;
    // Starts the request; finished may be emitted before this returns (a refused proxy).
    void start();
    // Stops the request without emitting finished; its connection is closed, not pooled.
    void abort();
    bool isFinished() const { return m_finished; }
    bool bytesLeft() const { return m_bytesLeft; }
    // Waiting for one of its origin's connections (nothing sent yet).
    bool isQueued() const { return m_queued; }
    qint64 deadlineMs() const { return qint64(kDeadlineFactor) * m_spec.timeoutMs; }
    // How many connections it used (2 after a stale keep-alive retry) and whether the first
    // was a reused one; for tests and logs.
    int attempts() const { return m_attempts; }
    bool reusedConnection() const { return m_firstReused; }
    const FabricHttpResponse &response() const { return m_response; }
    // The status as soon as the status line and header block arrived (0 before).
    int status() const
    {
        return m_finished ? m_response.status : (m_parser.headDone() ? m_parser.status() : 0);
    }

signals:
    void finished();

private:
    friend class FabricHttpTransport;
    FabricHttpRequest(FabricHttpTransport *transport, FabricHttpRequestSpec spec, QObject *parent);
    void connectSocket(QAbstractSocket *socket);
    void proceed();
    void releaseSlot();
    void stopTimers();
    void onDeadline();
    void openFresh();
    void writeRequest();
    void onReadyRead();
    void onClosed();
    void onSocketError(QAbstractSocket::SocketError error);
    void onTimeout();
    void complete();
    void fail(FabricHttpResponse::Error error, const QString &message);
    bool retryIfStale();
    void dropSocket();
    void emitFinished();

    QPointer<FabricHttpTransport> m_transport;
    FabricHttpRequestSpec m_spec;
    QString m_origin;
    QByteArray m_wire; // the request's bytes
    QPointer<QAbstractSocket> m_socket;
    HttpResponseParser m_parser;
    QTimer m_timer;    // inactivity
    QTimer m_deadline; // overall
    FabricHttpResponse m_response;
    bool m_reused = false;
    bool m_firstReused = false;
    bool m_written = false;
    bool m_bytesLeft = false;
    bool m_finished = false;
    bool m_started = false;
    bool m_queued = false;    // in the transport's queue for its origin
    bool m_holdsSlot = false; // counts as one of its origin's connections
    int m_attempts = 0;
};

class FabricHttpTransport : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxIdlePerOrigin = 4;
    static constexpr int kMaxConnectionsPerOrigin = 6; // busy and idle together
    static constexpr int kDefaultIdleTimeoutMs = 30000;

    explicit FabricHttpTransport(QObject *parent = nullptr);
    ~FabricHttpTransport() override;

    // A request, not started yet (connect to finished, then start()), owned by parent.
    FabricHttpRequest *request(FabricHttpRequestSpec spec, QObject *parent);
    // Closes every idle connection (the configuration changed).
    void closeIdle();
    int idleConnections() const;
    // Requests waiting for a connection (all origins), and connections held by requests.
    int queuedRequests() const;
    int busyConnections() const;
    void setIdleTimeoutMs(int ms) { m_idleTimeoutMs = ms; }

private:
    friend class FabricHttpRequest;
    struct Idle {
        QPointer<QAbstractSocket> socket;
        QElapsedTimer since;
    };
    static QString originOf(const QUrl &url);
    QAbstractSocket *takeIdle(const QString &origin);
    void putIdle(const QString &origin, QAbstractSocket *socket);
    void dropIdle(QAbstractSocket *socket);
    void sweep();
    // A slot (one of kMaxConnectionsPerOrigin) for request, or false: it was queued.
    bool acquireSlot(FabricHttpRequest *request);
    void releaseSlot(const QString &origin);
    void dequeue(FabricHttpRequest *request);
    void schedulePump();
    void pump();
    // Closes the oldest idle connections of origin until a fresh one fits the bound.
    void makeRoom(const QString &origin);

    QHash<QString, QList<Idle>> m_idle;
    QHash<QString, int> m_busy; // slots held, per origin
    QHash<QString, QList<QPointer<FabricHttpRequest>>> m_waiting;
    bool m_pumpScheduled = false;
    QTimer m_sweep;
    int m_idleTimeoutMs = kDefaultIdleTimeoutMs;
};

} // namespace fb
