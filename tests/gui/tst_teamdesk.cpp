// TeamDesk, the desktop app's part in team mode, on a real PostgreSQL 15
// (TeamApprovalsDialogFixture.h), rendered offscreen: it opens the Team approvals dialog by itself
// when a proposal of another workstation waits and its role may approve, never for its own
// proposals nor for a proposer-only role, one dialog at a time (showApprovals raises the one
// open), and not again for a proposal it opened for; an unknown outcome of another workstation
// opens it too. Each proposal that starts waiting is announced once (the desktop notification),
// also while the dialog is open, and its end once. What the dialog does: tst_teamapprovalsdialog.
#include "TeamApprovalsDialogFixture.h"
#include "TestEnvironment.h"
#include "gui/TeamApprovalsDialog.h"
#include "gui/TeamDesk.h"
#include "team/ApproverDecision.h"

#include <QApplication>
#include <QCryptographicHash>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTest>

using namespace fbtest;
using namespace fb;
using namespace fb::team;
using namespace Qt::StringLiterals;

class TstTeamDesk : public QObject, private TeamApprovalsDialogHarness {
    Q_OBJECT

    // The Team approvals dialogs on screen.
    static QList<TeamApprovalsDialog *> openDialogs()
    {
        QList<TeamApprovalsDialog *> open;
        for (QWidget *w : QApplication::topLevelWidgets())
            if (auto *d = qobject_cast<TeamApprovalsDialog *>(w); d && d->isVisible())
                open.append(d);
        return open;
    }

    // proposer's proposal named name, published (not consumed); false when it fails.
    static bool publish(TeamQueue &proposer, const QByteArray &name)
    {
        std::optional<QByteArray> id;
        proposer.publish(u"connection_create"_s, R"({"name":")" + name + R"("})", {}, std::nullopt,
                         "{}", QCryptographicHash::hash(name, QCryptographicHash::Sha256), 60000,
                         [&](const std::optional<QByteArray> &v, const QString &) { id = v; });
        return QTest::qWaitFor([&] { return id.has_value(); }, 10000) && !id->isEmpty();
    }

    // Waits until desk has read the queue as it is now: its queue answers in order, so a listing
    // asked after the wake-ups it reacts to answers after the listing it asked for them.
    static bool settled(TeamDesk &desk)
    {
        bool answered = false;
        desk.queue()->listOpen(
            [&](const std::optional<QList<TeamProposal>> &, const QString &) { answered = true; });
        return QTest::qWaitFor([&] { return answered; }, 10000);
    }

    // Closes them and waits until they are gone (a closed one deletes itself later).
    static void closeAll()
    {
        for (TeamApprovalsDialog *d : openDialogs())
            d->close();
        auto anyLeft = [] {
            for (QWidget *w : QApplication::topLevelWidgets())
                if (qobject_cast<TeamApprovalsDialog *>(w))
                    return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(!anyLeft(), 5000);
    }

private slots:
    void initTestCase() { initTeam(); }
    void init() { failOnWarnings(); }
    void cleanup() { closeAll(); }

    void theAppOpensTheDialogWhenAProposalWaits()
    {
        // What DesktopUi creates when team.database is set.
        TeamDesk desk(fx.cluster.uri(u"bob"_s, db));
        QTRY_VERIFY_WITH_TIMEOUT(desk.queue()->isAvailable() && desk.queue()->isApprover(), 10000);
        QVERIFY(settled(desk));
        QCOMPARE(openDialogs().size(), 0);
        auto carol = queueAs(u"carol"_s, u"ws-1"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        QVERIFY(publish(*carol, "pop"));
        QTRY_COMPARE_WITH_TIMEOUT(openDialogs().size(), 1, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(selectRow(*openDialogs().first(), u"\"pop\""_s), 10000);
        // A proposer-only role's app never pops it.
        TeamDesk proposerDesk(fx.cluster.uri(u"carol"_s, db));
        QTRY_VERIFY_WITH_TIMEOUT(proposerDesk.queue()->isAvailable(), 10000);
        QVERIFY(!proposerDesk.queue()->isApprover());
        QVERIFY(publish(*carol, "pop-2"));
        QVERIFY(settled(proposerDesk));
        QCOMPARE(openDialogs().size(), 1);
    }

    void oneDialogAtATimeAndNotAgainForTheSameProposal()
    {
        auto dave = queueAs(u"dave"_s, u"ws-4"_s);
        QTRY_VERIFY_WITH_TIMEOUT(dave->isAvailable(), 10000);
        QVERIFY(publish(*dave, "first"));
        // Opened at start for what already waits.
        TeamDesk desk(fx.cluster.uri(u"alice"_s, db));
        QTRY_COMPARE_WITH_TIMEOUT(openDialogs().size(), 1, 10000);
        QPointer<TeamApprovalsDialog> first = openDialogs().first();
        // While it is open, a new proposal is listed in it, not in a second dialog.
        QVERIFY(publish(*dave, "second"));
        QTRY_VERIFY_WITH_TIMEOUT(selectRow(*first, u"\"second\""_s), 10000);
        QVERIFY(settled(desk));
        QCOMPARE(openDialogs().size(), 1);
        // Asked for from the menu: the one open is raised.
        desk.showApprovals();
        QCOMPARE(openDialogs().size(), 1);
        QCOMPARE(openDialogs().first(), first.data());
        // Closed: what arrived while it was open was not looked at by the desk, so the next
        // wake-up opens it once more for that...
        first->close();
        QTRY_VERIFY_WITH_TIMEOUT(first.isNull(), 5000);
        emit desk.queue()->queueChanged();
        QTRY_COMPARE_WITH_TIMEOUT(openDialogs().size(), 1, 10000);
        // ... and then the proposals it opened for do not bring it back...
        closeAll();
        emit desk.queue()->queueChanged();
        QVERIFY(settled(desk));
        QCOMPARE(openDialogs().size(), 0);
        // ... a new one does.
        QVERIFY(publish(*dave, "third"));
        QTRY_COMPARE_WITH_TIMEOUT(openDialogs().size(), 1, 10000);
        // And the menu opens it whether anything waits or not.
        closeAll();
        desk.showApprovals();
        QCOMPARE(openDialogs().size(), 1);
    }

    void ownProposalsDoNotOpenIt()
    {
        // erin both proposes and approves: her own proposal is not hers to decide.
        FB_SQL(*fx.super, "CREATE ROLE erin LOGIN; GRANT fabric_approvers, fabric_proposers TO "
                          "erin");
        TeamDesk desk(fx.cluster.uri(u"erin"_s, db));
        QTRY_VERIFY_WITH_TIMEOUT(desk.queue()->isAvailable() && desk.queue()->isApprover(), 10000);
        QVERIFY(settled(desk));
        closeAll(); // what earlier tests left waiting
        auto erin = queueAs(u"erin"_s, u"ws-5"_s);
        QTRY_VERIFY_WITH_TIMEOUT(erin->isAvailable(), 10000);
        QVERIFY(publish(*erin, "erins-own"));
        emit desk.queue()->queueChanged();
        QVERIFY(settled(desk));
        QCOMPARE(openDialogs().size(), 0);
        auto carol = queueAs(u"carol"_s, u"ws-1"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        QVERIFY(publish(*carol, "carols"));
        QTRY_COMPARE_WITH_TIMEOUT(openDialogs().size(), 1, 10000);
    }

    void anUnknownOutcomeOfAnotherWorkstationOpensIt()
    {
        // A database of its own: nothing else waits there for a decision.
        db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        auto carol = queueAs(u"carol"_s, u"ws-1"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        const auto lost = leaveUnknown(*carol, "lost-1");
        QVERIFY(lost);
        TeamDesk desk(fx.cluster.uri(u"alice"_s, db));
        QTRY_COMPARE_WITH_TIMEOUT(openDialogs().size(), 1, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(selectRow(*openDialogs().first(), u"\"lost-1\""_s), 10000);
    }

    void eachWaitingProposalIsAnnouncedOnceAndItsEndToo()
    {
        db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        TeamDesk desk(fx.cluster.uri(u"alice"_s, db));
        QSignalSpy waiting(&desk, &TeamDesk::proposalsWaiting);
        QSignalSpy ended(&desk, &TeamDesk::noLongerWaiting);
        QTRY_VERIFY_WITH_TIMEOUT(desk.queue()->isAvailable() && desk.queue()->isApprover(), 10000);
        QVERIFY(settled(desk));
        auto carol = queueAs(u"carol"_s, u"ws-1"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        const auto first = publishAndConsume(*carol, "note-1");
        QVERIFY(first);
        QTRY_COMPARE_WITH_TIMEOUT(waiting.size(), 1, 10000);
        auto announced = waiting.constFirst().at(0).value<QList<TeamProposal>>();
        QCOMPARE(announced.size(), 1);
        QCOMPARE(announced.constFirst().id, first->id);
        QCOMPARE(TeamDesk::waitingSummary(announced.constFirst()), u"Team approval needed"_s);
        const QStringList text = TeamDesk::waitingText(announced.constFirst());
        QCOMPARE(text.value(0), u"connection_create proposed by carol (OS user carol on ws-1)"_s);
        QCOMPARE(text.value(1), u"Request SHA-256 %1..."_s.arg(
                                    QString::fromLatin1(requestSha256Shown(*first).left(16))));
        // While the dialog it opened is up, a new one is announced too; none is announced twice.
        QTRY_COMPARE_WITH_TIMEOUT(openDialogs().size(), 1, 10000);
        QVERIFY(publish(*carol, "note-2"));
        QTRY_COMPARE_WITH_TIMEOUT(waiting.size(), 2, 10000);
        emit desk.queue()->queueChanged();
        QVERIFY(settled(desk));
        QCOMPARE(waiting.size(), 2);
        QCOMPARE(ended.size(), 0);
        // Its notification opened: the dialog shows that proposal, whichever was selected.
        const QByteArray second = waiting.at(1).at(0).value<QList<TeamProposal>>().constFirst().id;
        for (const auto &[id, name] :
             {std::pair{second, u"\"note-2\""_s}, {first->id, u"\"note-1\""_s}}) {
            desk.showApprovals(nullptr, id);
            QCOMPARE(openDialogs().size(), 1);
            QTRY_VERIFY_WITH_TIMEOUT(openDialogs().first()->details()->toPlainText().contains(name),
                                     10000);
        }
        // No longer waiting (its proposer withdrew it): said once.
        std::optional<bool> moved;
        carol->transition(first->id, u"consumed"_s, u"cancelled"_s,
                          [&](const std::optional<bool> &v, const QString &) { moved = v; });
        QTRY_VERIFY_WITH_TIMEOUT(moved.has_value(), 10000);
        QVERIFY(*moved);
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 10000);
        QCOMPARE(ended.constFirst().at(0).toByteArray(), first->id);
        emit desk.queue()->queueChanged();
        QVERIFY(settled(desk));
        QCOMPARE(ended.size(), 1);
        QCOMPARE(waiting.size(), 2);
    }
};

QTEST_MAIN(TstTeamDesk)
#include "tst_teamdesk.moc"
