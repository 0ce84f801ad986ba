#pragma once
// HttpServer: MCP over Streamable HTTP on loopback (127.0.0.1 or ::1 only), one endpoint /mcp.
//  - 2025 revisions with sessions: initialize creates a session (Mcp-Session-Id, 32 random hex
//    digits), every later POST must carry it (missing: 400, unknown or ended: 404), DELETE ends
//    it. At most maxSessions; when full, the least recently used idle one is ended.
//  - 2026-07-28, stateless: a request carrying the per-request _meta envelope needs no session;
//    MCP-Protocol-Version, Mcp-Method and (tools/call, prompts/get, resources/read) Mcp-Name
//    must be present and agree with the body (else 400 with -32020, as the official SDK does).
//    All such requests share ONE long-lived Session, so a multi-round-trip retry lands where
//    its requestState was issued.
//  - Security: Host must name the bound loopback address or localhost with the bound port and a
//    present Origin must be such an http origin (else 403); "Authorization: Bearer <token>"
//    (HttpToken) on every request (else 401 with WWW-Authenticate). No CORS headers at all.
//    The server is HttpDaemon (libmicrohttpd): Host, Origin, Authorization, the path, the method
//    and the media types are checked on the headers alone (screen()), before any body is read;
//    bodies over maxBodyBytes (the frame limit): 413; strict JSON (400).
//  - Streams (HttpServerStreams.cpp, SseStream): a 2025-era tools/call from a client that accepts
//    text/event-stream is answered with an event stream (a priming event with id and retry for
//    2025-11-25, then its progress, log messages, server requests and its response); GET opens
//    the session's stream for server-initiated messages, or, with Last-Event-ID, resumes the
//    stream it names (the missed events once, then the rest). Everything else is JSON.
#include "transport/http/HttpDaemon.h"
#include "transport/http/SseStream.h"

#include <QByteArray>
#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QUrl>
#include <memory>

QT_BEGIN_NAMESPACE
class QTimer;
QT_END_NAMESPACE

namespace fb::mcp {
class McpServer;
} // namespace fb::mcp

namespace fb::transport {

class HttpChannel;

struct HttpServerOptions {
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0;                      // 0: a free port (HttpAddress::parse)
    QByteArray token;                      // required: the bearer token
    qint64 maxBodyBytes = 4 * 1024 * 1024; // = McpServer's frame limit
    HttpLimits limits;                     // connections, header and body deadlines
    HttpDaemon::PeerCheck peerCheck;       // the peer's uid (HttpPeer), checked on accept
    int maxSessions = 32;                  // 2025-era sessions
    qint64 idleTimeoutMs = 60 * 60 * 1000; // a session nobody used for this long ends
    SseLimits streams;                     // each event stream's backlog and replay caps
};

class HttpServer : public QObject {
    Q_OBJECT
public:
    HttpServer(mcp::McpServer *server, HttpServerOptions options, QObject *parent = nullptr);
    ~HttpServer() override;

    bool listen(QString *error);
    bool isListening() const;
    quint16 port() const;
    QUrl url() const;         // http://127.0.0.1:PORT/mcp
    int sessionCount() const; // 2025-era sessions open
    void setToken(const QByteArray &token);

private:
    struct Request;
    std::optional<HttpResponse> screen(const HttpRequest &request) const;
    void handle(HttpExchange *exchange);
    void handlePost(const Request &req, HttpExchange *exchange);
    void handleDelete(const Request &req, HttpExchange *exchange);
    void handleGet(const HttpRequest &http, HttpExchange *exchange);
    // A tools/call answered as text/event-stream; false when it is not to be streamed.
    bool dispatchStreamed(HttpChannel *channel, const QJsonValue &message, const HttpRequest &http,
                          HttpExchange *exchange, const QByteArray &sessionHeader);
    bool hostAllowed(const QByteArray &host) const;
    bool originAllowed(const QByteArray &origin) const;
    HttpChannel *createSession();
    HttpChannel *statelessChannel();
    HttpChannel *openChannel(bool stateless); // nullptr when the channel did not open
    void dispatch(HttpChannel *channel, const QJsonValue &message, HttpExchange *exchange,
                  bool closeAfter, const QByteArray &sessionHeader, bool modern = false);
    void expireIdle();

    mcp::McpServer *m_server;
    HttpServerOptions m_options;
    std::unique_ptr<HttpDaemon> m_daemon;
    QHash<QString, HttpChannel *> m_sessions;
    QPointer<HttpChannel> m_stateless;
    QTimer *m_idleTimer = nullptr;
    quint16 m_port = 0;
};

} // namespace fb::transport
