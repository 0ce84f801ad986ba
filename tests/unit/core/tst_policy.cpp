// The operator policy (src/core/Policy): parsing with errors naming the key, every rule's
// evaluation at and around its limit, currency mismatch, unpriced changes, the daily sum from
// audit records, and the shipped schema, example and enforcement table. The tighten-only merge
// and the files' loading rules: tst_policy_layers; the team.* keys: tst_teampolicy.
#include "TestEnvironment.h"
#include "core/JsonSchema.h"
#include "core/Policy.h"
#include "policy_fixtures.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QTest>

using namespace fb;
using fbtest::parseOk;

namespace {

QJsonObject priced(double monthly, const QString &currency = QStringLiteral("USD"))
{
    return {{"priced", true}, {"currency", currency}, {"monthly_recurring", monthly}};
}
QJsonObject unpricedPrice()
{
    return {{"priced", false}, {"reason", "no product"}};
}

QJsonObject record(const QString &type, const QJsonObject &data, qint64 atMs)
{
    return {{"type", type},
            {"time", QDateTime::fromMSecsSinceEpoch(atMs, Qt::UTC).toString(Qt::ISODateWithMs)},
            {"data", data}};
}

} // namespace

class TestPolicy : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void parsesEveryKey();
    void emptyPolicyIsDefaults();
    void errorsNameTheKey_data();
    void errorsNameTheKey();
    void allReadAllowsEveryReadToolsetNeverMutate();
    void notJsonIsAnError();
    void perChangeBoundaries();
    void currencyMismatchIsDeniedNeverConverted();
    void perDayBoundaries();
    void unpricedRule_data();
    void unpricedRule();
    void desktopAndTypedThresholds();
    void denyOutranksDesktop();
    void dailySpendFromAudit();
    void shippedSchemaAndExample();
    void enforcementTableIsTrue();
};

void TestPolicy::parsesEveryKey()
{
    const PolicyParseResult r = parsePolicy(R"({
        "$schema": "/usr/share/fabric-broker/policy.schema.json",
        "spend": {"max_monthly_recurring_per_change": {"amount": 500, "currency": "USD"},
                  "max_monthly_recurring_per_day": {"amount": 1000, "currency": "USD"},
                  "unpriced": "require_desktop"},
        "approval": {"desktop_required_above_monthly": {"amount": 200, "currency": "USD"},
                     "typed_confirmation_above_monthly": {"amount": 400, "currency": "USD"},
                     "channel": "desktop"},
        "revalidate_before_send_after_ms": 30000,
        "toolsets": {"allowed": ["read", "mutate"]},
        "allow_unconfirmed_mutations": false,
        "fabric": {"endpoint": "https://api.equinix.com/"},
        "team": {"database": "postgresql://db.example/team?sslmode=verify-full",
                 "quorum": [{"above_monthly": {"amount": 500, "currency": "USD"}, "approvals": 2},
                            {"unpriced": true, "approvals": 3}],
                 "approver_keys": [{"role": "alice",
                     "fingerprint": "SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk",
                     "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}]},
        "observability": {"otlp_endpoint": "http://127.0.0.1:4318"},
        "audit": {"syslog": "tls://siem.example.com:6514?ca=/etc/ssl/siem.pem"},
        "notify": {"webhooks": [{"url": "https://hooks.slack.com/services/T0/B0/x",
                                 "format": "slack"},
                                {"url": "http://127.0.0.1:8080/hook",
                                 "events": ["needs_approval", "denied"]}]}
    })",
                                            QStringLiteral("/etc/x.json"));
    QVERIFY2(r.ok(), qPrintable(r.errors.join('\n')));
    const Policy &p = r.policy;
    QCOMPARE(p.maxPerChange, (Money{500, "USD"}));
    QCOMPARE(p.maxPerDay, (Money{1000, "USD"}));
    QCOMPARE(p.unpriced, UnpricedRule::RequireDesktop);
    QCOMPARE(p.desktopRequiredAbove, (Money{200, "USD"}));
    QCOMPARE(p.typedConfirmationAbove, (Money{400, "USD"}));
    QCOMPARE(p.channel, PolicyChannel::Desktop);
    QCOMPARE(p.revalidateAfterMs, 30000);
    QCOMPARE(p.toolsetsAllowed, (QStringList{"read", "mutate"}));
    QCOMPARE(p.allowUnconfirmed, false);
    QCOMPARE(p.fabricEndpoint, QStringLiteral("https://api.equinix.com"));
    QCOMPARE(p.otlpEndpoint, QStringLiteral("http://127.0.0.1:4318"));
    QCOMPARE(p.auditSyslog, QStringLiteral("tls://siem.example.com:6514?ca=/etc/ssl/siem.pem"));
    QCOMPARE(p.notifyWebhooks->size(), 2);
    QCOMPARE(p.notifyWebhooks->at(0).format, WebhookFormat::Slack);
    QCOMPARE(p.notifyWebhooks->at(1).events,
             (QList<WebhookEvent>{WebhookEvent::NeedsApproval, WebhookEvent::Denied}));
    // Shown, a webhook URL is its origin only (it may be the secret); compared, all of it.
    QCOMPARE(p.shownValue("notify.webhooks").toArray().at(0).toObject().value("url").toString(),
             QStringLiteral("https://hooks.slack.com/\u2026"));
    QCOMPARE(p.value("notify.webhooks").toArray().at(0).toObject().value("url").toString(),
             QStringLiteral("https://hooks.slack.com/services/T0/B0/x"));
    QCOMPARE(p.shownValue("audit.syslog"), p.value("audit.syslog"));
    for (const QString &key : Policy::keys()) {
        QVERIFY2(p.isSet(key), qPrintable(key));
        QCOMPARE(p.sources.value(key), QStringLiteral("/etc/x.json"));
    }
    // toJson round-trips through the parser.
    const Policy again = parseOk(QJsonDocument(p.toJson()).toJson(), "again");
    for (const QString &key : Policy::keys())
        QCOMPARE(again.value(key), p.value(key));
}

void TestPolicy::emptyPolicyIsDefaults()
{
    const Policy p = parseOk("{}");
    for (const QString &key : Policy::keys())
        QVERIFY(!p.isSet(key));
    QCOMPARE(p.revalidateAfter(), 60000);
    QCOMPARE(p.unpricedRule(), UnpricedRule::Allow);
}

void TestPolicy::errorsNameTheKey_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("key");
    QTest::newRow("unknown top") << QByteArray(R"({"max_spend": 1})") << "max_spend";
    QTest::newRow("unknown nested")
        << QByteArray(R"({"spend": {"per_week": 1}})") << "spend.per_week";
    QTest::newRow("money as number")
        << QByteArray(R"({"spend": {"max_monthly_recurring_per_change": 500}})")
        << "spend.max_monthly_recurring_per_change";
    QTest::newRow("negative amount")
        << QByteArray(R"({"spend": {"max_monthly_recurring_per_day": {"amount": -1,
                       "currency": "USD"}}})")
        << "spend.max_monthly_recurring_per_day.amount";
    QTest::newRow("bad currency")
        << QByteArray(R"({"approval": {"desktop_required_above_monthly": {"amount": 1,
                       "currency": "usd"}}})")
        << "approval.desktop_required_above_monthly.currency";
    QTest::newRow("extra money key")
        << QByteArray(R"({"approval": {"typed_confirmation_above_monthly": {"amount": 1,
                       "currency": "USD", "per": "month"}}})")
        << "approval.typed_confirmation_above_monthly.per";
    QTest::newRow("unpriced value")
        << QByteArray(R"({"spend": {"unpriced": "ask"}})") << "spend.unpriced";
    QTest::newRow("channel type") << QByteArray(R"({"approval": {"channel": 1}})")
                                  << "approval.channel";
    QTest::newRow("ms string") << QByteArray(R"({"revalidate_before_send_after_ms": "60"})")
                               << "revalidate_before_send_after_ms";
    QTest::newRow("ms fraction") << QByteArray(R"({"revalidate_before_send_after_ms": 1.5})")
                                 << "revalidate_before_send_after_ms";
    QTest::newRow("toolset name") << QByteArray(R"({"toolsets": {"allowed": ["write"]}})")
                                  << "toolsets.allowed";
    QTest::newRow("two toolsets in one name")
        << QByteArray(R"({"toolsets": {"allowed": ["read,mutate"]}})") << "toolsets.allowed";
    QTest::newRow("toolset spelled otherwise")
        << QByteArray(R"({"toolsets": {"allowed": ["Read"]}})") << "toolsets.allowed";
    QTest::newRow("toolset padded")
        << QByteArray(R"({"toolsets": {"allowed": [" routing"]}})") << "toolsets.allowed";
    QTest::newRow("bool as string")
        << QByteArray(R"({"allow_unconfirmed_mutations": "no"})") << "allow_unconfirmed_mutations";
    QTest::newRow("endpoint scheme")
        << QByteArray(R"({"fabric": {"endpoint": "ftp://x"}})") << "fabric.endpoint";
    QTest::newRow("endpoint user info")
        << QByteArray(R"({"fabric": {"endpoint": "https://u:p@api.equinix.com"}})")
        << "fabric.endpoint";
    QTest::newRow("group not object") << QByteArray(R"({"spend": []})") << "spend";
    QTest::newRow("otlp scheme")
        << QByteArray(R"({"observability": {"otlp_endpoint": "grpc://127.0.0.1:4317"}})")
        << "observability.otlp_endpoint";
    QTest::newRow("otlp user info")
        << QByteArray(R"({"observability": {"otlp_endpoint": "https://u:p@otel.example"}})")
        << "observability.otlp_endpoint";
    QTest::newRow("otlp query")
        << QByteArray(R"({"observability": {"otlp_endpoint": "https://otel.example/?k=v"}})")
        << "observability.otlp_endpoint";
    QTest::newRow("otlp type") << QByteArray(R"({"observability": {"otlp_endpoint": 4318}})")
                               << "observability.otlp_endpoint";
    QTest::newRow("syslog udp") << QByteArray(R"({"audit": {"syslog": "udp://127.0.0.1:514"}})")
                                << "audit.syslog";
    QTest::newRow("syslog no host")
        << QByteArray(R"({"audit": {"syslog": "tcp://"}})") << "audit.syslog";
    QTest::newRow("syslog control character")
        << QByteArray(R"({"audit": {"syslog": "tcp://a\n:514"}})") << "audit.syslog";
    QTest::newRow("syslog type") << QByteArray(R"({"audit": {"syslog": true}})") << "audit.syslog";
    QTest::newRow("observability not object")
        << QByteArray(R"({"observability": "x"})") << "observability";
    QTest::newRow("webhooks not an array")
        << QByteArray(R"({"notify": {"webhooks": {"url": "https://x.example"}}})")
        << "notify.webhooks";
    QTest::newRow("webhook over http elsewhere")
        << QByteArray(R"({"notify": {"webhooks": [{"url": "http://x.example/hook"}]}})")
        << "notify.webhooks[0].url";
    QTest::newRow("webhook format")
        << QByteArray(R"({"notify": {"webhooks": [{"url": "https://x.example", "format": "x"}]}})")
        << "notify.webhooks[0].format";
    QTest::newRow("unknown notify key")
        << QByteArray(R"({"notify": {"email": "a@b.example"}})") << "notify.email";
}

void TestPolicy::errorsNameTheKey()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, key);
    const PolicyParseResult r = parsePolicy(json, "f");
    QVERIFY(!r.ok());
    QVERIFY2(r.errors.first().startsWith(key + QStringLiteral(": ")),
             qPrintable(r.errors.join('\n')));
    // A file with an error sets nothing.
    for (const QString &k : Policy::keys())
        QVERIFY(!r.policy.isSet(k));
}

void TestPolicy::allReadAllowsEveryReadToolsetNeverMutate()
{
    Policy p = parseOk(R"({"toolsets": {"allowed": ["all-read"]}})");
    QCOMPARE(p.toolsetsAllowed, (QStringList{"read", "estate", "routing", "observability",
                                             "precision-time", "marketplace", "account"}));
    p = parseOk(R"({"toolsets": {"allowed": ["routing", "mutate", "routing"]}})");
    QCOMPARE(p.toolsetsAllowed, (QStringList{"routing", "mutate"}));
}

void TestPolicy::notJsonIsAnError()
{
    QVERIFY(!parsePolicy("{", "f").ok());
    QVERIFY(!parsePolicy("[]", "f").ok());
}

void TestPolicy::perChangeBoundaries()
{
    const Policy p = parseOk(
        R"({"spend": {"max_monthly_recurring_per_change": {"amount": 150, "currency": "USD"}}})");
    QCOMPARE(checkPerChange(p, priced(150))->verdict, QStringLiteral("allow"));
    QCOMPARE(checkPerChange(p, priced(150.01))->verdict, QStringLiteral("deny"));
    QCOMPARE(checkPerChange(p, priced(0))->verdict, QStringLiteral("allow"));
    const PolicyVerdict v = evaluateAtPropose(p, priced(151));
    QCOMPARE(v.verdict, QStringLiteral("deny"));
    QCOMPARE(v.rule, QStringLiteral("spend.max_monthly_recurring_per_change"));
    QCOMPARE(v.limit.toObject().value("amount").toDouble(), 150.0);
    QCOMPARE(v.used.toObject().value("amount").toDouble(), 151.0);
    QVERIFY(v.reason.contains("USD 151.00"));
    QVERIFY(v.reason.contains("USD 150.00"));
    // Unpriced: the per-change rule does not apply; spend.unpriced decides, and under an amount
    // limit its default is require_desktop (the agent chooses whether a change is priced).
    QVERIFY(!checkPerChange(p, unpricedPrice()));
    QCOMPARE(evaluateAtPropose(p, unpricedPrice()).verdict, QStringLiteral("require_desktop"));
    QCOMPARE(evaluateAtPropose(p, unpricedPrice()).rule, QStringLiteral("spend.unpriced"));
}

void TestPolicy::currencyMismatchIsDeniedNeverConverted()
{
    const Policy p = parseOk(R"({"spend": {
        "max_monthly_recurring_per_change": {"amount": 1000, "currency": "USD"},
        "max_monthly_recurring_per_day": {"amount": 1000, "currency": "USD"}},
        "approval": {"desktop_required_above_monthly": {"amount": 1000, "currency": "USD"},
                     "typed_confirmation_above_monthly": {"amount": 1000, "currency": "USD"}}})");
    const auto c = checkPerChange(p, priced(1, "EUR"));
    QCOMPARE(c->verdict, QStringLiteral("deny"));
    QVERIFY(c->reason.contains("never converted"));
    QCOMPARE(checkPerDay(p, priced(1, "EUR"), {})->verdict, QStringLiteral("deny"));
    // Earlier spend in another currency cannot be summed either.
    QCOMPARE(checkPerDay(p, priced(1), {Money{1, "EUR"}})->verdict, QStringLiteral("deny"));
    QCOMPARE(checkDesktopRequired(p, priced(1, "EUR"))->verdict, QStringLiteral("require_desktop"));
    QVERIFY(typedConfirmationRequired(p, priced(1, "EUR")));
    QVERIFY(!typedConfirmationRequired(p, priced(1, "USD")));
}

void TestPolicy::perDayBoundaries()
{
    const Policy p = parseOk(
        R"({"spend": {"max_monthly_recurring_per_day": {"amount": 300, "currency": "USD"}}})");
    const QList<Money> used{{100, "USD"}, {50, "USD"}};
    QCOMPARE(checkPerDay(p, priced(150), used)->verdict, QStringLiteral("allow")); // = 300
    QCOMPARE(checkPerDay(p, priced(150.5), used)->verdict, QStringLiteral("deny"));
    const auto c = checkPerDay(p, priced(150), used);
    QCOMPARE(c->used.toObject().value("amount").toDouble(), 150.0);
    QCOMPARE(c->reason, QStringLiteral("within your daily limit: USD 150.00 of USD 300.00 "
                                       "used, this change adds USD 150.00"));
    QCOMPARE(evaluateAtConfirm(p, priced(151), used).rule,
             QStringLiteral("spend.max_monthly_recurring_per_day"));
    // Reservations (confirms whose person is being asked) count, and the reason says so.
    const QList<Money> waiting{{100, "USD"}};
    QCOMPARE(checkPerDay(p, priced(50), used, waiting)->verdict, QStringLiteral("allow"));
    QCOMPARE(checkPerDay(p, priced(51), used, waiting)->verdict, QStringLiteral("deny"));
    QCOMPARE(checkPerDay(p, priced(50), used, waiting)->reason,
             QStringLiteral("within your daily limit: USD 150.00 of USD 300.00 used, USD 100.00 "
                            "waiting for approval, this change adds USD 50.00"));
    QCOMPARE(checkPerDay(p, priced(51), used, waiting)->reason,
             QStringLiteral("USD 51.00/month would exceed your daily limit: USD 150.00 of USD "
                            "300.00 already used in the last 24 hours, and USD 100.00 waiting "
                            "for approval"));
    // Not a propose-time rule.
    QCOMPARE(evaluateAtPropose(p, priced(1000)).verdict, QStringLiteral("allow"));
}

void TestPolicy::unpricedRule_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("verdict");
    QTest::newRow("default") << QByteArray("{}") << "allow";
    QTest::newRow("allow") << QByteArray(R"({"spend": {"unpriced": "allow"}})") << "allow";
    QTest::newRow("desktop") << QByteArray(R"({"spend": {"unpriced": "require_desktop"}})")
                             << "require_desktop";
    QTest::newRow("deny") << QByteArray(R"({"spend": {"unpriced": "deny"}})") << "deny";
    // An amount limit without spend.unpriced: the agent must not escape it by leaving the price
    // out, so the default becomes require_desktop.
    QTest::newRow("default under a per-change limit")
        << QByteArray(
               R"({"spend": {"max_monthly_recurring_per_change": {"amount": 5, "currency": "USD"}}})")
        << "require_desktop";
    QTest::newRow("default under a daily limit")
        << QByteArray(
               R"({"spend": {"max_monthly_recurring_per_day": {"amount": 5, "currency": "USD"}}})")
        << "require_desktop";
    QTest::newRow("allow set under a limit")
        << QByteArray(R"({"spend": {"unpriced": "allow", "max_monthly_recurring_per_day": )"
                      R"({"amount": 5, "currency": "USD"}}})")
        << "allow";
}

void TestPolicy::unpricedRule()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, verdict);
    const Policy p = parseOk(json);
    QCOMPARE(checkUnpriced(p, unpricedPrice())->verdict, verdict);
    QCOMPARE(evaluateAtPropose(p, unpricedPrice()).verdict, verdict);
    QCOMPARE(evaluateAtConfirm(p, unpricedPrice(), {}).verdict, verdict);
    QVERIFY(!checkUnpriced(p, priced(10)));
    // A price context with priced: true but no amount is unpriced.
    QCOMPARE(checkUnpriced(p, QJsonObject{{"priced", true}})->verdict, verdict);
}

void TestPolicy::desktopAndTypedThresholds()
{
    const Policy p = parseOk(R"({"approval": {
        "desktop_required_above_monthly": {"amount": 100, "currency": "USD"},
        "typed_confirmation_above_monthly": {"amount": 200, "currency": "USD"}}})");
    QCOMPARE(checkDesktopRequired(p, priced(100))->verdict, QStringLiteral("allow"));
    QCOMPARE(checkDesktopRequired(p, priced(100.01))->verdict, QStringLiteral("require_desktop"));
    QCOMPARE(checkDesktopRequired(p, unpricedPrice())->verdict, QStringLiteral("require_desktop"));
    QVERIFY(!typedConfirmationRequired(p, priced(200)));
    QVERIFY(typedConfirmationRequired(p, priced(200.01)));
    QVERIFY(typedConfirmationRequired(p, unpricedPrice()));
    const PolicyVerdict v = evaluateAtConfirm(p, priced(150), {});
    QCOMPARE(v.verdict, QStringLiteral("require_desktop"));
    QCOMPARE(v.rule, QStringLiteral("approval.desktop_required_above_monthly"));
    QVERIFY(!checkDesktopRequired(Policy{}, priced(1e9)));
    QVERIFY(!typedConfirmationRequired(Policy{}, priced(1e9)));
}

void TestPolicy::denyOutranksDesktop()
{
    const Policy p = parseOk(R"({
        "spend": {"max_monthly_recurring_per_day": {"amount": 100, "currency": "USD"}},
        "approval": {"desktop_required_above_monthly": {"amount": 10, "currency": "USD"}}})");
    const PolicyVerdict v = evaluateAtConfirm(p, priced(150), {});
    QCOMPARE(v.verdict, QStringLiteral("deny"));
    QCOMPARE(v.checks.size(), 2);
    const QJsonObject j = v.toJson();
    for (const char *k : {"verdict", "rule", "limit", "used", "checks"})
        QVERIFY(j.contains(k));
    QCOMPARE(evaluateAtConfirm(Policy{}, priced(150), {}).toJson().value("rule"), QJsonValue());
}

void TestPolicy::dailySpendFromAudit()
{
    const qint64 now = QDateTime(QDate(2026, 12, 1), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch();
    const qint64 day = 24LL * 3600 * 1000;
    auto proposed = [](const QString &sha, double monthly) {
        return QJsonObject{{"request_sha256", sha}, {"price", priced(monthly)}};
    };
    auto executed = [](const QString &sha, const QString &outcome) {
        return QJsonObject{{"request_sha256", sha}, {"outcome", outcome}};
    };
    const QList<QJsonObject> records{
        record("proposed", proposed("a", 100), now - 2 * day),
        record("executed", executed("a", "created"), now - day - 1), // older than 24 h
        record("proposed", proposed("b", 150), now - day),
        record("executed", executed("b", "created"), now - day), // exactly 24 h ago
        record("proposed", proposed("c", 40), now - 1000),
        record("executed", executed("c", "unknown"), now - 900), // may exist: counts
        record("proposed", proposed("d", 70), now - 1000),
        record("executed", executed("d", "rejected"), now - 900),
        record("proposed", proposed("e", 70), now - 1000),
        record("executed", executed("e", "not_sent"), now - 900),
        record("proposed", QJsonObject{{"request_sha256", "f"}, {"price", unpricedPrice()}},
               now - 1000),
        record("executed", executed("f", "created"), now - 900),
        record("executed", executed("g", "created"), now - 900), // no proposal record
    };
    const QList<Money> spend = spendInLastDay(records, now);
    QCOMPARE(spend, (QList<Money>{{150, "USD"}, {40, "USD"}}));
}

void TestPolicy::shippedSchemaAndExample()
{
    const QString dir = qEnvironmentVariable("FB_SOURCE_DIR") + "/packaging/policy/";
    QFile schemaFile(dir + "policy.schema.json");
    QFile exampleFile(dir + "policy.example.json");
    QVERIFY(schemaFile.open(QIODevice::ReadOnly));
    QVERIFY(exampleFile.open(QIODevice::ReadOnly));
    const QJsonObject schema = QJsonDocument::fromJson(schemaFile.readAll()).object();
    const QByteArray exampleBytes = exampleFile.readAll();
    const QJsonObject example = QJsonDocument::fromJson(exampleBytes).object();
    QVERIFY(!schema.isEmpty());
    const JsonSchema js(schema);
    QVERIFY(js.validate(example).isEmpty());
    // The example sets every key and the parser agrees with the schema.
    const PolicyParseResult parsed = parsePolicy(exampleBytes, "example");
    QVERIFY2(parsed.ok(), qPrintable(parsed.errors.join('\n')));
    for (const QString &key : Policy::keys())
        QVERIFY2(parsed.policy.isSet(key), qPrintable(key));
    // Every key of the parser is in the schema, and the schema has no others.
    QStringList schemaKeys;
    const QJsonObject props = schema.value("properties").toObject();
    for (auto it = props.begin(); it != props.end(); ++it) {
        const QJsonObject sub = it.value().toObject().value("properties").toObject();
        if (it.key() == "$schema")
            continue;
        if (sub.isEmpty() || it.key() == "revalidate_before_send_after_ms")
            schemaKeys << it.key();
        else
            for (auto s = sub.begin(); s != sub.end(); ++s)
                schemaKeys << it.key() + "." + s.key();
    }
    QStringList keys = Policy::keys();
    keys.sort();
    schemaKeys.sort();
    QCOMPARE(schemaKeys, keys);
    // Both reject what the parser rejects.
    const QJsonObject bad{{"spend", QJsonObject{{"unpriced", "ask"}}}};
    QVERIFY(!js.validate(bad).isEmpty());
    QVERIFY(!js.validate(QJsonObject{{"extra", 1}}).isEmpty());
}

void TestPolicy::enforcementTableIsTrue()
{
    // docs/policy.md's "Enforcement" table is the code's table, row for row.
    QFile doc(qEnvironmentVariable("FB_SOURCE_DIR") + "/docs/policy.md");
    QVERIFY(doc.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(doc.readAll());
    const qsizetype begin = text.indexOf("<!-- enforcement-table:begin -->");
    const qsizetype end = text.indexOf("<!-- enforcement-table:end -->");
    QVERIFY(begin >= 0 && end > begin);
    QStringList rows = text.mid(begin, end - begin).split('\n', Qt::SkipEmptyParts).mid(1);
    QVERIFY(rows.size() > 2);
    QCOMPARE(
        rows.takeFirst(),
        QStringLiteral("| Key | At startup | On every change | At every confirm | Before send |"));
    rows.removeFirst(); // |---|
    auto yes = [](bool b) { return b ? QStringLiteral("yes") : QStringLiteral("no"); };
    QStringList expected;
    for (const PolicyEnforcement &e : policyEnforcement())
        expected << QStringLiteral("| `%1` | %2 | %3 | %4 | %5 |")
                        .arg(e.key, yes(e.atStartup), yes(e.onEveryChange), yes(e.atEveryConfirm),
                             yes(e.beforeSend));
    QCOMPARE(rows, expected);
    // Every key, in Policy::keys() order.
    QStringList keys;
    for (const PolicyEnforcement &e : policyEnforcement())
        keys << e.key;
    QCOMPARE(keys, Policy::keys());
}

QTEST_GUILESS_MAIN(TestPolicy)
#include "tst_policy.moc"
