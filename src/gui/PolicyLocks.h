#pragma once
// PolicyLocks: the settings dialog's view of the operator policy (docs/policy.md). Settings the
// policy locks are shown disabled, with "set by your administrator" (or the user's own policy
// file) beside them; the broker applies the policy at startup whatever the dialog saves.
#include "core/Policy.h"

#include <QJsonObject>
#include <QStringList>

class QFormLayout;
class QLineEdit;
class QWidget;

namespace fb {

// Disables the locked widgets among dialog's children (the <toolset>ToolsetCheck boxes,
// approvalCombo, endpointEdit), shows the locked value, and adds a "policyLocksLabel" listing
// each lock and who set it. Returns the keys it locked.
QStringList showPolicyLocks(const Policy &policy, QWidget *dialog);
// Whatever else forbids mutate (a broken policy file, fabric.endpoint, toolsets.allowed), as
// LiveSettings' MutateLock::text() says it: the mutate box is unchecked and disabled with those
// words; and saved values the policy overrides. Both are added to "policyLocksLabel".
void showMutateLock(const QString &lock, const QStringList &overridden, QWidget *dialog);

// approval.typed_confirmation_above_monthly, from a proposal's context "policy" (the confirm's
// PolicyVerdict::toJson()): whether the dialog must ask for typing.
bool typedConfirmationRequested(const QJsonObject &policy);
// Adds the "typedConfirmationEdit" row under the request hash; the approve button stays locked
// until typedConfirmationMatches().
QLineEdit *addTypedConfirmation(QFormLayout *layout, QWidget *parent);
// True when dialog has no typed-confirmation field, or its text is the last six characters of
// sha256 (case-insensitive).
bool typedConfirmationMatches(const QWidget *dialog, const QString &sha256);

} // namespace fb
