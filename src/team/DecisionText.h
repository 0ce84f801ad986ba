#pragma once
// DecisionText: the exact text an approver decides on, whatever the front end (issue #37). The
// Team approvals dialog shows it in its details pane and `fabric-broker team show`, `approve` and
// `deny` print it on the terminal, from these functions alone, so the two cannot drift: the same
// row gives the same text, and so the same dialog_sha256 (ApproverDecision's shownTextSha256).
//
// Every database value in it is bounded and has its control, bidi and invisible characters
// escaped (UntrustedText::escapeInvisible: "\n", "\u001B", "\u202E"), so no value can start a
// line, reorder the text or reach a terminal as an escape sequence; the line breaks are this
// code's own. The text is not translated: it is what a signature binds, one text in the dialog
// and on the terminal whatever the locale. Pure and GUI-free.
#include "team/TeamQueueRows.h"

#include <QString>
#include <QStringView>

namespace fb::team {

// One line of untrusted text: at most max code points (a longer one ends in U+2026), invisible
// and control characters escaped.
QString inertLine(const QString &s, qsizetype max = 200);

// "USD 150.00 monthly recurring", or "unpriced".
QString priceText(const TeamProposal &p);

// The text a decision on p is made on: the change, who proposed it (role, OS user, host), the
// MCP client, the price, where the create goes (Sandbox or Production, endpoint, credentials),
// the state, the expiry, the Request SHA-256 computed from the body shown (the agent's
// request_sha256) and the body, and a resolution when there is one.
QString decisionText(const TeamProposal &p);

// What is shown instead of a row that is not shown (ApproverDecision's refusalOf): one line;
// nothing can be decided on it. Empty when the row is shown.
QString refusalText(const TeamProposal &p);

// One line for a list of proposals: "connection_create by carol (USD 150.00 monthly recurring),
// pending" (the dialog's list item).
QString summaryLine(const TeamProposal &p);

// Whether text is inert as it is: no line of it (split at '\n', the one control character it
// may hold) changes under UntrustedText::escapeInvisible. A terminal is given only such text.
bool isInert(QStringView text);

} // namespace fb::team
