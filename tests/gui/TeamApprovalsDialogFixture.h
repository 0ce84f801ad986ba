#pragma once
// What the approvals dialog suites share (tst_teamapprovalsdialog,
// tst_teamapprovalsdialog_signing, tst_teamdesk): the team's database on a private cluster
// (TeamFixture.h), the owner's session to read the rows back, a TeamQueue per role and host as a
// workstation's broker or app holds it, a proposal published and consumed as the proposing broker
// does, and a row picked in the dialog by what its details say.
#include "../integration/team/TeamFixture.h"
#include "gui/TeamApprovalsDialog.h"
#include "team/TeamQueue.h"

#include <QCryptographicHash>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QTest>

namespace fbtest {

class TeamApprovalsDialogHarness {
protected:
    TeamFixture fx;
    QString db;
    std::unique_ptr<PgConnection> owner;

    // The suite's initTestCase: the cluster, the database, the owner's session.
    void initTeam()
    {
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        owner = connectAs(fx.cluster, QStringLiteral("fb_owner"), db);
        QVERIFY(owner);
    }

    std::unique_ptr<fb::team::TeamQueue>
    queueAs(const QString &role, const QString &host,
            const QString &client = QStringLiteral("test-client 1.0"))
    {
        auto q = std::make_unique<fb::team::TeamQueue>(fx.cluster.uri(role, db),
                                                       fb::team::TeamIdentity{role, host, client});
        q->connection().reconnectDelayMs = 50;
        q->start();
        return q;
    }

    // proposer's connection_create named name (the token: the SHA-256 of name), published and
    // consumed as the proposing broker does before its confirm waits; nullopt when a step fails.
    static std::optional<fb::team::TeamProposal> publishAndConsume(fb::team::TeamQueue &proposer,
                                                                   const QByteArray &name)
    {
        const QByteArray token = QCryptographicHash::hash(name, QCryptographicHash::Sha256);
        std::optional<QByteArray> id;
        proposer.publish(QStringLiteral("connection_create"), R"({"name":")" + name + R"("})", {},
                         std::nullopt, R"({"uuid":"dry"})", token, 60000,
                         [&](const std::optional<QByteArray> &v, const QString &) { id = v; });
        if (!QTest::qWaitFor([&] { return id.has_value(); }, 10000))
            return std::nullopt;
        std::optional<fb::team::TeamProposal> row;
        proposer.consume(token, [&](const std::optional<fb::team::TeamProposal> &p,
                                    const QString &) { row = p; });
        if (!QTest::qWaitFor([&] { return row.has_value(); }, 10000))
            return std::nullopt;
        return row;
    }

    // proposer's create named name left unknown, as a broker that lost Fabric's answer leaves it:
    // published, approved by bob, sending, outcome unknown; nullopt when a step fails.
    std::optional<fb::team::TeamProposal> leaveUnknown(fb::team::TeamQueue &proposer,
                                                       const QByteArray &name)
    {
        const std::optional<fb::team::TeamProposal> row = publishAndConsume(proposer, name);
        if (!row)
            return std::nullopt;
        if (auto bobSql = connectAs(fx.cluster, QStringLiteral("bob"), db)) // begin_send needs one
            bobSql->exec("INSERT INTO fabric_team.approvals (proposal_id, decision, "
                         "dialog_sha256) VALUES ($1::uuid, 'approve', sha256('bob''s dialog'))",
                         {row->id});
        bool sent = false;
        proposer.beginSend(row->id, std::nullopt,
                           [&](const fb::team::TeamSendReply &r) { sent = r.moved; });
        if (!QTest::qWaitFor([&] { return sent; }, 10000))
            return std::nullopt;
        std::optional<bool> finished;
        proposer.finishSend(row->id, QStringLiteral("unknown"),
                            [&](const std::optional<bool> &v, const QString &) { finished = v; });
        if (!QTest::qWaitFor([&] { return finished.has_value(); }, 10000) || !*finished)
            return std::nullopt;
        return row;
    }

    // Makes the dialog's first row whose details contain text the current one; false when none
    // does.
    static bool selectRow(fb::TeamApprovalsDialog &dialog, const QString &text)
    {
        for (int i = 0; i < dialog.list()->count(); ++i) {
            dialog.list()->setCurrentRow(i);
            if (dialog.details()->toPlainText().contains(text))
                return true;
        }
        return false;
    }
};

} // namespace fbtest
