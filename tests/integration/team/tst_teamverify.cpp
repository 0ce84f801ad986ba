// `fabric-broker team verify` on a real PostgreSQL 15 (a private cluster, TeamFixture.h), the
// binary spawned as an operator would run it: an honest signed history verifies (from the
// database and from an exported bundle, offline); a single byte changed in a stored statement, an
// approval the schema owner forged with SQL (unsigned, or signed with a key the policy does not
// list) and a signature replayed onto another proposal each fail, naming the row.
#include "TeamVerifyHarness.h"
#include "TestEnvironment.h"

#include <QTest>

using namespace fbtest;
using fb::Sha256;
using fb::team::ApprovalKeys;
using fb::team::ApprovalStatement;
using fb::team::TeamProposal;

namespace {

QByteArray propose(PgConnection &carol, const QByteArray &token)
{
    return proposeRow(carol, token);
}

const char *InsertSigned = InsertSignedApproval;

} // namespace

class TstTeamVerify : public QObject, private TeamVerifyHarness {
    Q_OBJECT

private:
    QByteArray aliceKey, bobKey;

    QByteArray approve(const QString &db, const QString &role, const QByteArray &key,
                       const QByteArray &id)
    {
        return decide(db, role, key, id);
    }

    // A database with one proposal carol made, alice and bob approved and carol created.
    QString honestHistory(QByteArray *proposalId, QByteArray *aliceRow)
    {
        const QString db = fx.initializedDatabase();
        auto carol = as(QStringLiteral("carol"), db);
        *proposalId = propose(*carol, "tok-1");
        *aliceRow = approve(db, QStringLiteral("alice"), aliceKey, *proposalId);
        approve(db, QStringLiteral("bob"), bobKey, *proposalId);
        move(db, *proposalId, {"consumed", "sending", "created"});
        return db;
    }

private slots:
    void init() { fbtest::failOnWarnings(); }

    void initTestCase()
    {
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        QVERIFY(scratch.isValid());
        aliceKey = *ApprovalKeys::generate();
        bobKey = *ApprovalKeys::generate();
        policyPath = scratch.filePath(QStringLiteral("policy.json"));
        QVERIFY(writeJson(
            policyPath,
            QJsonObject{
                {QStringLiteral("team"),
                 QJsonObject{{QStringLiteral("approver_keys"),
                              QJsonArray{approverKeyJson(QStringLiteral("alice"), aliceKey),
                                         approverKeyJson(QStringLiteral("bob"), bobKey)}}}}}));
    }

    void honestHistoryVerifiesAndExports()
    {
        QByteArray id, aliceRow;
        const QString db = honestHistory(&id, &aliceRow);
        QVERIFY(!aliceRow.isEmpty());
        QByteArray output;
        const QString bundle = scratch.filePath(QStringLiteral("bundle.jsonl"));
        QCOMPARE(verify({uri(db), QStringLiteral("--export"), bundle}, &output), 0);
        const QString alicePrint = ApprovalKeys::fingerprint(*ApprovalKeys::publicKeyOf(aliceKey));
        QVERIFY2(
            output.contains("OK: team history: 1 create(s)") &&
                output.contains(QByteArray("proposal " + id +
                                           " connection_create (created, proposed "
                                           "by carol")) &&
                output.contains(QByteArray("approved by alice [" + alicePrint.toUtf8() + "]")) &&
                output.contains("approved by bob [") &&
                output.contains(Sha256::hash("the dialog alice saw").toHex().left(16)),
            output.constData());
        // Offline: the bundle verifies with the policy's keys; without them it is UNVERIFIED
        // unless --trust-bundle-keys says to use its own (then it prints them to compare).
        QVERIFY2(verify({QStringLiteral("--bundle"), bundle}, &output) == 0 &&
                     output.contains("OK: bundle "),
                 output.constData());
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle}, &output,
                        scratch.filePath(QStringLiteral("absent.json"))),
                 1);
        QVERIFY2(output.startsWith("UNVERIFIED: bundle "), output.constData());
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle, QStringLiteral("--trust-bundle-keys")},
                        &output, scratch.filePath(QStringLiteral("absent.json"))),
                 0);
        QVERIFY2(output.contains("the bundle's own keys") && output.contains(alicePrint.toUtf8()),
                 output.constData());
        // One byte changed in the bundle's copy of a statement fails offline too.
        QFile f(bundle);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray text = f.readAll();
        f.close();
        const qsizetype at = text.indexOf("\\\"decision\\\":\\\"approve\\\"");
        QVERIFY(at > 0);
        text[at + 15] = 'A'; // approve -> Approve: the statement no longer parses or verifies
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
        f.close();
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle}, &output), 1);
        QVERIFY2(output.contains("FAIL: approval "), output.constData());
        // Nor can a bundle's request be changed under its recorded hash.
        text.replace("vc-1", "vc-2");
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
        f.close();
        QCOMPARE(verify({QStringLiteral("--bundle"), bundle}, &output), 1);
        QVERIFY2(output.contains("request_sha256 is not the SHA-256 of its request"),
                 output.constData());
        QVERIFY(QFile::remove(bundle));
        // --since after every proposal: nothing to report, nothing fails.
        QCOMPARE(
            verify({uri(db), QStringLiteral("--since"), QStringLiteral("2999-01-01")}, &output), 0);
        QVERIFY2(output.contains("0 create(s)"), output.constData());
    }

    void aSingleByteChangedInAStatementFailsNamingTheRow()
    {
        QByteArray id, aliceRow;
        const QString db = honestHistory(&id, &aliceRow);
        auto owner = as(QStringLiteral("fb_owner"), db);
        const auto before =
            owner->exec("SELECT statement FROM fabric_team.approvals WHERE id = $1", {aliceRow});
        QByteArray statement = before.value->value(0, "statement");
        QByteArray changed = statement;
        const qsizetype at = changed.indexOf("\"decided_at\":\"") + 14 + 22; // a millisecond digit
        changed[at] = changed[at] == '0' ? '1' : '0';
        FB_SQL(*owner, "UPDATE fabric_team.approvals SET statement = $2 WHERE id = $1",
               {aliceRow, changed});
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(output.contains(QByteArray("FAIL: approval " + aliceRow + " (proposal " + id +
                                            ", alice, approve): the signature is invalid")),
                 output.constData());
        // And the chain, which recorded the statement's hash with the decision, no longer agrees.
        QVERIFY2(output.contains(QByteArray("FAIL: approval " + aliceRow + " (proposal " + id +
                                            ", alice, approve): differs from its "
                                            "approval_recorded event (seq ")),
                 output.constData());
        QVERIFY2(output.contains("BROKEN: team history: 2 failure(s)"), output.constData());
        // That byte alone: put back, the history verifies again.
        FB_SQL(*owner, "UPDATE fabric_team.approvals SET statement = $2 WHERE id = $1",
               {aliceRow, statement});
        QCOMPARE(verify({uri(db)}, &output), 0);
    }

    void forgedApprovalsAreReported()
    {
        QByteArray id, aliceRow;
        const QString db = honestHistory(&id, &aliceRow);
        auto carol = as(QStringLiteral("carol"), db);
        const QByteArray second = propose(*carol, "tok-2");
        auto owner = as(QStringLiteral("fb_owner"), db);
        // The schema owner writes approvals in alice's and bob's names: one unsigned, one signed
        // with a key of its own (which the database would happily hold).
        FB_SQL(*owner,
               "INSERT INTO fabric_team.approvals (proposal_id, approver, decision, dialog_sha256) "
               "VALUES ($1, 'alice', 'approve', sha256('forged'))",
               {second});
        const QByteArray ownerKey = *ApprovalKeys::generate();
        const auto p = readProposal(*owner, second);
        QVERIFY(p);
        const ApprovalStatement s = statementFor(*p, QStringLiteral("bob"));
        const auto forged =
            owner->exec(InsertSigned, {second, "bob", "approve", s.dialogSha256, s.canonical(),
                                       ApprovalKeys::sign(ownerKey, s.canonical())->toHex(),
                                       ApprovalKeys::publicKeyOf(ownerKey)->toHex()});
        QVERIFY2(forged.ok(), qPrintable(forged.error.text()));
        const QByteArray forgedRow = forged.value->value(0, "id");
        // And replays alice's real signature of the first proposal onto the second.
        const auto replay = owner->exec(
            "INSERT INTO fabric_team.approvals (proposal_id, approver, decision, dialog_sha256, "
            "statement, signature, public_key) SELECT $2, 'dave', decision, dialog_sha256, "
            "statement, signature, public_key FROM fabric_team.approvals WHERE id = $1 "
            "RETURNING id",
            {aliceRow, second});
        QVERIFY2(replay.ok(), qPrintable(replay.error.text()));
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(output.contains(QByteArray("(proposal " + second +
                                            ", alice, approve): the approval is not "
                                            "signed")),
                 output.constData());
        QVERIFY2(output.contains(QByteArray(
                     "FAIL: approval " + forgedRow + " (proposal " + second +
                     ", bob, approve): signed with key " +
                     ApprovalKeys::fingerprint(*ApprovalKeys::publicKeyOf(ownerKey)).toUtf8() +
                     ", which the policy (team.approver_keys) does not list for "
                     "role bob")),
                 output.constData());
        QVERIFY2(output.contains(QByteArray("(proposal " + second + ", dave, approve): ")),
                 output.constData());
        QVERIFY2(output.contains("BROKEN: team history: 3 failure(s)"), output.constData());
        // The honest create is still reported as it was.
        QVERIFY2(output.contains("approved by alice ["), output.constData());
    }

    void replayedStatementUnderTheSameRoleIsReported()
    {
        QByteArray id, aliceRow;
        const QString db = honestHistory(&id, &aliceRow);
        auto carol = as(QStringLiteral("carol"), db);
        const QByteArray second = propose(*carol, "tok-2");
        auto owner = as(QStringLiteral("fb_owner"), db);
        FB_SQL(*owner,
               "INSERT INTO fabric_team.approvals (proposal_id, approver, decision, dialog_sha256, "
               "statement, signature, public_key) SELECT $2, approver, decision, dialog_sha256, "
               "statement, signature, public_key FROM fabric_team.approvals WHERE id = $1",
               {aliceRow, second});
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(output.contains(QByteArray("(proposal " + second +
                                            ", alice, approve): the statement is for "
                                            "another proposal (" +
                                            id + ")")),
                 output.constData());
    }

    // Migration 005: a create whose outcome was unknown, resolved not_created by bob (signed).
    void aResolvedUnknownCreateVerifiesAndExports()
    {
        const QString db = fx.initializedDatabase();
        auto carol = as(QStringLiteral("carol"), db);
        const QByteArray id = propose(*carol, "tok-1");
        QVERIFY(!approve(db, QStringLiteral("alice"), aliceKey, id).isEmpty());
        QVERIFY(walk(*carol, "tok-1", id, "unknown"));
        auto bob = as(QStringLiteral("bob"), db);
        const auto p = readProposal(*bob, id);
        QVERIFY(p);
        const QByteArray dialog = Sha256::hash("bob's lookup: nothing named vc-1");
        const auto signedBy = fb::team::signResolution(*p, QStringLiteral("not_created"), {},
                                                       dialog, QStringLiteral("bob"), bobKey,
                                                       QDateTime::currentMSecsSinceEpoch());
        QVERIFY(signedBy);
        const auto inserted = bob->exec(
            "INSERT INTO fabric_team.resolutions (proposal_id, outcome, dialog_sha256, statement, "
            "signature, public_key) VALUES ($1, 'not_created', decode($2, 'hex'), $3, "
            "decode($4, 'hex'), decode($5, 'hex')) RETURNING id",
            {id, dialog.toHex(), signedBy->statement, signedBy->signature.toHex(),
             signedBy->publicKey.toHex()});
        QVERIFY2(inserted.ok(), qPrintable(inserted.error.text()));
        const QByteArray resolution = inserted.value->value(0, "id");
        QByteArray output;
        const QString bundle = scratch.filePath(QStringLiteral("resolved.jsonl"));
        QCOMPARE(verify({uri(db), QStringLiteral("--export"), bundle}, &output), 0);
        const QString bobPrint = ApprovalKeys::fingerprint(*ApprovalKeys::publicKeyOf(bobKey));
        QVERIFY2(output.contains("OK: team history: 1 create(s)") &&
                     output.contains(QByteArray("proposal " + id +
                                                " connection_create (not_created, proposed by "
                                                "carol")) &&
                     output.contains("approved by alice [") &&
                     output.contains(
                         QByteArray("resolved not_created by bob [" + bobPrint.toUtf8() + "]")) &&
                     output.contains(dialog.toHex().left(16)),
                 output.constData());
        QVERIFY2(verify({QStringLiteral("--bundle"), bundle}, &output) == 0 &&
                     output.contains("resolved not_created by bob ["),
                 output.constData());
        QVERIFY(QFile::remove(bundle));
        // One byte of the stored statement changed by the owner: the row is named.
        auto owner = as(QStringLiteral("fb_owner"), db);
        FB_SQL(*owner,
               "UPDATE fabric_team.resolutions SET statement = replace(statement, "
               "'\"not_created\"', '\"not_createD\"') WHERE id = $1",
               {resolution});
        QCOMPARE(verify({uri(db)}, &output), 1);
        QVERIFY2(output.contains(QByteArray("FAIL: resolution " + resolution + " (proposal " + id +
                                            ", bob, not_created): the statement is invalid")),
                 output.constData());
    }

    void withoutPolicyKeysThereIsNothingToVerifyAgainst()
    {
        QByteArray id, aliceRow;
        const QString db = honestHistory(&id, &aliceRow);
        QByteArray output;
        QCOMPARE(verify({uri(db)}, &output, scratch.filePath(QStringLiteral("absent.json"))), 2);
        QVERIFY2(output.contains("sets no team.approver_keys"), output.constData());
    }
};

QTEST_GUILESS_MAIN(TstTeamVerify)
#include "tst_teamverify.moc"
