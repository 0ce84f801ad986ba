#pragma once
// WebhookBody: what one notify-only webhook says (docs/notify.md), and its three bodies: a
// generic JSON object, a Slack incoming webhook's message, a Microsoft Teams workflow's Adaptive
// Card. Pure functions.
//
// A message is built from a proposal by WebhookMessage::of(), which copies only what people may
// see anywhere: the event, the request SHA-256, the change type, the proposal's target line (the
// broker's own summary, shown in every approval prompt; bounded, invisible characters escaped),
// the rate-card price, the expiry. Never the confirm token, the spec, the request body, Fabric's
// answers, the endpoint or the credentials: the bodies are made from the message alone.
//
// Each body escapes for its receiver's markup: Slack's `&`, `<`, `>` as `&amp;`, `&lt;`, `&gt;`
// (and the summary in plain_text objects, which Slack does not format); Teams' Markdown with
// backslashes (and the summary in a TextRun, which Adaptive Cards never read as Markdown).
#include "core/Money.h"
#include "core/NotifyPolicy.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace fb {
struct Proposal;
}

namespace fb::notify {

struct WebhookMessage {
    static constexpr qsizetype MaxSummaryChars = 500;

    WebhookEvent event = WebhookEvent::NeedsApproval;
    QString requestSha256;             // 64 lowercase hex digits, or empty
    QString changeType;                // "connection_create", ...
    QString summary;                   // plain text, one line, at most MaxSummaryChars
    std::optional<Money> monthlyPrice; // the rate card's monthly recurring price, when priced
    QString channel;  // needs_approval: where people are asked (desktop, client, team)
    QString decision; // denied: how the approval ended (declined, timed_out, cancelled, ...)
    QString outcome;  // created, unknown
    qint64 atMs = 0;
    qint64 expiresAtMs = 0;
    QString brokerHost; // the proposing broker's host and user (WebhookMessage::local*)
    QString brokerUser;

    // The message for event about proposal, at atMs: only the fields listed at the top.
    static WebhookMessage of(WebhookEvent event, const Proposal &proposal, qint64 atMs);
    // A short name of this machine and of the user the broker runs as, bounded.
    static QString localHost();
    static QString localUser();
};

// The title of an event ("A change needs approval"), the broker's own words.
QString webhookTitle(const WebhookMessage &message);
// The body in format, UTF-8 JSON.
QByteArray webhookBody(WebhookFormat format, const WebhookMessage &message);

// Slack's escaping of text: '&', '<', '>' as "&amp;", "&lt;", "&gt;" (what Slack asks of every
// text it reads: no link, mention or entity can form).
QString slackEscape(QStringView text);
// Markdown (Adaptive Cards' subset, CommonMark's escapes): each character that starts emphasis,
// a link, code, a heading or an entity gets a backslash, as does a leading list marker.
QString markdownEscape(QStringView text);
// "2026-01-01T00:00:00.000Z".
QString isoTimeUtc(qint64 msSinceEpoch);

} // namespace fb::notify
