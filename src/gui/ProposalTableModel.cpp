#include "gui/ProposalTableModel.h"

#include "broker/MutationBroker.h"
#include "broker/ProposalView.h"
#include "gui/ClientText.h"
#include "gui/PlainText.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QLoggingCategory>
#include <iterator>

Q_LOGGING_CATEGORY(lcProposalTable, "fabricbroker.gui.proposals")

namespace fb {

namespace {

QColor stateColour(ProposalTableModel::State state)
{
    using S = ProposalTableModel::State;
    switch (state) {
    case S::Pending:
        return {};
    case S::Confirming:
    case S::AwaitingApproval:
    case S::Sending:
        return QColor(0xff, 0xf1, 0xc2);
    case S::Executed:
        return QColor(0xcf, 0xf0, 0xd6);
    case S::OutcomeUnknown:
        return QColor(0xff, 0xdc, 0xa8);
    case S::Rejected:
    case S::Declined:
    case S::Cancelled:
    case S::TimedOut:
    case S::CallCancelled:
    case S::Failed:
    case S::NotExecuted:
        return QColor(0xf7, 0xd2, 0xd0);
    case S::Expired:
    case S::Evicted:
        return QColor(0xe4, 0xe4, 0xe4);
    }
    return {};
}

QString shortPrice(const QJsonObject &price)
{
    if (!price.value(QStringLiteral("priced")).toBool())
        return ProposalTableModel::tr("unpriced");
    return ProposalTableModel::tr("%1 %2/mo")
        .arg(price.value(QStringLiteral("currency")).toString())
        .arg(price.value(QStringLiteral("monthly_recurring")).toDouble(), 0, 'f', 2);
}

} // namespace

ProposalTableModel::ProposalTableModel(Clock *clock, QObject *parent)
    : QAbstractTableModel(parent)
    , m_clock(clock ? clock : Clock::system())
{
    connect(&m_timer, &QTimer::timeout, this, &ProposalTableModel::tick);
    m_timer.setTimerType(Qt::PreciseTimer);
    setTickIntervalMs(1000);
}

void ProposalTableModel::attach(ProposalStore *store, MutationBroker *broker)
{
    if (store) {
        for (const Proposal &p : store->pending())
            addProposal(p);
        connect(store, &ProposalStore::proposalAdded, this, &ProposalTableModel::addProposal);
        connect(store, &ProposalStore::proposalConsumed, this, &ProposalTableModel::markConsumed);
        connect(store, &ProposalStore::proposalExpired, this, &ProposalTableModel::markExpired);
        connect(store, &ProposalStore::proposalEvicted, this, &ProposalTableModel::markEvicted);
    }
    if (broker) {
        connect(broker, &MutationBroker::approvalStarted, this,
                &ProposalTableModel::markApprovalStarted);
        connect(broker, &MutationBroker::approvalFinished, this,
                &ProposalTableModel::markApprovalFinished);
        connect(broker, &MutationBroker::executionFinished, this,
                &ProposalTableModel::markExecutionFinished);
    }
}

void ProposalTableModel::setLingerMs(qint64 ms)
{
    m_lingerMs = std::max<qint64>(0, ms);
}

void ProposalTableModel::setTickIntervalMs(int ms)
{
    if (ms <= 0) {
        m_timer.stop();
        return;
    }
    m_timer.start(ms);
}

int ProposalTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ProposalTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProposalTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    // In Column order.
    static const char *const titles[ColumnCount] = {
        QT_TR_NOOP("Change"), QT_TR_NOOP("Target"),     QT_TR_NOOP("Client"), QT_TR_NOOP("Price"),
        QT_TR_NOOP("Age"),    QT_TR_NOOP("Expires in"), QT_TR_NOOP("State")};
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= ColumnCount)
        return {};
    return tr(titles[section]);
}

QString ProposalTableModel::stateText(State state)
{
    // In State order, from Pending to Evicted.
    static const char *const texts[] = {QT_TR_NOOP("pending"),
                                        QT_TR_NOOP("confirming"),
                                        QT_TR_NOOP("awaiting approval"),
                                        QT_TR_NOOP("approved, sending"),
                                        QT_TR_NOOP("executed"),
                                        QT_TR_NOOP("outcome unknown"),
                                        QT_TR_NOOP("rejected by Fabric"),
                                        QT_TR_NOOP("declined"),
                                        QT_TR_NOOP("dismissed"),
                                        QT_TR_NOOP("timed out"),
                                        QT_TR_NOOP("call cancelled"),
                                        QT_TR_NOOP("approval failed"),
                                        QT_TR_NOOP("not executed"),
                                        QT_TR_NOOP("expired"),
                                        QT_TR_NOOP("evicted")};
    static_assert(std::size(texts) == static_cast<std::size_t>(State::Evicted) + 1);
    const auto i = static_cast<std::size_t>(state);
    return i < std::size(texts) ? tr(texts[i]) : QString();
}

bool ProposalTableModel::isFinal(State state)
{
    switch (state) {
    case State::Pending:
    case State::Confirming:
    case State::AwaitingApproval:
    case State::Sending:
        return false;
    default:
        return true;
    }
}

QVariant ProposalTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows.at(index.row());
    const Proposal &p = row.proposal;
    const qint64 now = m_clock->nowMs();
    const bool final = isFinal(row.state);
    const double fade =
        final && m_lingerMs > 0
            ? std::clamp(static_cast<double>(now - row.finalAtMs) / m_lingerMs, 0.0, 1.0)
            : 0.0;

    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ChangeTypeColumn:
            return changeTypeName(p.changeType);
        case TargetColumn:
            return p.target;
        case ClientColumn:
            return ClientText::nameAndVersion(p.context.value(QStringLiteral("client")).toObject());
        case PriceColumn:
            return shortPrice(p.context.value(QStringLiteral("price")).toObject());
        case AgeColumn:
            return ProposalView::formatDuration(now - p.proposedAtMs);
        case ExpiresColumn:
            if (final)
                return QStringLiteral("-");
            if (p.expiresAtMs <= now)
                return tr("expired");
            return ProposalView::formatDuration(p.expiresAtMs - now);
        case StateColumn:
            return row.detail.isEmpty() ? stateText(row.state)
                                        : tr("%1 (%2)").arg(stateText(row.state), row.detail);
        }
        return {};
    case Qt::ToolTipRole:
        switch (index.column()) {
        case TargetColumn:
            return PlainText::toolTip(tr("%1\nrequest SHA-256: %2").arg(p.target, p.requestSha256));
        case ClientColumn:
            return PlainText::toolTip(
                ClientText::summary(p.context.value(QStringLiteral("client")).toObject()));
        case PriceColumn:
            return PlainText::toolTip(
                ProposalView::priceLine(p.context.value(QStringLiteral("price")).toObject()));
        case AgeColumn:
            return tr("proposed at %1").arg(ProposalView::isoTime(p.proposedAtMs));
        case ExpiresColumn:
            return tr("expires at %1").arg(ProposalView::isoTime(p.expiresAtMs));
        default:
            return {};
        }
    case Qt::BackgroundRole: {
        QColor c = stateColour(row.state);
        if (!c.isValid())
            return {};
        // Fade towards the base colour as the row's linger time runs out.
        c.setAlphaF(static_cast<float>(1.0 - 0.7 * fade));
        return QBrush(c);
    }
    case Qt::ForegroundRole:
        if (fade > 0.0) {
            QColor text(0x20, 0x20, 0x20);
            text.setAlphaF(static_cast<float>(1.0 - 0.6 * fade));
            return QBrush(text);
        }
        return {};
    case Qt::FontRole:
        if (index.column() == StateColumn && row.state == State::AwaitingApproval) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case StateRole:
        return QVariant::fromValue(row.state);
    case RequestShaRole:
        return p.requestSha256;
    case FinalRole:
        return final;
    default:
        return {};
    }
}

int ProposalTableModel::activeCount() const
{
    return static_cast<int>(std::count_if(m_rows.begin(), m_rows.end(),
                                          [](const Row &r) { return !isFinal(r.state); }));
}

int ProposalTableModel::rowForSha(const QString &requestSha256) const
{
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows.at(i).proposal.requestSha256 == requestSha256)
            return i;
    return -1;
}

ProposalTableModel::State ProposalTableModel::stateAt(int row) const
{
    Q_ASSERT(row >= 0 && row < m_rows.size());
    return m_rows.value(row).state;
}

int ProposalTableModel::findRow(const Proposal &proposal) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        const Proposal &p = m_rows.at(i).proposal;
        if (!proposal.token.isEmpty() ? p.token == proposal.token
                                      : p.requestSha256 == proposal.requestSha256)
            return i;
    }
    return -1;
}

int ProposalTableModel::ensureRow(const Proposal &proposal)
{
    if (proposal.token.isEmpty() && proposal.requestSha256.isEmpty())
        return -1;
    const int existing = findRow(proposal);
    if (existing >= 0)
        return existing;
    const int row = static_cast<int>(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append(Row{proposal, State::Pending, {}, 0});
    endInsertRows();
    return row;
}

void ProposalTableModel::setState(int row, State state, const QString &detail)
{
    if (row < 0)
        return;
    Row &r = m_rows[row];
    // A final state is final: later signals (e.g. executionFinished after a denial) keep it.
    if (isFinal(r.state))
        return;
    r.state = state;
    r.detail = detail;
    if (isFinal(state))
        r.finalAtMs = m_clock->nowMs();
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    const int active = activeCount();
    if (active != m_lastActive) {
        m_lastActive = active;
        emit activeCountChanged(active);
    }
}

void ProposalTableModel::addProposal(const Proposal &proposal)
{
    const int before = static_cast<int>(m_rows.size());
    const int row = ensureRow(proposal);
    if (row >= before) {
        const int active = activeCount();
        if (active != m_lastActive) {
            m_lastActive = active;
            emit activeCountChanged(active);
        }
    }
}

void ProposalTableModel::markConsumed(const Proposal &proposal)
{
    setState(ensureRow(proposal), State::Confirming);
}

void ProposalTableModel::markExpired(const Proposal &proposal)
{
    setState(ensureRow(proposal), State::Expired);
}

void ProposalTableModel::markEvicted(const Proposal &proposal)
{
    setState(ensureRow(proposal), State::Evicted);
}

void ProposalTableModel::markApprovalStarted(const Proposal &proposal, const QString &channel)
{
    setState(ensureRow(proposal), State::AwaitingApproval, channel);
}

void ProposalTableModel::markApprovalFinished(const Proposal &proposal, const QString &status)
{
    const int row = ensureRow(proposal);
    if (status == u"accepted")
        setState(row, State::Sending);
    else if (status == u"declined")
        setState(row, State::Declined);
    else if (status == u"cancelled")
        setState(row, State::Cancelled);
    else if (status == u"timed_out")
        setState(row, State::TimedOut);
    else if (status == u"call_cancelled")
        setState(row, State::CallCancelled);
    else if (status == u"failed")
        setState(row, State::Failed);
    else // unsupported_by_client: the execution result decides
        setState(row, State::Confirming, status);
}

void ProposalTableModel::markExecutionFinished(const Proposal &proposal, bool executed,
                                               const QString &outcome)
{
    if (proposal.token.isEmpty())
        return; // invalid arguments: no proposal involved
    const int row = findRow(proposal);
    if (row < 0)
        return; // e.g. a replayed token whose row already left
    if (executed) {
        if (outcome == u"created")
            setState(row, State::Executed);
        else if (outcome == u"unknown")
            setState(row, State::OutcomeUnknown);
        else
            setState(row, State::Rejected, outcome == u"rejected" ? QString() : outcome);
        return;
    }
    if (outcome == u"expired_token" || outcome == u"expired_during_approval")
        setState(row, State::Expired,
                 outcome == u"expired_during_approval" ? tr("during approval") : QString());
    else if (outcome == u"evicted_token")
        setState(row, State::Evicted);
    else
        setState(row, State::NotExecuted, outcome);
}

void ProposalTableModel::tick()
{
    const qint64 now = m_clock->nowMs();
    for (int i = static_cast<int>(m_rows.size()) - 1; i >= 0; --i) {
        const Row &r = m_rows.at(i);
        if (isFinal(r.state) && now - r.finalAtMs >= m_lingerMs) {
            beginRemoveRows({}, i, i);
            m_rows.removeAt(i);
            endRemoveRows();
        }
    }
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, 0), index(static_cast<int>(m_rows.size()) - 1, ColumnCount - 1));
}

} // namespace fb
