#include "core/NotifyPolicy.h"
#include "core/NameTable.h"
#include "core/UntrustedText.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace fb {

using namespace Qt::StringLiterals;

namespace {

constexpr EnumName<WebhookEvent> kEventNames[] = {{WebhookEvent::NeedsApproval, u"needs_approval"},
                                                  {WebhookEvent::Approved, u"approved"},
                                                  {WebhookEvent::Denied, u"denied"},
                                                  {WebhookEvent::Created, u"created"},
                                                  {WebhookEvent::Unknown, u"unknown"}};
constexpr EnumName<WebhookFormat> kFormatNames[] = {{WebhookFormat::Generic, u"generic"},
                                                    {WebhookFormat::Slack, u"slack"},
                                                    {WebhookFormat::Teams, u"teams"}};

QString quotedNames(const QStringList &names)
{
    QStringList quoted;
    for (const QString &n : names)
        quoted << u'"' + n + u'"';
    return quoted.join(u", "_s);
}

// A member name from the file, as an error may show it: bounded, invisible characters escaped.
QString shownMember(const QString &name)
{
    return UntrustedText::bounded(UntrustedText::escapeInvisible(name), 64);
}

} // namespace

QString webhookEventName(WebhookEvent event)
{
    return nameOf(kEventNames, event);
}

std::optional<WebhookEvent> webhookEventFromName(QStringView name)
{
    return valueOf(kEventNames, name);
}

QList<WebhookEvent> allWebhookEvents()
{
    QList<WebhookEvent> out;
    for (const auto &row : kEventNames)
        out.append(row.value);
    return out;
}

QString webhookFormatName(WebhookFormat format)
{
    return nameOf(kFormatNames, format);
}

std::optional<WebhookFormat> webhookFormatFromName(QStringView name)
{
    return valueOf(kFormatNames, name);
}

bool isWebhookLoopbackHost(const QString &host)
{
    static const QRegularExpression ipv4(u"^127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}$"_s);
    return host == u"localhost" || host == u"::1" || ipv4.match(host).hasMatch();
}

QString webhookUrlError(const QString &text)
{
    static const QString why =
        u"must be an https URL (http only to a loopback address: 127.0.0.0/8, ::1 or localhost) "
        "of printable ASCII, at most %1 characters, with a host and without user info or a "
        "fragment"_s.arg(WebhookTarget::MaxUrlChars);
    const bool printable = std::all_of(text.cbegin(), text.cend(), [](QChar c) {
        return c.unicode() > 0x20 && c.unicode() < 0x7f;
    });
    if (text.isEmpty() || text.size() > WebhookTarget::MaxUrlChars || !printable)
        return why;
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty() || !url.userInfo().isEmpty() || url.hasFragment() ||
        text.contains(u'@') || text.contains(u'#'))
        return why;
    const QString scheme = url.scheme();
    if (scheme == u"https")
        return {};
    if (scheme == u"http" && isWebhookLoopbackHost(url.host()))
        return {};
    return why;
}

QString WebhookTarget::origin() const
{
    return url
        .adjusted(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery |
                  QUrl::RemoveFragment)
        .toString(QUrl::FullyEncoded);
}

QJsonObject WebhookTarget::toJson() const
{
    QStringList names;
    for (WebhookEvent e : events)
        names << webhookEventName(e);
    return {{u"url"_s, url.toString(QUrl::FullyEncoded)},
            {u"format"_s, webhookFormatName(format)},
            {u"events"_s, QJsonArray::fromStringList(names)}};
}

QJsonObject WebhookTarget::toShownJson() const
{
    QJsonObject o = toJson();
    const bool more = (!url.path().isEmpty() && url.path() != u"/") || url.hasQuery();
    o.insert(u"url"_s, QString(origin() + (more ? u"/\u2026"_s : QString())));
    return o;
}

QJsonArray WebhookTarget::toJson(const QList<WebhookTarget> &targets)
{
    QJsonArray out;
    for (const WebhookTarget &t : targets)
        out.append(t.toJson());
    return out;
}

QJsonArray WebhookTarget::toShownJson(const QList<WebhookTarget> &targets)
{
    QJsonArray out;
    for (const WebhookTarget &t : targets)
        out.append(t.toShownJson());
    return out;
}

std::optional<QList<WebhookTarget>> WebhookTarget::parse(const QJsonValue &value,
                                                         const QString &key, QStringList *errors)
{
    if (!value.isArray() || value.toArray().size() > MaxTargets) {
        errors->append(
            u"%1: must be an array of at most %2 objects such as {\"url\": "
            "\"https://...\", \"format\": \"slack\", \"events\": [\"needs_approval\"]}"_s.arg(key)
                .arg(MaxTargets));
        return std::nullopt;
    }
    static const QStringList members{u"url"_s, u"format"_s, u"events"_s};
    const qsizetype before = errors->size();
    QList<WebhookTarget> out;
    const QJsonArray entries = value.toArray();
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QString where = u"%1[%2]"_s.arg(key).arg(i);
        if (!entries.at(i).isObject()) {
            errors->append(u"%1: must be an object {\"url\": ..., \"format\": ..., \"events\": "
                           "[...]}"_s.arg(where));
            continue;
        }
        const QJsonObject o = entries.at(i).toObject();
        bool ok = true;
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (!members.contains(it.key())) {
                errors->append(u"%1: unknown member \"%2\" (known: url, format, events)"_s.arg(
                    where, shownMember(it.key())));
                ok = false;
            }
        }
        WebhookTarget t;
        const QJsonValue url = o.value(u"url"_s);
        const QString urlError =
            url.isString() ? webhookUrlError(url.toString()) : u"must be a string"_s;
        if (!urlError.isEmpty()) {
            errors->append(u"%1.url: %2"_s.arg(where, urlError));
            ok = false;
        } else {
            t.url = QUrl(url.toString(), QUrl::StrictMode);
        }
        if (o.contains(u"format"_s)) {
            const auto format = o.value(u"format"_s).isString()
                                    ? webhookFormatFromName(o.value(u"format"_s).toString())
                                    : std::nullopt;
            if (!format) {
                errors->append(u"%1.format: must be one of %2"_s.arg(
                    where, quotedNames(namesOf(kFormatNames))));
                ok = false;
            } else {
                t.format = *format;
            }
        }
        if (o.contains(u"events"_s)) {
            const QJsonValue events = o.value(u"events"_s);
            QSet<WebhookEvent> seen;
            bool valid = events.isArray() && !events.toArray().isEmpty();
            for (const QJsonValue &e : events.toArray()) {
                const auto event = e.isString() ? webhookEventFromName(e.toString()) : std::nullopt;
                if (!event || seen.contains(*event))
                    valid = false;
                else
                    seen.insert(*event);
            }
            if (!valid) {
                errors->append(u"%1.events: must be a non-empty array of distinct event names "
                               "(%2); leave it out for all of them"_s.arg(
                                   where, quotedNames(namesOf(kEventNames))));
                ok = false;
            }
            for (WebhookEvent e : allWebhookEvents())
                if (seen.contains(e))
                    t.events.append(e);
        } else {
            t.events = allWebhookEvents();
        }
        if (!ok)
            continue;
        for (qsizetype j = 0; j < out.size(); ++j) {
            if (out.at(j).url == t.url) {
                errors->append(u"%1.url: the same URL as an earlier entry; name each webhook "
                               "once"_s.arg(where));
                ok = false;
                break;
            }
        }
        if (ok)
            out.append(t);
    }
    if (errors->size() != before)
        return std::nullopt;
    return out;
}

} // namespace fb
