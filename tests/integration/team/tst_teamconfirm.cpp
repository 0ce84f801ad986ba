// Signed approvals enforced where they count (issue #26, docs/team-signing.md), on a real
// PostgreSQL 15 (a private cluster, TeamFixture.h): the proposing broker's TeamConfirm with the
// policy's team.approver_keys counts an approval only when its signed statement verifies against
// the key listed for its role and names exactly this proposal, what its approver was shown and
// decided. Covers: a row forged by the schema owner (who can insert any row, but holds no listed
// key) and a statement signed over another dialog text never count and are reported (the
// approvalRejected signal, once, and approval_rejected in the team audit chain); an honest
// signed approval counts after them; a statement changed by the owner after the quorum was met
// stops the send (the approvals are verified again right before `sending`); without
// team.approver_keys nothing counts, signed or not (issue #34).
#include "TeamFixture.h"
#include "TestEnvironment.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalVerify.h"
#include "team/TeamConfirm.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

using namespace fbtest;
using namespace fb::team;
using namespace Qt::StringLiterals;

namespace {

const QByteArray Request = R"({"name":"vc-signed","type":"EVPL_VC"})";

QByteArray sha(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

struct Operator {
    QString role;
    QByteArray privateKey;
    QByteArray publicKey;
    fb::ApproverKey listed() const
    {
        return {role, ApprovalKeys::fingerprint(publicKey), publicKey};
    }
};

Operator makeOperator(const QString &role)
{
    Operator o{role, ApprovalKeys::generate().value_or(QByteArray()), {}};
    o.publicKey = ApprovalKeys::publicKeyOf(o.privateKey).value_or(QByteArray());
    return o;
}

} // namespace

class TstTeamSigned : public QObject {
    Q_OBJECT

    TeamFixture fx;
    QString db;
    std::unique_ptr<PgConnection> owner;
    Operator alice = makeOperator(u"alice"_s);
    Operator bob = makeOperator(u"bob"_s);
    Operator dave = makeOperator(u"dave"_s);
    Operator intruder = makeOperator(u"bob"_s); // the schema owner's own key, made for bob
    int tokens = 0;

    QList<fb::ApproverKey> policyKeys() const
    {
        return {alice.listed(), bob.listed(), dave.listed()};
    }

    std::unique_ptr<TeamQueue> queueAs(const QString &role, const QString &host)
    {
        auto q =
            std::make_unique<TeamQueue>(fx.cluster.uri(role, db), TeamIdentity{role, host, {}});
        q->connection().reconnectDelayMs = 50;
        q->setRecoversOwn(true);
        q->start();
        return q;
    }

    // Publishes and consumes one proposal as carol: the consumed row.
    std::optional<TeamProposal> proposeAndConsume(TeamQueue &carol)
    {
        const QByteArray token = "token-signed-" + QByteArray::number(++tokens);
        bool done = false;
        std::optional<QByteArray> id;
        carol.publish(u"connection_create"_s, Request,
                      {{u"fabric_endpoint"_s, u"https://api.equinix.com"_s}}, std::nullopt,
                      R"({"uuid":"dry","state":"DRAFT"})", sha(token), 60000,
                      [&](const std::optional<QByteArray> &v, const QString &e) {
                          if (!v)
                              qWarning("publish: %s", qUtf8Printable(e));
                          id = v;
                          done = true;
                      });
        if (!QTest::qWaitFor([&] { return done; }, 10000) || !id)
            return std::nullopt;
        std::optional<TeamProposal> row;
        done = false;
        carol.consume(sha(token), [&](const std::optional<TeamProposal> &p, const QString &e) {
            if (!p)
                qWarning("consume: %s", qUtf8Printable(e));
            row = p;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, 10000))
            return std::nullopt;
        return row;
    }

    // What the approver's dialog records: the decision, the text's SHA-256 and, when key is
    // given, the statement signed over dialogText (which may differ from what the row says).
    bool decide(TeamQueue &q, const TeamProposal &p, const QString &decision,
                const QByteArray &rowDialogText, const Operator *key = nullptr,
                const QByteArray &signedDialogText = {})
    {
        std::optional<TeamQueue::Signature> signature;
        if (key) {
            const auto d = signDecision(
                p, decision, sha(signedDialogText.isEmpty() ? rowDialogText : signedDialogText),
                key->role, key->privateKey, QDateTime::currentMSecsSinceEpoch());
            if (!d)
                return false;
            signature = TeamQueue::Signature{d->statement, d->signature, d->publicKey};
        }
        std::optional<bool> ok;
        bool done = false;
        q.decide(
            p.id, decision, sha(rowDialogText),
            [&](const std::optional<bool> &v, const QString &e) {
                if (!v)
                    qWarning("decide: %s", qUtf8Printable(e));
                ok = v;
                done = true;
            },
            signature);
        return QTest::qWaitFor([&] { return done; }, 10000) && ok.value_or(false);
    }

    QList<QJsonObject> rejectionsInTheChain(const QByteArray &id)
    {
        QList<QJsonObject> out;
        const auto r = owner->exec("SELECT actor, detail FROM fabric_team.team_audit WHERE event = "
                                   "'approval_rejected' AND proposal_id = $1::uuid ORDER BY seq",
                                   {id});
        if (!r.ok())
            return out;
        for (int i = 0; i < r.value->rowCount(); ++i) {
            QJsonObject o = QJsonDocument::fromJson(r.value->value(i, "detail")).object();
            o.insert(u"actor"_s, QString::fromUtf8(r.value->value(i, "actor")));
            out << o;
        }
        return out;
    }

    QByteArray stateOf(const QByteArray &id)
    {
        const auto s =
            owner->exec("SELECT state FROM fabric_team.proposals WHERE id = $1::uuid", {id});
        return s.ok() && s.value->rowCount() == 1 ? s.value->value(0, "state") : QByteArray();
    }

private slots:
    void init()
    {
        fbtest::failOnWarnings(
            {QStringLiteral("proposal \\S+ left behind by a crash: "),
             QStringLiteral("proposal \\S+ approval \\S+ by \\w+ does not count: ")});
    }

    void initTestCase()
    {
        QVERIFY(!alice.publicKey.isEmpty() && !intruder.publicKey.isEmpty());
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        FB_SQL(*fx.super, "GRANT fabric_approvers TO dave");
        owner = connectAs(fx.cluster, u"fb_owner"_s, db);
        QVERIFY(owner);
    }

    // The pure count: with keys, only a verified approval counts, and the others say why.
    void countVerifiedQuorumIsPure()
    {
        TeamProposal p;
        p.id = "11111111-2222-4333-8444-555555555555";
        p.changeType = u"connection_create"_s;
        p.request = Request;
        p.requestSha256 = sha(Request).toHex();
        p.dryRun = R"({"uuid":"dry"})";
        p.proposer = u"carol"_s;
        p.osUser = u"carol"_s;
        p.host = u"ws-carol"_s;
        p.tokenSha256 = sha("token").toHex(); // every row has one; version 2 signs it
        p.expiresMs = QDateTime::currentMSecsSinceEpoch() + 60000;
        const auto d = signDecision(p, u"approve"_s, sha("shown"), u"alice"_s, alice.privateKey,
                                    QDateTime::currentMSecsSinceEpoch());
        QVERIFY(d);
        TeamApproval signedOne{u"alice"_s, u"approve"_s, u"alice"_s, u"ws-alice"_s};
        signedOne.id = "a1";
        signedOne.dialogSha256 = sha("shown");
        signedOne.statement = d->statement;
        signedOne.signature = d->signature;
        signedOne.publicKey = d->publicKey;
        TeamApproval unsignedOne{u"bob"_s, u"approve"_s, u"bob"_s, u"ws-bob"_s};
        unsignedOne.id = "b1";
        unsignedOne.dialogSha256 = sha("shown");

        // Without keys (team.approver_keys unset): both count.
        QCOMPARE(countVerifiedQuorum(p, {signedOne, unsignedOne}, 2, std::nullopt).counted,
                 (QStringList{u"alice"_s, u"bob"_s}));
        // With keys: only the signed one; the other is listed with its reason.
        const QuorumCount q = countVerifiedQuorum(p, {signedOne, unsignedOne}, 2, policyKeys());
        QCOMPARE(q.counted, QStringList{u"alice"_s});
        QVERIFY(!q.met());
        QCOMPARE(q.notCounted.size(), 1);
        const QJsonObject why = q.notCounted.at(0).toObject();
        QCOMPARE(why.value("approval_id").toString(), u"b1"_s);
        QCOMPARE(why.value("rejected").toBool(), true);
        QCOMPARE(why.value("why").toString(), u"the approval is not signed"_s);
        // An empty list (a user's file that removed every key): nothing counts.
        QVERIFY(countVerifiedQuorum(p, {signedOne}, 1, QList<fb::ApproverKey>{}).counted.isEmpty());
        // A deny needs no signature to end it: refusing is always safe.
        TeamApproval deny = unsignedOne;
        deny.decision = u"deny"_s;
        QCOMPARE(countVerifiedQuorum(p, {signedOne, deny}, 1, policyKeys()).deniedBy, u"bob"_s);
    }

    void forgedAndMisboundApprovalsDoNotCountAndAreReported()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        auto aliceQ = queueAs(u"alice"_s, u"ws-alice"_s);
        auto daveQ = queueAs(u"dave"_s, u"ws-dave"_s);
        QTRY_VERIFY_WITH_TIMEOUT(
            carol->isAvailable() && aliceQ->isAvailable() && daveQ->isAvailable(), 10000);
        const auto row = proposeAndConsume(*carol);
        QVERIFY(row);
        TeamConfirm confirm(carol.get(), *row, 1);
        confirm.setApproverKeys(policyKeys());
        QSignalSpy decided(&confirm, &TeamConfirm::decided);
        QSignalSpy rejected(&confirm, &TeamConfirm::approvalRejected);
        confirm.start();

        // The schema owner inserts an approval as bob, with a statement exactly right for this
        // proposal but signed with the owner's own key (the only kind it can make).
        const auto forged = signDecision(*row, u"approve"_s, sha("what bob saw"), u"bob"_s,
                                         intruder.privateKey, QDateTime::currentMSecsSinceEpoch());
        QVERIFY(forged);
        FB_SQL(*owner,
               "INSERT INTO fabric_team.approvals (proposal_id, approver, decision, dialog_sha256, "
               "os_user, host, statement, signature, public_key) VALUES ($1::uuid, 'bob', "
               "'approve', decode($2, 'hex'), 'bob', 'ws-bob', $3, decode($4, 'hex'), decode($5, "
               "'hex'))",
               {row->id, sha("what bob saw").toHex(), forged->statement, forged->signature.toHex(),
                forged->publicKey.toHex()});
        QTRY_COMPARE_WITH_TIMEOUT(rejected.size(), 1, 10000);
        QCOMPARE(rejected.at(0).at(0).value<TeamApproval>().approver, u"bob"_s);
        QVERIFY2(rejected.at(0).at(1).toString().contains(u"not list"_s) ||
                     rejected.at(0).at(1).toString().contains(u"invalid"_s),
                 qPrintable(rejected.at(0).at(1).toString()));
        QTRY_COMPARE_WITH_TIMEOUT(rejectionsInTheChain(row->id).size(), 1, 10000);
        const QJsonObject reported = rejectionsInTheChain(row->id).at(0);
        QCOMPARE(reported.value("approver").toString(), u"bob"_s);
        QCOMPARE(reported.value("actor").toString(), u"carol"_s); // the proposing broker's role
        QVERIFY(!reported.value("approval_id").toString().isEmpty());
        // What the approvers' apps read.
        std::optional<QJsonArray> shown;
        aliceQ->rejections(row->id, [&](const auto &v, const QString &) { shown = v; });
        QTRY_VERIFY_WITH_TIMEOUT(shown.has_value(), 10000);
        QCOMPARE(shown->size(), 1);
        QCOMPARE(shown->at(0).toObject().value("approver").toString(), u"bob"_s);

        // alice signs, with her listed key, a statement over another text than the row's.
        QVERIFY(
            decide(*aliceQ, *row, u"approve"_s, "the dialog's text", &alice, "some other text"));
        QTRY_COMPARE_WITH_TIMEOUT(rejected.size(), 2, 10000);
        QCOMPARE(rejected.at(1).at(1).toString(),
                 u"the statement's dialog_sha256 is not the row's dialog text"_s);
        QTest::qWait(300);
        QVERIFY(decided.isEmpty());
        QCOMPARE(stateOf(row->id), QByteArray("consumed"));
        // Each is reported once, however often the approvals are read again.
        QCOMPARE(rejectionsInTheChain(row->id).size(), 2);

        // dave's honest signed approval counts.
        QVERIFY(decide(*daveQ, *row, u"approve"_s, "dave's dialog", &dave));
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        QCOMPARE(decided.at(0).at(0).value<TeamConfirm::Verdict>(), TeamConfirm::Verdict::Met);
        QCOMPARE(confirm.count().counted, QStringList{u"dave"_s});
        QCOMPARE(rejected.size(), 2);
        int sends = 0;
        confirm.beginSend([&](bool may, const QString &why) {
            QVERIFY2(may, qPrintable(why));
            ++sends;
        });
        QTRY_COMPARE_WITH_TIMEOUT(sends, 1, 10000);
        QCOMPARE(stateOf(row->id), QByteArray("sending"));
        bool recorded = false;
        confirm.finish(true, [&](bool ok) { recorded = ok; });
        QTRY_VERIFY_WITH_TIMEOUT(recorded, 10000);
    }

    void aStatementChangedAfterTheQuorumStopsTheSend()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        auto aliceQ = queueAs(u"alice"_s, u"ws-alice"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && aliceQ->isAvailable(), 10000);
        const auto row = proposeAndConsume(*carol);
        QVERIFY(row);
        TeamConfirm confirm(carol.get(), *row, 1);
        confirm.setApproverKeys(policyKeys());
        QSignalSpy decided(&confirm, &TeamConfirm::decided);
        QSignalSpy rejected(&confirm, &TeamConfirm::approvalRejected);
        confirm.start();
        QVERIFY(decide(*aliceQ, *row, u"approve"_s, "alice's dialog", &alice));
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        QCOMPARE(decided.at(0).at(0).value<TeamConfirm::Verdict>(), TeamConfirm::Verdict::Met);
        // Between the quorum and the send, the owner rewrites the statement (one character).
        FB_SQL(*owner,
               "UPDATE fabric_team.approvals SET statement = replace(statement, '\"approve\"', "
               "'\"approve \"') WHERE proposal_id = $1::uuid",
               {row->id});
        std::optional<QString> refusal;
        confirm.beginSend([&](bool may, const QString &why) { refusal = may ? QString() : why; });
        QTRY_VERIFY_WITH_TIMEOUT(refusal.has_value(), 10000);
        QVERIFY2(refusal->contains(u"no longer verify right before sending"_s),
                 qPrintable(*refusal));
        QCOMPARE(stateOf(row->id), QByteArray("consumed")); // nothing was committed as sending
        QCOMPARE(rejected.size(), 1);
        QVERIFY2(rejected.at(0).at(1).toString().contains(u"invalid"_s),
                 qPrintable(rejected.at(0).at(1).toString()));
    }

    // The statement's expires_at (docs/team-signing.md): the database's microseconds rounded to
    // the nearest millisecond, 500 µs up, as the app reads it; never truncated.
    void expiresAtIsRoundedToTheMillisecond_data()
    {
        QTest::addColumn<int>("micros");
        QTest::addColumn<QString>("suffix");
        QTest::newRow("499 us down") << 123499 << u".123Z"_s;
        QTest::newRow("500 us up") << 123500 << u".124Z"_s;
        QTest::newRow("999 us up") << 999999 << u".000Z"_s;
    }
    void expiresAtIsRoundedToTheMillisecond()
    {
        QFETCH(int, micros);
        QFETCH(QString, suffix);
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        auto aliceQ = queueAs(u"alice"_s, u"ws-alice"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && aliceQ->isAvailable(), 10000);
        const auto row = proposeAndConsume(*carol);
        QVERIFY(row);
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals DISABLE TRIGGER USER");
        const auto set = owner->exec(
            "UPDATE fabric_team.proposals SET expires_at = date_trunc('second', now()) + "
            "interval '30 seconds' + $2::bigint * interval '1 microsecond' WHERE id = $1::uuid "
            "RETURNING (extract(epoch FROM expires_at) * 1000000)::bigint AS us",
            {row->id, QByteArray::number(micros)});
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals ENABLE TRIGGER USER");
        QVERIFY2(set.ok() && set.value->rowCount() == 1, qPrintable(set.error.text()));
        const qint64 us = set.value->value(0, "us").toLongLong();
        std::optional<TeamProposal> listed;
        aliceQ->listOpen([&](const std::optional<QList<TeamProposal>> &l, const QString &) {
            for (const TeamProposal &p : l.value_or(QList<TeamProposal>{}))
                if (p.id == row->id)
                    listed = p;
        });
        QTRY_VERIFY_WITH_TIMEOUT(listed.has_value(), 10000);
        QCOMPARE(listed->expiresMs, statementExpiryMs(us));
        const auto d = signDecision(*listed, u"approve"_s, sha("text"), alice.role,
                                    alice.privateKey, QDateTime::currentMSecsSinceEpoch());
        QVERIFY(d);
        const auto st = ApprovalStatement::parse(d->statement, nullptr);
        QVERIFY(st);
        QVERIFY2(statementTime(st->expiresMs).endsWith(suffix),
                 qPrintable(statementTime(st->expiresMs)));
    }

    // Issue #34: an unsigned approval never counts, in any configuration. Without keys (the
    // policy lists none) nothing counts: the confirm waits and ends at the expiry.
    void withoutApproverKeysNothingCounts()
    {
        auto carol = queueAs(u"carol"_s, u"ws-carol"_s);
        auto aliceQ = queueAs(u"alice"_s, u"ws-alice"_s);
        auto bobQ = queueAs(u"bob"_s, u"ws-bob"_s);
        QTRY_VERIFY_WITH_TIMEOUT(
            carol->isAvailable() && aliceQ->isAvailable() && bobQ->isAvailable(), 10000);
        const auto row = proposeAndConsume(*carol);
        QVERIFY(row);
        TeamConfirm confirm(carol.get(), *row, 1);
        QSignalSpy decided(&confirm, &TeamConfirm::decided);
        QSignalSpy progress(&confirm, &TeamConfirm::progress);
        confirm.start();
        QVERIFY(decide(*aliceQ, *row, u"approve"_s, "alice's dialog", &alice)); // signed
        QVERIFY(decide(*bobQ, *row, u"approve"_s, "bob's dialog"));             // unsigned
        QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty(), 10000);
        QTest::qWait(1000); // both decisions' wake-ups read
        QVERIFY(decided.isEmpty());
        QCOMPARE(confirm.count().counted.size(), 0);
        bool sent = true;
        QString why;
        confirm.beginSend([&](bool may, const QString &reason) {
            sent = may;
            why = reason;
        });
        QVERIFY(!sent);
        QVERIFY2(!why.isEmpty(), "refused without a reason");
    }
};

QTEST_GUILESS_MAIN(TstTeamSigned)
#include "tst_teamconfirm.moc"
