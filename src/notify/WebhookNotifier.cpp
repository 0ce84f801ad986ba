#include "notify/WebhookNotifier.h"

#include "core/ProposalStore.h"

#include <QHash>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

#include <algorithm>

Q_LOGGING_CATEGORY(lcWebhook, "fabricbroker.notify.webhook")

namespace fb::notify {

using namespace Qt::StringLiterals;

namespace {

// The network stack's own messages quote the URL; these never do.
QString networkErrorText(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
        return u"connection refused"_s;
    case QNetworkReply::RemoteHostClosedError:
        return u"the receiver closed the connection"_s;
    case QNetworkReply::HostNotFoundError:
        return u"host not found"_s;
    case QNetworkReply::TimeoutError:
        return u"the connection timed out"_s;
    case QNetworkReply::OperationCanceledError:
        return u"cancelled"_s;
    case QNetworkReply::SslHandshakeFailedError:
        return u"the TLS handshake failed (certificate not trusted?)"_s;
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
        return u"the network is not available"_s;
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::ProxyTimeoutError:
    case QNetworkReply::ProxyAuthenticationRequiredError:
        return u"the proxy failed"_s;
    default:
        return u"network error %1"_s.arg(int(error));
    }
}

} // namespace

QJsonObject WebhookDelivery::auditRecord() const
{
    QJsonObject o{{u"target"_s, target},
                  {u"host"_s, origin},
                  {u"format"_s, webhookFormatName(format)},
                  {u"event"_s, webhookEventName(event)},
                  {u"request_sha256"_s, requestSha256},
                  {u"attempts"_s, attempts},
                  {u"http_status"_s, httpStatus > 0 ? QJsonValue(httpStatus) : QJsonValue()}};
    if (!error.isEmpty())
        o.insert(u"error"_s, error.left(200));
    return o;
}

WebhookNotifier::WebhookNotifier(QObject *parent)
    : WebhookNotifier(Options{}, Clock::system(), parent)
{
}

WebhookNotifier::WebhookNotifier(Options options, Clock *clock, QObject *parent)
    : QObject(parent)
    , m_options(options)
    , m_clock(clock)
{
    qRegisterMetaType<fb::Proposal>();
    qRegisterMetaType<fb::notify::WebhookDelivery>();
}

WebhookNotifier::~WebhookNotifier()
{
    // Replies are children of the network manager, itself a child of this: without a word.
    for (auto &[key, lane] : m_lanes) {
        if (lane.reply)
            lane.reply->disconnect(this);
    }
}

void WebhookNotifier::setTargets(const QList<WebhookTarget> &targets)
{
    m_targets = targets;
}

QNetworkAccessManager *WebhookNotifier::network()
{
    // Made on the first delivery: a process without webhooks never opens a network stack here.
    if (!m_network) {
        m_network = new QNetworkAccessManager(this);
        m_network->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
        m_network->setAutoDeleteReplies(false);
    }
    return m_network;
}

int WebhookNotifier::pending() const
{
    int n = 0;
    for (const auto &[key, lane] : m_lanes)
        n += int(lane.queue.size());
    return n;
}

void WebhookNotifier::notify(const WebhookMessage &message)
{
    QHash<int, QByteArray> bodies; // one per format
    QList<WebhookDelivery> refused;
    for (int i = 0; i < m_targets.size(); ++i) {
        const WebhookTarget &target = m_targets.at(i);
        if (!target.wants(message.event))
            continue;
        Job job;
        job.url = target.url;
        job.delivery.target = i;
        job.delivery.origin = target.origin();
        job.delivery.format = target.format;
        job.delivery.event = message.event;
        job.delivery.requestSha256 = message.requestSha256;
        const QString key = target.url.toString(QUrl::FullyEncoded);
        const auto lane = m_lanes.find(key);
        const qsizetype inLane = lane == m_lanes.end() ? 0 : lane->second.queue.size();
        if (pending() >= m_options.maxQueued || inLane >= m_options.maxQueuedPerTarget) {
            job.delivery.error =
                u"queue full: %1 deliveries were waiting (%2 for this webhook)"_s.arg(pending())
                    .arg(inLane);
            refused.append(job.delivery);
            continue;
        }
        const int format = int(target.format);
        if (!bodies.contains(format))
            bodies.insert(format, webhookBody(target.format, message));
        job.body = bodies.value(format);
        m_lanes[key].queue.append(std::move(job));
        // Nothing leaves before the event loop runs again: the caller never waits.
        QTimer::singleShot(0, this, [this, key] { pump(key); });
    }
    for (const WebhookDelivery &d : std::as_const(refused)) {
        qCWarning(lcWebhook).noquote()
            << "webhook" << d.target << "at" << d.origin << "not notified of"
            << webhookEventName(d.event) << ":" << d.error;
        emit failed(d);
    }
}

void WebhookNotifier::pump(const QString &laneKey)
{
    const auto it = m_lanes.find(laneKey);
    if (it == m_lanes.end() || it->second.busy || it->second.queue.isEmpty())
        return;
    attempt(laneKey);
}

bool WebhookNotifier::stillTargeted(const QUrl &url) const
{
    return std::any_of(m_targets.cbegin(), m_targets.cend(),
                       [&](const WebhookTarget &t) { return t.url == url; });
}

void WebhookNotifier::attempt(const QString &laneKey)
{
    const auto it = m_lanes.find(laneKey);
    if (it == m_lanes.end() || it->second.queue.isEmpty())
        return;
    Lane &lane = it->second;
    lane.busy = true;
    Job &job = lane.queue.first();
    if (!stillTargeted(job.url))
        return finishFirst(laneKey, false,
                           u"the webhook is no longer in notify.webhooks; not sent"_s);
    ++job.delivery.attempts;
    QNetworkRequest request(job.url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setHeader(QNetworkRequest::UserAgentHeader,
                      QByteArrayLiteral("fabric-broker/" FB_VERSION));
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    request.setTransferTimeout(m_options.attemptTimeoutMs);
    QNetworkReply *reply = network()->post(request, job.body);
    lane.reply = reply;
    lane.timedOut = false;
    const quint64 id = ++m_attemptSeq;
    lane.attemptId = id;
    // The answer is read and dropped as it comes: a receiver cannot fill memory.
    connect(reply, &QNetworkReply::readyRead, reply, [reply] { reply->readAll(); });
    connect(reply, &QNetworkReply::finished, this,
            [this, laneKey, reply] { answered(laneKey, reply); });
    // setTransferTimeout counts idle time; this bounds the whole attempt.
    QTimer::singleShot(m_options.attemptTimeoutMs, this, [this, laneKey, id] {
        const auto l = m_lanes.find(laneKey);
        if (l == m_lanes.end() || l->second.attemptId != id || !l->second.reply)
            return;
        l->second.timedOut = true;
        l->second.reply->abort();
    });
}

void WebhookNotifier::answered(const QString &laneKey, QNetworkReply *reply)
{
    reply->deleteLater();
    const auto it = m_lanes.find(laneKey);
    if (it == m_lanes.end() || it->second.reply != reply)
        return;
    Lane &lane = it->second;
    lane.reply = nullptr;
    ++lane.attemptId; // the attempt's deadline no longer applies
    Job &job = lane.queue.first();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    job.delivery.httpStatus = status;
    if (status >= 200 && status < 300)
        return finishFirst(laneKey, true, {});
    QString error;
    if (status > 0)
        error = status >= 300 && status < 400
                    ? u"HTTP %1 (redirects are not followed)"_s.arg(status)
                    : u"HTTP %1"_s.arg(status);
    else if (lane.timedOut || reply->error() == QNetworkReply::OperationCanceledError)
        error = u"no answer within %1 ms"_s.arg(m_options.attemptTimeoutMs);
    else
        error = networkErrorText(reply->error());
    const bool retryable = status == 0 || status == 429 || (status >= 500 && status < 600);
    if (retryable && job.delivery.attempts < m_options.maxAttempts) {
        const int delay = m_options.firstBackoffMs << (job.delivery.attempts - 1);
        qCDebug(lcWebhook).noquote()
            << "webhook" << job.delivery.target << "at" << job.delivery.origin << ":" << error
            << "- trying again in" << delay << "ms";
        const quint64 id = ++m_attemptSeq;
        lane.attemptId = id;
        QTimer::singleShot(delay, this, [this, laneKey, id] {
            const auto l = m_lanes.find(laneKey);
            if (l != m_lanes.end() && l->second.attemptId == id)
                attempt(laneKey);
        });
        return;
    }
    finishFirst(laneKey, false, error);
}

void WebhookNotifier::finishFirst(const QString &laneKey, bool ok, const QString &error)
{
    const auto it = m_lanes.find(laneKey);
    if (it == m_lanes.end() || it->second.queue.isEmpty())
        return;
    Lane &lane = it->second;
    WebhookDelivery d = lane.queue.takeFirst().delivery;
    lane.busy = false;
    d.error = ok ? QString() : error;
    if (lane.queue.isEmpty())
        m_lanes.erase(it);
    else
        QTimer::singleShot(0, this, [this, laneKey] { pump(laneKey); });
    if (ok) {
        qCInfo(lcWebhook).noquote() << "webhook" << d.target << "at" << d.origin << "notified of"
                                    << webhookEventName(d.event);
        emit delivered(d);
    } else {
        qCWarning(lcWebhook).noquote()
            << "webhook" << d.target << "at" << d.origin << "not notified of"
            << webhookEventName(d.event) << "after" << d.attempts << "attempt(s):" << d.error;
        emit failed(d);
    }
    if (m_lanes.empty())
        emit idle();
}

void WebhookNotifier::cancelPending(const QString &reason)
{
    if (m_lanes.empty())
        return;
    std::map<QString, Lane> lanes;
    lanes.swap(m_lanes);
    QList<WebhookDelivery> ended;
    for (auto &[key, lane] : lanes) {
        if (QNetworkReply *reply = lane.reply) {
            reply->disconnect(this);
            reply->abort();
            reply->deleteLater();
        }
        for (Job &job : lane.queue) {
            job.delivery.error = reason;
            ended.append(job.delivery);
        }
    }
    for (const WebhookDelivery &d : std::as_const(ended)) {
        qCWarning(lcWebhook).noquote()
            << "webhook" << d.target << "at" << d.origin << "not notified of"
            << webhookEventName(d.event) << ":" << d.error;
        emit failed(d);
    }
    emit idle();
}

void WebhookNotifier::approvalStarted(const Proposal &proposal, const QString &channel)
{
    if (m_targets.isEmpty())
        return;
    if (const auto m = m_events.approvalStarted(proposal, channel, m_clock->nowMs()))
        notify(*m);
}

void WebhookNotifier::approvalFinished(const Proposal &proposal, const QString &status)
{
    if (m_targets.isEmpty())
        return;
    if (const auto m = m_events.approvalFinished(proposal, status, m_clock->nowMs()))
        notify(*m);
}

void WebhookNotifier::executionFinished(const Proposal &proposal, bool executed,
                                        const QString &outcome)
{
    if (m_targets.isEmpty())
        return;
    if (const auto m = m_events.executionFinished(proposal, executed, outcome, m_clock->nowMs()))
        notify(*m);
}

} // namespace fb::notify
