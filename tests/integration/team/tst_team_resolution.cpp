// Unknown outcomes resolved by a second person (issue #26, requirement 5; migration 005), on a
// real PostgreSQL 15 (a private cluster, TeamFixture.h), through TeamQueue as the apps use it.
// Covers: a create driven to `unknown` (beginSend, then finishSend "unknown"); the proposer's own
// UPDATE to created or not_created refused by the database's guard, the proposer's own resolve
// refused (a member of both groups), a proposer-only role's refused; a second approver's signed
// resolve(not_created) moves it, wakes the other apps, is read back (read, listOpen) and lands
// in the team audit chain as outcome_resolved, which still verifies; the team's day (003's
// begin_send) stops counting it while an unresolved unknown still counts; a second resolve is
// refused and nobody but the owner updates or deletes a resolution; a resolve(created) records
// the uuid; TeamVerify passes, from the database and from a bundle, and fails naming the row
// after a one-byte change in the stored statement (and passes again once restored).
#include "TeamFixture.h"
#include "TestEnvironment.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalVerify.h"
#include "team/TeamAudit.h"
#include "team/TeamQueue.h"
#include "team/TeamVerify.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace fbtest;
using namespace fb::team;
using namespace Qt::StringLiterals;

namespace {

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

const QString FoundUuid = u"3a58dd05-f46d-4b1d-a154-2e85c396ea62"_s;

} // namespace

namespace {

// team verify's failures but those of creates sent with no approval at all: this suite sends its
// creates through the queue alone (nobody approves them), which verify rightly reports (#34).
QStringList beyondUnapproved(const TeamVerifyReport &r)
{
    QStringList out;
    for (const QString &f : r.failures)
        if (!f.contains(u"sent with 0 verified approval(s)"_s))
            out << f;
    return out;
}

} // namespace

class TstTeamResolution : public QObject {
    Q_OBJECT

    TeamFixture fx;
    QString db;
    std::unique_ptr<PgConnection> owner;
    Operator alice = makeOperator(u"alice"_s);
    Operator bob = makeOperator(u"bob"_s);
    Operator dave = makeOperator(u"dave"_s);
    int tokens = 0;

    QList<fb::ApproverKey> policyKeys() const
    {
        return {alice.listed(), bob.listed(), dave.listed()};
    }

    std::unique_ptr<TeamQueue> queueAs(const QString &role)
    {
        auto q = std::make_unique<TeamQueue>(fx.cluster.uri(role, db),
                                             TeamIdentity{role, u"ws-"_s + role, {}});
        q->connection().reconnectDelayMs = 50;
        q->settleIntervalMs = 0;
        q->start();
        return q;
    }

    // (No raw string here: Qt 6.4's moc loses the class after R"(...-)".)
    // Publishes (at USD 100 a month) and consumes one proposal as the proposer q: the row.
    std::optional<TeamProposal> proposeAndConsume(TeamQueue &q)
    {
        const QByteArray token = "token-resolution-" + QByteArray::number(++tokens);
        const QByteArray request =
            QByteArray("{\"name\":\"vc-") + QByteArray::number(tokens) + "\"}";
        std::optional<QByteArray> id;
        bool done = false;
        q.publish(
            u"connection_create"_s, request, {{u"fabric_endpoint"_s, u"https://api.equinix.com"_s}},
            // The team's day counts the database's reading of the price (migration 006).
            QJsonObject{
                {u"priced"_s, true}, {u"monthly_recurring"_s, 100}, {u"currency"_s, u"USD"_s}},
            R"({"uuid":"dry","state":"DRAFT"})", sha(token), 600000,
            [&](const std::optional<QByteArray> &v, const QString &e) {
                if (!v)
                    qWarning("publish: %s", qUtf8Printable(e));
                id = v;
                done = true;
            },
            fb::Money{100, u"USD"_s});
        if (!QTest::qWaitFor([&] { return done; }, 10000) || !id)
            return std::nullopt;
        std::optional<TeamProposal> row;
        done = false;
        q.consume(sha(token), [&](const std::optional<TeamProposal> &p, const QString &e) {
            if (!p)
                qWarning("consume: %s", qUtf8Printable(e));
            row = p;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, 10000))
            return std::nullopt;
        return row;
    }

    // begin_send with the team's daily limit of USD 1000: what the team's day was before it.
    std::optional<double> beginSend(TeamQueue &q, const TeamProposal &row)
    {
        // bob's signed approval first: begin_send moves nothing no other role approved.
        const QByteArray id = row.id;
        const auto d = fb::team::signDecision(row, u"approve"_s, sha("bob's dialog"), u"bob"_s,
                                              bob.privateKey, QDateTime::currentMSecsSinceEpoch());
        auto bobSql = connectAs(fx.cluster, u"bob"_s, db);
        if (!d || !bobSql)
            return std::nullopt;
        bobSql->exec("INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256, "
                     "statement, signature, public_key) VALUES ($1::uuid, 'approve', "
                     "decode($2, 'hex'), $3, decode($4, 'hex'), decode($5, 'hex'))",
                     {id, sha("bob's dialog").toHex(), d->statement, d->signature.toHex(),
                      d->publicKey.toHex()});
        std::optional<TeamSendReply> reply;
        q.beginSend(id, fb::Money{1000, u"USD"_s}, [&](const TeamSendReply &r) { reply = r; });
        if (!QTest::qWaitFor([&] { return reply.has_value(); }, 10000) || !reply->moved) {
            qWarning("beginSend: %s", reply ? qUtf8Printable(reply->reason) : "no answer");
            return std::nullopt;
        }
        return reply->daySpent;
    }

    bool finishSend(TeamQueue &q, const QByteArray &id, const QString &outcome)
    {
        std::optional<bool> ok;
        bool done = false;
        q.finishSend(id, outcome, [&](const std::optional<bool> &v, const QString &e) {
            if (!v || !*v)
                qWarning("finishSend: %s", qUtf8Printable(e));
            ok = v;
            done = true;
        });
        return QTest::qWaitFor([&] { return done; }, 10000) && ok.value_or(false);
    }

    // A create of proposer q whose outcome is unknown.
    std::optional<TeamProposal> unknownCreate(TeamQueue &q)
    {
        auto row = proposeAndConsume(q);
        if (!row || !beginSend(q, *row) || !finishSend(q, row->id, u"unknown"_s))
            return std::nullopt;
        row->state = u"unknown"_s;
        return row;
    }

    // q's resolve, signed with key when given: (accepted, the refusal's text).
    std::pair<bool, QString> resolve(TeamQueue &q, const TeamProposal &p, const QString &outcome,
                                     const QString &uuid, const QByteArray &dialogText,
                                     const Operator *key)
    {
        std::optional<TeamQueue::Signature> signature;
        if (key) {
            const auto d = signResolution(p, outcome, uuid, sha(dialogText), key->role,
                                          key->privateKey, QDateTime::currentMSecsSinceEpoch());
            if (!d)
                return {false, u"signResolution failed"_s};
            signature = TeamQueue::Signature{d->statement, d->signature, d->publicKey};
        }
        std::optional<bool> ok;
        QString why;
        bool done = false;
        q.resolve(
            p.id, outcome, uuid, sha(dialogText),
            [&](const std::optional<bool> &v, const QString &e) {
                ok = v;
                why = e;
                done = true;
            },
            signature);
        if (!QTest::qWaitFor([&] { return done; }, 10000))
            return {false, u"no answer"_s};
        return {ok.value_or(false), why};
    }

    QByteArray stateOf(const QByteArray &id)
    {
        const auto s =
            owner->exec("SELECT state FROM fabric_team.proposals WHERE id = $1::uuid", {id});
        return s.ok() && s.value->rowCount() == 1 ? s.value->value(0, "state") : QByteArray();
    }

    std::optional<TeamQueue::Snapshot> read(TeamQueue &q, const QByteArray &id)
    {
        std::optional<TeamQueue::Snapshot> snapshot;
        bool done = false;
        q.read(id, [&](const std::optional<TeamQueue::Snapshot> &s, const QString &) {
            snapshot = s;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, 10000))
            qWarning("no answer");
        return snapshot;
    }

    std::optional<QList<TeamProposal>> listOpen(TeamQueue &q)
    {
        std::optional<QList<TeamProposal>> list;
        bool done = false;
        q.listOpen([&](const std::optional<QList<TeamProposal>> &l, const QString &) {
            list = l;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, 10000))
            qWarning("no answer");
        return list;
    }

    std::optional<TeamHistory> history()
    {
        QString why;
        auto h = TeamHistory::read(*owner, std::nullopt, &why);
        if (!h)
            qWarning("history: %s", qUtf8Printable(why));
        return h;
    }

private slots:
    void init() { fbtest::failOnWarnings(); }

    void initTestCase()
    {
        QVERIFY(!alice.publicKey.isEmpty() && !bob.publicKey.isEmpty());
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        FB_SQL(*fx.super, "GRANT fabric_approvers TO dave"); // dave proposes and approves
        owner = connectAs(fx.cluster, u"fb_owner"_s, db);
        QVERIFY(owner);
    }

    void resolvedBySecondPerson()
    {
        auto carolQ = queueAs(u"carol"_s);
        auto daveQ = queueAs(u"dave"_s);
        auto aliceQ = queueAs(u"alice"_s);
        auto bobQ = queueAs(u"bob"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carolQ->isAvailable() && daveQ->isAvailable() &&
                                     aliceQ->isAvailable() && bobQ->isAvailable(),
                                 10000);

        // Two creates of USD 100 a month whose outcome is unknown: dave's and carol's.
        const auto lost = unknownCreate(*daveQ);
        QVERIFY(lost);
        const auto other = unknownCreate(*carolQ);
        QVERIFY(other);
        QCOMPARE(stateOf(lost->id), QByteArray("unknown"));
        // Both count toward the team's day: a third send sees USD 200 (failed does not count).
        const auto probe = proposeAndConsume(*carolQ);
        QVERIFY(probe);
        QCOMPARE(beginSend(*carolQ, *probe).value_or(-1), 200.0);
        QVERIFY(finishSend(*carolQ, probe->id, u"failed"_s));

        // Every approver's app lists it, unresolved.
        auto open = listOpen(*aliceQ);
        QVERIFY(open);
        auto listed = std::find_if(open->cbegin(), open->cend(),
                                   [&](const TeamProposal &p) { return p.id == lost->id; });
        QVERIFY(listed != open->cend());
        QCOMPARE(listed->state, u"unknown"_s);
        QVERIFY(!listed->resolution);

        // The proposer cannot resolve its own unknown outcome: not with an UPDATE (no role may
        // write a state since migration 006),
        auto daveSql = connectAs(fx.cluster, u"dave"_s, db);
        QVERIFY(daveSql);
        FB_SQL_REFUSED(*daveSql, "42501",
                       "UPDATE fabric_team.proposals SET state = 'created' WHERE id = $1::uuid",
                       {lost->id});
        FB_SQL_REFUSED(*daveSql, "42501",
                       "UPDATE fabric_team.proposals SET state = 'not_created' WHERE id = $1::uuid",
                       {lost->id});
        // nor through a resolution of its own (dave is an approver too),
        auto [mine, mineWhy] = resolve(*daveQ, *lost, u"not_created"_s, {}, "dave's lookup", &dave);
        QVERIFY(!mine);
        QVERIFY2(mineWhy.contains(u"row-level security"_s), qPrintable(mineWhy));
        // and a proposer-only role resolves nothing at all.
        auto [carols, carolsWhy] =
            resolve(*carolQ, *other, u"not_created"_s, {}, "carol's", nullptr);
        QVERIFY(!carols);
        QVERIFY2(carolsWhy.contains(u"permission denied"_s), qPrintable(carolsWhy));
        // A resolution in another role's name (the column is the database's) is refused too.
        auto aliceSql = connectAs(fx.cluster, u"alice"_s, db);
        QVERIFY(aliceSql);
        FB_SQL_REFUSED(*aliceSql, "42501",
                       "INSERT INTO fabric_team.resolutions (proposal_id, resolver, outcome, "
                       "dialog_sha256) VALUES ($1::uuid, 'bob', 'not_created', "
                       "decode(repeat('00', 32), 'hex'))",
                       {lost->id});
        QCOMPARE(stateOf(lost->id), QByteArray("unknown"));

        // bob, another person, looked it up in the catalog and signs: not created.
        QSignalSpy aliceWoken(aliceQ.get(), &TeamQueue::proposalChanged);
        auto [resolved, resolvedWhy] = resolve(*bobQ, *lost, u"not_created"_s, {},
                                               "bob's dialog: no connection named vc-1", &bob);
        QVERIFY2(resolved, qPrintable(resolvedWhy));
        QCOMPARE(stateOf(lost->id), QByteArray("not_created"));
        QTRY_VERIFY_WITH_TIMEOUT(aliceWoken.contains(QVariantList{lost->id}), 10000);

        // What the apps read back: the snapshot and the list (resolved in the last day).
        const auto snapshot = read(*aliceQ, lost->id);
        QVERIFY(snapshot);
        QCOMPARE(snapshot->state, u"not_created"_s);
        QVERIFY(snapshot->resolution);
        QCOMPARE(snapshot->resolution->resolver, u"bob"_s);
        QCOMPARE(snapshot->resolution->outcome, u"not_created"_s);
        QVERIFY(snapshot->resolution->uuid.isEmpty());
        QCOMPARE(snapshot->resolution->osUser, u"bob"_s);
        QCOMPARE(snapshot->resolution->host, u"ws-bob"_s);
        QCOMPARE(snapshot->resolution->dialogSha256, sha("bob's dialog: no connection named vc-1"));
        QCOMPARE(snapshot->resolution->publicKey, bob.publicKey);
        QVERIFY(snapshot->resolution->resolvedMs > 0);
        QVERIFY(!snapshot->resolution->id.isEmpty());
        QVERIFY2(verifyResolution(*lost, *snapshot->resolution, policyKeys()).counts,
                 qPrintable(verifyResolution(*lost, *snapshot->resolution, policyKeys()).reason));
        open = listOpen(*aliceQ);
        QVERIFY(open);
        listed = std::find_if(open->cbegin(), open->cend(),
                              [&](const TeamProposal &p) { return p.id == lost->id; });
        QVERIFY(listed != open->cend());
        QCOMPARE(listed->state, u"not_created"_s);
        QVERIFY(listed->resolution);
        QCOMPARE(listed->resolution->id, snapshot->resolution->id);
        QCOMPARE(listed->resolution->statement, snapshot->resolution->statement);
        QVERIFY(std::any_of(open->cbegin(), open->cend(), [&](const TeamProposal &p) {
            return p.id == other->id && p.state == u"unknown" && !p.resolution;
        }));

        // The team's day no longer counts it; the unresolved unknown still does.
        const auto next = proposeAndConsume(*carolQ);
        QVERIFY(next);
        QCOMPARE(beginSend(*carolQ, *next).value_or(-1), 100.0);
        QVERIFY(finishSend(*carolQ, next->id, u"failed"_s));

        // The team audit chain: outcome_resolved, then the move, and the chain verifies.
        const auto events =
            owner->exec("SELECT actor, event, detail FROM fabric_team.team_audit WHERE "
                        "proposal_id = $1::uuid ORDER BY seq DESC LIMIT 2",
                        {lost->id});
        QVERIFY(events.ok());
        QCOMPARE(events.value->value(1, "event"), QByteArray("outcome_resolved"));
        QCOMPARE(events.value->value(1, "actor"), QByteArray("bob"));
        const QJsonObject detail =
            QJsonDocument::fromJson(events.value->value(1, "detail")).object();
        QCOMPARE(detail.value("proposal_id").toString(), QString::fromLatin1(lost->id));
        QCOMPARE(detail.value("resolution_id").toString(),
                 QString::fromLatin1(snapshot->resolution->id));
        QCOMPARE(detail.value("outcome").toString(), u"not_created"_s);
        QVERIFY(detail.contains("uuid") && detail.value("uuid").isNull());
        QCOMPARE(detail.value("resolver").toString(), u"bob"_s);
        QCOMPARE(detail.value("statement_sha256").toString(),
                 QString::fromLatin1(sha(snapshot->resolution->statement).toHex()));
        QCOMPARE(events.value->value(0, "event"), QByteArray("proposal_state"));
        QCOMPARE(QJsonDocument::fromJson(events.value->value(0, "detail")).object(),
                 (QJsonObject{{u"from"_s, u"unknown"_s}, {u"to"_s, u"not_created"_s}}));
        const TeamAuditVerifyResult chain = TeamAudit::verify(*owner);
        QVERIFY2(chain.ok, qPrintable(chain.problem));

        // Once resolved, it stays so: a second resolve is refused, nobody but the owner may
        // change or remove the resolution.
        auto [again, againWhy] =
            resolve(*aliceQ, *lost, u"created"_s, FoundUuid, "alice's dialog", &alice);
        QVERIFY(!again);
        QVERIFY(!againWhy.isEmpty());
        FB_SQL_REFUSED(*aliceSql, "42501",
                       "UPDATE fabric_team.resolutions SET outcome = 'created' WHERE "
                       "proposal_id = $1::uuid",
                       {lost->id});
        auto bobSql = connectAs(fx.cluster, u"bob"_s, db);
        QVERIFY(bobSql);
        FB_SQL_REFUSED(*bobSql, "42501",
                       "DELETE FROM fabric_team.resolutions WHERE proposal_id = $1::uuid",
                       {lost->id});
        FB_SQL_REFUSED(*daveSql, "42501",
                       "UPDATE fabric_team.proposals SET state = 'created' WHERE id = $1::uuid",
                       {lost->id});

        // carol's unknown create: alice finds it and says created, with the uuid.
        auto [found, foundWhy] = resolve(*aliceQ, *other, u"created"_s, FoundUuid.toUpper(),
                                         "alice's dialog: found 3a58dd05-…", &alice);
        QVERIFY2(found, qPrintable(foundWhy));
        QCOMPARE(stateOf(other->id), QByteArray("created"));
        const auto created = read(*bobQ, other->id);
        QVERIFY(created && created->resolution);
        QCOMPARE(created->resolution->uuid, FoundUuid); // lower-cased, as signed
        // created without a uuid makes no row.
        const auto third = unknownCreate(*carolQ);
        QVERIFY(third);
        auto [noUuid, noUuidWhy] = resolve(*aliceQ, *third, u"created"_s, {}, "x", nullptr);
        QVERIFY(!noUuid);
        QVERIFY2(noUuidWhy.contains(u"check constraint"_s), qPrintable(noUuidWhy));
        QCOMPARE(stateOf(third->id), QByteArray("unknown"));

        // team verify's library: everything verifies, and the create lines say who resolved it.
        auto h = history();
        QVERIFY(h);
        QCOMPARE(h->resolutions.size(), 2);
        TeamVerifyReport report = verifyHistory(*h, policyKeys());
        // Since schema 6 a create is sent only with another role's approval, which these are
        // (signed): the whole history verifies.
        QVERIFY2(report.ok(), qPrintable(report.failures.join(u'\n')));
        const QString lostLine = report.creates.filter(QString::fromLatin1(lost->id)).value(0);
        QVERIFY2(lostLine.contains(u"not_created"_s) &&
                     lostLine.contains(u"resolved not_created by bob ["_s +
                                       ApprovalKeys::fingerprint(bob.publicKey) + u']'),
                 qPrintable(lostLine));
        const QString foundLine = report.creates.filter(QString::fromLatin1(other->id)).value(0);
        QVERIFY2(foundLine.contains(u"resolved created (uuid "_s + FoundUuid + u") by alice"_s),
                 qPrintable(foundLine));
        // The bundle holds the resolutions and verifies offline.
        QString why;
        const auto bundle = TeamHistory::fromBundle(h->toBundle(), &why);
        QVERIFY2(bundle, qPrintable(why));
        QCOMPARE(bundle->resolutions.size(), 2);
        report = verifyHistory(*bundle, policyKeys());
        QVERIFY2(beyondUnapproved(report).isEmpty(), qPrintable(report.failures.join(u'\n')));
        QCOMPARE(report.creates, verifyHistory(*h, policyKeys()).creates);

        // One byte changed in the stored statement (by the owner, who can): fails, naming the row.
        FB_SQL(*owner,
               "UPDATE fabric_team.resolutions SET statement = replace(statement, '\"bob\"', "
               "'\"bob \"') WHERE proposal_id = $1::uuid",
               {lost->id});
        h = history();
        QVERIFY(h);
        report = verifyHistory(*h, policyKeys());
        // Its signature, and the chain's record of the statement it held.
        QStringList failures = beyondUnapproved(report);
        QCOMPARE(failures.size(), 2);
        for (const QString &f : failures)
            QVERIFY2(f.startsWith(u"resolution "_s + QString::fromLatin1(snapshot->resolution->id) +
                                  u" (proposal "_s + QString::fromLatin1(lost->id) +
                                  u", bob, not_created)"_s),
                     qPrintable(f));
        FB_SQL(*owner,
               "UPDATE fabric_team.resolutions SET statement = replace(statement, '\"bob \"', "
               "'\"bob\"') WHERE proposal_id = $1::uuid",
               {lost->id});
        h = history();
        QVERIFY(h);
        report = verifyHistory(*h, policyKeys());
        QVERIFY2(beyondUnapproved(report).isEmpty(), qPrintable(report.failures.join(u'\n')));
        // A resolution the owner forges in the proposer's name (it bypasses the row-level
        // security) fails too, even signed with a key the policy lists for that role.
        const auto forged = signResolution(*third, u"not_created"_s, {}, sha("forged"), u"carol"_s,
                                           dave.privateKey, QDateTime::currentMSecsSinceEpoch());
        QVERIFY(forged);
        FB_SQL(*owner,
               "INSERT INTO fabric_team.resolutions (proposal_id, resolver, outcome, "
               "dialog_sha256, statement, signature, public_key) VALUES ($1::uuid, 'carol', "
               "'not_created', decode($2, 'hex'), $3, decode($4, 'hex'), decode($5, 'hex'))",
               {third->id, sha("forged").toHex(), forged->statement, forged->signature.toHex(),
                forged->publicKey.toHex()});
        QCOMPARE(stateOf(third->id), QByteArray("not_created"));
        h = history();
        QVERIFY(h);
        QList<fb::ApproverKey> keys = policyKeys();
        keys.append(
            fb::ApproverKey{u"carol"_s, ApprovalKeys::fingerprint(dave.publicKey), dave.publicKey});
        report = verifyHistory(*h, keys);
        failures = beyondUnapproved(report);
        QCOMPARE(failures.size(), 1);
        QVERIFY2(failures.at(0).contains(u"is the proposal's proposer"_s),
                 qPrintable(failures.at(0)));
        QVERIFY2(TeamAudit::verify(*owner).ok, "the chain still verifies");
    }
};

QTEST_GUILESS_MAIN(TstTeamResolution)
#include "tst_team_resolution.moc"
