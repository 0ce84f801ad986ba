// notify.webhooks (src/core/NotifyPolicy): the strict parse of the administrator's webhook
// targets: the URL rules (https, or http to loopback only; no user info, no fragment; printable
// ASCII, bounded) against hostile spellings, the formats and events, the bound on targets, errors
// that name the entry and never quote a URL, and origin(), the only form of a URL that may be
// shown. The merge (the administrator's alone): tst_policy_layers.
#include "TestEnvironment.h"
#include "core/NotifyPolicy.h"
#include "core/Policy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace fb;

namespace {

const QString Key = QStringLiteral("notify.webhooks");
// What a webhook URL's secret looks like; no error, origin or shown form may contain it.
const QString Secret = QStringLiteral("T0SECRET/B0SECRET/XyZsecretPart");

// JSON written with single quotes (no raw string literal holds "//" in a Q_OBJECT class).
QByteArray j(const char *text)
{
    return QByteArray(text).replace('\'', '"');
}

QJsonArray one(const QJsonObject &entry)
{
    return QJsonArray{entry};
}

std::optional<QList<WebhookTarget>> parse(const QJsonValue &v, QStringList *errors)
{
    return WebhookTarget::parse(v, Key, errors);
}

} // namespace

class TestNotifyPolicy : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void parsesTargets()
    {
        QStringList errors;
        const auto t = parse(
            QJsonArray{QJsonObject{{"url", QString("https://hooks.slack.com/services/" + Secret)},
                                   {"format", "slack"}},
                       QJsonObject{{"url", "https://prod-01.westus.logic.azure.com:443/workflows/x/"
                                           "triggers/manual/paths/invoke?api-version=1&sig=abc"},
                                   {"format", "teams"},
                                   {"events", QJsonArray{"unknown", "needs_approval"}}},
                       QJsonObject{{"url", "http://127.0.0.1:8080/hook"}}},
            &errors);
        QVERIFY2(t, qPrintable(errors.join('\n')));
        QCOMPARE(t->size(), 3);
        QCOMPARE(t->at(0).format, WebhookFormat::Slack);
        QCOMPARE(t->at(0).events, allWebhookEvents());
        QCOMPARE(t->at(1).format, WebhookFormat::Teams);
        // Declaration order, whatever the file's order.
        QCOMPARE(t->at(1).events,
                 (QList<WebhookEvent>{WebhookEvent::NeedsApproval, WebhookEvent::Unknown}));
        QVERIFY(t->at(1).wants(WebhookEvent::Unknown));
        QVERIFY(!t->at(1).wants(WebhookEvent::Created));
        QCOMPARE(t->at(2).format, WebhookFormat::Generic);
        QCOMPARE(t->at(0).origin(), QStringLiteral("https://hooks.slack.com"));
        QCOMPARE(t->at(1).origin(), QStringLiteral("https://prod-01.westus.logic.azure.com:443"));
        QCOMPARE(t->at(2).origin(), QStringLiteral("http://127.0.0.1:8080"));
        // As written (for comparing), and as shown (never the path or query).
        QCOMPARE(t->at(0).toJson().value("url").toString(),
                 QString("https://hooks.slack.com/services/" + Secret));
        QCOMPARE(t->at(0).toShownJson().value("url").toString(),
                 QStringLiteral("https://hooks.slack.com/\u2026"));
        QVERIFY(!t->at(1).toShownJson().value("url").toString().contains("sig"));
        const QByteArray shown =
            QJsonDocument(WebhookTarget::toShownJson(*t)).toJson(QJsonDocument::Compact);
        QVERIFY2(!shown.contains("SECRET") && !shown.contains("sig=") &&
                     !shown.contains("8080/hook"),
                 shown.constData());
        // toJson parses back to the same targets.
        const auto again = parse(WebhookTarget::toJson(*t), &errors);
        QVERIFY(again);
        QCOMPARE(*again, *t);
        QVERIFY(parse(QJsonArray{}, &errors)->isEmpty()); // an empty list: no webhooks
    }

    void loopbackOnlyOverHttp_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("valid");
        QTest::newRow("https anywhere") << "https://example.com/x" << true;
        QTest::newRow("https with port and query") << "https://example.com:8443/a?b=c" << true;
        QTest::newRow("http 127.0.0.1") << "http://127.0.0.1:9/x" << true;
        QTest::newRow("http 127.255.1.2") << "http://127.255.1.2/" << true;
        QTest::newRow("http localhost") << "http://localhost:8080/" << true;
        QTest::newRow("http LOCALHOST") << "http://LOCALHOST/" << true;
        QTest::newRow("http ::1") << "http://[::1]:8080/x" << true;
        QTest::newRow("http ::1 long form") << "http://[0:0:0:0:0:0:0:1]/" << true;
        QTest::newRow("http 127.1 (inet_aton's spelling)") << "http://127.1/" << true;
        QTest::newRow("http elsewhere") << "http://example.com/x" << false;
        QTest::newRow("http 10.0.0.1") << "http://10.0.0.1/" << false;
        QTest::newRow("http 0.0.0.0") << "http://0.0.0.0/" << false;
        QTest::newRow("http 127 as a subdomain") << "http://127.0.0.1.evil.example/" << false;
        QTest::newRow("http localhost as a subdomain") << "http://localhost.evil.example/" << false;
        QTest::newRow("http localhost with a dot") << "http://localhost./" << false;
        QTest::newRow("http mapped ipv4") << "http://[::ffff:127.0.0.1]/" << false;
        QTest::newRow("http ipv6 elsewhere") << "http://[2001:db8::1]/" << false;
        QTest::newRow("user info") << "https://user:pw@example.com/" << false;
        QTest::newRow("user only") << "https://user@example.com/" << false;
        QTest::newRow("empty user info") << "https://@example.com/" << false;
        QTest::newRow("fragment") << "https://example.com/#x" << false;
        QTest::newRow("empty fragment") << "https://example.com/#" << false;
        QTest::newRow("no host") << "https:///path" << false;
        QTest::newRow("no scheme") << "example.com/hook" << false;
        QTest::newRow("ftp") << "ftp://example.com/" << false;
        QTest::newRow("file") << "file:///etc/passwd" << false;
        QTest::newRow("javascript") << "javascript:alert(1)" << false;
        QTest::newRow("data") << "data:text/plain,x" << false;
        QTest::newRow("space") << "https://example.com/a b" << false;
        QTest::newRow("newline") << "https://example.com/\nx" << false;
        QTest::newRow("tab") << "https://example.com/\tx" << false;
        QTest::newRow("nul") << QStringLiteral("https://example.com/") + QChar(0) << false;
        QTest::newRow("non-ascii host") << QStringLiteral("https://b\u00FCcher.example/") << false;
        QTest::newRow("rtl override") << QStringLiteral("https://example.com/\u202Ex") << false;
        QTest::newRow("port out of range") << "https://example.com:99999/" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("too long") << "https://example.com/" + QString(2030, 'a') << false;
        QTest::newRow("at the bound") << "https://example.com/" + QString(2028, 'a') << true;
    }

    void loopbackOnlyOverHttp()
    {
        QFETCH(QString, url);
        QFETCH(bool, valid);
        const QString why = webhookUrlError(url);
        QVERIFY2(why.isEmpty() == valid, qPrintable(url + ": " + why));
        QStringList errors;
        const auto t = parse(one({{"url", url}}), &errors);
        QCOMPARE(bool(t), valid);
        if (!valid) {
            QCOMPARE(errors.size(), 1);
            QVERIFY2(errors.first().startsWith(Key + "[0].url: must be an https URL"),
                     qPrintable(errors.first()));
        }
    }

    void errorsNameTheEntry_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("not an array") << j("{'url': 'https://x.example'}")
                                      << "notify.webhooks: must be an array of at most 16";
        QTest::newRow("a string") << j("'https://x.example'")
                                  << "notify.webhooks: must be an array";
        QTest::newRow("entry not an object")
            << j("['https://x.example']") << "notify.webhooks[0]: must be an object";
        QTest::newRow("no url") << j("[{'format': 'slack'}]")
                                << "notify.webhooks[0].url: must be a string";
        QTest::newRow("url not a string")
            << j("[{'url': 5}]") << "notify.webhooks[0].url: must be a string";
        QTest::newRow("unknown member")
            << j("[{'url': 'https://x.example', 'secret': 's'}]")
            << "notify.webhooks[0]: unknown member \"secret\" (known: url, format, events)";
        QTest::newRow("headers are not supported")
            << j("[{'url': 'https://x.example', 'headers': {'Authorization': 'x'}}]")
            << "notify.webhooks[0]: unknown member \"headers\"";
        QTest::newRow("unknown format")
            << j("[{'url': 'https://x.example', 'format': 'discord'}]")
            << "notify.webhooks[0].format: must be one of \"generic\", \"slack\", \"teams\"";
        QTest::newRow("format spelled otherwise")
            << j("[{'url': 'https://x.example', 'format': 'Slack'}]")
            << "notify.webhooks[0].format: must be one of";
        QTest::newRow("format not a string") << j("[{'url': 'https://x.example', 'format': 1}]")
                                             << "notify.webhooks[0].format: must be one of";
        QTest::newRow("unknown event")
            << j("[{'url': 'https://x.example', 'events': ['rejected']}]")
            << "notify.webhooks[0].events: must be a non-empty array of distinct event names";
        QTest::newRow("event twice")
            << j("[{'url': 'https://x.example', 'events': ['created', 'created']}]")
            << "notify.webhooks[0].events: must be a non-empty array";
        QTest::newRow("no event") << j("[{'url': 'https://x.example', 'events': []}]")
                                  << "notify.webhooks[0].events: must be a non-empty array";
        QTest::newRow("events not an array")
            << j("[{'url': 'https://x.example', 'events': 'created'}]")
            << "notify.webhooks[0].events: must be a non-empty array";
        QTest::newRow("second entry")
            << j("[{'url': 'https://x.example'}, {'url': 'http://x.example'}]")
            << "notify.webhooks[1].url: must be an https URL";
        QTest::newRow("the same url twice")
            << j("[{'url': 'https://x.example/a'}, {'url': 'https://x.example/a', 'format': "
                 "'slack'}]")
            << "notify.webhooks[1].url: the same URL as an earlier entry";
    }

    void errorsNameTheEntry()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, prefix);
        QStringList errors;
        const auto t = parse(QJsonDocument::fromJson("[" + json + "]").array().at(0), &errors);
        QVERIFY(!t);
        QVERIFY2(!errors.isEmpty() && errors.first().startsWith(prefix),
                 qPrintable(errors.join('\n')));
    }

    void atMostSixteenTargets()
    {
        QJsonArray entries;
        for (int i = 0; i < WebhookTarget::MaxTargets; ++i)
            entries.append(QJsonObject{{"url", QStringLiteral("https://h%1.example/").arg(i)}});
        QStringList errors;
        QVERIFY(parse(entries, &errors));
        entries.append(QJsonObject{{"url", "https://h16.example/"}});
        QVERIFY(!parse(entries, &errors));
        QVERIFY2(errors.last().startsWith("notify.webhooks: must be an array of at most 16"),
                 qPrintable(errors.last()));
    }

    // A rejected URL may still be a secret (a Slack URL over http, with user info, ...): no
    // error quotes it, and a member name from the file is bounded and escaped.
    void errorsNeverQuoteTheUrl()
    {
        const QStringList hostile{
            QString("http://hooks.slack.com/services/" + Secret),
            QString("https://u:" + Secret + "@hooks.slack.com/x"),
            QString("https://hooks.slack.com/services/" + Secret + "#frag"),
            QString("https://hooks.slack.com/services/" + Secret + " x"),
            QString("https://hooks.slack.com/services/" + Secret + QString(2100, 'a')),
        };
        for (const QString &url : hostile) {
            QStringList errors;
            QVERIFY(!parse(one({{"url", url}, {"format", "slack"}}), &errors));
            const QString all = errors.join('\n');
            QVERIFY2(!all.contains("SECRET") && !all.contains("hooks.slack.com"), qPrintable(all));
        }
        QStringList errors;
        QVERIFY(
            !parse(one({{"url", "https://x.example"}, {QString(500, 'k') + "\n", 1}}), &errors));
        QVERIFY2(errors.first().size() < 200 && !errors.first().contains('\n'),
                 qPrintable(errors.first()));
        // Through the policy file: the same, and the file sets nothing.
        const PolicyParseResult r = parsePolicy(
            QJsonDocument(
                QJsonObject{{"notify", QJsonObject{{"webhooks", one({{"url", hostile.first()}})}}}})
                .toJson(),
            "f");
        QVERIFY(!r.ok());
        QVERIFY(!r.policy.notifyWebhooks);
        QVERIFY2(!r.errors.join('\n').contains("SECRET"), qPrintable(r.errors.join('\n')));
    }

    void namesRoundTrip()
    {
        for (const WebhookEvent e : allWebhookEvents())
            QCOMPARE(webhookEventFromName(webhookEventName(e)), e);
        QCOMPARE(webhookEventName(WebhookEvent::NeedsApproval), QStringLiteral("needs_approval"));
        QCOMPARE(allWebhookEvents().size(), 5);
        for (const WebhookFormat f :
             {WebhookFormat::Generic, WebhookFormat::Slack, WebhookFormat::Teams})
            QCOMPARE(webhookFormatFromName(webhookFormatName(f)), f);
        QVERIFY(!webhookFormatFromName(u"msteams"));
        QVERIFY(isWebhookLoopbackHost("127.0.0.1"));
        QVERIFY(!isWebhookLoopbackHost("128.0.0.1"));
        QVERIFY(!isWebhookLoopbackHost("127.0.0.1.example"));
    }
};

QTEST_GUILESS_MAIN(TestNotifyPolicy)
#include "tst_notifypolicy.moc"
