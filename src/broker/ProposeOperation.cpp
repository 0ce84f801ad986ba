#include "broker/ProposeOperation.h"

#include "broker/PolicyGate.h"
#include "broker/ProposalView.h"
#include "broker/ResultJson.h"
#include "broker/TeamProposeStep.h"
#include "core/TokenDigest.h"
#include "fabric/FabricClient.h"
#include "mcp/ToolCall.h"
#include "team/TeamQueue.h"

#include <QJsonArray>

#include <utility>

namespace fb {

ProposeOperation::ProposeOperation(BrokerContext *context, mcp::ToolCall *call)
    : ToolOperation(context, call)
{
}

void ProposeOperation::start()
{
    // Team mode right after the start: the first connect to the team's database gets a moment
    // (bounded) before a proposal is refused for it.
    if (team::TeamQueue *team = context()->team(); team && !team->hasSettled()) {
        QPointer<ProposeOperation> self(this);
        return team->whenSettled(this, TeamProposeStep::SettleWaitMs, [self] {
            if (self && self->context())
                self->startNow();
        });
    }
    startNow();
}

void ProposeOperation::startNow()
{
    const QJsonObject args = call()->arguments();
    const QStringList unknown =
        result::unknownArguments(args, {QStringLiteral("change_type"), QStringLiteral("spec")});
    QList<SpecViolation> problems;
    for (const QString &k : unknown)
        problems.append({QStringLiteral("$.") + k,
                         QStringLiteral("unknown argument; allowed: change_type, spec")});
    const QJsonValue typeValue = args.value(QStringLiteral("change_type"));
    const auto type = changeTypeFromName(typeValue.toString());
    if (!typeValue.isString() || !type)
        problems.append(
            {QStringLiteral("$.change_type"),
             QStringLiteral("must be one of: ") + changeTypeNames().join(QStringLiteral(", "))});
    if (!args.value(QStringLiteral("spec")).isObject())
        problems.append(
            {QStringLiteral("$.spec"), args.contains(QStringLiteral("spec"))
                                           ? QStringLiteral("must be an object")
                                           : QStringLiteral("required argument missing")});
    if (!problems.isEmpty())
        return failInvalid(problems);

    m_type = *type;
    m_spec = args.value(QStringLiteral("spec")).toObject();
    const CompileResult compiled = context()->compiler().compile(m_type, m_spec);
    QList<SpecViolation> violations = compiled.violations;
    if (compiled.ok())
        violations += ChangeSpec::validateTimes(m_type, m_spec, context()->nowMs());
    if (!violations.isEmpty()) {
        QList<SpecViolation> prefixed;
        for (const SpecViolation &v : std::as_const(violations))
            prefixed.append({QStringLiteral("$.spec") + v.path.mid(1), v.message});
        return failInvalid(prefixed);
    }
    m_request = *compiled.request;
    m_target = ProposalView::target(m_type, m_spec, {}); // uuids only until Fabric names them

    m_binding = FabricBinding::of(context()->fabric()->config());
    spanAttribute(QStringLiteral("fabric_broker.change_type"), changeTypeName(m_type));
    spanAttribute(QStringLiteral("fabric_broker.request.sha256"), m_request.sha256Hex());
    m_dryRunSpan = startSpan(QStringLiteral("fabric_broker.dry_run"));
    m_priceSpan = startSpan(QStringLiteral("fabric_broker.price"));
    m_dryRun = context()->fabric()->dryRun(m_request);
    connect(m_dryRun, &FabricCall::finished, this, [this](const FabricResult &r) {
        m_dryRunSpan.setAttribute(QStringLiteral("fabric_broker.dry_run.ok"), r.ok());
        if (r.httpStatus > 0)
            m_dryRunSpan.setAttribute(QStringLiteral("http.response.status_code"),
                                      qint64(r.httpStatus));
        if (!r.ok())
            m_dryRunSpan.setError(QStringLiteral("fabric_rejected"));
        m_dryRunSpan.end();
        m_dryRun = nullptr;
        m_dryRunResult = r;
        m_haveDryRun = true;
        if (r.ok())
            startNameLookups(); // after the dry run, so Fabric sees the dry run first
        else
            abortAll();
        maybeFinish();
    });
    m_price = context()->fabric()->priceContext(m_request);
    connect(m_price, &FabricCall::finished, this, [this](const FabricResult &r) {
        m_priceSpan.setAttribute(QStringLiteral("fabric_broker.priced"),
                                 r.ok() && r.body.isObject() &&
                                     r.body.toObject().value(QStringLiteral("priced")).toBool());
        m_priceSpan.end();
        m_price = nullptr;
        m_priceResult =
            r.ok() && r.body.isObject()
                ? r.body.toObject()
                : QJsonObject{{QStringLiteral("priced"), false},
                              {QStringLiteral("reason"),
                               QString(QStringLiteral("price lookup failed: ") + r.message)}};
        m_havePrice = true;
        maybeFinish();
    });
}

void ProposeOperation::onCancelled(const QString &)
{
    abortAll();
}

// Fabric's own name of each entity the dry run did not name for sure, and the provider
// organisation of each service profile, for the Target line: one catalog read per entity, in
// parallel. A failed read leaves the dry run's name (or the uuid), and no provider.
void ProposeOperation::startNameLookups()
{
    const QJsonObject validated = m_dryRunResult.body.toObject();
    QList<QPair<QString, QString>> reads = ProposalView::nameLookups(m_spec, validated);
    QStringList naming;
    for (const auto &read : std::as_const(reads))
        naming << read.first;
    QStringList profiles;
    for (const auto &read : ProposalView::providerLookups(m_spec)) {
        profiles << read.first;
        if (!naming.contains(read.first))
            reads.append(read);
    }
    for (const auto &[uuid, path] : std::as_const(reads)) {
        FabricCall *lookup = context()->fabric()->get(path);
        m_lookups.append(lookup);
        const bool name = naming.contains(uuid);
        const bool profile = profiles.contains(uuid);
        connect(lookup, &FabricCall::finished, this,
                [this, uuid = uuid, name, profile](const FabricResult &r) {
                    const QJsonObject entity = r.body.toObject();
                    const QString fabricName = entity.value(QStringLiteral("name")).toString();
                    if (r.ok() && name && entity.value(QStringLiteral("uuid")).toString() == uuid &&
                        !fabricName.isEmpty())
                        m_fabricNames.insert(uuid, fabricName);
                    if (r.ok() && profile) {
                        if (const QString org = ProposalView::providerOf(entity, uuid);
                            !org.isEmpty())
                            m_providers.insert(uuid, org);
                    }
                    ++m_lookupsDone;
                    maybeFinish();
                });
    }
}

void ProposeOperation::abortAll()
{
    if (m_dryRun)
        m_dryRun->abort();
    if (m_price)
        m_price->abort();
    for (const QPointer<FabricCall> &lookup : std::as_const(m_lookups)) {
        if (lookup && !lookup->isFinished())
            lookup->abort();
    }
}

void ProposeOperation::failInvalid(const QList<SpecViolation> &violations)
{
    const QJsonObject structured{
        {QStringLiteral("error"),
         QJsonObject{{QStringLiteral("kind"), QStringLiteral("invalid_spec")},
                     {QStringLiteral("message"),
                      QStringLiteral("The proposal is invalid; nothing was sent to Fabric. "
                                     "Fix every field listed and propose again.")},
                     {QStringLiteral("violations"), result::violationsJson(violations)}}}};
    context()->audit(AuditEventType::ProposeFailed, structured);
    finishStructured(structured,
                     QStringLiteral("Invalid proposal (nothing was sent):\n") +
                         formatViolations(violations),
                     true);
}

void ProposeOperation::maybeFinish()
{
    if (!m_haveDryRun ||
        (m_dryRunResult.ok() && (!m_havePrice || m_lookupsDone < m_lookups.size())))
        return;
    if (m_finished)
        return;
    m_finished = true;
    if (!context()) {
        finishError(QStringLiteral("the broker shut down; no token was minted"));
        return;
    }
    if (call()->isCancelled()) {
        finishError(QStringLiteral("cancelled by the client; no token was minted"));
        return;
    }
    if (!m_dryRunResult.ok())
        return failDryRun();
    // The operator policy (docs/policy.md): a denied proposal gets no token.
    const PolicyVerdict policy = evaluateAtPropose(context()->settings().policy, m_priceResult);
    spanAttribute(QStringLiteral("fabric_broker.policy.verdict"), policy.verdict);
    if (policy.denied()) {
        const QJsonObject s = policyRefusal(policy, m_priceResult, changeTypeName(m_type), m_target,
                                            m_request.sha256Hex());
        context()->audit(AuditEventType::ProposeFailed, s);
        return finishStructured(s, result::renderText(policyConfirmMessage(policy), s), true);
    }

    const QJsonObject validated = m_dryRunResult.body.toObject();
    // Fabric's names for the uuids of the request, never the agent's labels.
    m_target = ProposalView::target(m_type, m_spec, validated, m_fabricNames, m_providers);

    Proposal p;
    p.changeType = m_type;
    p.spec = m_spec;
    p.requestSha256 = m_request.sha256Hex();
    p.target = m_target;
    p.fabricEndpoint = m_binding.endpoint;
    p.credentialIdentity = m_binding.identity;
    p.context = {{QStringLiteral("price"), m_priceResult},
                 {QStringLiteral("validated"), validated},
                 {QStringLiteral("client"), call()->client().toJson()},
                 {QStringLiteral("dry_run_correlation_id"), m_dryRunResult.correlationId},
                 {QStringLiteral("policy"), policy.toJson()}};
    if (const std::optional<QString> why = TeamProposeStep::unavailable(*context()))
        return failWithoutToken(TeamProposeStep::refusal(*why));
    m_policy = policy.toJson();
    m_added = context()->store()->add(p);
    if (context()->team())
        return publishToTeam(); // then finishProposed()
    finishProposed();
}

void ProposeOperation::publishToTeam()
{
    auto *step = new TeamProposeStep(context(), this);
    QPointer<ProposeOperation> self(this);
    step->publish(m_added.proposal, m_request, call()->client(),
                  [self](const TeamProposeStep::Published &published) {
                      if (!self)
                          return;
                      if (published.brokerGone)
                          return self->finishError(
                              QStringLiteral("the broker shut down; no token was given out"));
                      if (!published.team)
                          return self->failWithoutToken(TeamProposeStep::refusal(published.error));
                      self->m_team = *published.team;
                      self->finishProposed();
                  });
}

void ProposeOperation::finishProposed()
{
    const AddResult &added = m_added;
    const QJsonObject validated = m_dryRunResult.body.toObject();
    const qint64 now = context()->nowMs();

    QJsonArray evicted;
    for (const Proposal &e : added.evicted)
        evicted.append(QJsonObject{
            {QStringLiteral("token"), e.token},
            {QStringLiteral("change_type"), changeTypeName(e.changeType)},
            {QStringLiteral("target"), e.target},
            {QStringLiteral("age_seconds"), static_cast<double>((now - e.proposedAtMs) / 1000)}});

    const Proposal &stored = added.proposal;
    QJsonObject structured{
        {QStringLiteral("confirm_token"), stored.token},
        {QStringLiteral("change_type"), changeTypeName(m_type)},
        {QStringLiteral("target"), m_target},
        {QStringLiteral("request"), m_request.toJson()},
        {QStringLiteral("request_sha256"), stored.requestSha256},
        {QStringLiteral("validated"), validated},
        {QStringLiteral("price"), m_priceResult},
        {QStringLiteral("policy"), m_policy},
        {QStringLiteral("proposed_at"), ProposalView::isoTime(stored.proposedAtMs)},
        {QStringLiteral("expires_at"), ProposalView::isoTime(stored.expiresAtMs)},
        {QStringLiteral("evicted_proposals"), evicted},
        {QStringLiteral("sandbox"), context()->fabric()->config().sandbox},
        {QStringLiteral("next_step"),
         QStringLiteral("Show the user the target, price and request, then call "
                        "fabric_confirm_change with confirm_token. The user approves in a "
                        "prompt; the token works once and expires at expires_at.")}};

    if (!m_team.isEmpty())
        structured.insert(QStringLiteral("team"), m_team);

    QJsonObject audit{{QStringLiteral("change_type"), changeTypeName(m_type)},
                      {QStringLiteral("target"), m_target},
                      {QStringLiteral("request"), m_request.toJson()},
                      {QStringLiteral("request_sha256"), stored.requestSha256},
                      {QStringLiteral("token_sha256"), tokenDigest(stored.token)},
                      {QStringLiteral("dry_run"), m_dryRunResult.toJson()},
                      {QStringLiteral("price"), m_priceResult},
                      {QStringLiteral("policy"), m_policy},
                      {QStringLiteral("client"), call()->client().toJson()},
                      {QStringLiteral("fabric_endpoint"), m_binding.endpoint},
                      {QStringLiteral("credential_identity"), m_binding.identity},
                      {QStringLiteral("expires_at"), ProposalView::isoTime(stored.expiresAtMs)}};
    if (!m_team.isEmpty())
        audit.insert(QStringLiteral("team"), m_team);
    // The proposals this add evicted each have their own "evicted" record (the store reports
    // them to the audit log, core/AuditProposalEvents.h): not repeated here.
    context()->audit(AuditEventType::Proposed, audit);
    qCInfo(lcBroker).noquote() << "proposed" << changeTypeName(m_type) << m_target << "sha256"
                               << stored.requestSha256;

    QString summary =
        QStringLiteral("Proposed %1: %2\nFabric's dry run validated the exact "
                       "request. Price: %3\nConfirm token: %4 (expires %5)")
            .arg(changeTypeName(m_type), m_target, ProposalView::priceLine(m_priceResult),
                 stored.token, ProposalView::isoTime(stored.expiresAtMs));
    if (!added.evicted.isEmpty())
        summary += QStringLiteral("\nThis proposal evicted %1 older proposal(s).")
                       .arg(added.evicted.size());
    finishStructured(structured, result::renderText(summary, structured));
}

void ProposeOperation::failDryRun()
{
    const FabricResult &r = m_dryRunResult;
    QString message;
    if (r.kind == FabricResult::Kind::DryRunUnsupported)
        message = QStringLiteral("Fabric cannot dry-run this %1 (EQ-3142411), so it cannot be "
                                 "proposed: the broker only carries changes Fabric validated. "
                                 "No token was minted.")
                      .arg(changeTypeNoun(m_type));
    else
        message = QStringLiteral("Fabric's dry run rejected the request; no token was minted. "
                                 "%1")
                      .arg(r.message);
    failWithoutToken(
        QJsonObject{{QStringLiteral("kind"), r.kind == FabricResult::Kind::DryRunUnsupported
                                                 ? QStringLiteral("dry_run_unsupported")
                                                 : QStringLiteral("dry_run_failed")},
                    {QStringLiteral("message"), message},
                    {QStringLiteral("fabric"), r.toJson()},
                    {QStringLiteral("fabric_errors"), result::fabricErrorsJson(r)}});
}

void ProposeOperation::failWithoutToken(const QJsonObject &error)
{
    const QJsonObject structured{{QStringLiteral("error"), error},
                                 {QStringLiteral("change_type"), changeTypeName(m_type)},
                                 {QStringLiteral("target"), m_target},
                                 {QStringLiteral("request_sha256"), m_request.sha256Hex()}};
    context()->audit(AuditEventType::ProposeFailed, structured);
    finishStructured(
        structured,
        result::renderText(error.value(QStringLiteral("message")).toString(), structured), true);
}

} // namespace fb
