#include "sandbox/FabricSandbox.h"

#include "sandbox/SandboxApi.h"
#include "sandbox/SandboxAuth.h"
#include "sandbox/SandboxEstate.h"
#include "sandbox/SandboxHttpServer.h"
#include "sandbox/SandboxLog.h"
#include "sandbox/SandboxReply.h"

#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUuid>

namespace fb {

namespace {
constexpr int kMaxRecorded = 10000;
constexpr int kDefaultLifetime = 3599;
constexpr int kDefaultProvisioningDelayMs = 2000;
constexpr int kDefaultProvisioningReads = 1;
const QString kAdminPrefix = QStringLiteral("/sandbox/v1/");
const QString kRedacted = QStringLiteral("[REDACTED]");

// Names whose values are credentials (OAuth client secrets, access/refresh tokens, passwords).
bool isSecretKey(const QString &key)
{
    static const QStringList keys = {
        QStringLiteral("client_secret"), QStringLiteral("access_token"),
        QStringLiteral("refresh_token"), QStringLiteral("id_token"),
        QStringLiteral("password"),      QStringLiteral("secret"),
        QStringLiteral("authorization")};
    return keys.contains(key, Qt::CaseInsensitive);
}

QJsonValue redactJson(const QJsonValue &v, int depth = 0)
{
    if (depth > 64)
        return kRedacted;
    if (v.isObject()) {
        QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            it.value() =
                isSecretKey(it.key()) ? QJsonValue(kRedacted) : redactJson(it.value(), depth + 1);
        return o;
    }
    if (v.isArray()) {
        QJsonArray a = v.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            a[i] = redactJson(a.at(i), depth + 1);
        return a;
    }
    return v;
}

QUrlQuery redactQuery(const QUrlQuery &query)
{
    QUrlQuery out;
    const auto items = query.queryItems(QUrl::FullyEncoded);
    for (const auto &[key, value] : items)
        out.addQueryItem(key,
                         isSecretKey(QUrl::fromPercentEncoding(key.toUtf8())) ? kRedacted : value);
    return out;
}

// What the request log keeps of a body: JSON with every credential value replaced, a
// form-encoded body likewise; anything else that mentions a credential name is dropped whole.
QByteArray redactBody(const QByteArray &body)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
    if (err.error == QJsonParseError::NoError && (doc.isObject() || doc.isArray())) {
        const QJsonValue clean =
            redactJson(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()));
        const QJsonDocument out =
            clean.isObject() ? QJsonDocument(clean.toObject()) : QJsonDocument(clean.toArray());
        // Unchanged bodies are kept byte for byte (tests compare what the broker sent).
        return out == doc ? body : out.toJson(QJsonDocument::Compact);
    }
    const QString text = QString::fromUtf8(body);
    bool mentionsSecret = false;
    for (const char *k : {"client_secret", "access_token", "refresh_token", "id_token", "password",
                          "secret", "authorization"})
        mentionsSecret = mentionsSecret || text.contains(QLatin1String(k), Qt::CaseInsensitive);
    if (!mentionsSecret)
        return body;
    if (!text.contains(QLatin1Char('{')) && text.contains(QLatin1Char('='))) {
        const QUrlQuery form(text);
        return redactQuery(form).toString(QUrl::FullyEncoded).toUtf8();
    }
    return kRedacted.toUtf8();
}

// The admin API is unauthenticated, so it answers only requests addressed to a loopback name
// (a DNS-rebinding page in a browser sends its own host name in Host).
bool isLoopbackHost(const QByteArray &hostHeader)
{
    QString host = QString::fromLatin1(hostHeader).trimmed().toLower();
    if (host.isEmpty())
        return false;
    if (host.startsWith(QLatin1Char('['))) {
        const qsizetype end = host.indexOf(QLatin1Char(']'));
        if (end < 0)
            return false;
        const QString rest = host.mid(end + 1);
        if (!rest.isEmpty() && !rest.startsWith(QLatin1Char(':')))
            return false;
        host = host.mid(1, end - 1);
    } else if (host.count(QLatin1Char(':')) == 1) {
        host = host.section(QLatin1Char(':'), 0, 0);
    } else if (host.contains(QLatin1Char(':'))) {
        return false;
    }
    if (host == QLatin1String("localhost"))
        return true;
    QHostAddress address;
    return address.setAddress(host) && address.isLoopback();
}

QString methodName(QHttpServerRequest::Method m)
{
    switch (m) {
    case QHttpServerRequest::Method::Get:
        return QStringLiteral("GET");
    case QHttpServerRequest::Method::Put:
        return QStringLiteral("PUT");
    case QHttpServerRequest::Method::Delete:
        return QStringLiteral("DELETE");
    case QHttpServerRequest::Method::Post:
        return QStringLiteral("POST");
    case QHttpServerRequest::Method::Head:
        return QStringLiteral("HEAD");
    case QHttpServerRequest::Method::Options:
        return QStringLiteral("OPTIONS");
    case QHttpServerRequest::Method::Patch:
        return QStringLiteral("PATCH");
    case QHttpServerRequest::Method::Connect:
        return QStringLiteral("CONNECT");
    case QHttpServerRequest::Method::Trace:
        return QStringLiteral("TRACE");
    default:
        return QStringLiteral("UNKNOWN");
    }
}
} // namespace

FabricSandbox::FabricSandbox(QObject *parent)
    : QObject(parent)
    , m_estate(std::make_unique<SandboxEstate>())
    , m_auth(std::make_unique<SandboxAuth>())
    , m_api(std::make_unique<SandboxApi>(m_estate.get()))
{
    m_estate->setProvisioning(kDefaultProvisioningDelayMs, kDefaultProvisioningReads);
    m_server = new SandboxHttpServer([this](const QHttpServerRequest &request,
                                            QTcpSocket *socket) { onRequest(request, socket); },
                                     this);
}

FabricSandbox::~FabricSandbox() = default;

bool FabricSandbox::listen(quint16 port)
{
    const quint16 bound = m_server->listen(QHostAddress::LocalHost, port);
    if (bound == 0) {
        qCWarning(lcSandbox) << "cannot listen on 127.0.0.1 port" << port;
        return false;
    }
    m_port = bound;
    m_estate->seed(baseUrl().toString());
    qCInfo(lcSandbox) << "Fabric sandbox listening on" << baseUrl().toString();
    return true;
}

QUrl FabricSandbox::baseUrl() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(m_port);
    return url;
}

quint16 FabricSandbox::port() const
{
    return m_port;
}

void FabricSandbox::setClock(const Clock *clock)
{
    m_estate->setClock(clock);
    m_auth->setClock(clock);
}

void FabricSandbox::setTokenLifetimeSeconds(int seconds)
{
    m_auth->setLifetimeSeconds(seconds);
}

void FabricSandbox::setLatencyMs(int ms)
{
    m_latencyMs = qMax(0, ms);
}

void FabricSandbox::failNext(int count, int httpStatus)
{
    m_failCount = qMax(0, count);
    m_failStatus = httpStatus;
}

void FabricSandbox::dropNext(int count, const QString &method, const QString &pathPrefix,
                             bool onlyRealCreates)
{
    m_dropCount = qMax(0, count);
    m_dropMethod = method.toUpper();
    m_dropPathPrefix = pathPrefix;
    m_dropOnlyRealCreates = onlyRealCreates;
}

void FabricSandbox::setDropAppliesRequest(bool applies)
{
    m_dropApplies = applies;
}

void FabricSandbox::unauthorizeNext()
{
    m_unauthorizeNext = true;
}

void FabricSandbox::setDryRunUnsupported(const QString &changeTypeOrPath, bool unsupported)
{
    m_api->setDryRunUnsupported(changeTypeOrPath, unsupported);
}

void FabricSandbox::setProvisioning(int delayMs, int readsBeforeReady)
{
    m_estate->setProvisioning(delayMs, readsBeforeReady);
}

void FabricSandbox::clearFaults()
{
    m_latencyMs = 0;
    m_failCount = 0;
    m_failStatus = 503;
    m_dropCount = 0;
    m_dropMethod.clear();
    m_dropPathPrefix.clear();
    m_dropOnlyRealCreates = false;
    m_dropApplies = true;
    m_unauthorizeNext = false;
}

void FabricSandbox::reset()
{
    clearFaults();
    m_api->clearDryRunUnsupported();
    m_auth->setLifetimeSeconds(kDefaultLifetime);
    m_estate->setProvisioning(kDefaultProvisioningDelayMs, kDefaultProvisioningReads);
    m_estate->seed(m_port ? baseUrl().toString() : m_estate->baseUrl());
    clearRequests();
    qCInfo(lcSandbox) << "sandbox reset";
}

QList<FabricSandbox::RecordedRequest> FabricSandbox::requests() const
{
    return m_requests;
}

void FabricSandbox::clearRequests()
{
    m_requests.clear();
    m_realCreates = 0;
}

int FabricSandbox::realCreateCount() const
{
    return m_realCreates;
}

QString FabricSandbox::estateDescription()
{
    SandboxEstate estate;
    return estate.describe();
}

QJsonObject FabricSandbox::estateJson() const
{
    return m_estate->toJson();
}

QJsonObject FabricSandbox::faultsJson() const
{
    QJsonObject noDryRun;
    const QStringList keys = m_api->dryRunUnsupported();
    for (const QString &k : keys)
        noDryRun.insert(k, true);
    return QJsonObject{
        {QStringLiteral("latencyMs"), m_latencyMs},
        {QStringLiteral("fail"), QJsonObject{{QStringLiteral("count"), m_failCount},
                                             {QStringLiteral("status"), m_failStatus}}},
        {QStringLiteral("drop"),
         QJsonObject{{QStringLiteral("count"), m_dropCount},
                     {QStringLiteral("method"), m_dropMethod},
                     {QStringLiteral("pathPrefix"), m_dropPathPrefix},
                     {QStringLiteral("onlyRealCreates"), m_dropOnlyRealCreates},
                     {QStringLiteral("applyRequest"), m_dropApplies}}},
        {QStringLiteral("unauthorizeNext"), m_unauthorizeNext},
        {QStringLiteral("tokenLifetimeSeconds"), m_auth->lifetimeSeconds()},
        {QStringLiteral("dryRunUnsupported"), noDryRun},
        {QStringLiteral("provisioning"),
         QJsonObject{{QStringLiteral("delayMs"), m_estate->provisioningDelayMs()},
                     {QStringLiteral("readsBeforeReady"), m_estate->provisioningReads()}}}};
}

bool FabricSandbox::applyFaults(const QJsonObject &f, QString *error)
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    const auto intAt = [](const QJsonObject &o, const char *key, int fallback) {
        const QJsonValue v = o.value(QLatin1String(key));
        return v.isDouble() ? v.toInt() : fallback;
    };
    // Check everything first so a bad document changes nothing.
    for (const char *key : {"fail", "drop", "provisioning", "dryRunUnsupported"}) {
        if (f.contains(QLatin1String(key)) && !f.value(QLatin1String(key)).isObject())
            return fail(QLatin1String(key) + QStringLiteral(" must be an object"));
    }
    for (const char *key : {"latencyMs", "tokenLifetimeSeconds"}) {
        if (f.contains(QLatin1String(key)) &&
            (!f.value(QLatin1String(key)).isDouble() || f.value(QLatin1String(key)).toDouble() < 0))
            return fail(QLatin1String(key) + QStringLiteral(" must be a non-negative number"));
    }
    if (f.value(QStringLiteral("clear")).toBool())
        clearFaults();
    if (f.contains(QStringLiteral("latencyMs")))
        setLatencyMs(f.value(QStringLiteral("latencyMs")).toInt());
    if (f.contains(QStringLiteral("tokenLifetimeSeconds")))
        setTokenLifetimeSeconds(f.value(QStringLiteral("tokenLifetimeSeconds")).toInt());
    if (f.contains(QStringLiteral("fail"))) {
        const QJsonObject o = f.value(QStringLiteral("fail")).toObject();
        failNext(intAt(o, "count", 1), intAt(o, "status", 503));
    }
    if (f.contains(QStringLiteral("drop"))) {
        const QJsonObject o = f.value(QStringLiteral("drop")).toObject();
        dropNext(intAt(o, "count", 1), o.value(QStringLiteral("method")).toString(),
                 o.value(QStringLiteral("pathPrefix")).toString(),
                 o.value(QStringLiteral("onlyRealCreates")).toBool());
        setDropAppliesRequest(o.value(QStringLiteral("applyRequest")).toBool(true));
    }
    if (f.value(QStringLiteral("unauthorizeNext")).toBool())
        unauthorizeNext();
    if (f.contains(QStringLiteral("provisioning"))) {
        const QJsonObject o = f.value(QStringLiteral("provisioning")).toObject();
        setProvisioning(intAt(o, "delayMs", m_estate->provisioningDelayMs()),
                        intAt(o, "readsBeforeReady", m_estate->provisioningReads()));
    }
    const QJsonObject noDryRun = f.value(QStringLiteral("dryRunUnsupported")).toObject();
    for (auto it = noDryRun.begin(); it != noDryRun.end(); ++it)
        setDryRunUnsupported(it.key(), it.value().toBool());
    return true;
}

bool FabricSandbox::takeDrop(const QString &method, const QString &path, const QUrlQuery &query)
{
    if (m_dropCount <= 0)
        return false;
    if (!m_dropMethod.isEmpty() && m_dropMethod != method)
        return false;
    if (!m_dropPathPrefix.isEmpty() && !path.startsWith(m_dropPathPrefix))
        return false;
    if (m_dropOnlyRealCreates &&
        (!SandboxApi::isCreate(method, path) || SandboxApi::isDryRun(query)))
        return false;
    --m_dropCount;
    return true;
}

void FabricSandbox::onRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    const QString method = methodName(request.method());
    const QString path = request.url().path();
    const QUrlQuery query = request.query();
    const QByteArray body = request.body();
    const bool close = request.value(QByteArrayLiteral("connection")).toLower().contains("close");
    const QString sentCorrelation =
        QString::fromLatin1(request.value(QByteArrayLiteral("x-correlation-id")));
    const QString cid = sentCorrelation.isEmpty()
                            ? QUuid::createUuid().toString(QUuid::WithoutBraces)
                            : sentCorrelation;

    if (path.startsWith(kAdminPrefix)) {
        if (!isLoopbackHost(request.value(QByteArrayLiteral("host")))) {
            qCWarning(lcSandbox) << "admin request refused: Host is not a loopback name";
            send(socket,
                 SandboxReply::json(403, QJsonObject{{QStringLiteral("error"),
                                                      QStringLiteral("the sandbox admin API "
                                                                     "answers only a loopback "
                                                                     "Host (127.0.0.1, ::1, "
                                                                     "localhost)")}}),
                 cid, true, 0);
            return;
        }
        send(socket, admin(method, path, body), cid, close, 0);
        return;
    }

    // Credentials never enter the log: client secrets and tokens are redacted on the way in.
    RecordedRequest record{method,
                           path,
                           redactQuery(query),
                           redactBody(body),
                           sentCorrelation,
                           SandboxApi::isDryRun(query),
                           0,
                           false};
    if (m_requests.size() >= kMaxRecorded)
        m_requests.removeFirst();
    m_requests.append(record);
    const qsizetype index = m_requests.size() - 1;

    const bool drop = takeDrop(method, path, query);
    SandboxReply reply;
    if (!drop || m_dropApplies) {
        if (m_failCount > 0) {
            --m_failCount;
            reply = SandboxReply::error(m_failStatus, SandboxErrors::ServiceUnavailable,
                                        SandboxErrors::ServiceUnavailableMessage, cid,
                                        QStringLiteral("Injected fault"));
        } else {
            reply = process(method, path, query, body,
                            request.value(QByteArrayLiteral("authorization")), cid);
        }
        if (reply.realCreate)
            ++m_realCreates;
    }
    qCInfo(lcSandbox).noquote() << method << path
                                << (drop ? QStringLiteral("dropped")
                                         : QString::number(reply.status))
                                << "correlation" << cid;
    if (drop) {
        m_requests[index].dropped = true;
        // Abort closes the TCP connection at once (RST), without a byte of response. The
        // server deletes the socket after this handler returns.
        socket->abort();
        Q_EMIT requestHandled(method, path, 0);
        return;
    }
    m_requests[index].status = reply.status;
    send(socket, reply, cid, close, m_latencyMs);
    Q_EMIT requestHandled(method, path, reply.status);
}

SandboxReply FabricSandbox::process(const QString &method, const QString &path,
                                    const QUrlQuery &query, const QByteArray &body,
                                    const QByteArray &authorization, const QString &cid)
{
    if (method != QLatin1String("GET") && method != QLatin1String("POST"))
        return SandboxReply::error(405, SandboxErrors::MethodNotSupported,
                                   SandboxErrors::MethodNotSupportedMessage, cid,
                                   QStringLiteral("Method:") + method);
    if (path == QLatin1String("/oauth2/v1/token")) {
        if (method != QLatin1String("POST"))
            return SandboxReply::error(405, SandboxErrors::MethodNotSupported,
                                       SandboxErrors::MethodNotSupportedMessage, cid,
                                       QStringLiteral("Method:") + method);
        return m_auth->issue(body);
    }
    if (!path.startsWith(QLatin1String("/fabric/")))
        return SandboxReply::error(404, SandboxErrors::PathNotFound,
                                   SandboxErrors::PathNotFoundMessage, cid,
                                   QStringLiteral("No such path: ") + path);
    if (m_unauthorizeNext || !m_auth->isAuthorized(authorization)) {
        m_unauthorizeNext = false;
        return SandboxReply::error(401, SandboxErrors::Unauthorized,
                                   SandboxErrors::UnauthorizedMessage, cid);
    }
    return m_api->handle(method, path, query, body, cid);
}

SandboxReply FabricSandbox::admin(const QString &method, const QString &path,
                                  const QByteArray &body)
{
    const QString route = path.mid(kAdminPrefix.size());
    const bool get = method == QLatin1String("GET");
    const bool post = method == QLatin1String("POST");
    const auto bad = [](int status, const QString &why) {
        return SandboxReply::json(status, QJsonObject{{QStringLiteral("error"), why}});
    };
    if (!get && !post)
        return bad(405, QStringLiteral("only GET and POST are served"));
    if (route == QLatin1String("health") && get)
        return SandboxReply::json(200,
                                  QJsonObject{{QStringLiteral("status"), QStringLiteral("ok")},
                                              {QStringLiteral("baseUrl"), baseUrl().toString()}});
    if (route == QLatin1String("requests") && get) {
        QJsonArray data;
        for (const RecordedRequest &r : m_requests) {
            data.append(QJsonObject{{QStringLiteral("method"), r.method},
                                    {QStringLiteral("path"), r.path},
                                    {QStringLiteral("query"), r.query.toString(QUrl::FullyDecoded)},
                                    {QStringLiteral("body"), QString::fromUtf8(r.body)},
                                    {QStringLiteral("correlationId"), r.correlationId},
                                    {QStringLiteral("dryRun"), r.dryRun},
                                    {QStringLiteral("status"), r.status},
                                    {QStringLiteral("dropped"), r.dropped}});
        }
        return SandboxReply::json(200,
                                  QJsonObject{{QStringLiteral("total"), int(data.size())},
                                              {QStringLiteral("realCreateCount"), m_realCreates},
                                              {QStringLiteral("data"), data}});
    }
    if (route == QLatin1String("requests/clear") && post) {
        clearRequests();
        return SandboxReply::json(200, QJsonObject{{QStringLiteral("total"), 0}});
    }
    if (route == QLatin1String("faults") && get)
        return SandboxReply::json(200, faultsJson());
    if (route == QLatin1String("faults") && post) {
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject())
            return bad(400, QStringLiteral("body must be a JSON object"));
        QString why;
        if (!applyFaults(doc.object(), &why))
            return bad(400, why);
        return SandboxReply::json(200, faultsJson());
    }
    if (route == QLatin1String("reset") && post) {
        reset();
        return SandboxReply::json(200,
                                  QJsonObject{{QStringLiteral("status"), QStringLiteral("reset")}});
    }
    if (route == QLatin1String("estate") && get)
        return SandboxReply::json(200, estateJson());
    if (route == QLatin1String("estate/description") && get) {
        SandboxReply r;
        r.body = m_estate->describe().toUtf8();
        r.contentType = QByteArrayLiteral("text/plain; charset=utf-8");
        return r;
    }
    return bad(404, QStringLiteral("unknown admin endpoint ") + path);
}

void FabricSandbox::send(QTcpSocket *socket, const SandboxReply &reply,
                         const QString &correlationId, bool close, int delayMs)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(reply.status) + ' ' +
                     httpReasonPhrase(reply.status) + "\r\n";
    out += "Content-Type: " + reply.contentType + "\r\n";
    out += "Content-Length: " + QByteArray::number(reply.body.size()) + "\r\n";
    out += "X-CORRELATION-ID: " + correlationId.toLatin1() + "\r\n";
    out += close ? QByteArrayLiteral("Connection: close\r\n")
                 : QByteArrayLiteral("Connection: keep-alive\r\n");
    out += "\r\n" + reply.body;
    const auto write = [out, close](QTcpSocket *s) {
        s->write(out);
        if (close)
            s->disconnectFromHost();
    };
    if (delayMs <= 0) {
        write(socket);
        return;
    }
    QPointer<QTcpSocket> guard(socket);
    QTimer::singleShot(delayMs, this, [guard, write]() {
        if (guard && guard->state() == QAbstractSocket::ConnectedState)
            write(guard.data());
    });
}

} // namespace fb
