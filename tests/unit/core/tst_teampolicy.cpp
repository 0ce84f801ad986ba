// The operator policy's team keys (src/core/Policy, src/core/TeamPolicy): team.database is the
// administrator's alone and never carries a password, team.quorum counts approvals by price and
// merges tighten-only, and a user's file may remove team.approver_keys, never add one.
#include "TestEnvironment.h"
#include "core/Policy.h"
#include "core/TeamPolicy.h"
#include "policy_fixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace fb;
using fbtest::parseOk;

class TestTeamPolicy : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void teamDatabaseIsTheAdministratorsAlone();
    void teamQuorumCounts();
    void teamDatabaseRefusesPasswords();
    void teamApproverKeysMerge();
};

// Issue #34, item 1: the agent can write the user's policy file; a team.database there never
// turns team mode on or points it elsewhere, with or without the administrator's.
void TestTeamPolicy::teamDatabaseIsTheAdministratorsAlone()
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

void TestTeamPolicy::teamQuorumCounts()
{
    const Policy p = parseOk(R"({"team": {"quorum": [
        {"above_monthly": {"amount": 500, "currency": "USD"}, "approvals": 2},
        {"above_monthly": {"amount": 5000, "currency": "USD"}, "approvals": 3}]}})");
    // The policy holds the rules parsed: nothing reads the key's JSON again.
    const std::optional<TeamQuorum> &q = p.teamQuorum;
    QVERIFY(q);
    QCOMPARE(q->rules.size(), 2);
    QCOMPARE(q->rules.at(1), (QuorumRule{Money{5000, "USD"}, 3}));
    QCOMPARE(q->required(Money{150, "USD"}), 1);
    QCOMPARE(q->required(Money{500, "USD"}), 1); // exactly at the threshold is not above it
    QCOMPARE(q->required(Money{500.01, "USD"}), 2);
    QCOMPARE(q->required(Money{600, "USD"}), 2);
    QCOMPARE(q->required(Money{6000, "USD"}), 3);
    QCOMPARE(q->required(Money{1, "EUR"}), 3); // another currency: above every rule
    QCOMPARE(q->required(std::nullopt), 3);    // unpriced: above every threshold
    QCOMPARE(TeamQuorum{}.required(std::nullopt), 1);
    // ...unless the policy says otherwise.
    QStringList errors;
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

void TestTeamPolicy::teamDatabaseRefusesPasswords()
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

void TestTeamPolicy::teamApproverKeysMerge()
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
    const QList<ApproverKey> &keys = *both.teamApproverKeys;
    QCOMPARE(keys.at(1).role, QStringLiteral("carol"));
    QCOMPARE(keys.at(1).fingerprint,
             QStringLiteral("SHA256:OfcT0KZEJT8EUpQhufUbmwiXnQgpWVnE85kO5hf1E58"));
    QCOMPARE(keys.at(1).publicKey.toHex(),
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
    QCOMPARE(m.effective.teamApproverKeys->first().role, "carol");
    QVERIFY(m.ignored.isEmpty());
    // ...never add one: the administrator's list stays, and the addition is reported.
    m = mergePolicy(file(alice), file(alice + "," + carol));
    QCOMPARE(m.effective.teamApproverKeys->size(), 1);
    QCOMPARE(m.effective.teamApproverKeys->first().role, "alice");
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

QTEST_GUILESS_MAIN(TestTeamPolicy)
#include "tst_teampolicy.moc"
