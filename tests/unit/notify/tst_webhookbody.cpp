// The webhook bodies (src/notify/WebhookBody): what a message copies from a proposal (never the
// token, the spec, the endpoint or the credentials), the generic JSON, Slack's escaping of & < >
// with every text a plain_text object, Teams' Adaptive Card with the summary in a TextRun and the
// facts' Markdown escaped, and the bounds on the summary.
#include "TestEnvironment.h"
#include "core/ProposalStore.h"
#include "notify/WebhookBody.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace fb;
using namespace fb::notify;

namespace {

const QString Token = QStringLiteral("chg-0123456789abcdef0123456789abcdef");
const QString Sha = QString(64, 'a').replace(0, 4, "b00c");
// The target line with what an agent or a Fabric name might try: markup of every receiver, a
// mention, a line break, a right-to-left override.
const QString HostileTarget =
    QStringLiteral("EVPL_VC 50 Mbps port \"<b>x</b> & *y* _z_ ~s~ `c` [l](https://e.example) "
                   "<!channel> @here # h\nPrice: USD 0.00\u202Eevil\" (SV)");

Proposal proposal()
{
    Proposal p;
    p.token = Token;
    p.changeType = ChangeType::ConnectionCreate;
    p.spec = QJsonObject{
        {"name", "spec-name-only-in-spec"},
        {"zSide",
         QJsonObject{{"accessPoint", QJsonObject{{"authenticationKey", "auth-key-123456789012"}}}}},
        {"notifications", QJsonArray{QJsonObject{{"emails", QJsonArray{"netops@example.com"}}}}}};
    p.requestSha256 = Sha;
    p.target = HostileTarget;
    p.proposedAtMs = 1767225600000;
    p.expiresAtMs = 1767226200000;
    p.sequence = 7;
    p.context = QJsonObject{
        {"price", QJsonObject{{"priced", true}, {"currency", "USD"}, {"monthly_recurring", 300}}},
        {"client", QJsonObject{{"name", "client-name-secret-ish"}}}};
    p.fabricEndpoint = "https://api.equinix.example";
    p.credentialIdentity = "client id credential-id-4242";
    return p;
}

QList<WebhookFormat> formats()
{
    return {WebhookFormat::Generic, WebhookFormat::Slack, WebhookFormat::Teams};
}

QJsonObject bodyOf(WebhookFormat format, const WebhookMessage &m)
{
    const QByteArray body = webhookBody(format, m);
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        qWarning() << "not a JSON object:" << body;
    return doc.object();
}

// Every string anywhere in v.
void strings(const QJsonValue &v, QStringList *out)
{
    if (v.isString())
        out->append(v.toString());
    for (const QJsonValue &e : v.toArray())
        strings(e, out);
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end(); ++it)
        strings(it.value(), out);
}

// Every object anywhere in v whose "type" is type.
void objectsOfType(const QJsonValue &v, const QString &type, QList<QJsonObject> *out)
{
    for (const QJsonValue &e : v.toArray())
        objectsOfType(e, type, out);
    const QJsonObject o = v.toObject();
    if (o.value("type").toString() == type)
        out->append(o);
    for (auto it = o.begin(); it != o.end(); ++it)
        objectsOfType(it.value(), type, out);
}

} // namespace

class TestWebhookBody : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void messageCopiesOnlyWhatPeopleSee()
    {
        const WebhookMessage m = WebhookMessage::of(WebhookEvent::NeedsApproval, proposal(), 42);
        QCOMPARE(m.requestSha256, Sha);
        QCOMPARE(m.changeType, QStringLiteral("connection_create"));
        QCOMPARE(m.monthlyPrice, (Money{300, "USD"}));
        QCOMPARE(m.atMs, 42);
        QCOMPARE(m.expiresAtMs, proposal().expiresAtMs);
        QVERIFY(!m.brokerHost.isEmpty());
        // One line: the line break and the override are escapes.
        QVERIFY(!m.summary.contains('\n') && !m.summary.contains(QChar(0x202E)));
        QVERIFY(m.summary.contains("\\n") && m.summary.contains("\\u202E"));
        QVERIFY(m.summary.startsWith("EVPL_VC 50 Mbps port"));
        for (const WebhookFormat f : formats()) {
            for (const WebhookEvent e : allWebhookEvents()) {
                WebhookMessage each = WebhookMessage::of(e, proposal(), 42);
                each.channel = "client";
                each.decision = "declined";
                each.outcome = "created";
                const QByteArray body = webhookBody(f, each);
                for (const QString &never :
                     {Token, Token.mid(4), QStringLiteral("spec-name-only-in-spec"),
                      QStringLiteral("auth-key-123456789012"), QStringLiteral("netops@"),
                      QStringLiteral("api.equinix.example"), QStringLiteral("credential-id-4242"),
                      QStringLiteral("client-name-secret-ish")})
                    QVERIFY2(!body.contains(never.toUtf8()),
                             qPrintable(never + " in " + QString::fromUtf8(body)));
                QVERIFY(body.contains(Sha.toUtf8()));
            }
        }
    }

    void messageRefusesWhatIsNotWellFormed()
    {
        Proposal p = proposal();
        p.requestSha256 = "not-a-sha\n";
        p.context = QJsonObject{
            {"price",
             QJsonObject{{"priced", true}, {"currency", "usd\n"}, {"monthly_recurring", 1}}}};
        p.target = QString(2000, QChar(0x00E9));
        const WebhookMessage m = WebhookMessage::of(WebhookEvent::Created, p, 0);
        QVERIFY(m.requestSha256.isEmpty());
        QVERIFY(!m.monthlyPrice);
        QCOMPARE(m.summary.size(), WebhookMessage::MaxSummaryChars + 1);
        QVERIFY(m.summary.endsWith(QChar(0x2026)));
        p.context = QJsonObject{{"price", QJsonObject{{"priced", false}}}};
        QVERIFY(!WebhookMessage::of(WebhookEvent::Created, p, 0).monthlyPrice);
    }

    void genericBody()
    {
        WebhookMessage m = WebhookMessage::of(WebhookEvent::Denied, proposal(), 1767225600000);
        m.decision = "timed_out";
        const QJsonObject o = bodyOf(WebhookFormat::Generic, m);
        QCOMPARE(o.value("source").toString(), QStringLiteral("fabric-broker"));
        QCOMPARE(o.value("version").toInt(), 1);
        QCOMPARE(o.value("event").toString(), QStringLiteral("denied"));
        QCOMPARE(o.value("time").toString(), QStringLiteral("2026-01-01T00:00:00.000Z"));
        QCOMPARE(o.value("expires_at").toString(), QStringLiteral("2026-01-01T00:10:00.000Z"));
        QCOMPARE(o.value("request_sha256").toString(), Sha);
        QCOMPARE(o.value("change_type").toString(), QStringLiteral("connection_create"));
        QCOMPARE(o.value("summary").toString(), m.summary);
        QCOMPARE(o.value("decision").toString(), QStringLiteral("timed_out"));
        QVERIFY(!o.contains("channel") && !o.contains("outcome"));
        QCOMPARE(o.value("price").toObject().value("monthly_recurring").toDouble(), 300.0);
        QCOMPARE(o.value("price").toObject().value("currency").toString(), QStringLiteral("USD"));
        QCOMPARE(o.value("price").toObject().value("text").toString(),
                 QStringLiteral("USD 300.00/month"));
        QVERIFY(o.value("broker").toObject().contains("host"));
        QVERIFY(o.value("title").toString().startsWith("A change was not approved"));
        m.monthlyPrice.reset();
        QVERIFY(bodyOf(WebhookFormat::Generic, m).value("price").isNull());
    }

    void slackEscapesAndFormatsNothing()
    {
        WebhookMessage m = WebhookMessage::of(WebhookEvent::NeedsApproval, proposal(), 0);
        m.channel = "desktop";
        m.brokerHost = "host<!everyone>&";
        const QJsonObject o = bodyOf(WebhookFormat::Slack, m);
        QCOMPARE(o.value("mrkdwn"), QJsonValue(false));
        QVERIFY(
            o.value("text").toString().startsWith("A change needs approval: connection_create"));
        QStringList texts;
        strings(o, &texts);
        for (const QString &t : std::as_const(texts)) {
            // No raw '<' or '>', and every '&' starts one of Slack's three entities.
            QVERIFY2(!t.contains('<') && !t.contains('>'), qPrintable(t));
            for (qsizetype at = t.indexOf('&'); at >= 0; at = t.indexOf('&', at + 1)) {
                const QString rest = t.mid(at);
                QVERIFY2(rest.startsWith("&amp;") || rest.startsWith("&lt;") ||
                             rest.startsWith("&gt;"),
                         qPrintable(t));
            }
        }
        QVERIFY(o.value("text").toString().contains("&lt;b&gt;x&lt;/b&gt; &amp;"));
        // Every text object is plain_text without emoji: Slack applies no formatting to it.
        QList<QJsonObject> plain;
        objectsOfType(o, "plain_text", &plain);
        QVERIFY(plain.size() >= 5);
        for (const QJsonObject &t : std::as_const(plain))
            QCOMPARE(t.value("emoji"), QJsonValue(false));
        QList<QJsonObject> mrkdwn;
        objectsOfType(o, "mrkdwn", &mrkdwn);
        QVERIFY(mrkdwn.isEmpty());
        const QJsonArray blocks = o.value("blocks").toArray();
        QCOMPARE(blocks.at(0).toObject().value("type").toString(), QStringLiteral("header"));
        QCOMPARE(blocks.at(1).toObject().value("text").toObject().value("text").toString(),
                 slackEscape(m.summary));
        QVERIFY(QJsonDocument(o).toJson().contains(QByteArray("Request SHA-256: " + Sha.toUtf8())));
        QVERIFY(QJsonDocument(o).toJson().contains("asked through the desktop channel"));
    }

    void teamsCardKeepsTheSummaryOutOfMarkdown()
    {
        WebhookMessage m = WebhookMessage::of(WebhookEvent::Denied, proposal(), 0);
        m.decision = "timed_out";
        m.brokerHost = "h*st_[x](https://e.example)";
        const QJsonObject o = bodyOf(WebhookFormat::Teams, m);
        QCOMPARE(o.value("type").toString(), QStringLiteral("message"));
        const QJsonObject attachment = o.value("attachments").toArray().at(0).toObject();
        QCOMPARE(attachment.value("contentType").toString(),
                 QStringLiteral("application/vnd.microsoft.card.adaptive"));
        const QJsonObject card = attachment.value("content").toObject();
        QCOMPARE(card.value("type").toString(), QStringLiteral("AdaptiveCard"));
        QList<QJsonObject> runs;
        objectsOfType(card, "TextRun", &runs);
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs.first().value("text").toString(), m.summary);
        // The summary is nowhere else in the card but the plain fallback text.
        const QByteArray text = QJsonDocument(card).toJson(QJsonDocument::Compact);
        QCOMPARE(text.count(QJsonDocument(QJsonArray{m.summary})
                                .toJson(QJsonDocument::Compact)
                                .mid(2)
                                .chopped(2)),
                 1);
        QList<QJsonObject> facts;
        for (const QJsonValue &b : card.value("body").toArray())
            for (const QJsonValue &f : b.toObject().value("facts").toArray())
                facts.append(f.toObject());
        auto fact = [&](const QString &title) {
            for (const QJsonObject &f : std::as_const(facts))
                if (f.value("title").toString() == title)
                    return f.value("value").toString();
            return QString();
        };
        QCOMPARE(fact("Decision"), QStringLiteral("timed\\_out"));
        QCOMPARE(fact("Change"), QStringLiteral("connection\\_create"));
        QCOMPARE(fact("Request SHA-256"), Sha);
        QVERIFY2(fact("Broker").startsWith("h\\*st\\_\\[x\\]\\(https:"),
                 qPrintable(fact("Broker")));
        QVERIFY(card.value("fallbackText").toString().contains("A change was not approved"));
    }

    void escapes()
    {
        QCOMPARE(slackEscape(u"a & b <c> &amp;"), QStringLiteral("a &amp; b &lt;c&gt; &amp;amp;"));
        QCOMPARE(markdownEscape(u"*a* _b_ [c](d) `e` <f> & # ~g~ | !h \\"),
                 QStringLiteral("\\*a\\* \\_b\\_ \\[c\\]\\(d\\) \\`e\\` \\<f\\> \\& \\# \\~g\\~ "
                                "\\| \\!h \\\\"));
        QCOMPARE(markdownEscape(u"- item"), QStringLiteral("\\- item"));
        QCOMPARE(markdownEscape(u"+ item"), QStringLiteral("\\+ item"));
        QCOMPARE(markdownEscape(u"12. item"), QStringLiteral("12\\. item"));
        QCOMPARE(markdownEscape(u"3) item"), QStringLiteral("3\\) item"));
        QCOMPARE(markdownEscape(u"USD 1,000.00/month"), QStringLiteral("USD 1,000.00/month"));
        QCOMPARE(isoTimeUtc(0), QStringLiteral("1970-01-01T00:00:00.000Z"));
    }

    void everyEventHasItsTitle()
    {
        QStringList titles;
        for (const WebhookEvent e : allWebhookEvents()) {
            const QString t = webhookTitle(WebhookMessage::of(e, proposal(), 0));
            QVERIFY(!t.isEmpty() && !titles.contains(t));
            titles << t;
            for (const WebhookFormat f : formats())
                QCOMPARE(bodyOf(f, WebhookMessage::of(e, proposal(), 0)).isEmpty(), false);
        }
    }
};

QTEST_GUILESS_MAIN(TestWebhookBody)
#include "tst_webhookbody.moc"
