#pragma once
// The policy key `notify.webhooks` (docs/notify.md, docs/policy.md): where the proposing broker
// sends notify-only webhooks when a change needs approval, was approved or denied, and was
// created or ended with an unknown outcome. The administrator's alone (core/Policy's merge
// ignores a user's value). Pure functions; core/Policy parses the key once through these and
// holds the typed values, fb::notify (src/notify) renders and delivers them.
//
// A webhook URL is a secret (a Slack incoming webhook's path, a Teams workflow's `sig=` query
// are the credential): nothing here puts one into an error, and origin() is the only form logs,
// audit records and `policy show` may print.
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <optional>

namespace fb {

// What a webhook is fired for, with the names of the policy file and of the body's "event".
enum class WebhookEvent { NeedsApproval, Approved, Denied, Created, Unknown };
// The body's shape: a generic JSON object, a Slack incoming webhook's message, or a Microsoft
// Teams workflow's Adaptive Card message.
enum class WebhookFormat { Generic, Slack, Teams };

QString webhookEventName(WebhookEvent event); // "needs_approval", ...
std::optional<WebhookEvent> webhookEventFromName(QStringView name);
QList<WebhookEvent> allWebhookEvents();          // in declaration order
QString webhookFormatName(WebhookFormat format); // "generic", "slack", "teams"
std::optional<WebhookFormat> webhookFormatFromName(QStringView name);

// One entry of notify.webhooks: {"url": "https://...", "format": "slack", "events": [...]}.
// format defaults to generic, events to all five.
struct WebhookTarget {
    static constexpr int MaxTargets = 16;
    static constexpr qsizetype MaxUrlChars = 2048;

    QUrl url; // https, or http to a loopback address only; no user info, no fragment
    WebhookFormat format = WebhookFormat::Generic;
    QList<WebhookEvent> events; // in declaration order, each once; never empty

    bool wants(WebhookEvent event) const { return events.contains(event); }
    // "https://hooks.slack.com" or "http://127.0.0.1:8080": scheme, host and port only. What
    // logs, audit records and `policy show` print in place of the URL.
    QString origin() const;
    // As written in a policy file (the whole URL): for comparing policies, never for display.
    QJsonObject toJson() const;
    // The same with the URL cut to its origin ("https://hooks.slack.com/…" when there was more).
    QJsonObject toShownJson() const;
    bool operator==(const WebhookTarget &) const = default;

    static QJsonArray toJson(const QList<WebhookTarget> &targets);
    static QJsonArray toShownJson(const QList<WebhookTarget> &targets);
    // The key's value; nullopt with errors naming the key and the entry ("notify.webhooks[2].url:
    // ...") when it is not a valid array. No error quotes a URL.
    static std::optional<QList<WebhookTarget>> parse(const QJsonValue &value, const QString &key,
                                                     QStringList *errors);
};

// Why text cannot be a webhook URL (empty when it can): printable ASCII of at most MaxUrlChars,
// https, or http only to 127.0.0.0/8, ::1 or localhost; a host; no user info, no fragment. The
// reason never quotes text.
QString webhookUrlError(const QString &text);
// Whether host (as QUrl::host() gives it: IPv4 literals normalized to dotted quads, IPv6 without
// brackets, names lower-cased) is a loopback address or localhost.
bool isWebhookLoopbackHost(const QString &host);

} // namespace fb
