#include "transport/http/HttpServer.h"
#include "mcp/Logging.h"
#include "mcp/McpServer.h"
#include "mcp/ModernEra.h"
#include "mcp/Protocol.h"
#include "telemetry/Telemetry.h"
#include "transport/http/HttpChannel.h"
#include "transport/http/HttpMessages.h"
#include "transport/http/HttpToken.h"

#include "transport/http/HttpDaemon.h"
#include "transport/http/HttpPeer.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::transport {

using mcp::lcMcpTransport;
using mcp::McpServer;
namespace protocol = mcp::protocol;
namespace modern = mcp::modern;

using namespace http;

namespace {

using Headers = QList<QPair<QByteArray, QByteArray>>;

void respond(HttpExchange *exchange, int status, const QByteArray &body, bool close,
             const Headers &extra = {})
{
    if (!exchange)
        return;
    HttpResponse r;
    r.status = status;
    r.body = body;
    r.close = close;
    r.headers = extra;
    exchange->respond(std::move(r));
}

HttpResponse refusal(int status, const QByteArray &body, const Headers &extra = {})
{
    HttpResponse r;
    r.status = status;
    r.body = body;
    r.headers = extra;
    return r;
}

// 503 when no session (stateless or 2025 era) can be made: the server holds its maximum.
void writeTooManySessions(HttpExchange *exchange, const QJsonValue &replyId, bool close)
{
    respond(exchange, 503,
            rpcError(replyId, protocol::InternalError, u"Service Unavailable: too many sessions"_s),
            close);
}

} // namespace

struct HttpServer::Request {
    const HttpRequest &http;
    bool close = false;
};

HttpServer::HttpServer(McpServer *server, HttpServerOptions options, QObject *parent)
    : QObject(parent)
    , m_server(server)
    , m_options(std::move(options))
{
    m_idleTimer = new QTimer(this);
    m_idleTimer->setInterval(60 * 1000);
    connect(m_idleTimer, &QTimer::timeout, this, &HttpServer::expireIdle);
}

HttpServer::~HttpServer()
{
    QList<HttpChannel *> channels = m_sessions.values();
    if (m_stateless)
        channels.append(m_stateless);
    m_sessions.clear();
    for (HttpChannel *channel : std::as_const(channels)) {
        disconnect(channel, nullptr, this, nullptr);
        delete channel;
    }
    m_daemon.reset();
}

bool HttpServer::listen(QString *error)
{
    if (m_options.token.isEmpty()) {
        if (error)
            *error = u"the HTTP endpoint needs a bearer token"_s;
        return false;
    }
    HttpLimits limits = m_options.limits;
    limits.maxBodyBytes = m_options.maxBodyBytes;
    m_daemon = std::make_unique<HttpDaemon>(
        limits, [this](const HttpRequest &request) { return screen(request); },
        [this](HttpExchange *exchange) { handle(exchange); });
    // Only this user: the client's uid is looked up before a byte is read.
    m_daemon->setPeerCheck(m_options.peerCheck ? m_options.peerCheck
                                               : [](qintptr fd, QString *why) {
                                                     return HttpPeer::runsAs(fd, ::getuid(), why);
                                                 });
    if (!m_daemon->listen(m_options.address, m_options.port, error)) {
        m_daemon.reset();
        return false;
    }
    m_port = m_daemon->port();
    m_idleTimer->start();
    return true;
}

bool HttpServer::isListening() const
{
    return m_port != 0;
}

quint16 HttpServer::port() const
{
    return m_port;
}

QUrl HttpServer::url() const
{
    QUrl url;
    url.setScheme(u"http"_s);
    url.setHost(m_options.address.toString());
    url.setPort(m_port);
    url.setPath(u"/mcp"_s);
    return url;
}

int HttpServer::sessionCount() const
{
    return static_cast<int>(m_sessions.size());
}

void HttpServer::setToken(const QByteArray &token)
{
    m_options.token = token;
}

bool HttpServer::hostAllowed(const QByteArray &host) const
{
    const QByteArray port = ':' + QByteArray::number(m_port);
    const QByteArray h = host.trimmed().toLower();
    return h == "127.0.0.1" + port || h == "localhost" + port || h == "[::1]" + port;
}

bool HttpServer::originAllowed(const QByteArray &origin) const
{
    const QByteArray o = origin.trimmed().toLower();
    return hostAllowed(o.startsWith("http://") ? o.mid(7) : QByteArray());
}

// The headers alone, before a byte of the body is read.
std::optional<HttpResponse> HttpServer::screen(const HttpRequest &http) const
{
    const QByteArray origin = http.value("origin");
    if (!hostAllowed(http.value("host")) || (!origin.isEmpty() && !originAllowed(origin))) {
        qCWarning(lcMcpTransport) << "HTTP: refused a request with a foreign Host or Origin";
        HttpResponse r = refusal(
            403, rpcError(QJsonValue::Null, protocol::InvalidRequest,
                          u"Forbidden: Host and Origin must name this loopback endpoint"_s));
        r.close = true;
        return r;
    }
    if (!HttpToken::authorizationMatches(m_options.token, http.value("authorization")))
        return refusal(401,
                       rpcError(QJsonValue::Null, protocol::InvalidRequest,
                                u"Unauthorized: send Authorization: Bearer <token> (the token is "
                                "in fabric-broker-http.token in the runtime directory)"_s),
                       {{"WWW-Authenticate", R"(Bearer realm="fabric-broker")"}});
    // The Prometheus text endpoint (docs/observability.md), behind the same token.
    if (http.path == "/metrics") {
        if (http.method != "GET")
            return refusal(405,
                           rpcError(QJsonValue::Null, protocol::InvalidRequest,
                                    u"Method Not Allowed: GET /metrics"_s),
                           {{"Allow", "GET"}});
        if (!m_server->telemetry())
            return refusal(404, rpcError(QJsonValue::Null, protocol::InvalidRequest,
                                         u"Not Found: metrics are off in this process"_s));
        return std::nullopt;
    }
    if (http.path != "/mcp")
        return refusal(404, rpcError(QJsonValue::Null, protocol::InvalidRequest,
                                     u"Not Found: the MCP endpoint is /mcp"_s));
    if (http.method == "POST") {
        if (!http.value("content-type").toLower().startsWith("application/json"))
            return refusal(415, rpcError(QJsonValue::Null, protocol::InvalidRequest,
                                         u"Unsupported Media Type: POST application/json"_s));
        const QByteArray accept = http.value("accept").toLower();
        if (!accept.isEmpty() && !accept.contains("application/json") && !accept.contains("*/*") &&
            !accept.contains("application/*"))
            return refusal(406,
                           rpcError(QJsonValue::Null, protocol::InvalidRequest,
                                    u"Not Acceptable: this server answers application/json"_s));
        return std::nullopt;
    }
    if (http.method == "DELETE")
        return std::nullopt;
    if (http.method == "GET") {
        if (!http.value("accept").toLower().contains("text/event-stream"))
            return refusal(406, rpcError(QJsonValue::Null, protocol::InvalidRequest,
                                         u"Not Acceptable: GET answers text/event-stream"_s));
        return std::nullopt;
    }
    return refusal(405,
                   rpcError(QJsonValue::Null, protocol::InvalidRequest,
                            u"Method Not Allowed: POST JSON-RPC messages, GET the event stream"_s),
                   {{"Allow", "GET, POST, DELETE"}});
}

void HttpServer::handle(HttpExchange *exchange)
{
    const HttpRequest &http = exchange->request();
    Request req{http, http.wantsClose()};
    if (http.path == "/metrics") {
        HttpResponse r;
        const telemetry::Telemetry *t = m_server->telemetry();
        r.body = t ? t->metrics()->prometheusText() : QByteArray();
        r.contentType = telemetry::MetricRegistry::PrometheusContentType;
        r.close = req.close;
        exchange->respond(std::move(r));
        return;
    }
    if (http.method == "DELETE")
        handleDelete(req, exchange);
    else if (http.method == "GET")
        handleGet(http, exchange);
    else
        handlePost(req, exchange);
}

void HttpServer::handlePost(const Request &req, HttpExchange *exchange)
{
    const HttpRequest &http = req.http;
    const QByteArray &body = http.body;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        respond(exchange, 400,
                rpcError(QJsonValue::Null, protocol::ParseError,
                         u"Parse error: %1 at offset %2"_s.arg(parseError.errorString())
                             .arg(parseError.offset)),
                req.close);
        return;
    }
    const QJsonValue message = doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object());
    bool valid = doc.isObject() ? validMessage(message) : !doc.array().isEmpty();
    bool anyClaim = false;
    bool hasInitialize = false;
    if (doc.isArray()) {
        for (const QJsonValue &item : doc.array()) {
            valid = valid && validMessage(item);
            anyClaim = anyClaim ||
                       modern::readEnvelope(item.toObject().value("params"_L1).toObject()).kind !=
                           modern::Envelope::Kind::None;
            hasInitialize = hasInitialize || item.toObject().value("method"_L1) == "initialize"_L1;
        }
    }
    const QJsonObject object = doc.object();
    const QJsonValue id = object.value("id"_L1);
    const QJsonValue replyId = protocol::isValidRequestId(id) ? id : QJsonValue(QJsonValue::Null);
    if (!valid) {
        respond(exchange, 400,
                rpcError(replyId, protocol::InvalidRequest,
                         u"Invalid Request: not a JSON-RPC 2.0 message or batch"_s),
                req.close);
        return;
    }
    if (anyClaim || hasInitialize) {
        respond(exchange, 400,
                rpcError(QJsonValue::Null, protocol::InvalidRequest,
                         anyClaim ? u"Bad Request: JSON-RPC batches may not contain "
                                    "requests for protocol revision 2026-07-28 or later"_s
                                  : u"Bad Request: initialize may not be batched"_s),
                req.close);
        return;
    }

    const QByteArray versionHeader = http.value("mcp-protocol-version").trimmed();
    const QString method = object.value("method"_L1).toString();
    const bool isRequest = object.contains("method"_L1) && object.contains("id"_L1);
    const modern::Envelope envelope = modern::readEnvelope(object.value("params"_L1).toObject());
    if (envelope.kind != modern::Envelope::Kind::None) {
        // 2026-07-28: stateless; a valid envelope, and standard headers that agree with the body.
        if (envelope.kind == modern::Envelope::Kind::Invalid) {
            respond(exchange, 400,
                    rpcError(replyId, protocol::InvalidParams, envelope.error,
                             QJsonObject{{u"envelope"_s, envelope.error}}),
                    req.close);
            return;
        }
        const QString claimed = envelopeClaim(object).toString();
        const std::optional<http::Mismatch> mismatch =
            http::modernHeaderMismatch(object, claimed, versionHeader,
                                       http.value("mcp-method").trimmed(), http.value("mcp-name"));
        if (mismatch) {
            respond(
                exchange, 400,
                rpcError(replyId, http::HeaderMismatch,
                         u"Bad Request: the request headers and body disagree: "_s + mismatch->what,
                         QJsonObject{{u"mismatch"_s, QJsonObject{{u"header"_s, mismatch->header},
                                                                 {u"body"_s, mismatch->what}}}}),
                req.close);
            return;
        }
        HttpChannel *channel = statelessChannel();
        if (!channel) {
            writeTooManySessions(exchange, replyId, req.close);
            return;
        }
        if (!dispatchStreamed(channel, message, http, exchange, {}))
            dispatch(channel, message, exchange, req.close, {}, true);
        return;
    }
    if (!versionHeader.isEmpty() && isModernVersion(QString::fromLatin1(versionHeader)) &&
        doc.isObject()) {
        respond(exchange, 400,
                rpcError(replyId, protocol::InvalidParams,
                         u"Invalid params: the MCP-Protocol-Version header names protocol "
                         "revision %1, but the request is missing the required "
                         "per-request envelope key(s): %2"_s.arg(
                             QString::fromLatin1(versionHeader.left(40)), http::EnvelopeVersionKey),
                         QJsonObject{
                             {u"envelope"_s,
                              QJsonObject{{u"missing"_s, QJsonArray{http::EnvelopeVersionKey}}}}}),
                req.close);
        return;
    }
    // The 2025 revisions: sessions.
    if (doc.isObject() && method == "initialize"_L1 && isRequest) {
        HttpChannel *channel = createSession();
        if (!channel) {
            writeTooManySessions(exchange, replyId, req.close);
            return;
        }
        channel->setClientStreams(http.value("accept").toLower().contains("text/event-stream"));
        dispatch(channel, message, exchange, req.close, channel->id().toLatin1());
        return;
    }
    const QByteArray sessionId = http.value("mcp-session-id").trimmed();
    if (sessionId.isEmpty()) {
        respond(exchange, 400,
                rpcError(replyId, protocol::InvalidRequest,
                         u"Bad Request: Mcp-Session-Id header is required (send initialize "
                         "first)"_s),
                req.close);
        return;
    }
    HttpChannel *channel = m_sessions.value(QString::fromLatin1(sessionId));
    if (!channel || !channel->isOpen()) {
        respond(exchange, 404,
                rpcError(replyId, protocol::InvalidRequest,
                         u"Session not found: it ended or never existed; initialize a "
                         "new one"_s),
                req.close);
        return;
    }
    if (!versionHeader.isEmpty() &&
        !protocol::supportedVersions().contains(QString::fromLatin1(versionHeader))) {
        respond(exchange, 400,
                rpcError(replyId, protocol::InvalidRequest,
                         u"Bad Request: unsupported MCP-Protocol-Version %1"_s.arg(
                             QString::fromLatin1(versionHeader.left(40)))),
                req.close);
        return;
    }
    if (!dispatchStreamed(channel, message, http, exchange, sessionId))
        dispatch(channel, message, exchange, req.close, sessionId);
}

void HttpServer::dispatch(HttpChannel *channel, const QJsonValue &message, HttpExchange *exchange,
                          bool closeAfter, const QByteArray &sessionHeader, bool modern)
{
    Headers headers;
    if (!sessionHeader.isEmpty())
        headers.append({"Mcp-Session-Id", sessionHeader});
    QPointer<HttpExchange> guard(exchange);
    const quint64 ticket = channel->post(
        message, [guard, closeAfter, headers, modern](int status, const QByteArray &b) {
            // 2026-07-28 over HTTP: entry-gate errors carry their HTTP status (as the SDK maps
            // them); handler errors stay in-band (200).
            if (modern && status == 200 && b.startsWith("{\"error\":"))
                status = modernErrorStatus(b);
            respond(guard, status, b, closeAfter, headers);
        });
    if (ticket == 0) {
        respond(exchange, 202, {}, closeAfter, headers);
        return;
    }
    if (!guard || guard->answered())
        return; // answered already (e.g. ping)
    QPointer<HttpChannel> ch(channel);
    connect(exchange, &HttpExchange::abandoned, channel, [ch, ticket] {
        if (ch)
            ch->abandon(ticket);
    });
}

void HttpServer::handleDelete(const Request &req, HttpExchange *exchange)
{
    const QByteArray sessionId = req.http.value("mcp-session-id").trimmed();
    if (sessionId.isEmpty()) {
        respond(exchange, 400,
                rpcError(QJsonValue::Null, protocol::InvalidRequest,
                         u"Bad Request: Mcp-Session-Id header is required"_s),
                req.close);
        return;
    }
    HttpChannel *channel = m_sessions.take(QString::fromLatin1(sessionId));
    if (!channel) {
        respond(exchange, 404,
                rpcError(QJsonValue::Null, protocol::InvalidRequest, u"Session not found"_s),
                req.close);
        return;
    }
    channel->close(u"the client ended the HTTP session"_s);
    channel->deleteLater();
    respond(exchange, 200, {}, req.close);
}

HttpChannel *HttpServer::createSession()
{
    if (m_sessions.size() >= m_options.maxSessions) {
        // Full: the least recently used session with nothing in flight makes room.
        HttpChannel *oldest = nullptr;
        for (HttpChannel *c : std::as_const(m_sessions)) {
            if (c->pendingRequests() == 0 &&
                (!oldest || c->lastActivityMs() < oldest->lastActivityMs()))
                oldest = c;
        }
        if (!oldest)
            return nullptr;
        qCInfo(lcMcpTransport) << "HTTP: ending the least recently used session to make room";
        m_sessions.remove(oldest->id());
        oldest->close(u"too many HTTP sessions"_s);
        oldest->deleteLater();
    }
    HttpChannel *channel = openChannel(false);
    if (!channel)
        return nullptr;
    m_sessions.insert(channel->id(), channel);
    connect(channel, &HttpChannel::closed, this, [this, channel] {
        if (m_sessions.value(channel->id()) == channel) {
            m_sessions.remove(channel->id());
            channel->deleteLater();
        }
    });
    return channel;
}

HttpChannel *HttpServer::statelessChannel()
{
    if (m_stateless && m_stateless->isOpen())
        return m_stateless;
    if (m_stateless)
        m_stateless->deleteLater();
    m_stateless = openChannel(true);
    return m_stateless;
}

HttpChannel *HttpServer::openChannel(bool stateless)
{
    auto *channel = new HttpChannel(m_server, stateless, this);
    if (!channel->isOpen()) {
        delete channel;
        return nullptr;
    }
    channel->setStreamLimits(m_options.streams);
    return channel;
}

void HttpServer::expireIdle()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QList<HttpChannel *> channels = m_sessions.values();
    for (HttpChannel *c : channels) {
        if (c->pendingRequests() == 0 && now - c->lastActivityMs() > m_options.idleTimeoutMs) {
            m_sessions.remove(c->id());
            c->close(u"the HTTP session was idle"_s);
            c->deleteLater();
        }
    }
}

} // namespace fb::transport
