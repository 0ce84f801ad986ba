#pragma once
// ProposalTableModel: the live proposals table of the main window, fed by ProposalStore and
// MutationBroker signals. One row per proposal (keyed by its token, which is never shown).
// Ages and countdowns are computed from absolute timestamps of the injected clock. A row that
// reaches a final state stays, coloured and fading, for the linger time and then leaves.
#include "core/Clock.h"
#include "core/ProposalStore.h"

#include <QAbstractTableModel>
#include <QList>
#include <QTimer>

namespace fb {

class MutationBroker;

class ProposalTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ChangeTypeColumn,
        TargetColumn,
        ClientColumn,
        PriceColumn,
        AgeColumn,
        ExpiresColumn,
        StateColumn,
        ColumnCount
    };
    enum class State {
        Pending,          // proposed, waiting for fabric_confirm_change
        Confirming,       // token redeemed, checks running
        AwaitingApproval, // a person is being asked
        Sending,          // approved, the create is on its way
        Executed,         // created
        OutcomeUnknown,   // sent, outcome unknown
        Rejected,         // sent, Fabric refused it
        Declined,
        Cancelled,
        TimedOut,
        CallCancelled,
        Failed,
        NotExecuted, // refused before sending (binding mismatch, expired during approval...)
        Expired,
        Evicted,
    };
    Q_ENUM(State)
    enum Role { StateRole = Qt::UserRole + 1, RequestShaRole, FinalRole };

    static constexpr qint64 DefaultLingerMs = 8000;

    explicit ProposalTableModel(Clock *clock = Clock::system(), QObject *parent = nullptr);

    // Feeds: store signals (and its current pending list), broker signals. Either may be null.
    void attach(ProposalStore *store, MutationBroker *broker);

    // How long a final row stays; tick interval of the countdown/removal timer (0 = no timer:
    // tests call tick()).
    void setLingerMs(qint64 ms);
    qint64 lingerMs() const { return m_lingerMs; }
    void setTickIntervalMs(int ms);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Rows not in a final state (pending, confirming, awaiting approval, sending).
    int activeCount() const;
    int rowForSha(const QString &requestSha256) const;
    State stateAt(int row) const;
    static QString stateText(State state);
    static bool isFinal(State state);

public slots:
    // Refreshes ages/countdowns and removes rows whose linger time is over.
    void tick();

    void addProposal(const fb::Proposal &proposal);
    void markConsumed(const fb::Proposal &proposal);
    void markExpired(const fb::Proposal &proposal);
    void markEvicted(const fb::Proposal &proposal);
    void markApprovalStarted(const fb::Proposal &proposal, const QString &channel);
    void markApprovalFinished(const fb::Proposal &proposal, const QString &status);
    void markExecutionFinished(const fb::Proposal &proposal, bool executed, const QString &outcome);

signals:
    void activeCountChanged(int count);

private:
    struct Row {
        Proposal proposal;
        State state = State::Pending;
        QString detail; // channel, outcome or reason
        qint64 finalAtMs = 0;
    };
    int findRow(const Proposal &proposal) const;
    int ensureRow(const Proposal &proposal);
    void setState(int row, State state, const QString &detail = {});

    Clock *m_clock;
    QList<Row> m_rows;
    QTimer m_timer;
    qint64 m_lingerMs = DefaultLingerMs;
    int m_lastActive = 0;
};

} // namespace fb
