// The team queue on a real PostgreSQL 15 (a private cluster, TeamFixture.h): two proposing
// brokers and an approver's app in one process, each with its own asynchronous connection
// (TeamQueue over PgAsync), the approver's decisions made through TeamQueue::decide as the
// approver app's dialog does. Covers the one-winner consume, the quorum rules (distinct roles,
// the proposer's own role and OS user never count, the client's acknowledgement never counts,
// any deny ends it), the NOTIFY wake-up, the database lost mid-wait (the wait goes on and
// completes), the team's day counted in the database, `sending` committed before the send, and
// `unknown` after a crash (settled by the proposer's next start, or by anyone once the sending
// session is gone).
#include "TeamFixture.h"
#include "team/ApprovalVerify.h"
#include "team/TeamConfirm.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace fbtest;
using namespace fb::team;
using namespace Qt::StringLiterals;

namespace {

const QByteArray Request = R"({"name":"vc-1","type":"EVPL_VC"})";

QByteArray sha(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

QJsonObject priced(double monthly, const QString &currency = u"USD"_s)
{
    return {{u"priced"_s, true}, {u"currency"_s, currency}, {u"monthly_recurring"_s, monthly}};
}

} // namespace

class TstTeamQueue : public QObject {
    Q_OBJECT

private:
    TeamFixture fx;
    QString db;

    std::unique_ptr<TeamQueue> queueAs(const QString &role, const QString &osUser,
                                       const QString &host)
    {
        auto q = std::make_unique<TeamQueue>(fx.cluster.uri(role, db),
                                             TeamIdentity{osUser, host, u"test-client 1.0"_s});
        q->connection().reconnectDelayMs = 50;
        q->setRecoversOwn(true);
        q->start();
        return q;
    }

    // Publishes one proposal as q; returns its id (empty on failure).
    QByteArray publish(TeamQueue &q, const QByteArray &token,
                       const std::optional<QJsonObject> &price, qint64 ttlMs = 60000)
    {
        std::optional<QByteArray> id;
        QString error;
        bool done = false;
        q.publish(u"connection_create"_s, Request,
                  {{u"fabric_endpoint"_s, u"https://api.equinix.com"_s}}, price, R"({"uuid":"x"})",
                  sha(token), ttlMs, [&](const std::optional<QByteArray> &v, const QString &e) {
                      id = v;
                      error = e;
                      done = true;
                  });
        if (!QTest::qWaitFor([&] { return done; }, 10000) || !id) {
            qWarning("publish: %s", qUtf8Printable(error));
            return {};
        }
        return *id;
    }

    std::optional<TeamProposal> consume(TeamQueue &q, const QByteArray &token,
                                        QString *error = nullptr)
    {
        std::optional<TeamProposal> row;
        bool done = false;
        q.consume(sha(token), [&](const std::optional<TeamProposal> &p, const QString &e) {
            row = p;
            if (error)
                *error = e;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, 10000))
            return std::nullopt;
        return row;
    }

    // Every approver's key; the confirms list them (only signed approvals count, issue #34).
    QMap<QString, TeamSigner> signers{{u"alice"_s, TeamSigner::make(u"alice"_s)},
                                      {u"bob"_s, TeamSigner::make(u"bob"_s)},
                                      {u"dave"_s, TeamSigner::make(u"dave"_s)}};
    QList<fb::ApproverKey> keys() const
    {
        QList<fb::ApproverKey> k;
        for (const TeamSigner &s : signers)
            k << s.listed();
        return k;
    }

    // The decision as the role's dialog records it: signed over the row it showed.
    bool decide(TeamQueue &q, const QByteArray &id, const QString &decision,
                QString *error = nullptr)
    {
        const auto r = owner->exec("SELECT " + fb::team::proposalColumns() +
                                       " FROM fabric_team.proposals WHERE id = $1::uuid",
                                   {id});
        if (!r.ok() || r.value->rowCount() != 1)
            return false;
        const std::optional<fb::team::TeamProposal> row = fb::team::proposalFromRow(*r.value, 0);
        if (!row)
            return false;
        const TeamSigner &signer = signers[q.role()];
        const auto d =
            fb::team::signDecision(*row, decision, sha("dialog text"), signer.role,
                                   signer.privateKey, QDateTime::currentMSecsSinceEpoch());
        if (!d)
            return false;
        std::optional<bool> ok;
        bool done = false;
        q.decide(
            id, decision, sha("dialog text"),
            [&](const std::optional<bool> &v, const QString &e) {
                ok = v;
                if (error)
                    *error = e;
                done = true;
            },
            TeamQueue::Signature{d->statement, d->signature, d->publicKey});
        return QTest::qWaitFor([&] { return done; }, 10000) && ok.value_or(false);
    }

    std::unique_ptr<PgConnection> owner;

    QByteArray stateOf(const QByteArray &id)
    {
        const auto s =
            owner->exec("SELECT state FROM fabric_team.proposals WHERE id = $1::uuid", {id});
        return s.ok() ? s.value->value(0, "state") : QByteArray();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        // dave both proposes and approves (docs/team.md's example team).
        FB_SQL(*fx.super, "GRANT fabric_approvers TO dave");
        owner = connectAs(fx.cluster, u"fb_owner"_s, db);
        QVERIFY(owner);
    }

    void quorumRulesArePure()
    {
        TeamProposal p;
        p.proposer = u"dave"_s;
        p.osUser = u"dave"_s;
        p.host = u"ws-1"_s;
        const QList<TeamApproval> list{
            {u"dave"_s, u"approve"_s, u"dave"_s, u"ws-2"_s},  // the proposer's own role
            {u"alice"_s, u"approve"_s, u"dave"_s, u"ws-1"_s}, // the proposing OS user and host
            {u"bob"_s, u"approve"_s, u"bob"_s, u"ws-3"_s},    // counts
            {u"bob"_s, u"approve"_s, u"bob"_s, u"ws-4"_s}};   // the same role again
        QuorumCount q = countQuorum(p, list, 2);
        QCOMPARE(q.counted, QStringList{u"bob"_s});
        QCOMPARE(q.notCounted.size(), 3);
        QVERIFY(!q.met());
        q = countQuorum(
            p, list + QList<TeamApproval>{{u"alice"_s, u"approve"_s, u"alice"_s, u"ws-5"_s}}, 2);
        QVERIFY(q.met());
        q = countQuorum(p,
                        {{u"bob"_s, u"approve"_s, u"bob"_s, u"ws-3"_s},
                         {u"dave"_s, u"deny"_s, u"dave"_s, u"ws-1"_s}},
                        1);
        QCOMPARE(q.deniedBy, u"dave"_s); // any deny ends it, the proposer's too
        QVERIFY(!q.met());
    }

    void consumeHasOneWinner()
    {
        auto a = queueAs(u"carol"_s, u"carol"_s, u"ws-1"_s);
        auto b = queueAs(u"carol"_s, u"carol"_s, u"ws-1"_s);
        QTRY_VERIFY_WITH_TIMEOUT(a->isAvailable() && b->isAvailable(), 10000);
        const QByteArray id = publish(*a, "token-once", priced(150));
        QVERIFY(!id.isEmpty());
        QCOMPARE(stateOf(id), QByteArray("pending"));
        // Both brokers confirm the same token at once: one row, one winner.
        int done = 0;
        QList<std::optional<TeamProposal>> rows;
        QStringList errors;
        for (TeamQueue *q : {a.get(), b.get()})
            q->consume(sha("token-once"),
                       [&](const std::optional<TeamProposal> &p, const QString &e) {
                           rows << p;
                           errors << e;
                           ++done;
                       });
        QTRY_COMPARE_WITH_TIMEOUT(done, 2, 10000);
        QCOMPARE(int(rows.at(0).has_value()) + int(rows.at(1).has_value()), 1);
        const TeamProposal &won = rows.at(0) ? *rows.at(0) : *rows.at(1);
        QCOMPARE(won.id, id);
        QCOMPARE(won.state, u"consumed"_s);
        QCOMPARE(won.proposer, u"carol"_s);
        QCOMPARE(won.request, Request);
        QCOMPARE(won.requestSha256, sha(Request).toHex());
        QCOMPARE(won.tokenSha256, sha("token-once").toHex());
        QVERIFY(won.price && won.price->value(u"monthly_recurring"_s).toDouble() == 150);
        QVERIFY(errors.join(u' ').contains(u"already used"_s));
        // A third try, and a token nobody minted, find nothing.
        QString error;
        QVERIFY(!consume(*a, "token-once", &error));
        QVERIFY(!consume(*a, "never-minted", &error));
        // Another proposer cannot consume carol's token (row-level security).
        auto dave = queueAs(u"dave"_s, u"dave"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(dave->isAvailable(), 10000);
        const QByteArray other = publish(*a, "carols-token", std::nullopt);
        QVERIFY(!consume(*dave, "carols-token"));
        QCOMPARE(stateOf(other), QByteArray("pending"));
    }

    void quorumWaitsForDistinctApproversWokenByNotify()
    {
        auto dave = queueAs(u"dave"_s, u"dave"_s, u"ws-1"_s);
        auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
        auto bob = queueAs(u"bob"_s, u"bob"_s, u"ws-3"_s);
        auto aliceAtDavesDesk = queueAs(u"alice"_s, u"dave"_s, u"ws-1"_s);
        QTRY_VERIFY_WITH_TIMEOUT(dave->isAvailable() && alice->isAvailable() &&
                                     bob->isAvailable() && aliceAtDavesDesk->isAvailable(),
                                 10000);
        const QByteArray id = publish(*dave, "token-600", priced(600));
        const auto row = consume(*dave, "token-600");
        QVERIFY(row);
        TeamConfirm confirm(dave.get(), *row, 2);
        confirm.setApproverKeys(keys());
        QSignalSpy decided(&confirm, &TeamConfirm::decided);
        QSignalSpy progress(&confirm, &TeamConfirm::progress);
        confirm.start();
        QTRY_COMPARE_WITH_TIMEOUT(progress.size(), 1, 10000);
        // The client's elicitation "accept" is the proposer's acknowledgement, not an approval.
        confirm.proposerAcknowledged();
        // dave approves his own proposal (he is an approver too): never counted.
        QVERIFY(decide(*dave, id, u"approve"_s));
        QTRY_COMPARE_WITH_TIMEOUT(progress.size(), 2, 10000); // woken by NOTIFY, re-read
        QVERIFY(confirm.count().counted.isEmpty());
        // alice approves from dave's OS account on dave's host: not counted either.
        QVERIFY(decide(*aliceAtDavesDesk, id, u"approve"_s));
        QTRY_COMPARE_WITH_TIMEOUT(progress.size(), 3, 10000);
        QVERIFY(confirm.count().counted.isEmpty());
        QCOMPARE(confirm.count().notCounted.size(), 2);
        // alice cannot decide twice (the database refuses it), so her role stays uncounted here;
        // bob on his own workstation counts, and one approval is not two.
        QString error;
        QVERIFY(!decide(*alice, id, u"approve"_s, &error));
        QVERIFY2(error.contains(u"23505"_s), qPrintable(error));
        QVERIFY(decide(*bob, id, u"approve"_s));
        QTRY_COMPARE_WITH_TIMEOUT(confirm.count().counted, QStringList{u"bob"_s}, 10000);
        QVERIFY(decided.isEmpty());
        QCOMPARE(confirm.count().toJson().value(u"proposer_acknowledged"_s), QJsonValue(true));
        QCOMPARE(stateOf(id), QByteArray("consumed"));
    }

    void secondApproverCompletesAndSendingIsCommittedFirst()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-1"_s);
        auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
        auto bob = queueAs(u"bob"_s, u"bob"_s, u"ws-3"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable() && bob->isAvailable(),
                                 10000);
        const QByteArray id = publish(*carol, "token-600b", priced(600));
        const auto row = consume(*carol, "token-600b");
        QVERIFY(row);
        TeamConfirm confirm(carol.get(), *row, 2);
        confirm.setApproverKeys(keys());
        QSignalSpy decided(&confirm, &TeamConfirm::decided);
        confirm.start();
        // The approver's app lists it.
        std::optional<QList<TeamProposal>> open;
        alice->listOpen([&](const auto &v, const QString &) { open = v; });
        QTRY_VERIFY_WITH_TIMEOUT(open.has_value(), 10000);
        QVERIFY(std::any_of(open->begin(), open->end(),
                            [&](const TeamProposal &p) { return p.id == id; }));
        QVERIFY(decide(*alice, id, u"approve"_s));
        QTest::qWait(200);
        QVERIFY(decided.isEmpty());
        QVERIFY(decide(*bob, id, u"approve"_s));
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        QCOMPARE(decided.at(0).at(0).value<TeamConfirm::Verdict>(), TeamConfirm::Verdict::Met);
        QCOMPARE(confirm.count().counted, (QStringList{u"alice"_s, u"bob"_s}));
        // The send: `sending` is in the database before the caller's first byte.
        int sends = 0;
        QByteArray stateAtSend;
        confirm.beginSend([&](bool may, const QString &why) {
            QVERIFY2(may, qPrintable(why));
            stateAtSend = stateOf(id);
            ++sends;
        });
        QTRY_COMPARE_WITH_TIMEOUT(sends, 1, 10000);
        QCOMPARE(stateAtSend, QByteArray("sending"));
        bool recorded = false;
        confirm.finish(true, [&](bool ok) { recorded = ok; });
        QTRY_VERIFY_WITH_TIMEOUT(recorded, 10000);
        QCOMPARE(stateOf(id), QByteArray("created"));
        // A late decision is refused: the proposal is finished.
        auto dave = queueAs(u"dave"_s, u"dave"_s, u"ws-9"_s);
        QTRY_VERIFY_WITH_TIMEOUT(dave->isAvailable(), 10000);
        QVERIFY(!decide(*dave, id, u"approve"_s));
    }

    void anyDenyEndsIt()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-1"_s);
        auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
        auto bob = queueAs(u"bob"_s, u"bob"_s, u"ws-3"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable() && bob->isAvailable(),
                                 10000);
        const QByteArray id = publish(*carol, "token-deny", priced(600));
        const auto row = consume(*carol, "token-deny");
        QVERIFY(row);
        TeamConfirm confirm(carol.get(), *row, 2);
        confirm.setApproverKeys(keys());
        QSignalSpy decided(&confirm, &TeamConfirm::decided);
        confirm.start();
        QVERIFY(decide(*alice, id, u"approve"_s));
        QVERIFY(decide(*bob, id, u"deny"_s));
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        QCOMPARE(decided.at(0).at(0).value<TeamConfirm::Verdict>(), TeamConfirm::Verdict::Denied);
        QVERIFY(decided.at(0).at(1).toString().contains(u"bob"_s));
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QByteArray("denied"), 10000);
        bool may = true;
        bool answered = false;
        confirm.beginSend([&](bool m, const QString &) {
            may = m;
            answered = true;
        });
        QVERIFY(answered && !may);
    }

    void databaseLostWhileWaitingWaitsOnAndCompletes()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-7"_s);
        auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);
        const QByteArray id = publish(*carol, "token-lost", std::nullopt);
        const auto row = consume(*carol, "token-lost");
        QVERIFY(row);
        auto confirm = std::make_unique<TeamConfirm>(carol.get(), *row, 1);
        confirm->setApproverKeys(keys());
        QSignalSpy decided(confirm.get(), &TeamConfirm::decided);
        QSignalSpy connection(confirm.get(), &TeamConfirm::connectionChanged);
        QSignalSpy availability(carol.get(), &TeamQueue::availabilityChanged);
        confirm->start();
        // The server ends carol's sessions (as a restart or a network cut does).
        FB_SQL(*fx.super, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                          "usename = 'carol'");
        QTRY_VERIFY_WITH_TIMEOUT(!connection.isEmpty(), 10000);
        QVERIFY(!connection.first().at(0).toString().isEmpty());
        // An approval made while the proposer is away is not lost ...
        QVERIFY(decide(*alice, id, u"approve"_s));
        // ... the queue comes back by itself, the held proposal is not cancelled by its recovery,
        // and the wait reads the decisions again.
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 15000);
        QCOMPARE(decided.at(0).at(0).value<TeamConfirm::Verdict>(), TeamConfirm::Verdict::Met);
        QCOMPARE(stateOf(id), QByteArray("consumed"));
        QVERIFY(availability.size() >= 2);
        QCOMPARE(availability.first().at(0).toBool(), false);
        int sends = 0;
        confirm->beginSend([&](bool may, const QString &why) {
            QVERIFY2(may, qPrintable(why));
            ++sends;
        });
        QTRY_COMPARE_WITH_TIMEOUT(sends, 1, 10000);
        bool recorded = false;
        confirm->finish(u"created"_s, [&](bool ok) { recorded = ok; });
        QTRY_VERIFY_WITH_TIMEOUT(recorded, 10000);
        QCOMPARE(stateOf(id), QByteArray("created"));
    }

    void abandonedConsumeIsCancelledOnReconnect()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-17"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        const QByteArray id = publish(*carol, "token-abandoned", std::nullopt);
        QVERIFY(consume(*carol, "token-abandoned"));
        // Nobody holds it (the broker answered its confirm): the next connect cancels it.
        FB_SQL(*fx.super, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                          "usename = 'carol'");
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QByteArray("cancelled"), 15000);
    }

    void teamDayIsCountedInTheDatabase()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-21"_s);
        auto dave = queueAs(u"dave"_s, u"dave"_s, u"ws-22"_s);
        auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(
            carol->isAvailable() && dave->isAvailable() && alice->isAvailable(), 10000);
        // A currency of its own, so the other cases' creates do not count.
        const fb::Money limit{1000, u"EUR"_s};
        auto ready = [&](TeamQueue &q, const QByteArray &token,
                         double monthly) -> std::unique_ptr<TeamConfirm> {
            std::optional<QByteArray> id;
            bool done = false;
            q.publish(
                u"connection_create"_s, Request, {}, priced(monthly, u"EUR"_s), "{}", sha(token),
                60000,
                [&](const std::optional<QByteArray> &v, const QString &) {
                    id = v;
                    done = true;
                },
                fb::Money{monthly, u"EUR"_s});
            if (!QTest::qWaitFor([&] { return done; }, 10000) || !id)
                return nullptr;
            const auto row = consume(q, token);
            if (!row || !decide(*alice, *id, u"approve"_s))
                return nullptr;
            auto c = std::make_unique<TeamConfirm>(&q, *row, 1);
            c->setApproverKeys(keys());
            return c;
        };
        auto first = ready(*carol, "day-1", 600);
        auto second = ready(*dave, "day-2", 600);
        QVERIFY(first && second);
        QSignalSpy d1(first.get(), &TeamConfirm::decided);
        QSignalSpy d2(second.get(), &TeamConfirm::decided);
        first->start();
        second->start();
        QTRY_VERIFY_WITH_TIMEOUT(d1.size() == 1 && d2.size() == 1, 10000);
        // Two workstations send at once: the team's day lets exactly one of them through.
        int may = 0;
        int refused = 0;
        QString why;
        for (TeamConfirm *c : {first.get(), second.get()})
            c->beginSend(limit, [&](bool m, const QString &reason) {
                m ? ++may : ++refused;
                if (!m)
                    why = reason;
            });
        QTRY_COMPARE_WITH_TIMEOUT(may + refused, 2, 10000);
        QCOMPARE(may, 1);
        QVERIFY2(why.contains(u"daily limit"_s), qPrintable(why));
        QVERIFY2(why.contains(u"600"_s), qPrintable(why));
    }

    void sendingLeftByADeadSessionBecomesUnknownForEveryone()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-31"_s);
        auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);
        const QByteArray id = publish(*carol, "token-orphan", priced(150));
        const auto row = consume(*carol, "token-orphan");
        QVERIFY(row);
        auto confirm = std::make_unique<TeamConfirm>(carol.get(), *row, 1);
        confirm->setApproverKeys(keys());
        QSignalSpy decided(confirm.get(), &TeamConfirm::decided);
        confirm->start();
        QVERIFY(decide(*alice, id, u"approve"_s));
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        bool may = false;
        confirm->beginSend([&](bool m, const QString &) { may = m; });
        QTRY_VERIFY_WITH_TIMEOUT(may, 10000);
        // While the sender's session lives, nobody settles it.
        alice->settleOrphans();
        QTest::qWait(300);
        QCOMPARE(stateOf(id), QByteArray("sending"));
        // The proposing process dies (its connection with it, never to come back).
        confirm.reset();
        carol.reset();
        alice->settleOrphans();
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QByteArray("unknown"), 10000);
        QVERIFY(!consume(*alice, "token-orphan"));
    }

    void unreachableDatabaseFailsClosed()
    {
        TeamQueue q(u"postgresql://carol@/nodb?host=/nonexistent-fb-dir&port=1"_s,
                    TeamIdentity{u"carol"_s, u"ws-1"_s, {}});
        q.connection().reconnectDelayMs = 10000;
        QSignalSpy availability(&q, &TeamQueue::availabilityChanged);
        q.start();
        QTRY_VERIFY_WITH_TIMEOUT(!availability.isEmpty(), 10000);
        QVERIFY(!q.isAvailable());
        QVERIFY(!q.unavailableReason().isEmpty());
        QString error;
        bool done = false;
        q.publish(u"connection_create"_s, Request, {}, std::nullopt, "{}", sha("t"), 60000,
                  [&](const std::optional<QByteArray> &id, const QString &e) {
                      QVERIFY(!id);
                      error = e;
                      done = true;
                  });
        QVERIFY(!done); // never completed inside the call
        QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
        QVERIFY2(error.contains(u"connect"_s), qPrintable(error));
        // A URI with a password is refused before any connection.
        TeamQueue withPassword(u"postgresql://carol:secret@/x"_s, TeamIdentity{});
        withPassword.start();
        QVERIFY(withPassword.unavailableReason().contains(u"password"_s));
        QVERIFY(!withPassword.unavailableReason().contains(u"secret"_s));
    }

    void aKeychainPasswordIsGivenToTheServerAndNeverShown()
    {
        FB_SQL(*fx.super,
               "CREATE ROLE erin LOGIN PASSWORD 'erin-pw-7731' IN ROLE fabric_approvers");
        QVERIFY2(fx.cluster.requirePasswordFor(u"erin"_s), qPrintable(fx.cluster.error()));
        // Without it the server refuses, and says so without any secret.
        TeamQueue without(fx.cluster.uri(u"erin"_s, db), TeamIdentity{u"erin"_s, u"ws-e"_s, {}});
        without.connection().reconnectDelayMs = 10000;
        QSignalSpy refused(&without, &TeamQueue::availabilityChanged);
        without.start();
        QTRY_VERIFY_WITH_TIMEOUT(!refused.isEmpty(), 10000);
        QVERIFY(!without.isAvailable());
        QVERIFY2(without.unavailableReason().contains(u"password"_s),
                 qPrintable(without.unavailableReason()));
        // With the password it connects; a wrong one is refused and never echoed.
        TeamQueue with(fx.cluster.uri(u"erin"_s, db), TeamIdentity{u"erin"_s, u"ws-e"_s, {}});
        with.setPassword(u"erin-pw-7731"_s);
        with.start();
        QTRY_VERIFY_WITH_TIMEOUT(with.isAvailable(), 10000);
        QVERIFY(with.isApprover() || QTest::qWaitFor([&] { return with.isApprover(); }, 5000));
        TeamQueue wrong(fx.cluster.uri(u"erin"_s, db), TeamIdentity{u"erin"_s, u"ws-e"_s, {}});
        wrong.connection().reconnectDelayMs = 10000;
        wrong.setPassword(u"not-erins-9920"_s);
        QSignalSpy wrongSpy(&wrong, &TeamQueue::availabilityChanged);
        wrong.start();
        QTRY_VERIFY_WITH_TIMEOUT(!wrongSpy.isEmpty(), 10000);
        QVERIFY(!wrong.isAvailable());
        QVERIFY(!wrong.unavailableReason().contains(u"not-erins-9920"_s));
    }

    void slowDatabaseFailsClosedWithoutBlocking()
    {
        auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-6"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        carol->connection().statementTimeoutMs = 300;
        // The event loop keeps turning while a statement waits on the server.
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&] { ++ticks; });
        ticker.start(10);
        std::optional<PgResult<PgRows>> slow;
        carol->connection().query("SELECT pg_sleep(2)", {},
                                  [&](const PgResult<PgRows> &r) { slow = r; });
        QSignalSpy availability(carol.get(), &TeamQueue::availabilityChanged);
        QTRY_VERIFY_WITH_TIMEOUT(slow.has_value(), 10000);
        QVERIFY(!slow->ok());
        QVERIFY2(slow->error.message.contains(u"did not answer within 300 ms"_s),
                 qPrintable(slow->error.message));
        QVERIFY(ticks >= 5);
        QVERIFY(!availability.isEmpty());
        QCOMPARE(availability.first().at(0).toBool(), false);
        // It reconnects by itself.
        carol->connection().statementTimeoutMs = 5000;
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
    }

    void fiftyProposalsFromThreeSessionsAreEachConsumedOnce()
    {
        std::vector<std::unique_ptr<TeamQueue>> sessions;
        for (int i = 0; i < 3; ++i)
            sessions.push_back(queueAs(u"carol"_s, u"carol"_s, u"ws-5%1"_s.arg(i)));
        QTRY_VERIFY_WITH_TIMEOUT(std::all_of(sessions.begin(), sessions.end(),
                                             [](const auto &q) { return q->isAvailable(); }),
                                 10000);
        int published = 0;
        for (int i = 0; i < 50; ++i) {
            TeamQueue &q = *sessions.at(static_cast<size_t>(i % 3));
            q.publish(u"connection_create"_s, Request, {}, priced(150), "{}",
                      sha("bulk-" + QByteArray::number(i)), 60000,
                      [&](const std::optional<QByteArray> &id, const QString &e) {
                          QVERIFY2(id, qPrintable(e));
                          ++published;
                      });
        }
        QTRY_COMPARE_WITH_TIMEOUT(published, 50, 20000);
        // Every token confirmed from all three sessions at once: each is consumed exactly once.
        QMap<QByteArray, int> wins;
        int answers = 0;
        for (int i = 0; i < 50; ++i) {
            for (const auto &q : sessions) {
                q->consume(sha("bulk-" + QByteArray::number(i)),
                           [&](const std::optional<TeamProposal> &p, const QString &) {
                               if (p)
                                   ++wins[p->tokenSha256];
                               ++answers;
                           });
            }
        }
        QTRY_COMPARE_WITH_TIMEOUT(answers, 150, 30000);
        QCOMPARE(wins.size(), 50);
        for (auto it = wins.begin(); it != wins.end(); ++it)
            QCOMPARE(it.value(), 1);
    }

    void crashAfterSendingLeavesUnknownNeverRetried()
    {
        QByteArray id;
        int sends = 0;
        {
            auto carol = queueAs(u"carol"_s, u"carol"_s, u"ws-8"_s);
            auto alice = queueAs(u"alice"_s, u"alice"_s, u"ws-2"_s);
            QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);
            id = publish(*carol, "token-crash", priced(150));
            const auto row = consume(*carol, "token-crash");
            QVERIFY(row);
            TeamConfirm confirm(carol.get(), *row, 1);
            confirm.setApproverKeys(keys());
            QSignalSpy decided(&confirm, &TeamConfirm::decided);
            confirm.start();
            QVERIFY(decide(*alice, id, u"approve"_s));
            QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
            confirm.beginSend([&](bool may, const QString &) { sends += may ? 1 : 0; });
            QTRY_COMPARE_WITH_TIMEOUT(sends, 1, 10000);
            QCOMPARE(stateOf(id), QByteArray("sending"));
            // The process dies here: no outcome is written.
        }
        QCOMPARE(stateOf(id), QByteArray("sending"));
        // The next start of that broker (same role, OS user, host) settles it as unknown.
        auto again = queueAs(u"carol"_s, u"carol"_s, u"ws-8"_s);
        QSignalSpy recovered(again.get(), &TeamQueue::recovered);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QByteArray("unknown"), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(recovered.size(), 1, 10000);
        QCOMPARE(recovered.at(0).at(1).toString(), u"unknown"_s);
        // Unknown is final for the send: the token cannot be consumed again.
        QVERIFY(!consume(*again, "token-crash"));
        QCOMPARE(sends, 1);
        // Everyone sees it.
        auto bob = queueAs(u"bob"_s, u"bob"_s, u"ws-3"_s);
        QTRY_VERIFY_WITH_TIMEOUT(bob->isAvailable(), 10000);
        std::optional<QList<TeamProposal>> open;
        bob->listOpen([&](const auto &v, const QString &) { open = v; });
        QTRY_VERIFY_WITH_TIMEOUT(open.has_value(), 10000);
        QVERIFY(std::any_of(open->begin(), open->end(), [&](const TeamProposal &p) {
            return p.id == id && p.state == u"unknown";
        }));
    }
};

QTEST_GUILESS_MAIN(TstTeamQueue)
#include "tst_team_queue.moc"
