#include "sandbox/FabricSandbox.h"

#include "sandbox/SandboxApi.h"
#include "sandbox/SandboxAuth.h"
#include "sandbox/SandboxEstate.h"
#include "sandbox/SandboxHttpServer.h"
#include "sandbox/SandboxLog.h"
#include "sandbox/SandboxRedact.h"
#include "sandbox/SandboxReply.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>
#include <QUuid>

#include <utility>

namespace fb {

namespace {
constexpr int kMaxRecorded = 10000;
constexpr int kDefaultLifetime = 3599;
constexpr int kDefaultProvisioningDelayMs = 2000;
constexpr int kDefaultProvisioningReads = 1;

} // namespace

FabricSandbox::FabricSandbox(QObject *parent)
    : QObject(parent)
    , m_estate(std::make_unique<SandboxEstate>())
    , m_auth(std::make_unique<SandboxAuth>())
    , m_api(std::make_unique<SandboxApi>(m_estate.get()))
{
    m_estate->setProvisioning(kDefaultProvisioningDelayMs, kDefaultProvisioningReads);
    m_server = new SandboxHttpServer(
        [this](const SandboxHttpRequest &request, SandboxHttpServer::Ticket ticket) {
            onRequest(request, ticket);
        },
        this);
}

FabricSandbox::~FabricSandbox() = default;

bool FabricSandbox::listen(quint16 port)
{
    const quint16 bound = m_server->listen(port);
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

void FabricSandbox::failNext(int count, int httpStatus, bool applyRequest)
{
    m_failCount = qMax(0, count);
    m_failStatus = httpStatus;
    m_failApplies = applyRequest;
}

void FabricSandbox::setTokenDelayMs(int ms)
{
    m_tokenDelayMs = qMax(0, ms);
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
    m_failApplies = false;
    m_tokenDelayMs = 0;
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

void FabricSandbox::onRequest(const SandboxHttpRequest &request, quint64 ticket)
{
    const QString &method = request.method;
    const QString &path = request.path;
    const QUrlQuery &query = request.query;
    const QByteArray &body = request.body;
    const bool close = request.value(QByteArrayLiteral("connection")).toLower().contains("close");
    const QString sentCorrelation =
        QString::fromLatin1(request.value(QByteArrayLiteral("x-correlation-id")));
    const QString cid = sentCorrelation.isEmpty()
                            ? QUuid::createUuid().toString(QUuid::WithoutBraces)
                            : sentCorrelation;

    if (path.startsWith(AdminPrefix)) {
        serveAdmin(method, path, body, request.value(QByteArrayLiteral("host")), ticket, cid,
                   close);
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
            if (m_failApplies) { // processed (a create commits), then answered with the fault
                const SandboxReply applied =
                    process(method, path, query, body,
                            request.value(QByteArrayLiteral("authorization")), cid);
                if (applied.realCreate)
                    ++m_realCreates;
            }
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
        // The TCP connection closes at once (RST), without a byte of response.
        m_server->drop(ticket);
        Q_EMIT requestHandled(method, path, 0);
        return;
    }
    m_requests[index].status = reply.status;
    const bool token = path == QLatin1String("/oauth2/v1/token");
    send(ticket, reply, cid, close, token ? qMax(m_latencyMs, m_tokenDelayMs) : m_latencyMs);
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

void FabricSandbox::send(quint64 ticket, const SandboxReply &reply, const QString &correlationId,
                         bool close, int delayMs)
{
    SandboxHttpResponse response{reply.status,
                                 reply.contentType,
                                 reply.body,
                                 {{"X-CORRELATION-ID", correlationId.toLatin1()}},
                                 close};
    if (delayMs <= 0) {
        m_server->respond(ticket, std::move(response));
        return;
    }
    // A connection gone meanwhile leaves a ticket the server ignores.
    QTimer::singleShot(delayMs, m_server, [server = m_server, ticket, response]() mutable {
        server->respond(ticket, std::move(response));
    });
}

} // namespace fb
