// ProposalTableModel: rows follow the store and the broker; final states linger, then leave.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/MutationBroker.h"
#include "fabric/FabricClient.h"
#include "gui/ProposalTableModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace fb;
using State = ProposalTableModel::State;

class TestProposalTableModel : public QObject {
    Q_OBJECT

    struct Fixture {
        ManualClock clock;
        ProposalStore store{&clock};
        FabricClient fabric{FabricConfig{}};
        MutationBroker broker{&store, &fabric, BrokerSettings{}, &clock};
        ProposalTableModel model{&clock};
        QAbstractItemModelTester tester{&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest};
        Fixture()
        {
            model.setTickIntervalMs(0); // the test drives tick()
            model.setLingerMs(5000);
            model.attach(&store, &broker);
        }
        Proposal add(const QString &name, char sha)
        {
            Proposal p =
                guitest::sampleContext(clock.nowMs(), ChangeType::ConnectionCreate, name, sha)
                    .proposal;
            return store.add(p).proposal;
        }
        QString text(int row, int column) const
        {
            return model.data(model.index(row, column)).toString();
        }
    };

private slots:
    void init() { fbtest::failOnWarnings(); }
    void rowsAppearWithTheirColumns()
    {
        Fixture f;
        QSignalSpy active(&f.model, &ProposalTableModel::activeCountChanged);
        const Proposal p = f.add(QStringLiteral("lab-1"), 'a');
        QCOMPARE(f.model.rowCount(), 1);
        QCOMPARE(f.model.columnCount(), int(ProposalTableModel::ColumnCount));
        QCOMPARE(f.text(0, ProposalTableModel::ChangeTypeColumn),
                 QStringLiteral("connection_create"));
        QCOMPARE(f.text(0, ProposalTableModel::TargetColumn), p.target);
        QCOMPARE(f.text(0, ProposalTableModel::ClientColumn), QStringLiteral("claude-code 2.1.4"));
        QCOMPARE(f.text(0, ProposalTableModel::PriceColumn), QStringLiteral("USD 300.00/mo"));
        QCOMPARE(f.text(0, ProposalTableModel::AgeColumn), QStringLiteral("0s"));
        QCOMPARE(f.text(0, ProposalTableModel::ExpiresColumn), QStringLiteral("10m 00s"));
        QCOMPARE(f.text(0, ProposalTableModel::StateColumn), QStringLiteral("pending"));
        QCOMPARE(f.model.activeCount(), 1);
        QCOMPARE(active.size(), 1);
        QCOMPARE(f.model.rowForSha(p.requestSha256), 0);

        // Ages and countdowns come from the absolute timestamps.
        QSignalSpy changed(&f.model, &QAbstractItemModel::dataChanged);
        f.clock.advanceMs(61000);
        f.model.tick();
        QVERIFY(!changed.isEmpty());
        QCOMPARE(f.text(0, ProposalTableModel::AgeColumn), QStringLiteral("1m 01s"));
        QCOMPARE(f.text(0, ProposalTableModel::ExpiresColumn), QStringLiteral("8m 59s"));
        QCOMPARE(f.model.rowCount(), 1);
    }

    void neverShowsTheToken()
    {
        Fixture f;
        const Proposal p = f.add(QStringLiteral("lab-1"), 'a');
        QVERIFY(p.token.startsWith(QStringLiteral("chg-")));
        for (int c = 0; c < f.model.columnCount(); ++c)
            for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)})
                QVERIFY(!f.model.data(f.model.index(0, c), role).toString().contains(p.token));
    }

    void declinedLingersThenLeaves()
    {
        Fixture f;
        const Proposal p = f.add(QStringLiteral("lab-1"), 'a');
        f.add(QStringLiteral("lab-2"), 'b');
        QCOMPARE(f.model.rowCount(), 2);
        const Proposal consumed = *f.store.consume(p.token).proposal;
        QCOMPARE(f.model.stateAt(0), State::Confirming);
        emit f.broker.approvalStarted(consumed, QStringLiteral("desktop"));
        QCOMPARE(f.model.stateAt(0), State::AwaitingApproval);
        QCOMPARE(f.text(0, ProposalTableModel::StateColumn),
                 QStringLiteral("awaiting approval (desktop)"));
        emit f.broker.approvalFinished(consumed, QStringLiteral("declined"));
        QCOMPARE(f.model.stateAt(0), State::Declined);
        emit f.broker.executionFinished(consumed, false, QStringLiteral("not_approved"));
        QCOMPARE(f.model.stateAt(0), State::Declined); // final stays final
        QCOMPARE(f.model.activeCount(), 1);
        const QVariant bg = f.model.data(f.model.index(0, 0), Qt::BackgroundRole);
        QVERIFY(bg.isValid());

        QSignalSpy removed(&f.model, &QAbstractItemModel::rowsRemoved);
        f.clock.advanceMs(4000);
        f.model.tick();
        QCOMPARE(f.model.rowCount(), 2);
        QVERIFY(removed.isEmpty());
        // Fading: the colour is lighter than at the start.
        const QColor later =
            f.model.data(f.model.index(0, 0), Qt::BackgroundRole).value<QBrush>().color();
        QVERIFY(later.alphaF() < bg.value<QBrush>().color().alphaF());

        f.clock.advanceMs(1000);
        f.model.tick();
        QCOMPARE(removed.size(), 1);
        QCOMPARE(f.model.rowCount(), 1);
        // The remaining row is lab-2 (its request hash; the Target shows no agent names).
        QVERIFY(f.model.data(f.model.index(0, ProposalTableModel::TargetColumn), Qt::ToolTipRole)
                    .toString()
                    .contains(guitest::fakeSha('b')));
    }

    void acceptedThenExecuted()
    {
        Fixture f;
        const Proposal p = f.add(QStringLiteral("lab-1"), 'a');
        const Proposal consumed = *f.store.consume(p.token).proposal;
        emit f.broker.approvalStarted(consumed, QStringLiteral("client"));
        emit f.broker.approvalFinished(consumed, QStringLiteral("accepted"));
        QCOMPARE(f.model.stateAt(0), State::Sending);
        QCOMPARE(f.model.activeCount(), 1);
        emit f.broker.executionFinished(consumed, true, QStringLiteral("created"));
        QCOMPARE(f.model.stateAt(0), State::Executed);
        QCOMPARE(f.text(0, ProposalTableModel::StateColumn), QStringLiteral("executed"));
        QCOMPARE(f.text(0, ProposalTableModel::ExpiresColumn), QStringLiteral("-"));
        QCOMPARE(f.model.activeCount(), 0);
        f.clock.advanceMs(5000);
        f.model.tick();
        QCOMPARE(f.model.rowCount(), 0);
    }

    void statusMapping_data()
    {
        QTest::addColumn<QString>("status");
        QTest::addColumn<bool>("executed");
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<State>("expected");
        QTest::newRow("cancelled") << "cancelled" << false << "not_approved" << State::Cancelled;
        QTest::newRow("timed_out") << "timed_out" << false << "not_approved" << State::TimedOut;
        QTest::newRow("call_cancelled")
            << "call_cancelled" << false << "not_approved" << State::CallCancelled;
        QTest::newRow("failed") << "failed" << false << "not_approved" << State::Failed;
        QTest::newRow("expired during approval")
            << "accepted" << false << "expired_during_approval" << State::Expired;
        QTest::newRow("unknown outcome")
            << "accepted" << true << "unknown" << State::OutcomeUnknown;
        QTest::newRow("rejected") << "accepted" << true << "rejected" << State::Rejected;
        QTest::newRow("audit unavailable")
            << "accepted" << false << "audit_unavailable" << State::NotExecuted;
    }

    void statusMapping()
    {
        QFETCH(QString, status);
        QFETCH(bool, executed);
        QFETCH(QString, outcome);
        QFETCH(State, expected);
        Fixture f;
        const Proposal p = f.add(QStringLiteral("lab-1"), 'a');
        const Proposal consumed = *f.store.consume(p.token).proposal;
        emit f.broker.approvalStarted(consumed, QStringLiteral("desktop"));
        emit f.broker.approvalFinished(consumed, status);
        emit f.broker.executionFinished(consumed, executed, outcome);
        QCOMPARE(f.model.stateAt(0), expected);
        QVERIFY(ProposalTableModel::isFinal(f.model.stateAt(0)));
    }

    void expiredAndEvicted()
    {
        Fixture f;
        f.store.setMaxPending(2);
        const Proposal first = f.add(QStringLiteral("lab-1"), 'a');
        f.add(QStringLiteral("lab-2"), 'b');
        f.add(QStringLiteral("lab-3"), 'c'); // evicts lab-1
        QCOMPARE(f.model.rowCount(), 3);
        QCOMPARE(f.model.stateAt(f.model.rowForSha(first.requestSha256)), State::Evicted);
        QCOMPARE(f.model.activeCount(), 2);

        f.clock.advanceMs(ProposalStore::DefaultTtlMs - 1000);
        f.model.tick(); // the evicted row's linger time is long over
        QCOMPARE(f.model.rowCount(), 2);
        QCOMPARE(f.text(0, ProposalTableModel::ExpiresColumn), QStringLiteral("1s"));
        f.clock.advanceMs(1000);
        QCOMPARE(f.text(0, ProposalTableModel::ExpiresColumn), QStringLiteral("expired"));
        f.store.sweep();
        QCOMPARE(f.model.stateAt(0), State::Expired);
        QCOMPARE(f.model.stateAt(1), State::Expired);
        QCOMPARE(f.model.activeCount(), 0);
        f.clock.advanceMs(5000);
        f.model.tick();
        QCOMPARE(f.model.rowCount(), 0);
    }

    void attachPicksUpExistingProposals()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        store.add(guitest::sampleContext(clock.nowMs()).proposal);
        ProposalTableModel model(&clock);
        model.attach(&store, nullptr);
        QCOMPARE(model.rowCount(), 1);
    }
};

QTEST_MAIN(TestProposalTableModel)
#include "tst_proposaltablemodel.moc"
