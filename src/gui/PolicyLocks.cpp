#include "gui/PolicyLocks.h"

#include "mcp/ToolRegistry.h"

#include <QBoxLayout>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>

#include <tuple>

namespace fb {

namespace {
// The translation context of these strings: lupdate files a PolicyLocks::tr() string under
// "fb::PolicyLocks", the context it is looked up in at run time (a free tr() helper put them in
// "fb", where no lookup finds them).
struct PolicyLocks {
    Q_DECLARE_TR_FUNCTIONS(fb::PolicyLocks)
};

// Adds lines to the dialog's "policyLocksLabel", made above the button box when missing.
void appendLockLines(QWidget *dialog, const QStringList &lines)
{
    if (lines.isEmpty())
        return;
    if (auto *label = dialog->findChild<QLabel *>(QStringLiteral("policyLocksLabel"))) {
        label->setText(label->text() + u'\n' + lines.join(u'\n'));
        return;
    }
    auto *label = new QLabel(dialog);
    label->setObjectName(QStringLiteral("policyLocksLabel"));
    label->setTextFormat(Qt::PlainText); // paths come from the file system
    label->setWordWrap(true);
    label->setText(PolicyLocks::tr("Locked by policy (fabric-broker policy show):") + u'\n' +
                   lines.join(u'\n'));
    // Above the button box, which is the last item of the dialog's layout.
    if (auto *box = qobject_cast<QBoxLayout *>(dialog->layout()))
        box->insertWidget(std::max(0, box->count() - 1), label);
    else if (QLayout *layout = dialog->layout())
        layout->addWidget(label);
}
} // namespace

QStringList showPolicyLocks(const Policy &policy, QWidget *dialog)
{
    QStringList locked;
    QStringList lines;
    const PolicyPaths paths = PolicyPaths::fromEnvironment();
    auto lockedBy = [&](const QString &key) {
        const QString source = policy.sources.value(key);
        return (source == paths.system ||
                        (!paths.extraAdmin.isEmpty() && source == paths.extraAdmin)
                    ? PolicyLocks::tr("set by your administrator: %1 in %2")
                    : PolicyLocks::tr("set by your policy file: %1 in %2"))
            .arg(key, source);
    };
    auto lock = [&](QWidget *w, const QString &key, const QString &what) {
        if (!w)
            return;
        const QString by = lockedBy(key);
        w->setEnabled(false);
        w->setToolTip(PolicyLocks::tr("%1: %2").arg(what, by));
        lines << PolicyLocks::tr("%1: %2").arg(what, by);
        if (!locked.contains(key))
            locked << key;
    };
    if (policy.toolsetsAllowed) {
        const QString key = QStringLiteral("toolsets.allowed");
        // One line for every toolset the policy does not allow; each box says it too.
        QStringList refused;
        QList<QCheckBox *> checks;
        for (const QString &name : mcp::ToolRegistry::knownToolsets()) {
            auto *check = dialog->findChild<QCheckBox *>(name + QStringLiteral("ToolsetCheck"));
            if (!check || policy.toolsetsAllowed->contains(name))
                continue;
            check->setChecked(false);
            refused << name;
            checks << check;
        }
        if (!refused.isEmpty()) {
            const QString what =
                refused.size() == 1
                    ? PolicyLocks::tr("The %1 toolset is not allowed").arg(refused.first())
                    : PolicyLocks::tr("The %1 toolsets are not allowed")
                          .arg(refused.join(QStringLiteral(", ")));
            lock(checks.takeFirst(), key, what);
            for (QCheckBox *check : std::as_const(checks)) {
                check->setEnabled(false);
                check->setToolTip(PolicyLocks::tr("%1: %2").arg(what, lockedBy(key)));
            }
        }
    }
    if (policy.channel) {
        if (auto *combo = dialog->findChild<QComboBox *>(QStringLiteral("approvalCombo"))) {
            const int index = combo->findData(Policy::channelName(*policy.channel));
            if (index >= 0)
                combo->setCurrentIndex(index);
            lock(combo, QStringLiteral("approval.channel"), PolicyLocks::tr("Approvals"));
        }
    }
    if (policy.fabricEndpoint) {
        if (auto *edit = dialog->findChild<QLineEdit *>(QStringLiteral("endpointEdit"))) {
            edit->setText(*policy.fabricEndpoint);
            lock(edit, QStringLiteral("fabric.endpoint"), PolicyLocks::tr("Fabric endpoint"));
        }
    }
    // Where the exports go: the policy's target, shown in its field, not editable.
    const std::tuple<const std::optional<QString> *, const char *, QString, QString> exports[] = {
        {&policy.otlpEndpoint, "otlpEndpointEdit", QStringLiteral("observability.otlp_endpoint"),
         PolicyLocks::tr("OpenTelemetry collector")},
        {&policy.auditSyslog, "auditSyslogEdit", QStringLiteral("audit.syslog"),
         PolicyLocks::tr("Audit records to syslog")}};
    for (const auto &[value, name, key, what] : exports) {
        if (!*value)
            continue;
        if (auto *edit = dialog->findChild<QLineEdit *>(QLatin1String(name))) {
            edit->setText(**value);
            lock(edit, key, what);
        }
    }
    if (policy.allowUnconfirmed && !*policy.allowUnconfirmed)
        lines << PolicyLocks::tr("Creating without a person's approval is locked off: %1")
                     .arg(lockedBy(QStringLiteral("allow_unconfirmed_mutations")));
    appendLockLines(dialog, lines);
    return locked;
}

void showMutateLock(const QString &lock, const QStringList &overridden, QWidget *dialog)
{
    QStringList lines;
    if (!lock.isEmpty()) {
        if (auto *check = dialog->findChild<QCheckBox *>(QStringLiteral("mutateToolsetCheck"))) {
            check->setChecked(false);
            check->setEnabled(false);
            check->setToolTip(PolicyLocks::tr("The mutate toolset is not allowed: %1").arg(lock));
        }
        const QString line = PolicyLocks::tr("The mutate toolset is not allowed: %1").arg(lock);
        auto *label = dialog->findChild<QLabel *>(QStringLiteral("policyLocksLabel"));
        if (!label || !label->text().contains(line))
            lines << line;
    }
    for (const QString &o : overridden)
        lines << PolicyLocks::tr("Overridden: %1").arg(o);
    appendLockLines(dialog, lines);
}

bool typedConfirmationRequested(const QJsonObject &policy)
{
    for (const QJsonValue &c : policy.value(QStringLiteral("checks")).toArray()) {
        const QJsonObject check = c.toObject();
        if (check.value(QStringLiteral("rule")) ==
                QStringLiteral("approval.typed_confirmation_above_monthly") &&
            check.value(QStringLiteral("verdict")) != QStringLiteral("allow"))
            return true;
    }
    return false;
}

QLineEdit *addTypedConfirmation(QFormLayout *layout, QWidget *parent)
{
    auto *edit = new QLineEdit(parent);
    edit->setObjectName(QStringLiteral("typedConfirmationEdit"));
    edit->setMaxLength(6);
    edit->setPlaceholderText(PolicyLocks::tr("last 6 characters"));
    edit->setAccessibleName(PolicyLocks::tr("Last six characters of the request SHA-256"));
    edit->setAccessibleDescription(PolicyLocks::tr(
        "The policy asks you to type them before approving; the request SHA-256 is shown "
        "above."));
    auto *caption =
        new QLabel(PolicyLocks::tr("Type the last six characters of the request SHA-256 to "
                                   "approve:"),
                   parent);
    caption->setTextFormat(Qt::PlainText);
    caption->setWordWrap(true);
    layout->addRow(caption, edit);
    return edit;
}

bool typedConfirmationMatches(const QWidget *dialog, const QString &sha256)
{
    const auto *edit = dialog->findChild<QLineEdit *>(QStringLiteral("typedConfirmationEdit"));
    return !edit || (sha256.size() >= 6 &&
                     edit->text().trimmed().compare(sha256.right(6), Qt::CaseInsensitive) == 0);
}

} // namespace fb
