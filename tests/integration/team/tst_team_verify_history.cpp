// `fabric-broker team verify` on histories that are not what they seem (issue #34, item 7), on a
// real PostgreSQL 15 with the binary spawned as an operator would run it. With team.quorum
// requiring 2 approvals above USD 500 a month (1 for unpriced changes): a create nobody
// approved, one approved only by its proposer's role, one with fewer approvals than the quorum
// and one someone denied each fail, naming the proposal; so do a proposal row the schema owner
// dropped (or a bundle without it) and a state changed past the chain's triggers. A bundle is
// UNVERIFIED without the policy's keys unless --trust-bundle-keys; every value is printed escaped.
#include "TeamVerifyHarness.h"
#include "TestEnvironment.h"

#include <QTest>

using namespace fbtest;
using fb::team::ApprovalKeys;

namespace {

const QByteArray Price600 = R"({"priced": true, "monthly_recurring": 600, "currency": "USD"})";

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// contains(), for a needle built with QStringBuilder.
bool has(const QByteArray &output, const QByteArray &needle)
{
    return output.contains(needle);
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

} // namespace

class TstTeamVerifyHistory : public QObject, private TeamVerifyHarness {
    Q_OBJECT

private:
    QByteArray aliceKey, bobKey, carolKey;

    QByteArray keyOf(const QString &role)
    {
        return role == u"alice" ? aliceKey : role == u"bob" ? bobKey : carolKey;
    }

    // carol's proposal (price: JSON text, empty for unpriced), decided as listed (role, decision)
    // and then moved by carol through states.
    QByteArray proposal(const QString &db, const QByteArray &token, const QByteArray &price,
                        const QList<std::pair<QString, QString>> &decisions,
                        const QList<QByteArray> &states = {"consumed", "sending", "created"})
    {
        auto carol = as(QStringLiteral("carol"), db);
        const QByteArray id = proposeRow(*carol, token, price);
        for (const auto &[role, decision] : decisions)
            if (decide(db, role, keyOf(role), id, decision).isEmpty())
                return {};
        return move(db, id, states) ? id : QByteArray();
    }

    QByteArray failLine(const QByteArray &id, const char *state)
    {
        return "FAIL: proposal " + id + " (" + state + ", proposed by carol): ";
    }

    QString absentPolicy() { return scratch.filePath(QStringLiteral("absent.json")); }

private slots:
    void init() { fbtest::failOnWarnings(); }

    void initTestCase()
    {
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        QVERIFY(scratch.isValid());
        aliceKey = *ApprovalKeys::generate();
        bobKey = *ApprovalKeys::generate();
        carolKey = *ApprovalKeys::generate();
        const QJsonArray quorum{
            QJsonObject{{QStringLiteral("above_monthly"),
                         QJsonObject{{QStringLiteral("amount"), 500},
                                     {QStringLiteral("currency"), QStringLiteral("USD")}}},
                        {QStringLiteral("approvals"), 2}},
            QJsonObject{{QStringLiteral("unpriced"), true}, {QStringLiteral("approvals"), 1}}};
        policyPath = scratch.filePath(QStringLiteral("policy.json"));
        QVERIFY(writeJson(
            policyPath,
            QJsonObject{
                {QStringLiteral("team"),
                 QJsonObject{{QStringLiteral("quorum"), quorum},
                             {QStringLiteral("approver_keys"),
                              QJsonArray{approverKeyJson(QStringLiteral("alice"), aliceKey),
                                         approverKeyJson(QStringLiteral("bob"), bobKey),
                                         approverKeyJson(QStringLiteral("carol"), carolKey)}}}}}));
    }

    void anHonestHistoryIsOk()
    {
        const QString db = fx.initializedDatabase();
        const QByteArray id = proposal(db, "tok-1", Price600,
                                       {{QStringLiteral("alice"), QStringLiteral("approve")},
                                        {QStringLiteral("bob"), QStringLiteral("approve")}});
        QVERIFY(!id.isEmpty());
        // Not creates: cancelled before sending, nobody approved it.
        QVERIFY(!proposal(db, "tok-2", Price600, {}, {"consumed", "cancelled"}).isEmpty());
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output), 0);
        QVERIFY2(output.contains("OK: team history: 1 create(s), every approval verified") &&
                     !output.contains("FAIL"),
                 output.constData());
    }

    void aCreateNobodyApprovedFails()
    {
        const QString db = fx.initializedDatabase();
        const QByteArray created = proposal(db, "tok-1", Price600, {});
        // failed once sent is a create too: it may have reached Fabric.
        const QByteArray failed = proposal(db, "tok-2", {}, {}, {"consumed", "sending", "failed"});
        QVERIFY(!created.isEmpty() && !failed.isEmpty());
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(has(output, failLine(created, "created") +
                                 "sent with 0 verified approval(s) from roles other than the "
                                 "proposer's; team.quorum requires 2 for it (USD 600"),
                 output.constData());
        QVERIFY2(has(output, failLine(failed, "failed") +
                                 "sent with 0 verified approval(s) from roles other than the "
                                 "proposer's; team.quorum requires 1 for it (unpriced)"),
                 output.constData());
        QVERIFY2(output.contains("BROKEN: team history: 2 failure(s)"), output.constData());
    }

    void aCreateApprovedOnlyByItsProposersRoleFails()
    {
        const QString db = fx.initializedDatabase();
        FB_SQL(*fx.super, "GRANT fabric_approvers TO carol"); // carol proposes and approves
        // Signed with a key the policy lists for carol: it verifies, and still never counts.
        const QByteArray id =
            proposal(db, "tok-1", {}, {{QStringLiteral("carol"), QStringLiteral("approve")}});
        FB_SQL(*fx.super, "REVOKE fabric_approvers FROM carol");
        QVERIFY(!id.isEmpty());
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(has(output, failLine(id, "created") +
                                 "sent with 0 verified approval(s) from roles other than the "
                                 "proposer's; team.quorum requires 1 for it (unpriced); not "
                                 "counted: carol: the proposer's own role"),
                 output.constData());
    }

    void fewerApprovalsThanTheQuorumFail()
    {
        const QString db = fx.initializedDatabase();
        const QByteArray id =
            proposal(db, "tok-1", Price600, {{QStringLiteral("alice"), QStringLiteral("approve")}},
                     {"consumed"});
        QVERIFY(!id.isEmpty());
        // bob's approval, unsigned (as his app without a key would write it): it never counts.
        auto bob = as(QStringLiteral("bob"), db);
        FB_SQL(*bob,
               "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256) VALUES "
               "($1, 'approve', sha256('bob saw'))",
               {id});
        auto carol = as(QStringLiteral("carol"), db);
        QVERIFY(move(db, id, {"sending", "created"}));
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(has(output, failLine(id, "created") +
                                 "sent with 1 verified approval(s) from roles other than the "
                                 "proposer's; team.quorum requires 2 for it (USD 600") &&
                     output.contains("bob: the approval is not signed"),
                 output.constData());
    }

    void aDeniedCreateFailsEvenWhenTheDenyIsDropped()
    {
        const QString db = fx.initializedDatabase();
        const QByteArray id = proposal(db, "tok-1", {},
                                       {{QStringLiteral("alice"), QStringLiteral("approve")},
                                        {QStringLiteral("bob"), QStringLiteral("deny")}});
        QVERIFY(!id.isEmpty());
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(has(output, failLine(id, "created") + "sent although bob denied it"),
                 output.constData());
        // The owner deletes the deny: the chain still holds it.
        auto owner = as(QStringLiteral("fb_owner"), db);
        FB_SQL(*owner, "DELETE FROM fabric_team.approvals WHERE approver = 'bob'");
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(has(output, failLine(id, "created") + "sent although bob denied it") &&
                     output.contains(QByteArray("records bob's deny of proposal " + id +
                                                ", but no approval row holds it")),
                 output.constData());
    }

    void aDroppedProposalFailsNamingIt()
    {
        const QString db = fx.initializedDatabase();
        const QByteArray kept =
            proposal(db, "tok-1", {}, {{QStringLiteral("alice"), QStringLiteral("approve")}});
        const QByteArray dropped = proposal(db, "tok-2", {}, {});
        QVERIFY(!kept.isEmpty() && !dropped.isEmpty());
        // Exported before: the bundle, edited to leave it out, fails offline too.
        const QString bundle = scratch.filePath(QStringLiteral("dropped.jsonl"));
        QByteArray output;
        QCOMPARE(verify({uri(db), QStringLiteral("--export"), bundle}, &output), 1);
        QByteArray edited;
        for (const QByteArray &line : readAll(bundle).split('\n'))
            if (!line.startsWith("{\"proposal\"") || !line.contains(dropped))
                edited += line + '\n';
        QVERIFY(writeAll(bundle, edited.chopped(1)));
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle}, &output), 1);
        QVERIFY2(output.contains(QByteArray("FAIL: proposal " + dropped +
                                            ": the team audit chain names it (first at seq ")) &&
                     output.contains("no proposal row has that id: the row was dropped"),
                 output.constData());
        // The schema owner deletes the create nobody approved from the table.
        auto owner = as(QStringLiteral("fb_owner"), db);
        FB_SQL(*owner, "DELETE FROM fabric_team.proposals WHERE id = $1", {dropped});
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(output.contains(
                     QByteArray("FAIL: proposal " + dropped + ": the team audit chain names it")) &&
                     output.contains("BROKEN: team history: 1 failure(s)"),
                 output.constData());
        // Within a --since window too; a window that begins later holds neither proposal.
        QCOMPARE(
            verify({uri(db), QStringLiteral("--since"), QStringLiteral("2000-01-01")}, &output), 1);
        QVERIFY2(output.contains(QByteArray("FAIL: proposal " + dropped + ": ")),
                 output.constData());
        QCOMPARE(
            verify({uri(db), QStringLiteral("--since"), QStringLiteral("2999-01-01")}, &output), 0);
    }

    void aStateChangedWithoutAChainEventFails()
    {
        const QString db = fx.initializedDatabase();
        const QByteArray id = proposal(db, "tok-1", Price600,
                                       {{QStringLiteral("alice"), QStringLiteral("approve")},
                                        {QStringLiteral("bob"), QStringLiteral("approve")}},
                                       {"consumed", "sending"});
        QVERIFY(!id.isEmpty());
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output), 0);
        // sending -> failed past the triggers: it would drop out of the team's day.
        auto owner = as(QStringLiteral("fb_owner"), db);
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals DISABLE TRIGGER USER");
        FB_SQL(*owner, "UPDATE fabric_team.proposals SET state = 'failed' WHERE id = $1", {id});
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals ENABLE TRIGGER USER");
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(has(output, failLine(id, "failed") +
                                 "the team audit chain has it sending (its last proposal_state "
                                 "event, seq ") &&
                     output.contains("a state changed without a chain event"),
                 output.constData());
    }

    void aBundleWithoutPolicyKeysIsUnverified()
    {
        const QString db = fx.initializedDatabase();
        const QByteArray id = proposal(db, "tok-1", Price600,
                                       {{QStringLiteral("alice"), QStringLiteral("approve")},
                                        {QStringLiteral("bob"), QStringLiteral("approve")}});
        QVERIFY(!id.isEmpty());
        const QString bundle = scratch.filePath(QStringLiteral("honest.jsonl"));
        QByteArray output;
        QCOMPARE(verify({uri(db), QStringLiteral("--export"), bundle}, &output), 0);
        // With the policy's keys: those, never the bundle's.
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle}, &output), 0);
        QVERIFY2(output.contains("verifying against the policy's team.approver_keys; the "
                                 "bundle's own 3 key(s) are not used") &&
                     output.contains("OK: bundle "),
                 output.constData());
        // Without: UNVERIFIED, and nothing says OK.
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle}, &output, absentPolicy()), 1);
        QVERIFY2(output.startsWith("UNVERIFIED: bundle ") && !output.contains("OK") &&
                     output.contains("--trust-bundle-keys"),
                 output.constData());
        // --trust-bundle-keys: the bundle's own keys, said so, with their fingerprints.
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle, QStringLiteral("--trust-bundle-keys")},
                        &output, absentPolicy()),
                 0);
        QVERIFY2(output.contains("note: --trust-bundle-keys") &&
                     output.contains(
                         ApprovalKeys::fingerprint(*ApprovalKeys::publicKeyOf(bobKey)).toUtf8()) &&
                     output.contains("every approval verified against the bundle's own keys "
                                     "(--trust-bundle-keys)"),
                 output.constData());
        // A create nobody approved fails with the bundle's keys as well.
        const QByteArray unapproved = proposal(db, "tok-2", {}, {});
        QCOMPARE(verify({uri(db), QStringLiteral("--export"), bundle}, &output), 1);
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle, QStringLiteral("--trust-bundle-keys")},
                        &output, absentPolicy()),
                 1);
        QVERIFY2(has(output, failLine(unapproved, "created") + "sent with 0 verified"),
                 output.constData());
        // --trust-bundle-keys is for a bundle alone.
        QCOMPARE(verify({uri(db), QStringLiteral("--trust-bundle-keys")}, &output), 2);
        QCOMPARE(verify({QStringLiteral("--help")}, &output), 0);
        QVERIFY2(output.contains("--trust-bundle-keys") && output.contains("team.quorum"),
                 output.constData());
    }

    void everyValueFromABundleIsPrintedEscaped()
    {
        const QString db = fx.initializedDatabase();
        QVERIFY(!proposal(db, "tok-1", {}, {{QStringLiteral("alice"), QStringLiteral("approve")}})
                     .isEmpty());
        const QString bundle = scratch.filePath(QStringLiteral("escaped.jsonl"));
        QByteArray output;
        QCOMPARE(verify({uri(db), QStringLiteral("--export"), bundle}, &output), 0);
        QByteArray text = readAll(bundle);
        QVERIFY(text.contains("\"proposer\":\"carol\""));
        text.replace("\"proposer\":\"carol\"",
                     "\"proposer\":\"carol\\u202e\\nOK: team history: 0 create(s)\\u0007\"");
        QVERIFY(writeAll(bundle, text));
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle}, &output), 1);
        QVERIFY2(!output.contains("\xE2\x80\xAE") && !output.contains('\a') &&
                     !output.contains("\nOK: team history") &&
                     output.contains("carol\\u202E\\nOK: team history: 0 create(s)\\u0007"),
                 output.constData());
    }
};

QTEST_GUILESS_MAIN(TstTeamVerifyHistory)
#include "tst_team_verify_history.moc"
