#pragma once
// ProposalView: the trusted rendering of a proposal for people (elicitation text, dialog tree,
// list_proposals rows). Everything comes from what the broker compiled, never agent prose.
#include "core/CompiledRequest.h"
#include "core/ProposalStore.h"

#include <QList>
#include <QPair>
#include <QString>

namespace fb::ProposalView {

// Every leaf of a JSON value as "path = value" pairs, e.g. ("aSide.accessPoint.port.uuid", "...").
QList<QPair<QString, QString>> flatten(const QJsonValue &value, const QString &prefix = {});
// "2m 05s", "45s".
QString formatDuration(qint64 ms);
// UTC ISO 8601 with milliseconds, e.g. "2026-11-30T10:00:00.000Z".
QString isoTime(qint64 msSinceEpoch);
// One line of price context: "rate card: USD 300.00/month + USD 0.00 one-time (term 1 month,
// product VC-...) - context, not a quote" or "unpriced: <summary>" (e.g. "unpriced: no
// rate-card price for 10 Mbps in SV"; the price's "reason" holds the details).
QString priceLine(const QJsonObject &price);
// The full elicitation/dialog text.
QString approvalText(const Proposal &proposal, const CompiledRequest &request, qint64 nowMs);
// The spec with names (and port metros) that Fabric's dry run reported for the same UUIDs, for
// the one-line target only; the request body is never changed by this.
QJsonObject withFabricNames(const QJsonObject &spec, const QJsonObject &validated);
// A row for fabric_list_proposals: never the token.
QJsonObject listRow(const Proposal &proposal, qint64 nowMs);

} // namespace fb::ProposalView
