// The operator policy (src/core/Policy): parsing with errors naming the key, the tighten-only
// merge, every rule's evaluation at and around its limit, currency mismatch, unpriced changes,
// the daily sum from audit records, and the administrator file's ownership rule.
#include "TestEnvironment.h"
#include "core/JsonSchema.h"
#include "core/Policy.h"
#include "core/TeamPolicy.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace fb;

namespace {

QJsonObject priced(double monthly, const QString &currency = QStringLiteral("USD"))
{
    return {{"priced", true}, {"currency", currency}, {"monthly_recurring", monthly}};
}
QJsonObject unpricedPrice()
{
    return {{"priced", false}, {"reason", "no product"}};
}

Policy parseOk(const QByteArray &json, const QString &source = QStringLiteral("test"))
{
    const PolicyParseResult r = parsePolicy(json, source);
    if (!r.ok())
        qWarning() << r.errors;
    return r.policy;
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
    void notJsonIsAnError();
    void mergeTakesTheStricterValue();
    void mergeIgnoresAndReportsLooserUserValues();
    void mergeEqualValuesKeepTheAdministratorAsSource();
    void mergeUserAloneSetsKeys();
    void perChangeBoundaries();
    void currencyMismatchIsDeniedNeverConverted();
    void perDayBoundaries();
    void unpricedRule_data();
    void unpricedRule();
    void desktopAndTypedThresholds();
    void denyOutranksDesktop();
    void dailySpendFromAudit();
    void adminFileOwnership();
    void shippedSchemaAndExample();
    void userFileErrorsRefuseMutate();
    void channelRanks();
    void enforcementTableIsTrue();
    void unstattableFilesRefuseMutate();
    void teamQuorumCounts();
    void teamApproverKeysMerge();
    void teamDatabaseIsTheAdministratorsAlone();
    void teamDatabaseRefusesPasswords();
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
                     "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}]}
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
    QTest::newRow("bool as string")
        << QByteArray(R"({"allow_unconfirmed_mutations": "no"})") << "allow_unconfirmed_mutations";
    QTest::newRow("endpoint scheme")
        << QByteArray(R"({"fabric": {"endpoint": "ftp://x"}})") << "fabric.endpoint";
    QTest::newRow("endpoint user info")
        << QByteArray(R"({"fabric": {"endpoint": "https://u:p@api.equinix.com"}})")
        << "fabric.endpoint";
    QTest::newRow("group not object") << QByteArray(R"({"spend": []})") << "spend";
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

void TestPolicy::notJsonIsAnError()
{
    QVERIFY(!parsePolicy("{", "f").ok());
    QVERIFY(!parsePolicy("[]", "f").ok());
}

void TestPolicy::mergeTakesTheStricterValue()
{
    const Policy admin = parseOk(R"({
        "spend": {"max_monthly_recurring_per_change": {"amount": 500, "currency": "USD"},
                  "unpriced": "require_desktop"},
        "approval": {"channel": "auto"},
        "revalidate_before_send_after_ms": 30000,
        "toolsets": {"allowed": ["read", "mutate"]}
    })",
                                 "admin");
    const Policy user = parseOk(R"({
        "spend": {"max_monthly_recurring_per_change": {"amount": 100, "currency": "USD"},
                  "max_monthly_recurring_per_day": {"amount": 300, "currency": "USD"},
                  "unpriced": "deny"},
        "approval": {"channel": "desktop"},
        "revalidate_before_send_after_ms": 0,
        "toolsets": {"allowed": ["read"]},
        "allow_unconfirmed_mutations": false
    })",
                                "user");
    const PolicyMergeResult m = mergePolicy(admin, user);
    QVERIFY2(m.ignored.isEmpty(), qPrintable(m.ignored.join('\n')));
    const Policy &e = m.effective;
    QCOMPARE(e.maxPerChange, (Money{100, "USD"}));
    QCOMPARE(e.maxPerDay, (Money{300, "USD"}));
    QCOMPARE(e.unpriced, UnpricedRule::Deny);
    QCOMPARE(e.channel, PolicyChannel::Desktop);
    QCOMPARE(e.revalidateAfterMs, 0);
    QCOMPARE(e.toolsetsAllowed, QStringList{"read"});
    QCOMPARE(e.allowUnconfirmed, false);
    for (const QString &key : Policy::keys()) {
        if (e.isSet(key))
            QCOMPARE(e.sources.value(key), QStringLiteral("user"));
    }
}

void TestPolicy::mergeIgnoresAndReportsLooserUserValues()
{
    const Policy admin = parseOk(R"({
        "spend": {"max_monthly_recurring_per_change": {"amount": 500, "currency": "USD"},
                  "max_monthly_recurring_per_day": {"amount": 1000, "currency": "USD"},
                  "unpriced": "deny"},
        "approval": {"channel": "desktop",
                     "desktop_required_above_monthly": {"amount": 100, "currency": "USD"},
                     "typed_confirmation_above_monthly": {"amount": 100, "currency": "USD"}},
        "revalidate_before_send_after_ms": 30000,
        "toolsets": {"allowed": ["read"]},
        "allow_unconfirmed_mutations": false,
        "fabric": {"endpoint": "https://api.equinix.com"},
        "team": {"database": "postgresql://db.example/team",
                 "quorum": [{"above_monthly": {"amount": 500, "currency": "USD"}, "approvals": 2}],
                 "approver_keys": [{"role": "alice",
                     "fingerprint": "SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk",
                     "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}]}
    })",
                                 "admin");
    const Policy user = parseOk(R"({
        "spend": {"max_monthly_recurring_per_change": {"amount": 500.01, "currency": "USD"},
                  "max_monthly_recurring_per_day": {"amount": 10, "currency": "EUR"},
                  "unpriced": "allow"},
        "approval": {"channel": "auto",
                     "desktop_required_above_monthly": {"amount": 200, "currency": "USD"},
                     "typed_confirmation_above_monthly": {"amount": 300, "currency": "USD"}},
        "revalidate_before_send_after_ms": 30001,
        "toolsets": {"allowed": ["read", "mutate"]},
        "allow_unconfirmed_mutations": true,
        "fabric": {"endpoint": "https://sandbox.example"},
        "team": {"database": "postgresql://elsewhere.example/team",
                 "quorum": [{"above_monthly": {"amount": 600, "currency": "USD"}, "approvals": 2},
                            {"above_monthly": {"amount": 500, "currency": "USD"}, "approvals": 1}],
                 "approver_keys": [{"role": "alice",
                     "fingerprint": "SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk",
                     "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="},
                     {"role": "carol",
                     "fingerprint": "SHA256:OfcT0KZEJT8EUpQhufUbmwiXnQgpWVnE85kO5hf1E58",
                     "public_key": "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw="}]}
    })",
                                "user");
    const PolicyMergeResult m = mergePolicy(admin, user);
    for (const QString &key : Policy::keys()) {
        QCOMPARE(m.effective.value(key), admin.value(key));
        QVERIFY2(m.effective.sources.value(key) == u"admin", qPrintable(key));
    }
    QCOMPARE(m.ignored.size(), Policy::keys().size());
    for (const QString &key : Policy::keys()) {
        const QStringList lines = m.ignored.filter(key + ": the value ");
        QCOMPARE(lines.size(), 1);
        if (key == u"spend.max_monthly_recurring_per_day")
            QVERIFY(lines.first().contains("cannot be compared"));
        else if (key != u"fabric.endpoint" && key != u"team.database")
            QVERIFY2(lines.first().contains("looser"), qPrintable(lines.first()));
    }
}

void TestPolicy::mergeEqualValuesKeepTheAdministratorAsSource()
{
    const Policy admin = parseOk(R"({"spend": {"unpriced": "deny"}})", "admin");
    const Policy user = parseOk(R"({"spend": {"unpriced": "deny"}})", "user");
    const PolicyMergeResult m = mergePolicy(admin, user);
    QVERIFY(m.ignored.isEmpty());
    QCOMPARE(m.effective.sources.value("spend.unpriced"), QStringLiteral("admin"));
}

void TestPolicy::mergeUserAloneSetsKeys()
{
    const Policy user = parseOk(R"({"fabric": {"endpoint": "https://a.example"}})", "user");
    const PolicyMergeResult m = mergePolicy(Policy{}, user);
    QCOMPARE(m.effective.fabricEndpoint, QStringLiteral("https://a.example"));
    QCOMPARE(m.effective.sources.value("fabric.endpoint"), QStringLiteral("user"));
}

// Issue #34, item 1: the agent can write the user's policy file; a team.database there never
// turns team mode on or points it elsewhere, with or without the administrator's.
void TestPolicy::teamDatabaseIsTheAdministratorsAlone()
{
    const Policy user =
        parseOk(R"({"team": {"database": "postgresql://agent@evil.example/db"}})", "user");
    PolicyMergeResult m = mergePolicy(Policy{}, user);
    QVERIFY(!m.effective.teamDatabase);
    QCOMPARE(m.ignored.size(), 1);
    QVERIFY2(m.ignored.first().startsWith("team.database: ") &&
                 m.ignored.first().contains("administrator's policy alone"),
             qPrintable(m.ignored.first()));
    const Policy admin =
        parseOk(R"({"team": {"database": "postgresql://alice@db.example/team"}})", "admin");
    m = mergePolicy(admin, user);
    QCOMPARE(*m.effective.teamDatabase, QStringLiteral("postgresql://alice@db.example/team"));
    QCOMPARE(m.effective.sources.value("team.database"), QStringLiteral("admin"));
    QCOMPARE(m.ignored.size(), 1);
    // The same value from the user's file changes nothing and is still reported.
    m = mergePolicy(admin, admin);
    QCOMPARE(m.ignored.size(), 1);
    // A second administrator-layer file may set it.
    m = mergePolicy(Policy{}, admin, PolicyLayer::Administrator);
    QCOMPARE(*m.effective.teamDatabase, QStringLiteral("postgresql://alice@db.example/team"));
    QVERIFY(m.ignored.isEmpty());
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

void TestPolicy::adminFileOwnership()
{
    if (::geteuid() != 0)
        QSKIP("needs root to create a root-owned file");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(::chmod(QFile::encodeName(dir.path()).constData(), 0755) == 0);
    const QString path = dir.filePath("policy.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"spend": {"unpriced": "deny"}})");
    f.close();
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
    QCOMPARE(adminFileUnsafeReason(path), QString());
    PolicyPaths paths{QStringLiteral("/nonexistent/policy.json"), path, dir.filePath("user.json")};
    PolicyLoadResult r = loadPolicy(paths);
    QVERIFY(!r.refuseMutate);
    QCOMPARE(r.effective.unpriced, UnpricedRule::Deny);
    QVERIFY(r.lockedByAdministrator("spend.unpriced"));

    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0666) == 0);
    QVERIFY(adminFileUnsafeReason(path).contains("writable"));
    r = loadPolicy(paths);
    QVERIFY(r.refuseMutate);
    QVERIFY(!r.effective.unpriced);
    QVERIFY(r.errors.first().contains("IGNORED"));

    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
    QVERIFY(::chown(QFile::encodeName(path).constData(), 65534, 65534) == 0);
    QVERIFY(adminFileUnsafeReason(path).contains("owned by uid 65534"));
    QVERIFY(loadPolicy(paths).refuseMutate);
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

void TestPolicy::userFileErrorsRefuseMutate()
{
    QTemporaryDir dir;
    const QString user = dir.filePath("user.json");
    QFile f(user);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"spend": {"unpriced": "maybe"}})");
    f.close();
    const PolicyLoadResult r = loadPolicy({"/nonexistent/a.json", {}, user});
    QVERIFY(r.refuseMutate);
    QVERIFY(r.errors.first().contains("spend.unpriced"));
    const PolicyLoadResult none = loadPolicy({"/nonexistent/a.json", {}, dir.filePath("x")});
    QVERIFY(!none.refuseMutate);
    QVERIFY(none.files.isEmpty());
}

void TestPolicy::channelRanks()
{
    auto merged = [](const char *admin, const char *user) {
        const Policy a =
            admin ? parseOk(QByteArray(R"({"approval": {"channel": ")") + admin + "\"}}", "admin")
                  : Policy{};
        const Policy u =
            parseOk(QByteArray(R"({"approval": {"channel": ")") + user + "\"}}", "user");
        return mergePolicy(a, u);
    };
    // desktop is the only value stricter than auto (set or the default).
    PolicyMergeResult m = merged(nullptr, "desktop");
    QCOMPARE(m.effective.channel, PolicyChannel::Desktop);
    QCOMPARE(m.effective.sources.value("approval.channel"), QStringLiteral("user"));
    QVERIFY(m.ignored.isEmpty());
    m = merged("auto", "desktop");
    QCOMPARE(m.effective.channel, PolicyChannel::Desktop);
    // client is not comparable with auto: a user file cannot move approvals to the agent's
    // client "as tightening".
    for (const char *admin : {static_cast<const char *>(nullptr), "auto", "desktop"}) {
        m = merged(admin, "client");
        QCOMPARE(m.effective.channel,
                 admin ? std::optional<PolicyChannel>(admin == QByteArray("auto")
                                                          ? PolicyChannel::Auto
                                                          : PolicyChannel::Desktop)
                       : std::nullopt);
        QCOMPARE(m.ignored.size(), 1);
        QVERIFY2(m.ignored.first().contains("not comparable"), qPrintable(m.ignored.first()));
    }
    m = merged("client", "desktop");
    QCOMPARE(m.effective.channel, PolicyChannel::Client);
    QVERIFY(m.ignored.first().contains("not comparable"));
    m = merged("desktop", "auto");
    QCOMPARE(m.effective.channel, PolicyChannel::Desktop);
    QVERIFY(m.ignored.first().contains("looser"));
    m = merged("client", "client");
    QVERIFY(m.ignored.isEmpty());
    QCOMPARE(m.effective.sources.value("approval.channel"), QStringLiteral("admin"));
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

void TestPolicy::unstattableFilesRefuseMutate()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A dangling link, a link loop and a path through a regular file: there, but not
    // readable. Each refuses mutate with the errno; only ENOENT is "absent".
    const QString dangling = dir.filePath("dangling.json");
    QVERIFY(QFile::link(dir.filePath("nowhere.json"), dangling));
    const QString loop = dir.filePath("loop.json");
    QVERIFY(QFile::link(loop, loop));
    const QString plain = dir.filePath("plain");
    QFile f(plain);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    const QString notDir = plain + "/policy.json";
    struct Case {
        QString path;
        const char *expect;
    };
    for (const Case &c :
         {Case{dangling, "ENOENT"}, Case{loop, "errno 40"}, Case{notDir, "errno 20"}}) {
        QVERIFY(policyFileExists(c.path));
        for (const PolicyPaths &paths :
             {PolicyPaths{c.path, {}, dir.filePath("absent.json")},
              PolicyPaths{"/nonexistent/a.json", c.path, dir.filePath("absent.json")},
              PolicyPaths{"/nonexistent/a.json", {}, c.path}}) {
            const PolicyLoadResult r = loadPolicy(paths);
            QVERIFY2(r.refuseMutate, qPrintable(c.path));
            QCOMPARE(r.failedFiles, QStringList{c.path});
            QVERIFY2(r.errors.first().contains(c.expect), qPrintable(r.errors.first()));
        }
    }
    QVERIFY(!policyFileExists(dir.filePath("absent.json")));
    QVERIFY(!loadPolicy({dir.filePath("a.json"), {}, dir.filePath("b.json")}).refuseMutate);
    if (::geteuid() != 0) {
        // EACCES: a directory the process may not search.
        const QString closed = dir.filePath("closed");
        QVERIFY(QDir().mkdir(closed));
        QVERIFY(::chmod(QFile::encodeName(closed).constData(), 0) == 0);
        const PolicyLoadResult r = loadPolicy({closed + "/policy.json", {}, {}});
        QVERIFY(::chmod(QFile::encodeName(closed).constData(), 0700) == 0);
        QVERIFY(r.refuseMutate);
        QVERIFY2(r.errors.first().contains("errno 13"), qPrintable(r.errors.first()));
    }
}

QTEST_GUILESS_MAIN(TestPolicy)
#include "tst_policy.moc"

void TestPolicy::teamQuorumCounts()
{
    const Policy p = parseOk(R"({"team": {"quorum": [
        {"above_monthly": {"amount": 500, "currency": "USD"}, "approvals": 2},
        {"above_monthly": {"amount": 5000, "currency": "USD"}, "approvals": 3}]}})");
    QStringList errors;
    const auto q = TeamQuorum::parse(*p.teamQuorum, "team.quorum", &errors);
    QVERIFY2(q, qPrintable(errors.join('\n')));
    QCOMPARE(q->required(Money{150, "USD"}), 1);
    QCOMPARE(q->required(Money{500, "USD"}), 1); // exactly at the threshold is not above it
    QCOMPARE(q->required(Money{500.01, "USD"}), 2);
    QCOMPARE(q->required(Money{600, "USD"}), 2);
    QCOMPARE(q->required(Money{6000, "USD"}), 3);
    QCOMPARE(q->required(Money{1, "EUR"}), 3); // another currency: above every rule
    QCOMPARE(q->required(std::nullopt), 3);    // unpriced: above every threshold
    QCOMPARE(TeamQuorum{}.required(std::nullopt), 1);
    // ...unless the policy says otherwise.
    const auto withUnpriced = TeamQuorum::parse(
        QJsonDocument::fromJson(R"([{"above_monthly": {"amount": 500, "currency": "USD"},
            "approvals": 2}, {"unpriced": true, "approvals": 1}])")
            .array(),
        "team.quorum", &errors);
    QVERIFY(withUnpriced);
    QCOMPARE(withUnpriced->required(std::nullopt), 1);
    QCOMPARE(withUnpriced->required(Money{600, "USD"}), 2);
    // A user's file cannot lower the unpriced count below what the administrator's requires.
    const TeamQuorum merged = TeamQuorum::merged(*q, *withUnpriced);
    QCOMPARE(merged.required(std::nullopt), 3);
    QCOMPARE(merged.required(Money{600, "USD"}), 2);
    for (const QByteArray &bad :
         {QByteArray(R"({"team": {"quorum": {"approvals": 2}}})"),
          QByteArray(R"({"team": {"quorum": [{"approvals": 2}]}})"),
          QByteArray(R"({"team": {"quorum": [{"above_monthly": {"amount": 5, "currency": "USD"},
              "approvals": 0}]}})"),
          QByteArray(R"({"team": {"quorum": [{"above_monthly": {"amount": 5, "currency": "USD"},
              "approvals": 1.5}]}})"),
          QByteArray(R"({"team": {"quorum": [{"unpriced": false, "approvals": 1}]}})"),
          QByteArray(R"({"team": {"quorum": [{"unpriced": true, "approvals": 1},
              {"unpriced": true, "approvals": 2}]}})")}) {
        const PolicyParseResult r = parsePolicy(bad, "x");
        QVERIFY2(!r.ok(), bad.constData());
        QVERIFY2(r.errors.first().startsWith("team.quorum"), qPrintable(r.errors.first()));
    }
}

void TestPolicy::teamDatabaseRefusesPasswords()
{
    QVERIFY(
        teamDatabaseUriError("postgresql://alice@db.example/team?sslmode=verify-full").isEmpty());
    QVERIFY(teamDatabaseUriError("postgres://h1,h2:5433/team").isEmpty());
    QVERIFY(teamDatabaseUriError("postgresql://alice@/team?host=%2Frun%2Fpostgresql").isEmpty());
    QVERIFY(teamDatabaseUriError("postgresql://alice:s3cret@db.example/team").contains("password"));
    QVERIFY(
        teamDatabaseUriError("postgresql://db.example/team?password=s3cret").contains("password"));
    QVERIFY(!teamDatabaseUriError("host=db.example dbname=team").isEmpty());
    const PolicyParseResult r =
        parsePolicy(R"({"team": {"database": "postgresql://a:b@h/d"}})", "x");
    QVERIFY(!r.ok());
    QVERIFY2(!r.errors.first().contains("a:b"), qPrintable(r.errors.first()));
}

void TestPolicy::teamApproverKeysMerge()
{
    // Two keys as `fabric-broker team key` prints them (RFC 8032's test keys 1 and 2).
    const QByteArray alice =
        R"({"role": "alice", "fingerprint": "SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk",
            "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="})";
    const QByteArray carol =
        R"({"role": "carol", "fingerprint": "SHA256:OfcT0KZEJT8EUpQhufUbmwiXnQgpWVnE85kO5hf1E58",
            "public_key": "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw="})";
    auto file = [](const QByteArray &entries) {
        return parseOk("{\"team\": {\"approver_keys\": [" + entries + "]}}");
    };
    const Policy both = file(alice + "," + carol);
    QCOMPARE(both.teamApproverKeys->size(), 2);
    QStringList errors;
    const auto keys = ApproverKey::parse(*both.teamApproverKeys, "team.approver_keys", &errors);
    QVERIFY2(keys, qPrintable(errors.join('\n')));
    QCOMPARE(keys->at(1).publicKey.toHex(),
             QByteArray("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"));
    // Whose signatures count is the administrator's to say (issue #34): a user's file alone is
    // ignored and reported...
    PolicyMergeResult m = mergePolicy(Policy{}, file(alice));
    QVERIFY(!m.effective.teamApproverKeys);
    QCOMPARE(m.ignored.size(), 1);
    QVERIFY2(m.ignored.first().contains("administrator's to list"), qPrintable(m.ignored.first()));
    // ...while a second administrator-layer file sets them.
    m = mergePolicy(Policy{}, file(alice), PolicyLayer::Administrator);
    QCOMPARE(m.effective.teamApproverKeys->size(), 1);
    QVERIFY(m.ignored.isEmpty());
    // Beside the administrator's it can remove a key...
    m = mergePolicy(both, file(carol));
    QCOMPARE(m.effective.teamApproverKeys->size(), 1);
    QCOMPARE(m.effective.teamApproverKeys->first().toObject().value("role").toString(), "carol");
    QVERIFY(m.ignored.isEmpty());
    // ...never add one: the administrator's list stays, and the addition is reported.
    m = mergePolicy(file(alice), file(alice + "," + carol));
    QCOMPARE(m.effective.teamApproverKeys->size(), 1);
    QCOMPARE(m.effective.teamApproverKeys->first().toObject().value("role").toString(), "alice");
    QCOMPARE(m.ignored.size(), 1);
    QVERIFY2(m.ignored.first().startsWith("team.approver_keys"), qPrintable(m.ignored.first()));
    // A key listed for another role is another entry: moving alice's key to carol adds trust.
    QByteArray aliceAsCarol = alice;
    aliceAsCarol.replace("\"alice\"", "\"carol\"");
    m = mergePolicy(file(alice), file(aliceAsCarol));
    QCOMPARE(m.effective.teamApproverKeys->size(), 0);
    for (const QByteArray &bad :
         {QByteArray(R"({"team": {"approver_keys": {"role": "alice"}}})"),
          QByteArray(R"({"team": {"approver_keys": [{"role": "alice"}]}})"),
          QByteArray(R"({"team": {"approver_keys": [{"role": "alice", "fingerprint":
              "SHA256:ZoS1YTxFt+0tkwdqH1jhPDxKCPcqbmK5RXW1LzhK6O0",
              "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}]}})"),
          QByteArray(R"({"team": {"approver_keys": [{"role": "", "fingerprint":
              "SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk",
              "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}]}})"),
          QByteArray(R"({"team": {"approver_keys": [{"role": "alice", "fingerprint":
              "SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk",
              "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}})")}) {
        const PolicyParseResult r = parsePolicy(bad, "bad");
        QVERIFY2(!r.ok(), bad.constData());
        QVERIFY2(r.errors.first().startsWith("team.approver_keys"), qPrintable(r.errors.first()));
    }
}
