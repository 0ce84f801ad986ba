#include "notify/WebhookBody.h"

#include "core/ChangeType.h"
#include "core/Policy.h"
#include "core/ProposalStore.h"
#include "core/UntrustedText.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSysInfo>

#include <cmath>

#if defined(Q_OS_UNIX)
#include <pwd.h>
#include <unistd.h>
#endif

namespace fb::notify {

using namespace Qt::StringLiterals;

namespace {

constexpr qsizetype MaxNameChars = 64;

// A value of the broker's own (a status name, a host) as it may leave: one line, bounded.
QString plain(const QString &text, qsizetype max = MaxNameChars)
{
    return UntrustedText::bounded(UntrustedText::escapeInvisible(text), max);
}

QString priceText(const WebhookMessage &m)
{
    return m.monthlyPrice ? m.monthlyPrice->display() + u"/month"_s : u"unpriced"_s;
}

QString brokerText(const WebhookMessage &m)
{
    if (m.brokerUser.isEmpty())
        return m.brokerHost;
    return u"%1 (%2)"_s.arg(m.brokerHost, m.brokerUser);
}

// What each event adds to the title: the channel, the decision, the outcome.
QString detailText(const WebhookMessage &m)
{
    switch (m.event) {
    case WebhookEvent::NeedsApproval:
        return m.channel.isEmpty() ? QString() : u"asked through the %1 channel"_s.arg(m.channel);
    case WebhookEvent::Denied:
        return m.decision.isEmpty() ? QString() : u"decision: %1"_s.arg(m.decision);
    case WebhookEvent::Approved:
    case WebhookEvent::Created:
    case WebhookEvent::Unknown:
        return {};
    }
    return {};
}

// The one line every format carries (Slack's notification text, Teams' fallback), unescaped.
QString oneLine(const WebhookMessage &m)
{
    QString line = u"%1: %2 %3 (%4, request %5)"_s.arg(webhookTitle(m), m.changeType, m.summary,
                                                       priceText(m), m.requestSha256.left(12));
    if (const QString detail = detailText(m); !detail.isEmpty())
        line += u"; "_s + detail;
    return line;
}

QJsonObject genericBody(const WebhookMessage &m)
{
    QJsonObject o{
        {u"source"_s, u"fabric-broker"_s},
        {u"version"_s, 1},
        {u"event"_s, webhookEventName(m.event)},
        {u"title"_s, webhookTitle(m)},
        {u"time"_s, isoTimeUtc(m.atMs)},
        {u"request_sha256"_s, m.requestSha256},
        {u"change_type"_s, m.changeType},
        {u"summary"_s, m.summary},
        {u"price"_s, m.monthlyPrice
                         ? QJsonValue(QJsonObject{{u"monthly_recurring"_s, m.monthlyPrice->amount},
                                                  {u"currency"_s, m.monthlyPrice->currency},
                                                  {u"text"_s, priceText(m)}})
                         : QJsonValue()},
        {u"broker"_s, QJsonObject{{u"host"_s, m.brokerHost}, {u"user"_s, m.brokerUser}}}};
    if (m.expiresAtMs > 0)
        o.insert(u"expires_at"_s, isoTimeUtc(m.expiresAtMs));
    if (!m.channel.isEmpty())
        o.insert(u"channel"_s, m.channel);
    if (!m.decision.isEmpty())
        o.insert(u"decision"_s, m.decision);
    if (!m.outcome.isEmpty())
        o.insert(u"outcome"_s, m.outcome);
    return o;
}

// Slack Block Kit: every text a plain_text object (Slack formats none of them, and no emoji
// shortcode turns into a picture), every text escaped as Slack asks.
QJsonObject slackBody(const WebhookMessage &m)
{
    auto text = [](const QString &t) {
        return QJsonObject{
            {u"type"_s, u"plain_text"_s}, {u"text"_s, slackEscape(t)}, {u"emoji"_s, false}};
    };
    QJsonArray fields{text(u"Change: "_s + m.changeType), text(u"Price: "_s + priceText(m)),
                      text(u"Request SHA-256: "_s + m.requestSha256)};
    if (const QString detail = detailText(m); !detail.isEmpty())
        fields.append(text(detail));
    if (m.expiresAtMs > 0 && m.event == WebhookEvent::NeedsApproval)
        fields.append(text(u"Expires: "_s + isoTimeUtc(m.expiresAtMs)));
    const QJsonArray blocks{
        QJsonObject{{u"type"_s, u"header"_s}, {u"text"_s, text(webhookTitle(m))}},
        QJsonObject{{u"type"_s, u"section"_s}, {u"text"_s, text(m.summary)}},
        QJsonObject{{u"type"_s, u"section"_s}, {u"fields"_s, fields}},
        QJsonObject{{u"type"_s, u"context"_s},
                    {u"elements"_s, QJsonArray{text(u"Fabric Broker on %1, %2"_s.arg(
                                        brokerText(m), isoTimeUtc(m.atMs)))}}}};
    return {{u"text"_s, slackEscape(oneLine(m))}, {u"mrkdwn"_s, false}, {u"blocks"_s, blocks}};
}

// A Teams workflow ("When a Teams webhook request is received") posts the attachment's Adaptive
// Card. The summary is a TextRun, which Adaptive Cards never read as Markdown; the facts are
// Markdown, escaped.
QJsonObject teamsBody(const WebhookMessage &m)
{
    auto fact = [](const QString &title, const QString &value) {
        return QJsonObject{{u"title"_s, title}, {u"value"_s, markdownEscape(value)}};
    };
    QJsonArray facts{fact(u"Change"_s, m.changeType), fact(u"Price"_s, priceText(m)),
                     fact(u"Request SHA-256"_s, m.requestSha256)};
    if (!m.channel.isEmpty())
        facts.append(fact(u"Channel"_s, m.channel));
    if (!m.decision.isEmpty())
        facts.append(fact(u"Decision"_s, m.decision));
    if (!m.outcome.isEmpty())
        facts.append(fact(u"Outcome"_s, m.outcome));
    if (m.expiresAtMs > 0 && m.event == WebhookEvent::NeedsApproval)
        facts.append(fact(u"Expires"_s, isoTimeUtc(m.expiresAtMs)));
    facts.append(fact(u"Broker"_s, brokerText(m)));
    facts.append(fact(u"Time"_s, isoTimeUtc(m.atMs)));
    const QJsonObject card{
        {u"$schema"_s, u"http://adaptivecards.io/schemas/adaptive-card.json"_s},
        {u"type"_s, u"AdaptiveCard"_s},
        {u"version"_s, u"1.4"_s},
        {u"fallbackText"_s, markdownEscape(oneLine(m))}, // "may contain markdown"
        {u"body"_s,
         QJsonArray{QJsonObject{{u"type"_s, u"TextBlock"_s},
                                {u"text"_s, markdownEscape(webhookTitle(m))},
                                {u"weight"_s, u"Bolder"_s},
                                {u"size"_s, u"Medium"_s},
                                {u"wrap"_s, true}},
                    QJsonObject{{u"type"_s, u"RichTextBlock"_s},
                                {u"inlines"_s, QJsonArray{QJsonObject{{u"type"_s, u"TextRun"_s},
                                                                      {u"text"_s, m.summary}}}}},
                    QJsonObject{{u"type"_s, u"FactSet"_s}, {u"facts"_s, facts}}}}};
    return {{u"type"_s, u"message"_s},
            {u"attachments"_s, QJsonArray{QJsonObject{
                                   {u"contentType"_s, u"application/vnd.microsoft.card.adaptive"_s},
                                   {u"contentUrl"_s, QJsonValue()},
                                   {u"content"_s, card}}}}};
}

} // namespace

WebhookMessage WebhookMessage::of(WebhookEvent event, const Proposal &proposal, qint64 atMs)
{
    static const QRegularExpression sha(u"^[0-9a-f]{64}$"_s);
    WebhookMessage m;
    m.event = event;
    m.requestSha256 =
        sha.match(proposal.requestSha256).hasMatch() ? proposal.requestSha256 : QString();
    m.changeType = changeTypeName(proposal.changeType);
    m.summary =
        UntrustedText::bounded(UntrustedText::escapeInvisible(proposal.target), MaxSummaryChars);
    if (const auto price = fb::monthlyPrice(proposal.context.value(u"price"_s).toObject());
        price && Money::isCurrencyCode(price->currency) && std::isfinite(price->amount) &&
        price->amount >= 0 && price->amount < 1e12)
        m.monthlyPrice = price;
    m.atMs = atMs;
    m.expiresAtMs = proposal.expiresAtMs;
    m.brokerHost = localHost();
    m.brokerUser = localUser();
    return m;
}

QString WebhookMessage::localHost()
{
    const QString host = QSysInfo::machineHostName();
    return plain(host.isEmpty() ? u"localhost"_s : host);
}

QString WebhookMessage::localUser()
{
#if defined(Q_OS_UNIX)
    if (const passwd *pw = ::getpwuid(::geteuid()); pw && pw->pw_name)
        return plain(QString::fromLocal8Bit(pw->pw_name));
    return u"uid %1"_s.arg(::geteuid());
#else
    return plain(qEnvironmentVariable("USERNAME"));
#endif
}

QString webhookTitle(const WebhookMessage &message)
{
    switch (message.event) {
    case WebhookEvent::NeedsApproval:
        return u"A change needs approval"_s;
    case WebhookEvent::Approved:
        return u"A change was approved"_s;
    case WebhookEvent::Denied:
        return u"A change was not approved; nothing was sent"_s;
    case WebhookEvent::Created:
        return u"A change was created"_s;
    case WebhookEvent::Unknown:
        return u"A change was sent, but its outcome is unknown: check Fabric before proposing it "
               "again"_s;
    }
    return {};
}

QByteArray webhookBody(WebhookFormat format, const WebhookMessage &message)
{
    // The broker's own names are checked once more here: one line, bounded.
    WebhookMessage m = message;
    m.changeType = plain(m.changeType);
    m.summary = UntrustedText::bounded(UntrustedText::escapeInvisible(m.summary),
                                       WebhookMessage::MaxSummaryChars);
    m.channel = plain(m.channel);
    m.decision = plain(m.decision);
    m.outcome = plain(m.outcome);
    m.brokerHost = plain(m.brokerHost, 128);
    m.brokerUser = plain(m.brokerUser);
    QJsonObject body;
    switch (format) {
    case WebhookFormat::Generic:
        body = genericBody(m);
        break;
    case WebhookFormat::Slack:
        body = slackBody(m);
        break;
    case WebhookFormat::Teams:
        body = teamsBody(m);
        break;
    }
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QString slackEscape(QStringView text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        if (c == u'&')
            out += u"&amp;"_s;
        else if (c == u'<')
            out += u"&lt;"_s;
        else if (c == u'>')
            out += u"&gt;"_s;
        else
            out += c;
    }
    return out;
}

QString markdownEscape(QStringView text)
{
    static const QString special = u"\\`*_{}[]()<>#&~|!"_s;
    QString out;
    out.reserve(text.size() + 8);
    for (const QChar c : text) {
        if (special.contains(c))
            out += u'\\';
        out += c;
    }
    // A list marker at the start ("- x", "+ x", "12. x", "3) x").
    static const QRegularExpression listStart(u"^([0-9]{1,9})([.)])"_s);
    if (out.startsWith(u'-') || out.startsWith(u'+'))
        out.prepend(u'\\');
    else if (const QRegularExpressionMatch lm = listStart.match(out); lm.hasMatch())
        out.insert(lm.capturedEnd(1), u'\\');
    return out;
}

QString isoTimeUtc(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch, Qt::UTC).toString(Qt::ISODateWithMs);
}

} // namespace fb::notify
