// Team mode on a real PostgreSQL 15 (issue #25): how soon another workstation's app sees a
// confirm that waits for it, and what a team confirm costs over a single-user one.
//
//   bench_team [--iterations N]     (default 200)
//
// A private cluster (tests/support/PgCluster, Debian's postgresql 15) with the team schema; a
// whole broker in this process (BrokerHarness: the embedded sandbox on loopback, the real
// FabricClient, an MCP session over an in-memory pipe) in team mode as carol; alice's "app" is a
// second TeamQueue on its own connection that does what TeamApprovalsDialog does: on every
// NOTIFY it lists the open proposals again (listOpen).
//
// visible:  from sending fabric_confirm_change to alice's listOpen returning the proposal as
//           `consumed` (waiting for her), woken by NOTIFY alone;
// team:     fabric_confirm_change from request to result, alice approving as soon as she sees it
//           (so it includes her NOTIFY, her read and her decision's round trip);
// single:   the same confirm without team mode, a local approver answering at once.
// Prints p50 and p90 of each. No assertion: bench/ is never a timed test.
#include "../tests/integration/broker/BrokerHarness.h"
#include "PgCluster.h"
#include "core/AuditLog.h"
#include "core/TeamPolicy.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalVerify.h"
#include "team/PgConnection.h"
#include "team/TeamQueue.h"
#include "team/TeamSchema.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

namespace {

using fb::team::TeamQueue;

class YesApprover : public fb::Approver {
public:
    QString channel() const override { return QStringLiteral("desktop"); }
    void requestApproval(fb::mcp::ToolCall *, const fb::ApprovalContext &,
                         std::function<void(const fb::HumanDecision &)> done) override
    {
        done(fb::HumanDecision{fb::HumanStatus::Accepted, QStringLiteral("desktop"),
                               QStringLiteral("bench"), QDateTime::currentMSecsSinceEpoch()});
    }
};

struct Stats {
    double p50 = 0, p90 = 0;
};

Stats stats(QList<double> ms)
{
    if (ms.isEmpty())
        return {};
    std::sort(ms.begin(), ms.end());
    return {ms.at(ms.size() / 2), ms.at(ms.size() * 9 / 10)};
}

bool setUp(fbtest::PgCluster &cluster, QString *db)
{
    if (!cluster.start()) {
        std::fprintf(stderr, "PostgreSQL: %s\n", qUtf8Printable(cluster.error()));
        return false;
    }
    auto super = fb::team::PgConnection::open(cluster.uri(fbtest::PgCluster::superuser()));
    if (!super.ok())
        return false;
    if (!(*super.value)
             ->execScript("CREATE ROLE fb_owner LOGIN CREATEROLE; CREATE ROLE alice LOGIN; "
                          "CREATE ROLE carol LOGIN;")
             .ok() ||
        !(*super.value)
             ->exec("CREATE DATABASE bench OWNER fb_owner ENCODING 'UTF8' TEMPLATE template0")
             .ok())
        return false;
    auto owner = fb::team::PgConnection::open(cluster.uri(QStringLiteral("fb_owner"), "bench"));
    if (!owner.ok() || !fb::team::TeamSchema::migrate(**owner.value).ok)
        return false;
    if (!(*super.value)
             ->execScript("GRANT fabric_approvers TO alice; GRANT fabric_proposers TO carol;")
             .ok())
        return false;
    *db = QStringLiteral("bench");
    return true;
}

QString proposeOne(fbtest::BrokerHarness &h, int i)
{
    const QJsonObject p =
        h.callTool("fabric_propose_change",
                   {{"change_type", "connection_create"},
                    {"spec", fbtest::BrokerHarness::connectionSpec(2000 + i % 1900)}});
    return p.value("structuredContent").toObject().value("confirm_token").toString();
}

int sendConfirm(fbtest::BrokerHarness &h, const QString &token)
{
    return h.startToolCall("fabric_confirm_change", {{"confirm_token", token}});
}

bool executed(fbtest::BrokerHarness &h, int id)
{
    return h.answerTo(id, 30000)
        .value("result")
        .toObject()
        .value("structuredContent")
        .toObject()
        .value("executed")
        .toBool();
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int iterations = 200;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i + 1 < args.size(); ++i)
        if (args.at(i) == u"--iterations")
            iterations = args.at(i + 1).toInt();
    iterations = std::clamp(iterations, 2, 1900);

    fbtest::PgCluster cluster;
    QString db;
    if (!setUp(cluster, &db))
        return 1;
    TeamQueue carol(cluster.uri(QStringLiteral("carol"), db),
                    fb::team::TeamIdentity{QStringLiteral("carol"), QStringLiteral("ws-1"), {}});
    carol.setRecoversOwn(true);
    TeamQueue alice(cluster.uri(QStringLiteral("alice"), db),
                    fb::team::TeamIdentity{QStringLiteral("alice"), QStringLiteral("ws-2"), {}});
    carol.start();
    alice.start();
    if (!QTest::qWaitFor([&] { return carol.isAvailable() && alice.isAvailable(); }, 20000)) {
        std::fprintf(stderr, "the team queues did not connect\n");
        return 1;
    }
    QTemporaryDir dir;

    // alice's approval key, listed in the proposing broker's team.approver_keys.
    const QByteArray aliceKey = fb::team::ApprovalKeys::generate().value_or(QByteArray());
    const QByteArray alicePublic =
        fb::team::ApprovalKeys::publicKeyOf(aliceKey).value_or(QByteArray());
    const QList<fb::ApproverKey> listedKeys{fb::ApproverKey{
        QStringLiteral("alice"), fb::team::ApprovalKeys::fingerprint(alicePublic), alicePublic}};

    // What her dialog does: the decision signed with her key (only signed approvals count).
    QHash<QByteArray, fb::team::TeamProposal> seenRows;
    auto decideSigned = [&](const fb::team::TeamProposal &p, const QString &decision) {
        const QByteArray text = QCryptographicHash::hash(p.id, QCryptographicHash::Sha256);
        const auto d = fb::team::signDecision(p, decision, text, QStringLiteral("alice"), aliceKey,
                                              QDateTime::currentMSecsSinceEpoch());
        if (d)
            alice.decide(
                p.id, decision, text, [](const auto &, const QString &) {},
                TeamQueue::Signature{d->statement, d->signature, d->publicKey});
    };

    // alice's app: on every NOTIFY, list again (as the dialog does); note when a waiting proposal
    // first appears, and (when approving) decide on it at once.
    bool approve = false;
    QElapsedTimer clock;
    QHash<QByteArray, qint64> seenAtNs;
    QList<QByteArray> seenOrder;
    QSet<QByteArray> decided;
    QObject::connect(&alice, &TeamQueue::proposalChanged, &alice, [&](const QByteArray &) {
        alice.listOpen(
            [&](const std::optional<QList<fb::team::TeamProposal>> &list, const QString &) {
                if (!list)
                    return;
                for (const fb::team::TeamProposal &p : *list) {
                    if (p.state != u"consumed" || seenAtNs.contains(p.id))
                        continue;
                    seenAtNs.insert(p.id, clock.nsecsElapsed());
                    seenOrder << p.id;
                    seenRows.insert(p.id, p);
                    if (approve && !decided.contains(p.id)) {
                        decided.insert(p.id);
                        decideSigned(p, QStringLiteral("approve"));
                    }
                }
            });
    });

    QList<double> visible, team, single;
    for (int round = 0; round < 2; ++round) {
        {
            // Team mode: visible (alice does not decide; the confirm is then denied by her)
            // and the whole confirm (alice approves when she sees it).
            fb::BrokerSettings settings;
            settings.toolsets = {QStringLiteral("read"), QStringLiteral("mutate")};
            settings.policy.teamApproverKeys = listedKeys;
            fbtest::BrokerHarness h(settings);
            fb::AuditLog log;
            log.open(dir.filePath(QStringLiteral("team-%1.jsonl").arg(round)));
            h.broker->setAuditSink(&log);
            h.broker->setTeam(&carol);
            h.initialize(false);
            for (int i = 0; i < iterations / 2; ++i) {
                approve = i % 2 == 1;
                const QString token = proposeOne(h, i);
                h.received.clear();
                const qsizetype before = seenAtNs.size();
                clock.start();
                const qint64 startNs = clock.nsecsElapsed();
                const int id = sendConfirm(h, token);
                if (!approve) {
                    if (!QTest::qWaitFor([&] { return seenAtNs.size() > before; }, 20000))
                        return 1;
                    const QByteArray pid = seenOrder.last();
                    visible << double(seenAtNs.value(pid) - startNs) / 1e6;
                    // Not approved: end it with a deny so that the next one starts clean.
                    decideSigned(seenRows.value(pid), QStringLiteral("deny"));
                    h.answerTo(id, 30000);
                    continue;
                }
                const bool ok = executed(h, id);
                team << double(clock.nsecsElapsed() - startNs) / 1e6;
                if (!ok) {
                    std::fprintf(stderr, "team confirm %d did not execute\n", i);
                    return 1;
                }
            }
            h.broker->setAuditSink(nullptr);
        }
        {
            fb::BrokerSettings settings;
            settings.toolsets = {QStringLiteral("read"), QStringLiteral("mutate")};
            fbtest::BrokerHarness h(settings);
            fb::AuditLog log;
            log.open(dir.filePath(QStringLiteral("single-%1.jsonl").arg(round)));
            h.broker->setAuditSink(&log);
            YesApprover yes;
            h.broker->setApprover(&yes);
            h.initialize(false);
            for (int i = 0; i < iterations / 4; ++i) {
                const QString token = proposeOne(h, i);
                h.received.clear();
                QElapsedTimer t;
                t.start();
                const bool ok = executed(h, sendConfirm(h, token));
                single << double(t.nsecsElapsed()) / 1e6;
                if (!ok)
                    return 1;
            }
            h.broker->setAuditSink(nullptr);
        }
    }
    const Stats v = stats(visible), t = stats(team), s = stats(single);
    std::printf("visible in the other workstation's app: p50 %.2f ms, p90 %.2f ms (%lld)\n", v.p50,
                v.p90, static_cast<long long>(visible.size()));
    std::printf("team confirm (approved at first sight): p50 %.2f ms, p90 %.2f ms (%lld)\n", t.p50,
                t.p90, static_cast<long long>(team.size()));
    std::printf("single-user confirm: p50 %.2f ms, p90 %.2f ms (%lld)\n", s.p50, s.p90,
                static_cast<long long>(single.size()));
    std::printf("team confirm overhead at p50: %+.2f ms\n", t.p50 - s.p50);
    return 0;
}
