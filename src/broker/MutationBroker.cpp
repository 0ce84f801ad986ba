#include "broker/MutationBroker.h"
#include "broker/TeamConfirmFlow.h"

#include "broker/ConfirmOperation.h"
#include "broker/ProposeOperation.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>

#include <utility>

namespace fb {

namespace {

// The annotations and toolset of the two mutate tools: creating, not destructive, not
// idempotent, open world.
void setMutateTool(mcp::ToolDefinition *tool)
{
    tool->annotations = {{QStringLiteral("title"), tool->title},
                         {QStringLiteral("readOnlyHint"), false},
                         {QStringLiteral("destructiveHint"), false},
                         {QStringLiteral("idempotentHint"), false},
                         {QStringLiteral("openWorldHint"), true}};
    tool->toolset = QStringLiteral("mutate");
}

} // namespace

MutationBroker::MutationBroker(ProposalStore *store, FabricClient *fabric, BrokerSettings settings,
                               Clock *clock, QObject *parent)
    : BrokerEvents(parent)
    , m_context(std::make_unique<BrokerContext>(store, fabric, std::move(settings), clock))
{
    forwardBrokerEvents(m_context.get(), this);
}

MutationBroker::~MutationBroker()
{
    // No operation may outlive the broker with a create pending on it.
    abandonInFlight(QStringLiteral("the broker was shut down before Fabric answered"));
}

const BrokerSettings &MutationBroker::settings() const
{
    return m_context->settings();
}

ProposalStore *MutationBroker::store() const
{
    return m_context->store();
}

FabricClient *MutationBroker::fabric() const
{
    return m_context->fabric();
}

void MutationBroker::setSettings(const BrokerSettings &settings)
{
    m_context->setSettings(settings);
}

void MutationBroker::setApprover(Approver *approver)
{
    m_context->setApprover(approver);
}

Approver *MutationBroker::approver() const
{
    return m_context->approver();
}

void MutationBroker::setCompiler(const ChangeCompiler *compiler)
{
    m_context->setCompiler(compiler);
}

void MutationBroker::setAuditSink(AuditSink *sink)
{
    m_context->setAuditSink(sink);
}

void MutationBroker::setTeam(team::TeamQueue *queue)
{
    m_context->setTeam(queue);
}

void MutationBroker::setTelemetry(telemetry::Telemetry *telemetry)
{
    m_context->setTelemetry(telemetry);
}

bool MutationBroker::audit(AuditEventType type, const QJsonObject &record)
{
    return m_context->audit(type, record);
}

QList<MutationBroker::QuorumProgress> MutationBroker::teamQuorumProgress() const
{
    QList<QuorumProgress> out;
    for (QObject *object : m_context->teamWaits()) {
        const auto *flow = qobject_cast<TeamConfirmFlow *>(object);
        if (const auto p = flow ? flow->quorumProgress() : std::nullopt)
            out.append({p->requestSha256, p->counted, p->required});
    }
    return out;
}

SpendLedger::Totals MutationBroker::spendTotals() const
{
    return m_context->ledger()->totals(m_context->nowMs());
}

int MutationBroker::createsInFlight() const
{
    return m_context->createsInFlight();
}

QStringList MutationBroker::createsInFlightTargets() const
{
    return m_context->createsInFlightTargets();
}

void MutationBroker::beginShutdown()
{
    m_context->beginShutdown();
}

bool MutationBroker::isShuttingDown() const
{
    return m_context->isShuttingDown();
}

void MutationBroker::abandonInFlight(const QString &reason)
{
    m_context->abandonInFlight(reason);
}

MutationBroker::FabricBinding MutationBroker::fabricBinding(const FabricConfig &config)
{
    return FabricBinding::of(config);
}

void MutationBroker::propose(mcp::ToolCall *call)
{
    (new ProposeOperation(m_context.get(), call))->start();
}

void MutationBroker::confirm(mcp::ToolCall *call)
{
    (new ConfirmOperation(m_context.get(), call))->start();
}

QString MutationBroker::tokenLimitsText(const BrokerSettings &settings)
{
    return QStringLiteral("Tokens expire after %1; at most %2 are pending.")
        .arg(durationText(settings.proposalTtlMs))
        .arg(settings.maxPending);
}

QString MutationBroker::durationText(qint64 ms)
{
    if (ms > 0 && ms % 60000 == 0)
        return ms == 60000 ? QStringLiteral("1 minute")
                           : QStringLiteral("%1 minutes").arg(ms / 60000);
    if (ms > 0 && ms % 1000 == 0)
        return ms == 1000 ? QStringLiteral("1 second")
                          : QStringLiteral("%1 seconds").arg(ms / 1000);
    return QStringLiteral("%1 ms").arg(ms);
}

QJsonObject MutationBroker::proposeOutputSchema()
{
    const QJsonObject str{{QStringLiteral("type"), QStringLiteral("string")}};
    const QJsonObject anyObj{{QStringLiteral("type"), QStringLiteral("object")}};
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("description"),
         QStringLiteral("On success: the token and everything it is bound to. On failure "
                        "(isError): error {kind, message, violations | fabric_errors}.")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("confirm_token"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("pattern"), QStringLiteral("^chg-[0-9a-f]{32}$")}}},
             {QStringLiteral("change_type"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("enum"), QJsonArray::fromStringList(changeTypeNames())}}},
             {QStringLiteral("target"), str},
             {QStringLiteral("request"),
              QJsonObject{
                  {QStringLiteral("type"), QStringLiteral("object")},
                  {QStringLiteral("properties"), QJsonObject{{QStringLiteral("method"), str},
                                                             {QStringLiteral("path"), str},
                                                             {QStringLiteral("body"), anyObj}}}}},
             {QStringLiteral("request_sha256"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("pattern"), QStringLiteral("^[0-9a-f]{64}$")}}},
             {QStringLiteral("validated"), anyObj},
             {QStringLiteral("price"), anyObj},
             {QStringLiteral("proposed_at"), str},
             {QStringLiteral("expires_at"), str},
             {QStringLiteral("evicted_proposals"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                          {QStringLiteral("items"), anyObj}}},
             {QStringLiteral("sandbox"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}}},
             {QStringLiteral("next_step"), str},
             {QStringLiteral("team"), anyObj}, // team mode only: {proposal_id, required}
             {QStringLiteral("error"), anyObj}}}};
}

QJsonObject MutationBroker::confirmInputSchema()
{
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{{QStringLiteral("confirm_token"),
                      QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                  {QStringLiteral("description"),
                                   QStringLiteral("The chg- token returned by "
                                                  "fabric_propose_change. Single-use.")}}}}},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("confirm_token")}},
        {QStringLiteral("additionalProperties"), false}};
}

QJsonObject MutationBroker::confirmOutputSchema()
{
    // Nullable values as anyOf branches of one type each, never a type array: clients that map
    // tool schemas onto a single-type dialect (e.g. Gemini's OpenAPI subset) reject type arrays
    // (the MCP Inspector's --strict portability check, tests/e2e/schema-portability.test.mjs).
    const auto nullable = [](const QString &type) {
        return QJsonObject{
            {QStringLiteral("anyOf"),
             QJsonArray{QJsonObject{{QStringLiteral("type"), type}},
                        QJsonObject{{QStringLiteral("type"), QStringLiteral("null")}}}}};
    };
    const QJsonObject nullableBool = nullable(QStringLiteral("boolean"));
    QJsonArray statuses = QJsonArray::fromStringList(humanStatusNames());
    statuses.append(QStringLiteral("not_requested"));
    const QJsonObject str{{QStringLiteral("type"), QStringLiteral("string")}};
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("confirm_checks"),
              QJsonObject{
                  {QStringLiteral("type"), QStringLiteral("object")},
                  {QStringLiteral("properties"),
                   QJsonObject{{QStringLiteral("proposal_exists"), nullableBool},
                               {QStringLiteral("not_evicted"), nullableBool},
                               {QStringLiteral("not_expired"), nullableBool},
                               {QStringLiteral("not_previously_used"), nullableBool},
                               {QStringLiteral("request_matches_binding"), nullableBool}}},
                  {QStringLiteral("required"),
                   QJsonArray{QStringLiteral("proposal_exists"), QStringLiteral("not_evicted"),
                              QStringLiteral("not_expired"), QStringLiteral("not_previously_used"),
                              QStringLiteral("request_matches_binding")}}}},
             {QStringLiteral("human_confirmation"),
              QJsonObject{
                  {QStringLiteral("type"), QStringLiteral("object")},
                  {QStringLiteral("properties"),
                   QJsonObject{{QStringLiteral("status"),
                                QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                            {QStringLiteral("enum"), statuses}}},
                               {QStringLiteral("channel"), nullable(QStringLiteral("string"))},
                               {QStringLiteral("detail"), str}}},
                  {QStringLiteral("required"),
                   QJsonArray{QStringLiteral("status"), QStringLiteral("channel")}}}},
             {QStringLiteral("executed"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}}},
             {QStringLiteral("execution"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}},
             {QStringLiteral("failed_check"), nullable(QStringLiteral("string"))},
             {QStringLiteral("message"), str},
             {QStringLiteral("change_type"), str},
             {QStringLiteral("target"), str},
             {QStringLiteral("request_sha256"), str},
             {QStringLiteral("unconfirmed_execution"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}}},
             // Team mode only (docs/team.md): {proposal_id, required, approvals[],
             // not_counted[], denied_by, proposer_acknowledged}.
             {QStringLiteral("team"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}}},
        {QStringLiteral("required"),
         QJsonArray{QStringLiteral("confirm_checks"), QStringLiteral("human_confirmation"),
                    QStringLiteral("executed"), QStringLiteral("execution"),
                    QStringLiteral("message")}}};
}

void MutationBroker::registerTools(mcp::ToolRegistry *registry)
{
    mcp::ToolDefinition propose;
    propose.name = QStringLiteral("fabric_propose_change");
    propose.title = QStringLiteral("Propose a Fabric create (dry run)");
    propose.description =
        QStringLiteral(
            "Propose a billable Equinix Fabric create: a connection, a network or a service token "
            "(no updates or deletes exist). The spec uses the Fabric v4 request's own field names. "
            "Runs Fabric's real dry run (dryRun=true) of the exact request, looks up rate-card "
            "price "
            "context, and returns a single-use confirm_token bound to the SHA-256 of the compiled "
            "request. Nothing is created: call fabric_confirm_change with the token, after which a "
            "person must approve. ") +
        tokenLimitsText(settings());
    propose.inputSchema = ChangeSpec::proposeInputSchema();
    propose.outputSchema = proposeOutputSchema();
    setMutateTool(&propose);
    propose.handler = [this](mcp::ToolCall *call) { this->propose(call); };
    registry->registerTool(std::move(propose));

    mcp::ToolDefinition confirm;
    confirm.name = QStringLiteral("fabric_confirm_change");
    confirm.title = QStringLiteral("Confirm a proposed Fabric create");
    confirm.description = QStringLiteral(
        "Execute a proposal made by fabric_propose_change. Takes only the confirm_token: the "
        "stored spec is recompiled and must produce the exact request the dry run validated. A "
        "person is asked to approve (client elicitation or the desktop app); only then is the "
        "request sent, once, without dryRun, creating billable resources. The token is consumed "
        "on the first attempt whatever the outcome. The result reports confirm_checks, "
        "human_confirmation {status, channel}, executed, and the execution outcome.");
    confirm.inputSchema = confirmInputSchema();
    confirm.outputSchema = confirmOutputSchema();
    setMutateTool(&confirm);
    confirm.handler = [this](mcp::ToolCall *call) { this->confirm(call); };
    // A confirm may run as a task (MCP 2025-11-25): the approval then outlives the client's
    // request timeout and its connection (docs/architecture.md, "Long decisions").
    confirm.taskSupport = QStringLiteral("optional");
    registry->registerTool(std::move(confirm));
}

} // namespace fb
