#include "broker/BrokerContext.h"

#include "broker/ClientElicitationApprover.h"
#include "broker/ConfirmOperation.h"
#include "core/AuditLog.h"
#include "core/Sha256.h"
#include "fabric/FabricClient.h"
#include "team/TeamQueue.h"

#include <QLoggingCategory>

#include <algorithm>
#include <utility>

Q_LOGGING_CATEGORY(lcBroker, "fabricbroker.broker.mutation")

namespace fb {

FabricBinding FabricBinding::of(const FabricConfig &config)
{
    FabricBinding b;
    b.endpoint = config.bindingEndpoint();
    if (!config.clientId.isEmpty() && !config.clientSecret.isEmpty())
        b.identity = QStringLiteral("client id ") + config.clientId;
    else if (!config.staticToken.isEmpty())
        b.identity =
            QStringLiteral("static token sha256:") +
            QString::fromLatin1(Sha256::hash(config.staticToken.toUtf8()).toHex().left(16));
    else
        b.identity = QStringLiteral("none");
    return b;
}

BrokerContext::BrokerContext(ProposalStore *store, FabricClient *fabric, BrokerSettings settings,
                             Clock *clock, QObject *parent)
    : BrokerEvents(parent)
    , m_store(store)
    , m_fabric(fabric)
    , m_settings(std::move(settings))
    , m_clock(clock)
    , m_compiler(&m_defaultCompiler)
    , m_defaultApprover(std::make_unique<ClientElicitationApprover>())
    , m_approver(m_defaultApprover.get())
    , m_confirmStates(clock)
{
    m_store->setTtlMs(m_settings.proposalTtlMs);
    m_store->setMaxPending(m_settings.maxPending);
    connect(&m_confirmStates, &ConfirmStateStore::timedOut, this,
            &BrokerContext::confirmStateTimedOut);
    connect(&m_confirmStates, &ConfirmStateStore::ended, this, &BrokerContext::confirmStateEnded);
    setAuditSink(nullptr);
    if (fabric) {
        m_binding = FabricBinding::of(fabric->config());
        connect(fabric, &FabricClient::configChanged, this, &BrokerContext::fabricConfigChanged);
    }
}

// Settings saved another endpoint or other credentials: nothing waiting for a person can be
// approved any more (it was dry-run elsewhere, or as someone else). Every confirm re-checks the
// binding right before it sends, too.
QString FabricBinding::changesSince(const FabricBinding &before) const
{
    QStringList changed;
    if (endpoint != before.endpoint)
        changed << QStringLiteral("the Fabric endpoint changed from %1 to %2")
                       .arg(before.endpoint, endpoint);
    if (identity != before.identity)
        changed << QStringLiteral("the credentials changed from %1 to %2")
                       .arg(before.identity, identity);
    return changed.join(QStringLiteral(" and "));
}

void BrokerContext::fabricConfigChanged()
{
    if (!m_fabric)
        return;
    const FabricBinding now = FabricBinding::of(m_fabric->config());
    const FabricBinding before = std::exchange(m_binding, now);
    const QString changed = now.changesSince(before);
    if (changed.isEmpty())
        return;
    const QString reason =
        changed + QStringLiteral(" while this approval was open; nothing was sent");
    qCWarning(lcBroker).noquote() << "Fabric binding changed:" << reason;
    m_approver->denyAllOpen(reason);
    m_confirmStates.endAll(reason);
}

void BrokerContext::confirmStateEnded(const PendingConfirm &record, const QString &reason)
{
    m_ledger.release(record.tokenSha256);
    audit(AuditEventType::Decision,
          {{QStringLiteral("request_sha256"), record.proposal.requestSha256},
           {QStringLiteral("status"), humanStatusName(HumanStatus::Declined)},
           {QStringLiteral("channel"), QStringLiteral("client")},
           {QStringLiteral("detail"), reason},
           {QStringLiteral("decision_latency_ms"),
            static_cast<double>(m_clock->nowMs() - record.askedAtMs)},
           {QStringLiteral("client"), record.client}});
    reportApprovalFinished(record.proposal, humanStatusName(HumanStatus::Declined));
    reportExecutionFinished(record.proposal, false, QStringLiteral("binding_mismatch"));
}

// No retry with the person's answer before the deadline: the confirm ends timed_out now, and
// a late retry is told so (ConfirmOperation).
void BrokerContext::confirmStateTimedOut(const PendingConfirm &record)
{
    const QString status = humanStatusName(HumanStatus::TimedOut);
    m_ledger.release(record.tokenSha256);
    audit(
        AuditEventType::Decision,
        {{QStringLiteral("request_sha256"), record.proposal.requestSha256},
         {QStringLiteral("status"), status},
         {QStringLiteral("channel"), QStringLiteral("client")},
         {QStringLiteral("detail"), QStringLiteral("no retry with the person's answer within %1 ms")
                                        .arg(m_settings.elicitTimeoutMs)},
         {QStringLiteral("decision_latency_ms"),
          static_cast<double>(m_clock->nowMs() - record.askedAtMs)},
         {QStringLiteral("client"), record.client}});
    reportApprovalFinished(record.proposal, status);
    reportExecutionFinished(record.proposal, false, QStringLiteral("not_approved"));
}

BrokerContext::~BrokerContext() = default;

FabricClient *BrokerContext::fabric() const
{
    return m_fabric.data();
}

void BrokerContext::setCompiler(const ChangeCompiler *compiler)
{
    m_compiler = compiler ? compiler : &m_defaultCompiler;
}

void BrokerContext::setApprover(Approver *approver)
{
    m_approver = approver ? approver : m_defaultApprover.get();
}

void BrokerContext::setAuditSink(AuditSink *sink)
{
    m_audit = sink;
    // The day's spend is read from the log once, here; confirms keep it in memory.
    m_ledger = SpendLedger{};
    if (auto *log = dynamic_cast<AuditLog *>(sink)) {
        const LedgerSeed seed = seedSpendLedger(log->path(), nowMs(), &m_ledger);
        if (!seed.established)
            qCWarning(lcBroker).noquote() << "spend ledger:" << seed.why;
        // The log must also continue the day's marker kept outside its folder: a deleted log
        // (with its head file) or a fresh EQUINIX_MCP_AUDIT_LOG does not start the day over.
        if (const QString problem = log->dayMarkerProblem(); !problem.isEmpty()) {
            m_ledger.markUnestablished(problem);
            qCWarning(lcBroker).noquote() << "spend ledger:" << problem;
        } else
            qCDebug(lcBroker) << "spend ledger seeded from" << seed.recordsRead << "records";
    } else {
        m_ledger.markUnestablished(QStringLiteral("no audit log is open, so the creates of the "
                                                  "last 24 hours cannot be counted"));
    }
}

bool BrokerContext::audit(AuditEventType type, const QJsonObject &record)
{
    const bool durable = !m_audit || m_audit->record(type, record);
    if (!durable)
        qCCritical(lcBroker).noquote()
            << "audit record" << auditEventName(type) << "could not be made durable";
    emit auditEvent(type, record);
    return durable;
}

void BrokerContext::reportApprovalStarted(const Proposal &proposal, const QString &channel)
{
    emit approvalStarted(proposal, channel);
}

void BrokerContext::reportApprovalFinished(const Proposal &proposal, const QString &status)
{
    emit approvalFinished(proposal, status);
}

void BrokerContext::reportExecutionFinished(const Proposal &proposal, bool executed,
                                            const QString &outcome)
{
    emit executionFinished(proposal, executed, outcome);
}

void BrokerContext::reportConfirmStage(const Proposal &proposal, ConfirmStage stage)
{
    emit confirmStage(proposal.requestSha256, stage);
}

void BrokerContext::addInFlight(ConfirmOperation *operation)
{
    m_executing.append(operation);
}

void BrokerContext::removeInFlight(ConfirmOperation *operation)
{
    m_executing.removeAll(operation);
}

void BrokerContext::reportCreatesInFlight()
{
    emit createsInFlightChanged(createsInFlight());
}

int BrokerContext::createsInFlight() const
{
    return int(std::count_if(m_executing.begin(), m_executing.end(),
                             [](const QPointer<ConfirmOperation> &op) { return !op.isNull(); }));
}

QStringList BrokerContext::createsInFlightTargets() const
{
    QStringList out;
    for (const QPointer<ConfirmOperation> &op : m_executing) {
        if (op)
            out << op->target();
    }
    return out;
}

void BrokerContext::beginShutdown()
{
    if (m_shuttingDown)
        return;
    m_shuttingDown = true;
    qCInfo(lcBroker) << "shutting down:" << createsInFlight() << "create(s) in flight";
}

void BrokerContext::abandonInFlight(const QString &reason)
{
    m_shuttingDown = true;
    const QList<QPointer<ConfirmOperation>> ops = m_executing;
    for (const QPointer<ConfirmOperation> &op : ops) {
        if (op) {
            qCWarning(lcBroker).noquote() << "create for" << op->target() << "ended:" << reason;
            op->abandon(reason);
        }
    }
    m_executing.removeAll(QPointer<ConfirmOperation>());
}

team::TeamQueue *BrokerContext::team() const
{
    return qobject_cast<team::TeamQueue *>(m_team.data());
}

void BrokerContext::setTeam(team::TeamQueue *queue)
{
    m_team = queue;
}

void BrokerContext::rememberPublished(const QString &tokenSha256, const PublishedTeamRow &row)
{
    const qint64 now = nowMs();
    for (auto it = m_published.begin(); it != m_published.end();)
        it = it->expiresAtMs + 60000 < now ? m_published.erase(it) : std::next(it);
    constexpr qsizetype MaxPublished = 4096; // far above max_pending within one TTL
    if (m_published.size() >= MaxPublished)
        m_published.erase(m_published.begin());
    m_published.insert(tokenSha256, row);
}

std::optional<BrokerContext::PublishedTeamRow>
BrokerContext::takePublished(const QString &tokenSha256)
{
    const auto it = m_published.constFind(tokenSha256);
    if (it == m_published.cend())
        return std::nullopt;
    PublishedTeamRow row = *it;
    m_published.erase(it);
    return row;
}

QList<QObject *> BrokerContext::teamWaits()
{
    m_teamWaits.removeIf([](const QPointer<QObject> &flow) { return flow.isNull(); });
    QList<QObject *> flows;
    for (const QPointer<QObject> &flow : std::as_const(m_teamWaits))
        flows.append(flow.data());
    return flows;
}

} // namespace fb
