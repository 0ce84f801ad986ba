// PolicyGate (src/broker/PolicyGate): the operator policy at the broker's tools. At confirm the
// daily limit counts the spend ledger (executed plus others' reservations, never its own) and
// denies when the ledger cannot establish the day; the typed confirmation turns an allow into
// require_desktop. The refusal result, the confirm message and the one line for people.
#include "../core/policy_fixtures.h"
#include "TestEnvironment.h"
#include "broker/PolicyGate.h"
#include "core/SpendLedger.h"

#include <QJsonArray>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

constexpr qint64 kNow = 1767225600000;

Proposal priced(double monthly)
{
    Proposal p;
    p.context = QJsonObject{
        {"price",
         QJsonObject{{"priced", true}, {"currency", "USD"}, {"monthly_recurring", monthly}}}};
    return p;
}

const QByteArray kDailyLimit =
    R"({"spend": {"max_monthly_recurring_per_day": {"amount": 1000, "currency": "USD"}}})";

} // namespace

class TestPolicyGate : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void dailyLimitCountsTheLedger()
    {
        const Policy policy = fbtest::parseOk(kDailyLimit);
        SpendLedger ledger;
        ledger.addExecuted(u"a"_s, Money{600, u"USD"_s}, kNow - 1000);
        QCOMPARE(policyAtConfirm(policy, priced(400), &ledger, kNow).verdict, "allow");
        QVERIFY(ledger.reserve(u"other"_s, Money{100, u"USD"_s}, kNow));
        const PolicyVerdict over = policyAtConfirm(policy, priced(400), &ledger, kNow);
        QCOMPARE(over.verdict, "deny");
        QCOMPARE(over.rule, "spend.max_monthly_recurring_per_day");
        // A confirm's own reservation is not counted against itself.
        QCOMPARE(policyAtConfirm(policy, priced(400), &ledger, kNow, u"other"_s).verdict, "allow");
        // Spend older than the window no longer counts.
        QCOMPARE(policyAtConfirm(policy, priced(400), &ledger, kNow + SpendLedger::WindowMs + 1,
                                 u"other"_s)
                     .verdict,
                 "allow");
    }

    void unestablishedDayDenies()
    {
        const Policy policy = fbtest::parseOk(kDailyLimit);
        SpendLedger ledger;
        ledger.markUnestablished(u"the audit log was replaced"_s);
        const PolicyVerdict v = policyAtConfirm(policy, priced(1), &ledger, kNow);
        QCOMPARE(v.verdict, "deny");
        QCOMPARE(v.rule, "spend.max_monthly_recurring_per_day");
        QVERIFY2(v.reason.contains("the audit log was replaced"), qPrintable(v.reason));
        QCOMPARE(v.checks.size(), 1);
        const PolicyVerdict none = policyAtConfirm(policy, priced(1), nullptr, kNow);
        QCOMPARE(none.verdict, "deny");
        QVERIFY2(none.reason.contains("no spend ledger"), qPrintable(none.reason));
        // Without a daily limit the ledger is not needed.
        QCOMPARE(policyAtConfirm(fbtest::parseOk("{}"), priced(1), nullptr, kNow).verdict, "allow");
    }

    void typedConfirmationRequiresTheDesktop()
    {
        const Policy policy = fbtest::parseOk(
            R"({"approval": {"typed_confirmation_above_monthly": {"amount": 400, "currency": "USD"}}})");
        const PolicyVerdict at = policyAtConfirm(policy, priced(400), nullptr, kNow);
        QCOMPARE(at.verdict, "allow"); // exactly at the threshold: no typing
        QCOMPARE(at.checks.size(), 1);
        QCOMPARE(at.checks.at(0).verdict, "allow");
        const PolicyVerdict above = policyAtConfirm(policy, priced(401), nullptr, kNow);
        QCOMPARE(above.verdict, "require_desktop");
        QCOMPARE(above.rule, "approval.typed_confirmation_above_monthly");
        QVERIFY(above.desktopRequired());
    }

    void denialIsNotSoftenedByTheTypedRule()
    {
        const Policy policy = fbtest::parseOk(
            R"({"spend": {"max_monthly_recurring_per_change": {"amount": 100, "currency": "USD"}},
                "approval": {"typed_confirmation_above_monthly": {"amount": 50, "currency": "USD"}}})");
        const PolicyVerdict v = policyAtConfirm(policy, priced(200), nullptr, kNow);
        QCOMPARE(v.verdict, "deny");
        QCOMPARE(v.rule, "spend.max_monthly_recurring_per_change");
    }

    void refusalResult()
    {
        PolicyVerdict v;
        v.verdict = u"deny"_s;
        v.rule = u"spend.unpriced"_s;
        v.reason = u"unpriced changes are denied"_s;
        const QJsonObject price{{"priced", false}};
        const QJsonObject r =
            policyRefusal(v, price, u"network_create"_s, u"network lab"_s, QString(64, u'a'));
        const QJsonObject error = r.value("error").toObject();
        QCOMPARE(error.value("kind").toString(), "policy_denied");
        QCOMPARE(error.value("rule").toString(), "spend.unpriced");
        QVERIFY(error.value("message").toString().contains(
            "(spend.unpriced): unpriced changes are denied"));
        QVERIFY(error.value("message").toString().contains("no token was minted"));
        QCOMPARE(r.value("policy").toObject(), v.toJson());
        QCOMPARE(r.value("price").toObject(), price);
        QCOMPARE(r.value("change_type").toString(), "network_create");
        QCOMPARE(r.value("target").toString(), "network lab");
        QCOMPARE(r.value("request_sha256").toString(), QString(64, u'a'));
        QVERIFY(!r.contains("confirm_token"));
    }

    void confirmMessageSaysWhy()
    {
        PolicyVerdict v;
        v.verdict = u"deny"_s;
        v.rule = u"r"_s;
        v.reason = u"why"_s;
        QVERIFY(policyConfirmMessage(v).startsWith("Refused by the operator policy (r): why."));
        v.verdict = u"require_desktop"_s;
        QVERIFY(policyConfirmMessage(v).contains("requires approval in the Fabric Broker desktop"));
        QVERIFY(policyConfirmMessage(v).contains("(r)"));
    }

    void lineJoinsEveryReason()
    {
        const QJsonObject policy{
            {"checks", QJsonArray{QJsonObject{{"reason", "within the daily limit"}},
                                  QJsonObject{{"reason", ""}}, QJsonObject{},
                                  QJsonObject{{"reason", "no typing needed"}}}}};
        QCOMPARE(policyLine(policy), "within the daily limit; no typing needed");
        QCOMPARE(policyLine({}), QString());
    }
};

QTEST_APPLESS_MAIN(TestPolicyGate)
#include "tst_policygate.moc"
