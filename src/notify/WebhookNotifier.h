#pragma once
// WebhookNotifier: delivers the notify-only webhooks of the administrator's policy
// (notify.webhooks, docs/notify.md) off the request path, on the event loop.
//
// - notify() renders one body per target that wants the event and queues it; it returns at once
//   and sends nothing before the event loop runs again. Nothing waits for a webhook: a receiver
//   that hangs, fails or is not there costs a failed delivery, never a create.
// - One lane per target: its deliveries go in order, one at a time; a slow receiver holds up
//   only itself. At most Options::maxQueued deliveries wait in all (maxQueuedPerTarget in one
//   lane); one more is failed at once ("queue full").
// - One attempt lasts at most Options::attemptTimeoutMs. A network error, a timeout, 429 and 5xx
//   are tried again after firstBackoffMs, then twice that, up to maxAttempts in all; any other
//   status (a 3xx is not followed, a 4xx is final) fails the delivery at once.
// - Every delivery ends exactly once, in delivered() or failed(); the host audits each. A
//   WebhookDelivery names the target by its index and origin (scheme, host, port), never by its
//   URL, and its error is this class's own words, never the network stack's (which would quote
//   the URL: Slack's and Teams' URLs are secrets). The receiver's answer is read and dropped.
// - setTargets() takes effect for every attempt from then on: a delivery to a webhook the
//   policy no longer names fails instead of being sent.
#include "core/Clock.h"
#include "core/NotifyPolicy.h"
#include "notify/WebhookBody.h"
#include "notify/WebhookEvents.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <map>

class QNetworkAccessManager;
class QNetworkReply;

namespace fb {
struct Proposal;
}

namespace fb::notify {

struct WebhookDelivery {
    int target = -1; // index in notify.webhooks when it was queued
    QString origin;  // "https://hooks.slack.com": never the whole URL
    WebhookFormat format = WebhookFormat::Generic;
    WebhookEvent event = WebhookEvent::NeedsApproval;
    QString requestSha256;
    int attempts = 0;   // requests made
    int httpStatus = 0; // the last answer's status, 0 when none came
    QString error;      // failed only: why, in this class's words

    // The data of its webhook_delivered / webhook_failed audit record (docs/audit.md).
    QJsonObject auditRecord() const;
};

class WebhookNotifier : public QObject {
    Q_OBJECT
public:
    struct Options {
        int attemptTimeoutMs = 10000;
        int maxAttempts = 3;
        int firstBackoffMs = 1000;
        int maxQueued = 256;
        int maxQueuedPerTarget = 64;
    };

    explicit WebhookNotifier(QObject *parent = nullptr);
    WebhookNotifier(Options options, Clock *clock, QObject *parent = nullptr);
    ~WebhookNotifier() override;

    void setTargets(const QList<WebhookTarget> &targets);
    const QList<WebhookTarget> &targets() const { return m_targets; }
    const Options &options() const { return m_options; }

    // Queues message for every target that wants its event. Returns at once.
    void notify(const WebhookMessage &message);
    // Deliveries queued, waiting to be tried again or on the wire.
    int pending() const;
    bool isIdle() const { return pending() == 0; }
    // Ends every delivery not yet done: each is failed with reason (the host's exit).
    void cancelPending(const QString &reason);

public slots:
    // The broker's signals (BrokerEvents), through WebhookEvents.
    void approvalStarted(const fb::Proposal &proposal, const QString &channel);
    void approvalFinished(const fb::Proposal &proposal, const QString &status);
    void executionFinished(const fb::Proposal &proposal, bool executed, const QString &outcome);

signals:
    void delivered(const fb::notify::WebhookDelivery &delivery);
    void failed(const fb::notify::WebhookDelivery &delivery);
    // The last pending delivery ended.
    void idle();

private:
    struct Job {
        WebhookDelivery delivery;
        QUrl url;
        QByteArray body;
    };
    struct Lane {
        QList<Job> queue; // the first is the one being tried
        QPointer<QNetworkReply> reply;
        quint64 attemptId = 0; // which deadline or retry timer still applies (m_attemptSeq)
        bool busy = false;     // the first job is on the wire or waiting for a retry
        bool timedOut = false;
    };

    QNetworkAccessManager *network();
    void pump(const QString &laneKey);
    void attempt(const QString &laneKey);
    void answered(const QString &laneKey, QNetworkReply *reply);
    void finishFirst(const QString &laneKey, bool ok, const QString &error);
    bool stillTargeted(const QUrl &url) const;

    Options m_options;
    Clock *m_clock;
    QList<WebhookTarget> m_targets;
    WebhookEvents m_events;
    std::map<QString, Lane> m_lanes; // by URL (node-stable: a Lane& survives inserts)
    QNetworkAccessManager *m_network = nullptr;
    quint64 m_attemptSeq = 0;
};

} // namespace fb::notify

Q_DECLARE_METATYPE(fb::notify::WebhookDelivery)
