#pragma once
// ProposalView: the trusted rendering of a proposal for people (elicitation text, dialog tree,
// list_proposals rows). What the person's view is built from, exactly:
// - Target line (target()): the compiled request's identifiers (change and connection types,
//   bandwidth, uuids, metro codes, seller region, VLAN tags, expiry) and Fabric's names for the
//   same uuids: the name *Fabric's dry run response* reports, unless it gives none or the very
//   label the agent wrote (it might be an echo), in which case a catalog read of that entity
//   done at propose time (nameLookups()) decides. A name the agent
//   wrote into the spec is never used there; entities identified by uuid show Fabric's name and a
//   short uuid (first 8 and last 4 hex digits), or the whole uuid when Fabric returned no name.
//   Names of the resources being created (connection, network and token names) are the agent's
//   words and appear only among the request fields.
// - Request fields: every leaf of the compiled body, one "path = value" line each, values as
//   the agent wrote them but escaped (displayValue()).
// - Price line: Fabric's rate card (priceLine), context, not a quote.
// - Proposed by: the MCP client's self-reported clientInfo (already bounded and escaped by
//   mcp::ClientInfo), session id and transport.
// - Times, the request hash, and the Fabric endpoint and credential identity of the dry run.
// Every string that is not the broker's own passes through core/UntrustedText.h: control,
// separator, bidi and other invisible characters are shown as escapes ("\n", "\u202E"), and in
// the elicitation message markup characters too ("\u003C"), so no value can start a line, fake
// a "Price:" line, reorder text or render as HTML/Markdown in the client.
#include "core/CompiledRequest.h"
#include "core/ProposalStore.h"

#include <QHash>
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
// The full elicitation text: one line per fact, every value escaped by displayValue().
QString approvalText(const Proposal &proposal, const CompiledRequest &request, qint64 nowMs);
// The one-line target from the compiled request body (its identifiers) and Fabric's dry-run
// response `validated` (its names for the same uuids), e.g.
// 'EVPL_VC 50 Mbps port "SV-DOT1Q-PRI" [50000000…0001] (SV) → service profile
// "AWS Direct Connect" [5e000000…0001] us-west-1'. Every name is escaped and quoted ('"' inside
// shows as \u0022).
// `names` (uuid -> name from a catalog lookup at propose time, see nameLookups()) take
// precedence over the dry run's names. `providers` (service profile uuid -> the provider's
// organisation, `account.organizationName` of the catalog's service profile, see
// providerLookups()) adds '(provider "AWS Inc")' after the profile, bounded and escaped like
// every Fabric name; never from the dry run or the agent.
QString target(ChangeType type, const QJsonObject &request, const QJsonObject &validated,
               const QHash<QString, QString> &names = {},
               const QHash<QString, QString> &providers = {});
// The catalog reads that name the request's entities: (uuid, GET path) for each port, service
// profile, network and service token the request identifies by uuid (each uuid once) whose name
// the dry run response `validated` does not settle: it gives none, or the same name the agent
// wrote into the request (which an echoing dry run would also give).
QList<QPair<QString, QString>> nameLookups(const QJsonObject &request,
                                           const QJsonObject &validated);
// The catalog reads that name each service profile's provider: (uuid, GET path) for every
// service profile the request identifies by a well-formed uuid (each once).
QList<QPair<QString, QString>> providerLookups(const QJsonObject &request);
// The provider organisation in a catalog service profile (`account.organizationName`), or
// empty when the body is not the profile with that uuid.
QString providerOf(const QJsonObject &profile, const QString &uuid);
// An untrusted value as shown in the elicitation message (UntrustedText::escapeForMessage).
QString displayValue(const QString &value);
// An untrusted value as shown in plain-text widgets (UntrustedText::escapeInvisible).
QString plainValue(const QString &value);
// A uuid's first 8 and last 4 hex digits in brackets: "[5f2d0e3a…0001]".
QString shortUuid(const QString &uuid);
// A row for fabric_list_proposals: never the token.
QJsonObject listRow(const Proposal &proposal, qint64 nowMs);

} // namespace fb::ProposalView
