#include "broker/MutationBroker.h"

#include "broker/ClientElicitationApprover.h"
#include "broker/PolicyGate.h"
#include "broker/ProposalView.h"
#include "core/Sha256.h"
#include "core/UntrustedText.h"
#include "fabric/FabricClient.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QTimer>

#include <algorithm>
#include <utility>

Q_LOGGING_CATEGORY(lcBroker, "fabricbroker.broker.mutation")

namespace fb {

namespace {

QJsonArray violationsJson(const QList<SpecViolation> &violations)
{
    QJsonArray out;
    for (const SpecViolation &v : violations)
        out.append(
            QJsonObject{{QStringLiteral("path"), v.path}, {QStringLiteral("message"), v.message}});
    return out;
}

QJsonArray fabricErrorsJson(const FabricResult &r)
{
    QJsonArray out;
    for (const FabricError &e : r.errors)
        out.append(e.toJson());
    return out;
}

QString renderText(const QString &summary, const QJsonObject &structured)
{
    return summary + QStringLiteral("\n\n") +
           QString::fromUtf8(QJsonDocument(structured).toJson(QJsonDocument::Indented));
}

QJsonObject humanJson(const QString &status, const QString &channel, const QString &detail = {})
{
    QJsonObject o{{QStringLiteral("status"), status},
                  {QStringLiteral("channel"), channel.isEmpty() ? QJsonValue() : channel}};
    if (!detail.isEmpty())
        o.insert(QStringLiteral("detail"), detail);
    return o;
}

// Arguments must be exactly the declared ones: unknown fields are refused, not ignored.
QStringList unknownArguments(const QJsonObject &args, const QStringList &allowed)
{
    QStringList out;
    for (auto it = args.begin(); it != args.end(); ++it) {
        if (!allowed.contains(it.key()))
            out << it.key();
    }
    return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// One fabric_propose_change call: validate + compile, dry run and price lookup in parallel,
// mint the token only when Fabric's dry run succeeded.
class ProposeOperation : public QObject {
public:
    ProposeOperation(MutationBroker *broker, mcp::ToolCall *call)
        : QObject(call)
        , m_broker(broker)
        , m_call(call)
    {
    }

    void start()
    {
        const QJsonObject args = m_call->arguments();
        const QStringList unknown =
            unknownArguments(args, {QStringLiteral("change_type"), QStringLiteral("spec")});
        QList<SpecViolation> problems;
        for (const QString &k : unknown)
            problems.append({QStringLiteral("$.") + k,
                             QStringLiteral("unknown argument; allowed: change_type, spec")});
        const QJsonValue typeValue = args.value(QStringLiteral("change_type"));
        const auto type = changeTypeFromName(typeValue.toString());
        if (!typeValue.isString() || !type)
            problems.append({QStringLiteral("$.change_type"),
                             QStringLiteral("must be one of: ") +
                                 changeTypeNames().join(QStringLiteral(", "))});
        if (!args.value(QStringLiteral("spec")).isObject())
            problems.append(
                {QStringLiteral("$.spec"), args.contains(QStringLiteral("spec"))
                                               ? QStringLiteral("must be an object")
                                               : QStringLiteral("required argument missing")});
        if (!problems.isEmpty())
            return failInvalid(problems);

        m_type = *type;
        m_spec = args.value(QStringLiteral("spec")).toObject();
        const CompileResult compiled = m_broker->m_compiler->compile(m_type, m_spec);
        QList<SpecViolation> violations = compiled.violations;
        if (compiled.ok())
            violations += ChangeSpec::validateTimes(m_type, m_spec, m_broker->m_clock->nowMs());
        if (!violations.isEmpty()) {
            QList<SpecViolation> prefixed;
            for (const SpecViolation &v : std::as_const(violations))
                prefixed.append({QStringLiteral("$.spec") + v.path.mid(1), v.message});
            return failInvalid(prefixed);
        }
        m_request = *compiled.request;
        m_target = ProposalView::target(m_type, m_spec, {}); // uuids only until Fabric names them

        connect(m_call, &mcp::ToolCall::cancelled, this, [this] { abortAll(); });
        m_binding = MutationBroker::fabricBinding(m_broker->m_fabric->config());
        m_dryRun = m_broker->m_fabric->dryRun(m_request);
        connect(m_dryRun, &FabricCall::finished, this, [this](const FabricResult &r) {
            m_dryRun = nullptr;
            m_dryRunResult = r;
            m_haveDryRun = true;
            if (r.ok())
                startNameLookups(); // after the dry run, so Fabric sees the dry run first
            else
                abortAll();
            maybeFinish();
        });
        m_price = m_broker->m_fabric->priceContext(m_request);
        connect(m_price, &FabricCall::finished, this, [this](const FabricResult &r) {
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

private:
    // Fabric's own name of each entity the dry run did not name for sure, for the Target line:
    // one catalog read each, in parallel. A failed read leaves the dry run's name (or the uuid).
    void startNameLookups()
    {
        const QJsonObject validated = m_dryRunResult.body.toObject();
        for (const auto &[uuid, path] : ProposalView::nameLookups(m_spec, validated)) {
            FabricCall *lookup = m_broker->m_fabric->get(path);
            m_lookups.append(lookup);
            connect(lookup, &FabricCall::finished, this,
                    [this, uuid = uuid](const FabricResult &r) {
                        const QJsonObject entity = r.body.toObject();
                        const QString name = entity.value(QStringLiteral("name")).toString();
                        if (r.ok() && entity.value(QStringLiteral("uuid")).toString() == uuid &&
                            !name.isEmpty())
                            m_fabricNames.insert(uuid, name);
                        ++m_lookupsDone;
                        maybeFinish();
                    });
        }
    }

    void abortAll()
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

    void failInvalid(const QList<SpecViolation> &violations)
    {
        const QJsonObject structured{
            {QStringLiteral("error"),
             QJsonObject{{QStringLiteral("kind"), QStringLiteral("invalid_spec")},
                         {QStringLiteral("message"),
                          QStringLiteral("The proposal is invalid; nothing was sent to Fabric. "
                                         "Fix every field listed and propose again.")},
                         {QStringLiteral("violations"), violationsJson(violations)}}}};
        m_broker->audit(QStringLiteral("propose_failed"), structured);
        m_call->finishStructured(structured,
                                 QStringLiteral("Invalid proposal (nothing was sent):\n") +
                                     formatViolations(violations),
                                 true);
    }

    void maybeFinish()
    {
        if (!m_haveDryRun ||
            (m_dryRunResult.ok() && (!m_havePrice || m_lookupsDone < m_lookups.size())))
            return;
        if (m_finished)
            return;
        m_finished = true;
        if (!m_broker) {
            m_call->finishError(QStringLiteral("the broker shut down; no token was minted"));
            return;
        }
        if (m_call->isCancelled()) {
            m_call->finishError(QStringLiteral("cancelled by the client; no token was minted"));
            return;
        }
        if (!m_dryRunResult.ok())
            return failDryRun();
        // The operator policy (docs/policy.md): a denied proposal gets no token.
        const PolicyVerdict policy = evaluateAtPropose(m_broker->m_settings.policy, m_priceResult);
        if (policy.denied()) {
            const QJsonObject s = policyRefusal(policy, m_priceResult, changeTypeName(m_type),
                                                m_target, m_request.sha256Hex());
            m_broker->audit(QStringLiteral("propose_failed"), s);
            return m_call->finishStructured(s, renderText(policyConfirmMessage(policy), s), true);
        }

        const QJsonObject validated = m_dryRunResult.body.toObject();
        // Fabric's names for the uuids of the request, never the agent's labels.
        m_target = ProposalView::target(m_type, m_spec, validated, m_fabricNames);

        Proposal p;
        p.changeType = m_type;
        p.spec = m_spec;
        p.requestSha256 = m_request.sha256Hex();
        p.target = m_target;
        p.fabricEndpoint = m_binding.endpoint;
        p.credentialIdentity = m_binding.identity;
        p.context = {{QStringLiteral("price"), m_priceResult},
                     {QStringLiteral("validated"), validated},
                     {QStringLiteral("client"), m_call->client().toJson()},
                     {QStringLiteral("dry_run_correlation_id"), m_dryRunResult.correlationId},
                     {QStringLiteral("policy"), policy.toJson()}};
        const AddResult added = m_broker->m_store->add(p);
        const qint64 now = m_broker->m_clock->nowMs();

        QJsonArray evicted;
        for (const Proposal &e : added.evicted)
            evicted.append(
                QJsonObject{{QStringLiteral("token"), e.token},
                            {QStringLiteral("change_type"), changeTypeName(e.changeType)},
                            {QStringLiteral("target"), e.target},
                            {QStringLiteral("age_seconds"),
                             static_cast<double>((now - e.proposedAtMs) / 1000)}});

        QJsonArray evictedAudit;
        for (const Proposal &e : added.evicted)
            evictedAudit.append(QJsonObject{{QStringLiteral("token_sha256"), tokenDigest(e.token)},
                                            {QStringLiteral("request_sha256"), e.requestSha256},
                                            {QStringLiteral("target"), e.target}});
        const Proposal &stored = added.proposal;
        QJsonObject structured{
            {QStringLiteral("confirm_token"), stored.token},
            {QStringLiteral("change_type"), changeTypeName(m_type)},
            {QStringLiteral("target"), m_target},
            {QStringLiteral("request"), m_request.toJson()},
            {QStringLiteral("request_sha256"), stored.requestSha256},
            {QStringLiteral("validated"), validated},
            {QStringLiteral("price"), m_priceResult},
            {QStringLiteral("policy"), policy.toJson()},
            {QStringLiteral("proposed_at"), ProposalView::isoTime(stored.proposedAtMs)},
            {QStringLiteral("expires_at"), ProposalView::isoTime(stored.expiresAtMs)},
            {QStringLiteral("evicted_proposals"), evicted},
            {QStringLiteral("sandbox"), m_broker->m_fabric->config().sandbox},
            {QStringLiteral("next_step"),
             QStringLiteral("Show the user the target, price and request, then call "
                            "fabric_confirm_change with confirm_token. The user approves in a "
                            "prompt; the token works once and expires at expires_at.")}};

        QJsonObject audit{
            {QStringLiteral("change_type"), changeTypeName(m_type)},
            {QStringLiteral("target"), m_target},
            {QStringLiteral("request"), m_request.toJson()},
            {QStringLiteral("request_sha256"), stored.requestSha256},
            {QStringLiteral("token_sha256"), tokenDigest(stored.token)},
            {QStringLiteral("dry_run"), m_dryRunResult.toJson()},
            {QStringLiteral("price"), m_priceResult},
            {QStringLiteral("policy"), policy.toJson()},
            {QStringLiteral("client"), m_call->client().toJson()},
            {QStringLiteral("fabric_endpoint"), m_binding.endpoint},
            {QStringLiteral("credential_identity"), m_binding.identity},
            {QStringLiteral("evicted"), evictedAudit},
            {QStringLiteral("expires_at"), ProposalView::isoTime(stored.expiresAtMs)}};
        m_broker->audit(QStringLiteral("proposed"), audit);
        qCInfo(lcBroker).noquote()
            << "proposed" << changeTypeName(m_type) << m_target << "sha256" << stored.requestSha256;

        QString summary =
            QStringLiteral("Proposed %1: %2\nFabric's dry run validated the exact "
                           "request. Price: %3\nConfirm token: %4 (expires %5)")
                .arg(changeTypeName(m_type), m_target, ProposalView::priceLine(m_priceResult),
                     stored.token, ProposalView::isoTime(stored.expiresAtMs));
        if (!added.evicted.isEmpty())
            summary += QStringLiteral("\nThis proposal evicted %1 older proposal(s).")
                           .arg(added.evicted.size());
        m_call->finishStructured(structured, renderText(summary, structured));
    }

    void failDryRun()
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
        const QJsonObject structured{
            {QStringLiteral("error"),
             QJsonObject{{QStringLiteral("kind"), r.kind == FabricResult::Kind::DryRunUnsupported
                                                      ? QStringLiteral("dry_run_unsupported")
                                                      : QStringLiteral("dry_run_failed")},
                         {QStringLiteral("message"), message},
                         {QStringLiteral("fabric"), r.toJson()},
                         {QStringLiteral("fabric_errors"), fabricErrorsJson(r)}}},
            {QStringLiteral("change_type"), changeTypeName(m_type)},
            {QStringLiteral("target"), m_target},
            {QStringLiteral("request_sha256"), m_request.sha256Hex()}};
        m_broker->audit(QStringLiteral("propose_failed"), structured);
        m_call->finishStructured(structured, renderText(message, structured), true);
    }

    QPointer<MutationBroker> m_broker;
    mcp::ToolCall *m_call;
    ChangeType m_type = ChangeType::ConnectionCreate;
    QJsonObject m_spec;
    CompiledRequest m_request;
    QString m_target;
    MutationBroker::FabricBinding m_binding;
    QList<QPointer<FabricCall>> m_lookups;
    qsizetype m_lookupsDone = 0;
    QHash<QString, QString> m_fabricNames; // uuid -> name, from the lookups
    QPointer<FabricCall> m_dryRun;
    QPointer<FabricCall> m_price;
    FabricResult m_dryRunResult;
    QJsonObject m_priceResult;
    bool m_haveDryRun = false;
    bool m_havePrice = false;
    bool m_finished = false;
};

// ---------------------------------------------------------------------------------------------
// One fabric_confirm_change call: consume the token (predicates in the seed's order), recompile
// and check the binding, ask a person, re-check the TTL, then send exactly once.
class ConfirmOperation : public QObject {
public:
    ConfirmOperation(MutationBroker *broker, mcp::ToolCall *call)
        : QObject(call)
        , m_broker(broker)
        , m_call(call)
    {
    }

    void start()
    {
        const QJsonObject args = m_call->arguments();
        const QStringList unknown = unknownArguments(args, {QStringLiteral("confirm_token")});
        const QJsonValue token = args.value(QStringLiteral("confirm_token"));
        if (!token.isString()) {
            // Nothing is consumed: the arguments name no token.
            return finishNotExecuted(
                ConfirmChecks{}, QStringLiteral("invalid_arguments"),
                QStringLiteral("confirm_token is required and must be a string (the chg- token "
                               "returned by fabric_propose_change). No token was consumed."),
                humanJson(QStringLiteral("not_requested"), {}), true);
        }

        // A named token is consumed by this first attempt, whatever else the call carries.
        const ConsumeResult consumed = m_broker->m_store->consume(token.toString());
        m_checks = consumed.checks;
        if (consumed.proposal)
            m_proposal = *consumed.proposal;
        m_broker->audit(QStringLiteral("redemption"),
                        {{QStringLiteral("token_sha256"), tokenDigest(token.toString())},
                         {QStringLiteral("outcome"), consumeOutcomeName(consumed.outcome)},
                         {QStringLiteral("confirm_checks"), m_checks.toJson()},
                         {QStringLiteral("request_sha256"),
                          consumed.proposal ? QJsonValue(m_proposal.requestSha256) : QJsonValue()},
                         {QStringLiteral("client"), m_call->client().toJson()}});
        if (!consumed.ok())
            return tokenError(consumed.outcome);
        if (!unknown.isEmpty()) {
            return finishNotExecuted(
                m_checks, QStringLiteral("invalid_arguments"),
                QStringLiteral("fabric_confirm_change takes only confirm_token; unknown "
                               "argument(s): %1. The token was consumed by this attempt and "
                               "nothing was sent; the spec cannot be changed at confirm time. "
                               "Propose again.")
                    .arg(UntrustedText::escapeInvisible(
                        UntrustedText::bounded(unknown.join(QStringLiteral(", ")), 200))),
                humanJson(QStringLiteral("not_requested"), {}), true);
        }

        // Recompile the stored spec; never a re-supplied one.
        const CompileResult recompiled =
            m_broker->m_compiler->compile(m_proposal.changeType, m_proposal.spec);
        const bool matches =
            recompiled.ok() && recompiled.request->sha256Hex() == m_proposal.requestSha256;
        m_checks.requestMatchesBinding = matches;
        if (!matches) {
            const QString detail =
                recompiled.ok()
                    ? QStringLiteral("recompiling the stored spec produced request %1, but the "
                                     "token is bound to %2")
                          .arg(recompiled.request->sha256Hex(), m_proposal.requestSha256)
                    : QStringLiteral("the stored spec no longer compiles: ") +
                          formatViolations(recompiled.violations);
            qCWarning(lcBroker).noquote() << "binding mismatch:" << detail;
            return finishNotExecuted(
                m_checks, QStringLiteral("binding_mismatch"),
                QStringLiteral("Refused: %1. Nothing was sent. Propose the change again.")
                    .arg(detail),
                humanJson(QStringLiteral("not_requested"), {}), true);
        }
        m_request = *recompiled.request;

        // The binding also covers where the create goes and as whom.
        const MutationBroker::FabricBinding now =
            MutationBroker::fabricBinding(m_broker->m_fabric->config());
        QStringList changed;
        if (now.endpoint != m_proposal.fabricEndpoint)
            changed << QStringLiteral("the Fabric endpoint changed from %1 to %2")
                           .arg(m_proposal.fabricEndpoint, now.endpoint);
        if (now.identity != m_proposal.credentialIdentity)
            changed << QStringLiteral("the credentials changed from %1 to %2")
                           .arg(m_proposal.credentialIdentity, now.identity);
        if (!changed.isEmpty()) {
            m_checks.requestMatchesBinding = false;
            const QString detail = changed.join(QStringLiteral(" and "));
            qCWarning(lcBroker).noquote() << "binding mismatch:" << detail;
            return finishNotExecuted(
                m_checks, QStringLiteral("binding_mismatch"),
                QStringLiteral("Refused: %1 since Fabric's dry run validated this proposal. "
                               "Nothing was sent and no person was asked. Propose the change "
                               "again.")
                    .arg(detail),
                humanJson(QStringLiteral("not_requested"), {}), true);
        }

        // The operator policy (docs/policy.md), before anyone is asked.
        m_policy = policyAtConfirm(m_broker->m_settings.policy, m_proposal, m_broker->m_audit,
                                   m_broker->m_clock->nowMs());
        m_policyEvaluated = true;
        m_proposal.context.insert(QStringLiteral("policy"), m_policy.toJson());
        m_broker->audit(QStringLiteral("policy"),
                        {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                         {QStringLiteral("stage"), QStringLiteral("confirm")},
                         {QStringLiteral("policy"), m_policy.toJson()}});
        const QString channel = m_broker->m_approver->channel();
        if (m_policy.denied() || (m_policy.desktopRequired() && channel != u"desktop"))
            return finishNotExecuted(
                m_checks,
                m_policy.denied() ? QStringLiteral("policy_denied")
                                  : QStringLiteral("policy_requires_desktop"),
                policyConfirmMessage(m_policy),
                m_policy.denied()
                    ? humanJson(QStringLiteral("not_requested"), {})
                    : humanJson(QStringLiteral("unsupported_by_client"), channel,
                                m_policy.rule + QStringLiteral(": ") + m_policy.reason),
                true);

        // Fabric's dry run of the bound bytes once more, before anyone is asked (docs/policy.md).
        revalidate(false);
    }

private:
    void askPerson()
    {
        if (m_call->isCancelled())
            return decided(HumanDecision{
                HumanStatus::CallCancelled, m_broker->m_approver->channel(),
                QStringLiteral("the client cancelled the tool call"), m_broker->m_clock->nowMs()});

        ApprovalContext ctx{m_proposal, m_request, m_call->client(),
                            m_broker->m_settings.elicitTimeoutMs};
        m_askedAtMs = m_broker->m_clock->nowMs();
        m_broker->audit(QStringLiteral("approval_requested"),
                        {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                         {QStringLiteral("channel"), m_broker->m_approver->channel()},
                         {QStringLiteral("client"), m_call->client().toJson()}});
        emit m_broker->approvalStarted(m_proposal, m_broker->m_approver->channel());
        startProgress();
        QPointer<ConfirmOperation> self(this);
        m_broker->m_approver->requestApproval(m_call, ctx, [self](const HumanDecision &d) {
            if (self)
                self->decided(d);
        });
    }

    // Re-runs Fabric's dry run of exactly the bound request. beforeSend: the second run, right
    // before the create, when the person took longer than revalidate_before_send_after_ms.
    void revalidate(bool beforeSend)
    {
        FabricCall *dry = m_broker->m_fabric->dryRun(m_request);
        connect(dry, &FabricCall::finished, this,
                [this, beforeSend](const FabricResult &r) { revalidated(r, beforeSend); });
    }

    void revalidated(const FabricResult &r, bool beforeSend)
    {
        if (!m_broker) // it died while the dry run ran (its late answer or the client's abort)
            return m_call->finishError(QStringLiteral("the broker shut down during the "
                                                      "re-validation; nothing was sent"));
        const QJsonObject run{{QStringLiteral("ran"), true},
                              {QStringLiteral("ok"), r.ok()},
                              {QStringLiteral("fabric_errors"), fabricErrorsJson(r)},
                              {QStringLiteral("correlation_id"), r.correlationId}};
        if (beforeSend)
            m_revalidation.insert(QStringLiteral("before_send"), run);
        else
            m_revalidation = run;
        m_broker->audit(QStringLiteral("revalidation"),
                        {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                         {QStringLiteral("stage"), beforeSend ? QStringLiteral("before_send")
                                                              : QStringLiteral("before_asking")},
                         {QStringLiteral("ok"), r.ok()},
                         {QStringLiteral("dry_run"), r.toJson()}});
        if (!r.ok())
            return finishNotExecuted(
                m_checks, QStringLiteral("revalidation_failed"), revalidationMessage(r, beforeSend),
                beforeSend ? m_human : humanJson(QStringLiteral("not_requested"), {}), true);
        if (beforeSend)
            return execute(m_human, m_unconfirmed);
        askPerson();
    }

    QString revalidationMessage(const FabricResult &r, bool beforeSend) const
    {
        const QString when = beforeSend ? QStringLiteral("right before sending (the person took "
                                                         "longer than %1 ms)")
                                              .arg(m_broker->m_settings.policy.revalidateAfter())
                                        : QStringLiteral("before anyone was asked");
        if (!r.requestSent || r.httpStatus == 0 || r.httpStatus >= 500)
            return QStringLiteral("Fabric's dry run could not be re-run %1 (%2), so nothing was "
                                  "sent; the token is used up. Propose the change again.")
                .arg(when, r.message);
        return QStringLiteral("Fabric's dry run now rejects this request (%1): %2. Nothing was "
                              "sent; the token is used up. Re-propose the change (for example "
                              "with another VLAN) to get a new token.")
            .arg(when, r.message);
    }

    // After an approval: re-validate first when the person took longer than the policy allows.
    void sendAfterRevalidation(const QJsonObject &human, bool unconfirmed)
    {
        const qint64 waited = m_broker->m_clock->nowMs() - m_askedAtMs;
        const qint64 limit = m_broker->m_settings.policy.revalidateAfter();
        if (waited <= limit) {
            m_revalidation.insert(
                QStringLiteral("before_send"),
                QJsonObject{{QStringLiteral("ran"), false},
                            {QStringLiteral("reason"),
                             QStringLiteral("the answer came after %1 ms, within "
                                            "revalidate_before_send_after_ms (%2)")
                                 .arg(waited)
                                 .arg(limit)}});
            return execute(human, unconfirmed);
        }
        m_human = human;
        m_unconfirmed = unconfirmed;
        revalidate(true);
    }

    void startProgress()
    {
        if (!m_call->hasProgressToken())
            return;
        // Keep clients that reset their timeout on progress from giving up while a person reads.
        m_progressTimer = new QTimer(this);
        connect(m_progressTimer, &QTimer::timeout, this, [this] {
            const qint64 waited = m_broker->m_clock->nowMs() - m_askedAtMs;
            m_call->progress(static_cast<double>(waited),
                             static_cast<double>(m_broker->m_settings.elicitTimeoutMs),
                             QStringLiteral("waiting for a person to approve"));
        });
        m_progressTimer->start(m_broker->m_settings.progressIntervalMs);
        m_call->progress(0, m_broker->m_settings.elicitTimeoutMs,
                         QStringLiteral("asking a person to approve"));
    }

    void decided(const HumanDecision &d)
    {
        if (m_decided)
            return;
        m_decided = true;
        if (!m_broker) {
            m_call->finishError(QStringLiteral("the broker shut down before the decision; "
                                               "nothing was sent"));
            return;
        }
        if (m_progressTimer)
            m_progressTimer->stop();
        m_decision = d;
        const qint64 now = m_broker->m_clock->nowMs();
        const QString status = humanStatusName(d.status);
        m_broker->audit(QStringLiteral("decision"),
                        {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                         {QStringLiteral("status"), status},
                         {QStringLiteral("channel"), d.channel},
                         {QStringLiteral("detail"), d.detail},
                         {QStringLiteral("decision_latency_ms"),
                          static_cast<double>(m_askedAtMs ? now - m_askedAtMs : 0)},
                         {QStringLiteral("client"), m_call->client().toJson()}});
        emit m_broker->approvalFinished(m_proposal, status);

        const QJsonObject human = humanJson(status, d.channel, d.detail);
        if (d.status == HumanStatus::Accepted) {
            // Re-check the TTL when the answer arrives.
            if (now >= m_proposal.expiresAtMs) {
                m_checks.notExpired = false;
                return finishNotExecuted(
                    m_checks, QStringLiteral("expired_during_approval"),
                    QStringLiteral("The person approved, but only after the proposal expired at "
                                   "%1. Nothing was sent. Propose the change again.")
                        .arg(ProposalView::isoTime(m_proposal.expiresAtMs)),
                    human, true);
            }
            return sendAfterRevalidation(human, false);
        }
        if (d.status == HumanStatus::UnsupportedByClient &&
            m_broker->m_settings.allowUnconfirmedMutations) {
            qCWarning(lcBroker).noquote()
                << "EXECUTING WITHOUT HUMAN CONFIRMATION (EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS"
                   "=true):"
                << changeTypeName(m_proposal.changeType) << m_proposal.target;
            return sendAfterRevalidation(human, true);
        }
        QString message;
        switch (d.status) {
        case HumanStatus::Declined:
            message = QStringLiteral("The person declined. Nothing was created. Do not retry "
                                     "unless the user asks; a new attempt needs a new proposal.");
            break;
        case HumanStatus::Cancelled:
            message = QStringLiteral("The person dismissed the approval prompt. Nothing was "
                                     "created. Propose again if the user still wants it.");
            break;
        case HumanStatus::TimedOut:
            message = QStringLiteral("No answer from a person within %1 ms. Nothing was "
                                     "created. Propose again when the user is available.")
                          .arg(m_broker->m_settings.elicitTimeoutMs);
            break;
        case HumanStatus::Failed:
            message = QStringLiteral("The approval round trip failed (%1). Nothing was created.")
                          .arg(d.detail);
            break;
        case HumanStatus::CallCancelled:
            message = QStringLiteral("The tool call was cancelled before anything was sent. "
                                     "Nothing was created.");
            break;
        case HumanStatus::UnsupportedByClient:
            message = QStringLiteral(
                "This MCP client did not declare form elicitation, so no person could be asked "
                "and nothing was created. Use a client that supports elicitation, or the Fabric "
                "Broker desktop app.");
            break;
        case HumanStatus::Accepted:
            break;
        }
        finishNotExecuted(m_checks, QStringLiteral("not_approved"), message, human, true);
    }

    void execute(const QJsonObject &human, bool unconfirmed)
    {
        if (m_broker->m_shuttingDown)
            return finishNotExecuted(m_checks, QStringLiteral("shutting_down"),
                                     QStringLiteral("Approved, but Fabric Broker is shutting "
                                                    "down, so the create was not sent. Nothing "
                                                    "was created; propose again after it "
                                                    "restarts."),
                                     human, true);
        // From here on the client must learn the outcome even if it cancels.
        m_call->setReportEvenIfCancelled(true);
        m_human = human;
        m_unconfirmed = unconfirmed;
        const bool durable =
            m_broker->audit(QStringLiteral("sending"),
                            {{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                             {QStringLiteral("request"), m_request.toJson()},
                             {QStringLiteral("human_confirmation"), human},
                             {QStringLiteral("unconfirmed_execution"), unconfirmed}});
        if (!durable) {
            m_call->setReportEvenIfCancelled(false);
            return finishNotExecuted(m_checks, QStringLiteral("audit_unavailable"),
                                     QStringLiteral("Approved, but the audit log could not record "
                                                    "it durably, so nothing was sent. The "
                                                    "operator must fix the audit log; then "
                                                    "propose again."),
                                     human, true);
        }
        FabricCall *create = m_broker->m_fabric->create(m_request);
        m_create = create;
        m_broker->m_executing.append(this);
        connect(create, &FabricCall::finished, this,
                [this](const FabricResult &r) { executed(r); });
        // A cancel before the first byte of the create leaves (token fetch, connect) stops it;
        // after that the create is on its way and the result reports its outcome.
        connect(m_call, &mcp::ToolCall::cancelled, this, [this](const QString &reason) {
            if (m_create && !m_create->isFinished()) {
                const QString before = std::exchange(m_endReason, reason);
                if (!m_create->abortIfNotSent())
                    m_endReason = before;
            }
        });
        if (m_call->isCancelled()) { // cancelled before the create could start
            m_endReason = m_call->cancelReason();
            create->abortIfNotSent();
        }
        if (m_broker)
            emit m_broker->createsInFlightChanged(m_broker->createsInFlight());
    }

public:
    // "<name> (<target line>)", or the target line for a spec without a name.
    QString target() const
    {
        const QString name = nameFromSpec();
        return name.isEmpty() ? m_proposal.target
                              : QStringLiteral("%1 (%2)").arg(name, m_proposal.target);
    }

    // The shutdown grace is over (or the broker is being destroyed): end the create now.
    void abandon(const QString &reason)
    {
        if (!m_create || m_create->isFinished())
            return;
        m_endReason = reason;
        m_create->abort(); // finishes synchronously: not_sent, or sent with outcome unknown
    }

private:
    void executed(const FabricResult &r)
    {
        m_create = nullptr;
        if (!m_broker)
            return m_call->finishError(QStringLiteral("the broker shut down"));
        QString outcome;
        QString message;
        QJsonObject execution{{QStringLiteral("correlation_id"), r.correlationId},
                              {QStringLiteral("http_status"), r.httpStatus}};
        const CreateOutcome verdict = createOutcome(r);
        if (verdict == CreateOutcome::Created) {
            outcome = QStringLiteral("created");
            const QJsonObject entity = r.body.toObject();
            execution.insert(QStringLiteral("entity"), entity);
            execution.insert(QStringLiteral("uuid"), entity.value(QStringLiteral("uuid")));
            message = QStringLiteral("Created %1 %2: %3")
                          .arg(changeTypeNoun(m_proposal.changeType),
                               entity.value(QStringLiteral("uuid")).toString(), m_proposal.target);
        } else if (verdict == CreateOutcome::NotSent) {
            outcome = QStringLiteral("not_sent");
            if (!m_endReason.isEmpty())
                message = QStringLiteral("The create was stopped before any of it was sent to "
                                         "Fabric (%1). Nothing was created; the token is used "
                                         "up, so propose again if it is still wanted.")
                              .arg(m_endReason);
            else
                message = QStringLiteral("The create could not be sent (%1). Nothing was "
                                         "created; the token is used up, so propose again.")
                              .arg(r.message);
        } else if (verdict == CreateOutcome::Unknown) {
            outcome = QStringLiteral("unknown");
            const QJsonObject lookupArgs = lookupArguments();
            const QString lookupCall =
                searchToolName() + u' ' +
                QString::fromUtf8(QJsonDocument(lookupArgs).toJson(QJsonDocument::Compact));
            message =
                QStringLiteral("The create was sent but its outcome is unknown (%1%2). It "
                               "was NOT retried and Fabric may have created it. Before "
                               "proposing again, call %3 and check whether it exists "
                               "(correlation id %4).")
                    .arg(r.message,
                         m_endReason.isEmpty() ? QString() : QStringLiteral("; ") + m_endReason,
                         lookupCall, r.correlationId);
            execution.insert(QStringLiteral("lookup"),
                             QJsonObject{{QStringLiteral("name"), nameFromSpec()},
                                         {QStringLiteral("search_tool"), searchToolName()},
                                         {QStringLiteral("arguments"), lookupArgs},
                                         {QStringLiteral("correlation_id"), r.correlationId}});
        } else {
            outcome = QStringLiteral("rejected");
            message = QStringLiteral("Fabric rejected the create: %1. It was not retried.")
                          .arg(r.message);
            execution.insert(QStringLiteral("fabric_errors"), fabricErrorsJson(r));
        }
        execution.insert(QStringLiteral("outcome"), outcome);
        execution.insert(QStringLiteral("message"), r.message);
        if (m_unconfirmed)
            message =
                QStringLiteral("WARNING: executed WITHOUT human confirmation because the "
                               "operator set EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true. ") +
                message;

        if (!m_endReason.isEmpty())
            execution.insert(QStringLiteral("reason"), m_endReason);

        const bool executedFlag = r.requestSent;
        QJsonObject record{{QStringLiteral("request_sha256"), m_proposal.requestSha256},
                           {QStringLiteral("sent"), executedFlag},
                           {QStringLiteral("outcome"), outcome},
                           {QStringLiteral("uuid"), execution.value(QStringLiteral("uuid"))},
                           {QStringLiteral("correlation_id"), r.correlationId},
                           {QStringLiteral("fabric"), r.toJson()}};
        if (!m_endReason.isEmpty())
            record.insert(QStringLiteral("reason"), m_endReason);
        m_broker->audit(QStringLiteral("executed"), record);
        emit m_broker->executionFinished(m_proposal, executedFlag, outcome);
        QPointer<MutationBroker> broker = m_broker;
        finish(m_checks, m_human, executedFlag, execution, message, outcome != u"created");
        if (broker) {
            broker->m_executing.removeAll(this);
            emit broker->createsInFlightChanged(broker->createsInFlight());
        }
    }

    // The catalog call that finds the resource by name: {"name": ...} for the search tool.
    QJsonObject lookupArguments() const
    {
        const QString name = nameFromSpec();
        if (name.isEmpty())
            return QJsonObject{{QStringLiteral("limit"), 20}};
        return QJsonObject{{QStringLiteral("name"), name}};
    }

    QString nameFromSpec() const
    {
        return m_proposal.spec.value(QStringLiteral("name")).toString();
    }
    QString searchToolName() const
    {
        switch (m_proposal.changeType) {
        case ChangeType::ConnectionCreate:
            return QStringLiteral("fabric_search_connections");
        case ChangeType::NetworkCreate:
            return QStringLiteral("fabric_search_networks");
        case ChangeType::ServiceTokenCreate:
            return QStringLiteral("fabric_search_service_tokens");
        }
        return {};
    }

    void tokenError(ConsumeOutcome outcome)
    {
        QString kind, message;
        switch (outcome) {
        case ConsumeOutcome::Unknown:
            kind = QStringLiteral("unknown_token");
            message = QStringLiteral("Unknown confirm token: this process holds no such proposal "
                                     "(tokens live in memory and do not survive a restart). "
                                     "Propose the change again to get a new token.");
            break;
        case ConsumeOutcome::Evicted:
            kind = QStringLiteral("evicted_token");
            message = QStringLiteral("This proposal was evicted because %1. Propose the change "
                                     "again.")
                          .arg(m_proposal.evictedBecause.isEmpty()
                                   ? QStringLiteral("more than %1 proposals were pending")
                                         .arg(m_broker->m_store->maxPending())
                                   : m_proposal.evictedBecause);
            break;
        case ConsumeOutcome::Expired:
            kind = QStringLiteral("expired_token");
            message = QStringLiteral("This proposal expired at %1. Propose the change again; "
                                     "Fabric's dry run will re-validate it.")
                          .arg(ProposalView::isoTime(m_proposal.expiresAtMs));
            break;
        case ConsumeOutcome::PreviouslyUsed:
            kind = QStringLiteral("replayed_token");
            message = QStringLiteral("This confirm token was already used: tokens are single-use, "
                                     "consumed on the first attempt whatever its outcome. Propose "
                                     "the change again if it is still wanted.");
            break;
        case ConsumeOutcome::Consumed:
            break;
        }
        finishNotExecuted(m_checks, kind, message, humanJson(QStringLiteral("not_requested"), {}),
                          true);
    }

    void finishNotExecuted(const ConfirmChecks &checks, const QString &kind, const QString &message,
                           const QJsonObject &human, bool isError)
    {
        QJsonObject execution{{QStringLiteral("outcome"), QStringLiteral("not_sent")}};
        if (!kind.isEmpty())
            execution.insert(QStringLiteral("reason"), kind);
        emit m_broker->executionFinished(m_proposal, false, kind);
        finish(checks, human, false, execution, message, isError);
    }

    void finish(const ConfirmChecks &checks, const QJsonObject &human, bool executedFlag,
                const QJsonObject &execution, const QString &message, bool isError)
    {
        QJsonObject structured{{QStringLiteral("confirm_checks"), checks.toJson()},
                               {QStringLiteral("human_confirmation"), human},
                               {QStringLiteral("executed"), executedFlag},
                               {QStringLiteral("execution"), execution},
                               {QStringLiteral("message"), message}};
        const QString failed = checks.firstFailure();
        structured.insert(QStringLiteral("failed_check"), failed.isEmpty() ? QJsonValue() : failed);
        if (!m_proposal.token.isEmpty()) {
            structured.insert(QStringLiteral("change_type"), changeTypeName(m_proposal.changeType));
            structured.insert(QStringLiteral("target"), m_proposal.target);
            structured.insert(QStringLiteral("request_sha256"), m_proposal.requestSha256);
        }
        if (m_unconfirmed)
            structured.insert(QStringLiteral("unconfirmed_execution"), true);
        structured.insert(QStringLiteral("policy"),
                          m_policyEvaluated ? QJsonValue(m_policy.toJson()) : QJsonValue());
        structured.insert(
            QStringLiteral("revalidation"),
            !m_revalidation.isEmpty()
                ? m_revalidation
                : QJsonObject{{QStringLiteral("ran"), false},
                              {QStringLiteral("reason"),
                               QStringLiteral("not needed: the confirm stopped before it")}});
        m_call->finishStructured(structured, renderText(message, structured), isError);
    }

    QPointer<MutationBroker> m_broker;
    mcp::ToolCall *m_call;
    QPointer<FabricCall> m_create; // the real create, while it is in flight
    QString m_endReason;           // why the create was cut short (cancel, shutdown)
    ConfirmChecks m_checks;
    Proposal m_proposal;
    CompiledRequest m_request;
    HumanDecision m_decision;
    QJsonObject m_human;
    QTimer *m_progressTimer = nullptr;
    qint64 m_askedAtMs = 0;
    bool m_decided = false;
    bool m_unconfirmed = false;
    PolicyVerdict m_policy;
    bool m_policyEvaluated = false;
    QJsonObject m_revalidation; // {ran, ok, fabric_errors, before_send {...}}
};

// ---------------------------------------------------------------------------------------------

MutationBroker::MutationBroker(ProposalStore *store, FabricClient *fabric, BrokerSettings settings,
                               Clock *clock, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_fabric(fabric)
    , m_settings(std::move(settings))
    , m_clock(clock)
    , m_compiler(&m_defaultCompiler)
    , m_defaultApprover(std::make_unique<ClientElicitationApprover>())
    , m_approver(m_defaultApprover.get())
{
    m_store->setTtlMs(m_settings.proposalTtlMs);
    m_store->setMaxPending(m_settings.maxPending);
}

MutationBroker::~MutationBroker()
{
    // No operation may outlive the broker with a create pending on it.
    abandonInFlight(QStringLiteral("the broker was shut down before Fabric answered"));
}

FabricClient *MutationBroker::fabric() const
{
    return m_fabric.data();
}

int MutationBroker::createsInFlight() const
{
    return int(std::count_if(m_executing.begin(), m_executing.end(),
                             [](const QPointer<ConfirmOperation> &op) { return !op.isNull(); }));
}

QStringList MutationBroker::createsInFlightTargets() const
{
    QStringList out;
    for (const QPointer<ConfirmOperation> &op : m_executing) {
        if (op)
            out << op->target();
    }
    return out;
}

void MutationBroker::beginShutdown()
{
    if (m_shuttingDown)
        return;
    m_shuttingDown = true;
    qCInfo(lcBroker) << "shutting down:" << createsInFlight() << "create(s) in flight";
}

void MutationBroker::abandonInFlight(const QString &reason)
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

MutationBroker::FabricBinding MutationBroker::fabricBinding(const FabricConfig &config)
{
    FabricBinding b;
    QUrl endpoint = config.endpoint.adjusted(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
    if (endpoint.path() == u"/")
        endpoint.setPath(QString());
    b.endpoint = endpoint.toString();
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

void MutationBroker::setApprover(Approver *approver)
{
    m_approver = approver ? approver : m_defaultApprover.get();
}

Approver *MutationBroker::approver() const
{
    return m_approver;
}

void MutationBroker::setCompiler(const ChangeCompiler *compiler)
{
    m_compiler = compiler ? compiler : &m_defaultCompiler;
}

void MutationBroker::setAuditSink(AuditSink *sink)
{
    m_audit = sink;
}

bool MutationBroker::audit(const QString &type, const QJsonObject &record)
{
    const bool durable = !m_audit || m_audit->record(type, record);
    if (!durable)
        qCCritical(lcBroker).noquote() << "audit record" << type << "could not be made durable";
    emit auditEvent(type, record);
    return durable;
}

void MutationBroker::propose(mcp::ToolCall *call)
{
    (new ProposeOperation(this, call))->start();
}

void MutationBroker::confirm(mcp::ToolCall *call)
{
    (new ConfirmOperation(this, call))->start();
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
    const QJsonObject nullableBool{
        {QStringLiteral("type"), QJsonArray{QStringLiteral("boolean"), QStringLiteral("null")}}};
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
                   QJsonObject{
                       {QStringLiteral("status"),
                        QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                    {QStringLiteral("enum"), statuses}}},
                       {QStringLiteral("channel"),
                        QJsonObject{{QStringLiteral("type"), QJsonArray{QStringLiteral("string"),
                                                                        QStringLiteral("null")}}}},
                       {QStringLiteral("detail"), str}}},
                  {QStringLiteral("required"),
                   QJsonArray{QStringLiteral("status"), QStringLiteral("channel")}}}},
             {QStringLiteral("executed"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}}},
             {QStringLiteral("execution"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}},
             {QStringLiteral("failed_check"),
              QJsonObject{{QStringLiteral("type"),
                           QJsonArray{QStringLiteral("string"), QStringLiteral("null")}}}},
             {QStringLiteral("message"), str},
             {QStringLiteral("change_type"), str},
             {QStringLiteral("target"), str},
             {QStringLiteral("request_sha256"), str},
             {QStringLiteral("unconfirmed_execution"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}}}}},
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
    propose.description = QStringLiteral(
        "Propose a billable Equinix Fabric create: a connection, a network or a service token "
        "(no updates or deletes exist). The spec uses the Fabric v4 request's own field names. "
        "Runs Fabric's real dry run (dryRun=true) of the exact request, looks up rate-card price "
        "context, and returns a single-use confirm_token bound to the SHA-256 of the compiled "
        "request. Nothing is created: call fabric_confirm_change with the token, after which a "
        "person must approve. Tokens expire after 10 minutes; at most 20 are pending.");
    propose.inputSchema = ChangeSpec::proposeInputSchema();
    propose.outputSchema = proposeOutputSchema();
    propose.annotations = {{QStringLiteral("title"), propose.title},
                           {QStringLiteral("readOnlyHint"), false},
                           {QStringLiteral("destructiveHint"), false},
                           {QStringLiteral("idempotentHint"), false},
                           {QStringLiteral("openWorldHint"), true}};
    propose.toolset = QStringLiteral("mutate");
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
    confirm.annotations = {{QStringLiteral("title"), confirm.title},
                           {QStringLiteral("readOnlyHint"), false},
                           {QStringLiteral("destructiveHint"), false},
                           {QStringLiteral("idempotentHint"), false},
                           {QStringLiteral("openWorldHint"), true}};
    confirm.toolset = QStringLiteral("mutate");
    confirm.handler = [this](mcp::ToolCall *call) { this->confirm(call); };
    registry->registerTool(std::move(confirm));
}

} // namespace fb
