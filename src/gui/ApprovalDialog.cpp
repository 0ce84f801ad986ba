#include "gui/ApprovalDialog.h"

#include "broker/PolicyGate.h"
#include "broker/ProposalView.h"
#include "core/NameTable.h"
#include "gui/Accessibility.h"
#include "gui/ClientText.h"
#include "gui/PlainText.h"
#include "gui/PolicyLocks.h"
#include "ui_ApprovalDialog.h"

#include <QClipboard>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHash>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QShowEvent>
#include <QToolButton>

Q_LOGGING_CATEGORY(lcApprovalDialog, "fabricbroker.gui.dialog")

namespace fb {

namespace {

// Mirrors ProposalView::flatten's paths so every leaf of the tree is one flattened field.
void addJson(QTreeWidgetItem *parent, QTreeWidget *tree, const QString &label, const QString &path,
             const QJsonValue &value, const QHash<QString, QString> &leafValues)
{
    auto *item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(tree);
    item->setText(0, label);
    const bool emptyContainer = (value.isObject() && value.toObject().isEmpty()) ||
                                (value.isArray() && value.toArray().isEmpty());
    if (value.isObject() && !emptyContainer) {
        const QJsonObject obj = value.toObject();
        QStringList keys = obj.keys();
        keys.sort();
        for (const QString &k : keys)
            addJson(item, tree, k, path.isEmpty() ? k : path + u'.' + k, obj.value(k), leafValues);
    } else if (value.isArray() && !emptyContainer) {
        const QJsonArray arr = value.toArray();
        for (qsizetype i = 0; i < arr.size(); ++i)
            addJson(item, tree, QStringLiteral("[%1]").arg(i),
                    QStringLiteral("%1[%2]").arg(path).arg(i), arr.at(i), leafValues);
    } else {
        // The agent's values, with invisible structure shown as escapes ("\n", "\u202E").
        item->setText(1, ProposalView::plainValue(leafValues.value(path)));
        item->setData(0, Qt::UserRole, path);
        item->setToolTip(1, PlainText::toolTip(leafValues.value(path)));
    }
}

} // namespace

ApprovalDialog::ApprovalDialog(const ApprovalContext &context, Clock *clock, QWidget *parent)
    : QDialog(parent)
    , ui(std::make_unique<Ui::ApprovalDialog>())
    , m_context(context)
    , m_clock(clock ? clock : Clock::system())
{
    ui->setupUi(this);
    // Also set in ApprovalDialog.ui; repeated here so no label can ever guess rich text.
    for (QLabel *label : findChildren<QLabel *>())
        label->setTextFormat(Qt::PlainText);
    setAttribute(Qt::WA_DeleteOnClose);
    setModal(false);
    setWindowModality(Qt::NonModal);
    setSizeGripEnabled(true);

    const Proposal &p = m_context.proposal;
    setWindowTitle(tr("Approve: %1 - Fabric Broker").arg(approveLabel(p.changeType)));

    ui->sandboxBanner->setVisible(false);
    ui->sandboxBanner->setStyleSheet(QStringLiteral(
        "QLabel { background: #f5c542; color: #1d1d1d; font-weight: bold; padding: 6px; "
        "border-radius: 4px; }"));

    QFont headingFont = ui->headingLabel->font();
    headingFont.setBold(true);
    ui->headingLabel->setFont(headingFont);

    ui->changeTypeValue->setText(
        tr("create a %1 (%2)").arg(changeTypeNoun(p.changeType), changeTypeName(p.changeType)));
    ui->targetValue->setText(p.target);

    // Who proposed (recorded by the broker at propose time) and who asks to confirm now.
    const QJsonObject proposer = p.context.value(QStringLiteral("client")).toObject();
    const QJsonObject confirmer = m_context.client.toJson();
    QString clientText;
    if (!proposer.isEmpty()) {
        clientText = ClientText::summary(proposer);
        if (m_context.client.sessionId != 0 &&
            ClientText::sessionId(proposer) != m_context.client.sessionId)
            clientText += u'\n' + tr("confirm requested by %1").arg(ClientText::summary(confirmer));
    } else {
        clientText = ClientText::summary(m_context.client);
    }
    ui->clientValue->setText(clientText);

    ui->priceValue->setText(ProposalView::plainValue(
        ProposalView::priceLine(p.context.value(QStringLiteral("price")).toObject())));

    // Where the create goes and as whom: what the proposal is bound to (confirm re-checks it).
    if (!p.fabricEndpoint.isEmpty()) {
        auto *caption = new QLabel(tr("Fabric account:"), this);
        auto *value = new QLabel(tr("%1 with %2")
                                     .arg(ProposalView::plainValue(p.fabricEndpoint),
                                          ProposalView::plainValue(p.credentialIdentity)),
                                 this);
        caption->setObjectName(QStringLiteral("fabricAccountCaption"));
        value->setObjectName(QStringLiteral("fabricAccountValue"));
        for (QLabel *label : {caption, value})
            label->setTextFormat(Qt::PlainText);
        value->setWordWrap(true);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        int row = 0;
        QFormLayout::ItemRole role{};
        ui->detailsLayout->getWidgetPosition(ui->priceValue, &row, &role);
        ui->detailsLayout->insertRow(row + 1, caption, value);
    }

    // Unpriced: the line above says why in a few words; the details (the raw Fabric error) sit
    // in a collapsed section under it, as plain text.
    if (const QJsonObject price = p.context.value(QStringLiteral("price")).toObject();
        !price.value(QStringLiteral("priced")).toBool() &&
        !price.value(QStringLiteral("reason")).toString().isEmpty()) {
        auto *details = new QLabel(
            ProposalView::plainValue(price.value(QStringLiteral("reason")).toString()), this);
        details->setObjectName(QStringLiteral("priceDetails"));
        details->setTextFormat(Qt::PlainText);
        details->setWordWrap(true);
        details->setTextInteractionFlags(Qt::TextSelectableByMouse);
        details->setVisible(false);
        auto *toggle = new QToolButton(this);
        toggle->setObjectName(QStringLiteral("priceDetailsToggle"));
        toggle->setText(tr("Price details"));
        toggle->setAccessibleDescription(
            tr("Shows or hides why Fabric gave no price, in Fabric's own words."));
        toggle->setCheckable(true);
        toggle->setArrowType(Qt::RightArrow);
        toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        toggle->setAutoRaise(true);
        connect(toggle, &QToolButton::toggled, details, [details, toggle](bool shown) {
            details->setVisible(shown);
            toggle->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
        });
        int row = -1;
        QFormLayout::ItemRole role{};
        ui->detailsLayout->getWidgetPosition(ui->priceValue, &row, &role);
        ui->detailsLayout->insertRow(row + 1, toggle, details); // directly under the price
    }

    // The operator policy: its verdict under the price, and typing when it asks for it.
    const QJsonObject policy = p.context.value(QStringLiteral("policy")).toObject();
    if (const QString line = policyLine(policy); !line.isEmpty())
        ui->priceValue->setText(ui->priceValue->text() + u'\n' +
                                tr("Policy: %1").arg(ProposalView::plainValue(line)));
    if (typedConfirmationRequested(policy))
        connect(addTypedConfirmation(ui->detailsLayout, this), &QLineEdit::textChanged, this,
                &ApprovalDialog::refresh);

    ui->shaEdit->setText(p.requestSha256);
    ui->shaEdit->setCursorPosition(0);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    ui->shaEdit->setFont(mono);
    ui->shaEdit->setMinimumWidth(QFontMetrics(mono).horizontalAdvance(QString(64, u'0')) + 16);
    connect(ui->copyShaButton, &QPushButton::clicked, this, [this] {
        if (QClipboard *clipboard = QGuiApplication::clipboard())
            clipboard->setText(m_context.proposal.requestSha256);
        ui->copyShaButton->setText(tr("Copied"));
        QTimer::singleShot(1500, this, [this] { ui->copyShaButton->setText(tr("Copy")); });
    });

    ui->requestCaption->setText(
        tr("%1 %2 - every field of the request Fabric's dry run validated, exactly as it will be "
           "sent:")
            .arg(QString::fromLatin1(m_context.request.method), m_context.request.path));
    fillRequestTree();

    ui->expiredLabel->setVisible(false);
    ui->expiredLabel->setStyleSheet(
        QStringLiteral("QLabel { color: #b00020; font-weight: bold; }"));

    ui->approveButton->setText(approveLabel(p.changeType));
    ui->approveButton->setEnabled(false);
    ui->denyButton->setDefault(true);
    ui->denyButton->setAutoDefault(true);
    ui->approveButton->setAutoDefault(false);
    connect(ui->approveButton, &QPushButton::clicked, this, [this] {
        // A stale click after expiry or before the unlock never counts.
        if (ui->approveButton->isEnabled())
            report(Choice::Approve);
    });
    connect(ui->denyButton, &QPushButton::clicked, this, [this] { report(Choice::Deny); });

    // The keyboard alone: focus starts on Deny (showEvent), Tab goes on to the typed
    // confirmation when the policy asks for one, then to the approve button, then the details.
    QWidget *previous = ui->denyButton;
    if (auto *typed = findChild<QLineEdit *>(QStringLiteral("typedConfirmationEdit"))) {
        setTabOrder(previous, typed);
        previous = typed;
    }
    for (QWidget *next :
         {static_cast<QWidget *>(ui->approveButton), static_cast<QWidget *>(ui->shaEdit),
          static_cast<QWidget *>(ui->copyShaButton), static_cast<QWidget *>(ui->requestTree)}) {
        setTabOrder(previous, next);
        previous = next;
    }

    m_unlock.setSingleShot(true);
    connect(&m_unlock, &QTimer::timeout, this, [this] {
        m_unlocked = true;
        refresh();
    });
    // The countdown is recomputed from the absolute deadline each tick: no drift accumulates.
    m_tick.setInterval(1000);
    m_tick.setTimerType(Qt::PreciseTimer);
    connect(&m_tick, &QTimer::timeout, this, &ApprovalDialog::refresh);
    m_tick.start();
    refresh();
}

ApprovalDialog::~ApprovalDialog() = default;

void ApprovalDialog::setApproveDelayMs(int ms)
{
    m_approveDelayMs = std::max(0, ms);
}

void ApprovalDialog::setSandbox(bool sandbox)
{
    ui->sandboxBanner->setVisible(sandbox);
}

void ApprovalDialog::setAnswerDeadlineMs(qint64 deadlineMs)
{
    m_answerDeadlineMs = deadlineMs;
    refresh();
}

QString ApprovalDialog::approveLabel(ChangeType type)
{
    static constexpr struct {
        ChangeType value;
        const char *text;
    } labels[] = {
        {ChangeType::ConnectionCreate,
         QT_TRANSLATE_NOOP("fb::ApprovalDialog", "Create connection")},
        {ChangeType::NetworkCreate, QT_TRANSLATE_NOOP("fb::ApprovalDialog", "Create network")},
        {ChangeType::ServiceTokenCreate,
         QT_TRANSLATE_NOOP("fb::ApprovalDialog", "Create service token")},
    };
    const auto *label = findRow(labels, type);
    return label ? tr(label->text) : tr("Create");
}

bool ApprovalDialog::isExpired() const
{
    return m_clock->nowMs() >= m_context.proposal.expiresAtMs;
}

void ApprovalDialog::refresh()
{
    const Proposal &p = m_context.proposal;
    const qint64 now = m_clock->nowMs();
    ui->proposedValue->setText(tr("%1 ago (at %2)")
                                   .arg(ProposalView::formatDuration(now - p.proposedAtMs),
                                        ProposalView::isoTime(p.proposedAtMs)));
    const bool expired = now >= p.expiresAtMs;
    if (expired) {
        ui->expiresValue->setText(tr("expired at %1").arg(ProposalView::isoTime(p.expiresAtMs)));
        ui->expiredLabel->setText(
            tr("This proposal expired at %1. Approving can no longer create it: deny or close "
               "this dialog, and ask the agent to propose again.")
                .arg(ProposalView::isoTime(p.expiresAtMs)));
    } else {
        ui->expiresValue->setText(tr("in %1 (at %2)")
                                      .arg(ProposalView::formatDuration(p.expiresAtMs - now),
                                           ProposalView::isoTime(p.expiresAtMs)));
    }
    ui->expiredLabel->setVisible(expired);

    if (m_answerDeadlineMs > 0) {
        ui->answerValue->setText(
            tr("this prompt closes in %1 if unanswered; nothing is created then")
                .arg(ProposalView::formatDuration(m_answerDeadlineMs - now)));
    } else {
        ui->answerValue->setText(tr("nothing is created unless you approve"));
    }
    updateApproveEnabled();
}

void ApprovalDialog::updateApproveEnabled()
{
    const bool expired = isExpired();
    const bool typed = typedConfirmationMatches(this, m_context.proposal.requestSha256);
    ui->approveButton->setEnabled(m_unlocked && typed && !expired && !m_reported);
    if (expired)
        ui->hintLabel->setText(tr("Expired: approving is no longer possible."));
    else if (!m_unlocked)
        ui->hintLabel->setText(tr("Read first: approving unlocks in a moment."));
    else if (!typed)
        ui->hintLabel->setText(tr("Type the last six characters of the request SHA-256 to "
                                  "approve."));
    else
        ui->hintLabel->setText(tr("Deny is the default answer."));
}

void ApprovalDialog::fillRequestTree()
{
    QTreeWidget *tree = ui->requestTree;
    tree->clear();
    const QJsonDocument doc = QJsonDocument::fromJson(m_context.request.body);
    const QJsonValue root = doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object());
    QHash<QString, QString> leafValues;
    for (const auto &[path, value] : ProposalView::flatten(root))
        leafValues.insert(path, value);
    if (root.isObject()) {
        const QJsonObject obj = root.toObject();
        QStringList keys = obj.keys();
        keys.sort();
        for (const QString &k : keys)
            addJson(nullptr, tree, k, k, obj.value(k), leafValues);
    } else {
        const QJsonArray arr = root.toArray();
        for (qsizetype i = 0; i < arr.size(); ++i)
            addJson(nullptr, tree, QStringLiteral("[%1]").arg(i), QStringLiteral("[%1]").arg(i),
                    arr.at(i), leafValues);
    }
    tree->expandAll();
    tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree->header()->setStretchLastSection(true);
}

void ApprovalDialog::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    if (!m_unlockStarted) {
        m_unlockStarted = true;
        if (m_approveDelayMs == 0)
            m_unlocked = true;
        else
            m_unlock.start(m_approveDelayMs);
        refresh();
        Accessibility::announce(this); // a new approval: a screen reader says so at once
    }
    ui->denyButton->setFocus(Qt::OtherFocusReason);
}

void ApprovalDialog::open()
{
    setWindowModality(Qt::NonModal);
    setResult(0);
    show();
}

void ApprovalDialog::reject()
{
    report(Choice::Dismiss);
}

void ApprovalDialog::showAgentGaveUp(const QString &detail)
{
    // The detail may carry the client's own cancel reason: one inert line, bounded.
    QString why;
    for (const QChar c : detail.left(200))
        why += c.isPrint() && c.category() != QChar::Other_Format ? c : QChar(u' ');
    m_reported = true;
    m_gaveUp = true;
    m_tick.stop();
    m_unlock.stop();
    ui->approveButton->setEnabled(false);
    ui->approveButton->setVisible(false);
    ui->denyButton->setText(tr("Close"));
    ui->denyButton->setAccessibleDescription(
        tr("Closes this dialog. Nothing was created, and this request can no longer be "
           "approved."));
    setWindowTitle(tr("Agent gave up - %1").arg(windowTitle()));
    ui->hintLabel->setText(tr("The agent stopped waiting for this answer."));
    ui->expiredLabel->setText(
        tr("The agent gave up waiting (%1). Nothing was created, and this request can no longer "
           "be approved; the agent may propose it again. Many MCP clients stop waiting after 60 "
           "seconds unless told otherwise: see \"Long decisions\" in the README.")
            .arg(why.simplified()));
    ui->expiredLabel->setTextFormat(Qt::PlainText);
    ui->expiredLabel->setVisible(true);
}

void ApprovalDialog::showNoLongerApprovable(const QString &reason)
{
    m_reported = true;
    m_gaveUp = true; // from now on a button only closes the dialog
    m_tick.stop();
    m_unlock.stop();
    ui->approveButton->setEnabled(false);
    ui->approveButton->setVisible(false);
    ui->denyButton->setText(tr("Close"));
    setWindowTitle(tr("Denied - %1").arg(windowTitle()));
    ui->hintLabel->setText(tr("This request can no longer be approved."));
    ui->expiredLabel->setText(
        tr("Denied: %1. Nothing was created; the agent may propose it again.").arg(reason));
    ui->expiredLabel->setTextFormat(Qt::PlainText);
    ui->expiredLabel->setVisible(true);
}

void ApprovalDialog::report(Choice choice)
{
    if (m_gaveUp) {
        QDialog::done(QDialog::Rejected); // nothing to report any more: just close
        return;
    }
    if (m_reported)
        return;
    m_reported = true;
    m_tick.stop();
    m_unlock.stop();
    ui->approveButton->setEnabled(false);
    switch (choice) {
    case Choice::Approve:
        emit approveChosen();
        break;
    case Choice::Deny:
        emit denyChosen();
        break;
    case Choice::Dismiss:
        emit dismissed();
        break;
    }
    QDialog::done(choice == Choice::Approve ? QDialog::Accepted : QDialog::Rejected);
}

void ApprovalDialog::closeWithoutAnswer()
{
    if (m_reported && !isVisible())
        return;
    m_reported = true;
    m_tick.stop();
    m_unlock.stop();
    QDialog::done(QDialog::Rejected);
}

QPushButton *ApprovalDialog::approveButton() const
{
    return ui->approveButton;
}
QPushButton *ApprovalDialog::denyButton() const
{
    return ui->denyButton;
}
QPushButton *ApprovalDialog::copyShaButton() const
{
    return ui->copyShaButton;
}
QLineEdit *ApprovalDialog::shaField() const
{
    return ui->shaEdit;
}
QTreeWidget *ApprovalDialog::requestTree() const
{
    return ui->requestTree;
}
QLabel *ApprovalDialog::clientLabel() const
{
    return ui->clientValue;
}
QLabel *ApprovalDialog::priceLabel() const
{
    return ui->priceValue;
}
QLabel *ApprovalDialog::expiresLabel() const
{
    return ui->expiresValue;
}
QLabel *ApprovalDialog::expiredNotice() const
{
    return ui->expiredLabel;
}
QLabel *ApprovalDialog::sandboxBanner() const
{
    return ui->sandboxBanner;
}

} // namespace fb
