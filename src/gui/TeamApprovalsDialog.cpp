#include "gui/TeamApprovalsDialog.h"

#include "core/UntrustedText.h"
#include "team/ApproverDecision.h"
#include "team/DecisionRecorder.h"
#include "team/DecisionText.h"
#include "team/TeamQueue.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHash>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QVBoxLayout>

namespace fb {

namespace {

// One line of untrusted text: bounded, invisible and control characters made visible.
QString inert(const QString &s, qsizetype max = 200)
{
    return UntrustedText::escapeInvisible(UntrustedText::bounded(s, max));
}

// What the status line says of how a decision or resolution was signed.
QString signedText(const team::DecisionSigning &how)
{
    switch (how.status) {
    case team::DecisionSigning::Status::Signed:
        return TeamApprovalsDialog::tr("signed with key %1").arg(how.fingerprint());
    case team::DecisionSigning::Status::NotEd25519:
        return TeamApprovalsDialog::tr(
            "not signed: the keychain's approval key is not an Ed25519 key");
    case team::DecisionSigning::Status::NoKey:
    case team::DecisionSigning::Status::SignerFailed:
        break;
    }
    return TeamApprovalsDialog::tr("not signed: %1").arg(inert(how.keyError, 300));
}

} // namespace

struct TeamApprovalsDialog::Rows {
    QList<team::TeamProposal> proposals;
    QHash<QByteArray, CreateLookup> lookups; // by proposal id: what the catalog said
    QSet<QByteArray> lookingUp;
};

TeamApprovalsDialog::TeamApprovalsDialog(team::TeamQueue *queue, QWidget *parent)
    : QDialog(parent)
    , m_queue(queue)
    , m_rows(std::make_unique<Rows>())
    , m_banner(new QLabel(this))
    , m_list(new QListWidget(this))
    , m_details(new QPlainTextEdit(this))
    , m_approve(new QPushButton(tr("&Approve"), this))
    , m_deny(new QPushButton(tr("&Deny"), this))
    , m_markCreated(new QPushButton(tr("Mark &created"), this))
    , m_markNotCreated(new QPushButton(tr("Mark &not created"), this))
    , m_status(new QLabel(this))
    , m_rejected(new QLabel(this))
    , m_recorder(new team::DecisionRecorder(queue, this))
{
    m_recorder->setNoKeyText(tr("no approval key is configured"));
    setWindowTitle(tr("Team approvals"));
    setAttribute(Qt::WA_DeleteOnClose);
    // Labels: a screen reader reads their text as their name (in Qt 6.4 an accessible name
    // would replace it, and a label has no Text interface), so they only get a description.
    m_banner->setTextFormat(Qt::PlainText);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("background: #fde2e1; padding: 6px;"));
    m_banner->setAccessibleDescription(tr("Team database status"));
    m_banner->hide();
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_status->setAccessibleDescription(tr("Team status"));
    m_rejected->setTextFormat(Qt::PlainText);
    m_rejected->setWordWrap(true);
    m_rejected->setStyleSheet(QStringLiteral("color: #a4000f;"));
    m_rejected->setAccessibleDescription(tr("Approvals that do not count"));
    m_rejected->hide();
    m_list->setAccessibleName(tr("Open team proposals"));
    // Each item ends with the state (pending, unknown, ...): wrapped, never cut off.
    m_list->setWordWrap(true);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_details->setReadOnly(true);
    m_details->setAccessibleName(tr("Proposal details"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_approve, QDialogButtonBox::ActionRole);
    buttons->addButton(m_deny, QDialogButtonBox::ActionRole);
    buttons->addButton(m_markCreated, QDialogButtonBox::ActionRole);
    buttons->addButton(m_markNotCreated, QDialogButtonBox::ActionRole);
    m_markCreated->setToolTip(tr("The create reached Fabric: the one resource the lookup found is "
                                 "it. Recorded for the whole team, signed."));
    m_markNotCreated->setToolTip(tr("The create did not reach Fabric: the lookup found no "
                                    "resource of this name. Recorded for the whole team, signed; "
                                    "it then no longer counts in the team's day."));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_banner);
    auto *panes = new QHBoxLayout;
    panes->addWidget(m_list, 1);
    panes->addWidget(m_details, 2);
    layout->addLayout(panes);
    layout->addWidget(m_rejected);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    resize(900, 480);

    connect(m_list, &QListWidget::currentRowChanged, this, &TeamApprovalsDialog::showSelected);
    // Assistive technologies select an item (AT-SPI Selection) without moving the current one:
    // the details and the buttons must follow what is selected, or a screen reader user would
    // decide on another proposal than the one they chose.
    connect(m_list, &QListWidget::itemSelectionChanged, this, [this] {
        const QList<QListWidgetItem *> selected = m_list->selectedItems();
        if (!selected.isEmpty() && m_list->currentItem() != selected.constFirst())
            m_list->setCurrentItem(selected.constFirst());
    });
    connect(m_approve, &QPushButton::clicked, this,
            [this] { decideSelected(QStringLiteral("approve")); });
    connect(m_deny, &QPushButton::clicked, this,
            [this] { decideSelected(QStringLiteral("deny")); });
    connect(m_markCreated, &QPushButton::clicked, this,
            [this] { resolveSelected(QStringLiteral("created")); });
    connect(m_markNotCreated, &QPushButton::clicked, this,
            [this] { resolveSelected(QStringLiteral("not_created")); });
    if (m_queue) {
        connect(m_queue, &team::TeamQueue::queueChanged, this, &TeamApprovalsDialog::refresh);
        connect(m_queue, &team::TeamQueue::availabilityChanged, this,
                &TeamApprovalsDialog::showAvailability);
        showAvailability(m_queue->isAvailable(), m_queue->unavailableReason());
    } else {
        showAvailability(false, tr("team mode is off"));
    }
    showSelected();
}

TeamApprovalsDialog::~TeamApprovalsDialog() = default;

QString TeamApprovalsDialog::refusalText(const team::TeamProposal &p)
{
    return team::refusalText(p);
}

QString TeamApprovalsDialog::decisionText(const team::TeamProposal &p)
{
    return team::decisionText(p);
}

QString TeamApprovalsDialog::resolutionText(const team::TeamProposal &p, const CreateLookup &lookup)
{
    return decisionText(p) + u'\n' + lookup.text();
}

void TeamApprovalsDialog::setLookup(Lookup lookup)
{
    m_lookup = std::move(lookup);
    lookUpUnknown();
}

void TeamApprovalsDialog::lookUpUnknown()
{
    if (!m_lookup)
        return;
    for (const team::TeamProposal &p : std::as_const(m_rows->proposals)) {
        if (!team::awaitsResolution(p) || m_rows->lookups.contains(p.id) ||
            m_rows->lookingUp.contains(p.id))
            continue;
        m_rows->lookingUp.insert(p.id);
        QPointer<TeamApprovalsDialog> self(this);
        m_lookup(p, [self, id = p.id](const CreateLookup &l) {
            if (!self)
                return;
            self->m_rows->lookingUp.remove(id);
            self->m_rows->lookups.insert(id, l);
            const int row = self->m_list->currentRow();
            if (row >= 0 && row < self->m_rows->proposals.size() &&
                self->m_rows->proposals.at(row).id == id)
                self->showSelected();
        });
    }
}

void TeamApprovalsDialog::showAvailability(bool available, const QString &reason)
{
    m_banner->setVisible(!available);
    if (!available)
        m_banner->setText(tr("The team database is unreachable: %1. No decision can be "
                             "recorded until it is back.")
                              .arg(inert(reason, 300)));
    if (available)
        refresh();
    showSelected();
}

void TeamApprovalsDialog::refresh()
{
    if (!m_queue || !m_queue->isAvailable())
        return;
    if (m_refreshing) {
        m_refreshAgain = true;
        return;
    }
    m_refreshing = true;
    QPointer<TeamApprovalsDialog> self(this);
    m_queue->listOpen(
        [self](const std::optional<QList<team::TeamProposal>> &list, const QString &error) {
            if (!self)
                return;
            self->m_refreshing = false;
            if (!list) {
                self->m_status->setText(tr("Could not read the queue: %1").arg(inert(error, 300)));
            } else {
                QByteArray selected =
                    self->m_list->currentRow() >= 0 &&
                            self->m_list->currentRow() < self->m_rows->proposals.size()
                        ? self->m_rows->proposals.at(self->m_list->currentRow()).id
                        : QByteArray();
                for (const team::TeamProposal &p : *list)
                    if (!self->m_wanted.isEmpty() && p.id == self->m_wanted)
                        selected = std::exchange(self->m_wanted, {});
                self->m_rows->proposals = *list;
                self->m_list->clear();
                int keep = -1;
                for (qsizetype i = 0; i < list->size(); ++i) {
                    const team::TeamProposal &p = list->at(i);
                    self->m_list->addItem(team::summaryLine(p));
                    if (p.id == selected)
                        keep = static_cast<int>(i);
                }
                self->m_list->setCurrentRow(keep >= 0 ? keep : (list->isEmpty() ? -1 : 0));
                self->lookUpUnknown();
                emit self->refreshed(static_cast<int>(list->size()));
            }
            self->showSelected();
            if (self->m_refreshAgain) {
                self->m_refreshAgain = false;
                self->refresh();
            }
        });
}

void TeamApprovalsDialog::selectProposal(const QByteArray &id)
{
    for (qsizetype i = 0; i < m_rows->proposals.size(); ++i) {
        if (m_rows->proposals.at(i).id == id) {
            m_wanted.clear();
            m_list->setCurrentRow(static_cast<int>(i));
            return;
        }
    }
    m_wanted = id;
}

void TeamApprovalsDialog::showSelected()
{
    const int row = m_list->currentRow();
    const bool valid = row >= 0 && row < m_rows->proposals.size();
    const team::TeamProposal *p = valid ? &m_rows->proposals.at(row) : nullptr;
    const QString refusal = p ? refusalText(*p) : QString();
    const bool open = p && team::openToDecision(*p);
    const bool available = m_queue && m_queue->isAvailable();
    const bool own = p && m_queue && p->proposer == m_queue->role();
    const bool usable = available && open;
    const auto lookup = p ? m_rows->lookups.constFind(p->id) : m_rows->lookups.cend();
    const bool looked = p && lookup != m_rows->lookups.cend();
    if (!refusal.isEmpty())
        m_details->setPlainText(refusal); // never the row's text: it is not what was published
    else if (p && team::awaitsResolution(*p))
        m_details->setPlainText(
            looked ? resolutionText(*p, *lookup)
                   : decisionText(*p) + u'\n' +
                         tr("Lookup: %1 (searching...)")
                             .arg(inert(createLookupCall(p->changeType, p->request), 400)));
    else
        m_details->setPlainText(p ? decisionText(*p) : QString());
    m_approve->setEnabled(usable && !own);
    m_deny->setEnabled(usable);
    // Resolving: a person other than the proposer, on what the lookup found.
    const bool resolvable = available && p && refusal.isEmpty() && team::awaitsResolution(*p) &&
                            !own && looked && m_queue->isApprover() && lookup->ok;
    m_markCreated->setEnabled(resolvable && !lookup->onlyUuid().isEmpty());
    m_markNotCreated->setEnabled(resolvable && lookup->matches.isEmpty());
    const bool showResolve = p && (p->state == u"unknown" || p->resolution.has_value());
    m_markCreated->setVisible(showResolve);
    m_markNotCreated->setVisible(showResolve);
    if (!refusal.isEmpty()) {
        m_status->setText(refusal);
    } else if (p && team::awaitsResolution(*p)) {
        QString next;
        if (own)
            next = tr("This is your own proposal: another person marks its outcome.");
        else if (!looked)
            next = tr("The catalog is being searched for it: %1")
                       .arg(inert(createLookupCall(p->changeType, p->request), 300));
        else if (!lookup->ok)
            next = tr("The search could not tell (%1), so its outcome cannot be marked here. "
                      "Look it up where the create was sent: %2")
                       .arg(inert(lookup->error, 300), inert(lookup->call, 300));
        else if (!lookup->onlyUuid().isEmpty())
            next = tr("One resource has its name: if it is this create, mark it created.");
        else if (lookup->matches.isEmpty())
            next = tr("No resource has its name: if the create did not reach Fabric, mark it "
                      "not created.");
        else
            next = tr("Several resources have its name: look in the Equinix portal which one "
                      "it is; it cannot be marked here.");
        m_status->setText(tr("The create may have reached Fabric (outcome unknown); it is never "
                             "sent again and counts as spent until a person other than the "
                             "proposer marks its outcome. %1")
                              .arg(next));
    } else if (p && p->state == u"sending") {
        m_status->setText(tr("The create is being sent (or its sender stopped); it is never sent "
                             "again. Look it up: %1")
                              .arg(inert(createLookupCall(p->changeType, p->request), 300)));
    }
    if (usable && own)
        m_status->setText(tr("This is your own proposal: your approval would not count. You "
                             "may deny it."));
    showRejections();
}

void TeamApprovalsDialog::showRejections()
{
    const int row = m_list->currentRow();
    const quint64 asked = ++m_rejectionsAsked;
    if (!m_queue || !m_queue->isAvailable() || row < 0 || row >= m_rows->proposals.size()) {
        m_rejected->hide();
        return;
    }
    QPointer<TeamApprovalsDialog> self(this);
    m_queue->rejections(m_rows->proposals.at(row).id, [self,
                                                       asked](const std::optional<QJsonArray> &list,
                                                              const QString &) {
        if (!self || asked != self->m_rejectionsAsked) // another proposal is shown by now
            return;
        QStringList lines;
        for (const QJsonValue &v : list.value_or(QJsonArray{})) {
            const QJsonObject o = v.toObject();
            const QString line = tr("%1's approval does not count: %2")
                                     .arg(inert(o.value(QStringLiteral("approver")).toString(), 64),
                                          inert(o.value(QStringLiteral("reason")).toString(), 300));
            if (!lines.contains(line))
                lines << line;
        }
        self->m_rejected->setText(lines.join(u'\n'));
        self->m_rejected->setVisible(!lines.isEmpty());
    });
}

bool TeamApprovalsDialog::beginRecording(const team::TeamProposal &p, const QString &shown,
                                         std::initializer_list<QPushButton *> buttons,
                                         const QString &signing)
{
    // What is recorded is bound to exactly what this dialog shows, and only a row it shows.
    if (!refusalText(p).isEmpty() || m_details->toPlainText() != shown)
        return false;
    for (QPushButton *button : buttons)
        button->setEnabled(false);
    if (m_recorder->hasKeyLoader())
        m_status->setText(signing);
    return true;
}

void TeamApprovalsDialog::decideSelected(const QString &decision)
{
    const int row = m_list->currentRow();
    if (!m_queue || row < 0 || row >= m_rows->proposals.size())
        return;
    const team::TeamProposal p = m_rows->proposals.at(row);
    const QString shown = decisionText(p);
    if (!beginRecording(p, shown, {m_approve, m_deny},
                        tr("Signing your decision with your approval key...")))
        return;
    QPointer<TeamApprovalsDialog> self(this);
    m_recorder->decide(
        p, decision, shown,
        [self, id = p.id, decision](const team::DecisionSigning &how, bool recorded,
                                    const QString &error) {
            if (!self)
                return;
            self->m_status->setText(
                recorded ? tr("Your decision (%1) is recorded, %2.").arg(decision, signedText(how))
                         : tr("Your decision was not recorded: %1").arg(inert(error, 300)));
            emit self->decisionRecorded(id, decision, recorded);
            self->refresh();
        });
}

void TeamApprovalsDialog::resolveSelected(const QString &outcome)
{
    const int row = m_list->currentRow();
    if (!m_queue || row < 0 || row >= m_rows->proposals.size())
        return;
    const team::TeamProposal p = m_rows->proposals.at(row);
    const auto lookup = m_rows->lookups.constFind(p.id);
    if (!team::awaitsResolution(p) || lookup == m_rows->lookups.cend() || !lookup->ok)
        return;
    const QString uuid = outcome == u"created" ? lookup->onlyUuid() : QString();
    if ((outcome == u"created" && uuid.isEmpty()) ||
        (outcome != u"created" && !lookup->matches.isEmpty()))
        return;
    // Shown: the proposal and what the catalog said.
    const QString shown = resolutionText(p, *lookup);
    if (!beginRecording(p, shown, {m_markCreated, m_markNotCreated},
                        tr("Signing the outcome with your approval key...")))
        return;
    QPointer<TeamApprovalsDialog> self(this);
    m_recorder->resolve(
        p, outcome, uuid, shown,
        [self, id = p.id, outcome](const team::DecisionSigning &how, bool recorded,
                                   const QString &error) {
            if (!self)
                return;
            self->m_status->setText(
                recorded ? tr("The outcome (%1) is recorded for the team, %2.")
                               .arg(outcome, signedText(how))
                         : tr("The outcome was not recorded: %1").arg(inert(error, 300)));
            emit self->resolutionRecorded(id, outcome, recorded);
            self->refresh();
        });
}

} // namespace fb
