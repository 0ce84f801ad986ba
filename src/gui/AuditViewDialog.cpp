#include "gui/AuditViewDialog.h"

#include "core/AuditLog.h"
#include "gui/Accessibility.h"
#include "gui/AuditRecordModel.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace fb {

// Accepts a row when its type equals the selected type (empty: any) and any column contains
// the free text (case-insensitive; empty: any).
class AuditViewDialog::FilterProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setFilters(const QString &type, const QString &text)
    {
        m_type = type;
        m_text = text.trimmed();
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override
    {
        if (sourceParent.isValid())
            return false;
        const auto *model = static_cast<const AuditRecordModel *>(sourceModel());
        if (!m_type.isEmpty() && model->cellText(sourceRow, AuditRecordModel::TypeColumn) != m_type)
            return false;
        if (m_text.isEmpty())
            return true;
        for (int c = 0; c < AuditRecordModel::ColumnCount; ++c) {
            if (model->cellText(sourceRow, c).contains(m_text, Qt::CaseInsensitive))
                return true;
        }
        return false;
    }

    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override
    {
        if (left.column() == AuditRecordModel::SeqColumn) {
            const auto *model = static_cast<const AuditRecordModel *>(sourceModel());
            return model->cellText(left.row(), left.column()).toLongLong() <
                   model->cellText(right.row(), right.column()).toLongLong();
        }
        return QSortFilterProxyModel::lessThan(left, right);
    }

private:
    QString m_type;
    QString m_text;
};

AuditViewDialog::AuditViewDialog(const QString &auditLogPath, QWidget *parent)
    : QDialog(parent)
    , m_path(auditLogPath)
    , m_model(new AuditRecordModel(this))
    , m_proxy(new FilterProxy(this))
    , m_view(new QTableView(this))
    , m_typeFilter(new QComboBox(this))
    , m_textFilter(new QLineEdit(this))
    , m_verifyLabel(new QLabel(this))
    , m_statusLabel(new QLabel(this))
    , m_verifyButton(new QPushButton(tr("&Verify chain"), this))
    , m_reloadButton(new QPushButton(tr("&Reload"), this))
{
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("Audit log"));
    setObjectName(QStringLiteral("AuditViewDialog"));
    resize(1280, 600);

    auto *pathLabel =
        new QLabel(tr("Audit log: %1").arg(QFileInfo(m_path).absoluteFilePath()), this);
    pathLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    pathLabel->setWordWrap(true);

    m_typeFilter->setObjectName(QStringLiteral("typeFilter"));
    m_typeFilter->setToolTip(tr("Show only records of this type"));
    m_typeFilter->setAccessibleName(tr("Record type"));
    Accessibility::nameChoices(m_typeFilter);
    m_typeFilter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_textFilter->setObjectName(QStringLiteral("textFilter"));
    m_textFilter->setPlaceholderText(tr("Filter: text in any column"));
    m_textFilter->setClearButtonEnabled(true);
    for (QToolButton *clear : m_textFilter->findChildren<QToolButton *>()) {
        clear->setAccessibleName(tr("Clear the filter"));
        clear->setAccessibleDescription(tr("Empties the filter: every record shows again."));
    }
    m_textFilter->setAccessibleName(tr("Filter"));
    m_textFilter->setAccessibleDescription(tr("Shows only the records with this text in any "
                                              "column."));
    m_verifyButton->setObjectName(QStringLiteral("verifyButton"));
    m_verifyButton->setAutoDefault(false);
    m_verifyButton->setAccessibleDescription(
        tr("Checks the hash chain of the whole audit log: whether any record was changed, "
           "removed or reordered."));
    m_reloadButton->setObjectName(QStringLiteral("reloadButton"));
    m_reloadButton->setAutoDefault(false);
    m_reloadButton->setAccessibleDescription(tr("Reads the audit log file again."));

    auto *filters = new QHBoxLayout;
    filters->addWidget(new QLabel(tr("Type:"), this));
    filters->addWidget(m_typeFilter);
    filters->addWidget(m_textFilter, 1);
    filters->addWidget(m_reloadButton);

    m_proxy->setSourceModel(m_model);
    m_view->setObjectName(QStringLiteral("auditView"));
    m_view->setModel(m_proxy);
    m_view->setAccessibleName(tr("Audit records"));
    m_view->setAccessibleDescription(
        tr("One row per audit record: sequence, time, type, client and details."));
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(AuditRecordModel::SeqColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->setVisible(false);
    QHeaderView *header = m_view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(true);
    header->setMinimumSectionSize(50);

    m_verifyLabel->setObjectName(QStringLiteral("verifyLabel"));
    m_verifyLabel->setWordWrap(true);
    m_verifyLabel->setTextFormat(Qt::PlainText);
    m_verifyLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));

    auto *verifyRow = new QHBoxLayout;
    verifyRow->addWidget(m_verifyButton);
    verifyRow->addWidget(m_verifyLabel, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    Accessibility::describeButtons(buttons);

    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_statusLabel, 1);
    bottom->addWidget(buttons);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(pathLabel);
    layout->addLayout(filters);
    layout->addWidget(m_view, 1);
    layout->addLayout(verifyRow);
    layout->addLayout(bottom);
    // Paths, record text and read errors are never rich text.
    for (QLabel *label : findChildren<QLabel *>())
        label->setTextFormat(Qt::PlainText);

    connect(m_typeFilter, &QComboBox::currentIndexChanged, this, &AuditViewDialog::applyFilters);
    connect(m_textFilter, &QLineEdit::textChanged, this, &AuditViewDialog::applyFilters);
    connect(m_verifyButton, &QPushButton::clicked, this, &AuditViewDialog::verifyChain);
    connect(m_reloadButton, &QPushButton::clicked, this, &AuditViewDialog::reload);

    reload();
}

AuditViewDialog::~AuditViewDialog() = default;

QSortFilterProxyModel *AuditViewDialog::filterModel() const
{
    return m_proxy;
}

void AuditViewDialog::reload()
{
    QList<QJsonObject> records;
    m_readError.clear();
    if (QFileInfo::exists(m_path)) {
        QString error;
        if (!AuditLog::readRecords(m_path, &records, &error))
            m_readError = error.isEmpty() ? tr("cannot read the audit log") : error;
    }
    m_model->setRecords(records);

    const QString selected = m_typeFilter->currentData().toString();
    {
        const QSignalBlocker blocker(m_typeFilter);
        m_typeFilter->clear();
        m_typeFilter->addItem(tr("All types"), QString());
        for (const QString &type : m_model->types())
            m_typeFilter->addItem(type, type);
        const int index = selected.isEmpty() ? 0 : m_typeFilter->findData(selected);
        m_typeFilter->setCurrentIndex(index < 0 ? 0 : index);
    }
    applyFilters();
    m_view->resizeColumnsToContents();
    verifyChain();
}

void AuditViewDialog::verifyChain()
{
    if (!QFileInfo::exists(m_path)) {
        m_verifyLabel->setText(tr("No audit log yet: nothing has been recorded."));
        m_verifyLabel->setStyleSheet(QString());
        return;
    }
    const AuditLog::VerifyResult r = AuditLog::verify(m_path);
    QString text;
    QString style;
    if (r.ioError) {
        text = tr("Cannot verify the audit log: %1").arg(r.problem);
        style = QStringLiteral("QLabel { color: #b00020; font-weight: bold; }");
    } else if (r.ok) {
        text = tr("Chain intact: %n record(s), head %1", nullptr, int(r.records))
                   .arg(r.headSha256.left(12));
        style = QStringLiteral("QLabel { color: #1b7f3b; font-weight: bold; }");
    } else if (r.truncated) {
        text = tr("Audit log TRUNCATED: %1").arg(r.problem);
        text += u'\n' +
                tr("%n record(s) verified (last good seq %1, head %2).", nullptr, int(r.records))
                    .arg(r.lastSeq)
                    .arg(r.headSha256.left(12));
        style = QStringLiteral("QLabel { color: #b00020; font-weight: bold; }");
    } else {
        text = r.firstBadLine > 0
                   ? tr("Chain BROKEN at line %1: %2").arg(r.firstBadLine).arg(r.problem)
                   : tr("Chain BROKEN: %1").arg(r.problem);
        text += u'\n' + tr("%n record(s) before it verified (last good seq %1, head %2).", nullptr,
                           int(r.records))
                            .arg(r.lastSeq)
                            .arg(r.headSha256.left(12));
        style = QStringLiteral("QLabel { color: #b00020; font-weight: bold; }");
    }
    for (const AuditLog::VerifyResult::Continuation &c : r.continuations)
        text += u'\n' + tr("Line %1: the log continues from a previous file (%2); previous head "
                           "seq %3, %4.")
                            .arg(c.line)
                            .arg(c.reason.left(64))
                            .arg(c.previous.seq)
                            .arg(c.previous.sha256.left(12));
    if (r.ok && !r.headFileChecked && !r.headFileNote.isEmpty())
        text += u'\n' + tr("Tail not checked: %1").arg(r.headFileNote);
    if (!r.tornLines.isEmpty()) {
        QStringList lines;
        for (qint64 line : r.tornLines)
            lines.append(QString::number(line));
        text += u'\n' + tr("Interrupted (torn) write at line(s) %1: not part of the chain.")
                            .arg(lines.join(QStringLiteral(", ")));
    }
    m_verifyLabel->setText(text);
    m_verifyLabel->setStyleSheet(style);
}

void AuditViewDialog::applyFilters()
{
    m_proxy->setFilters(m_typeFilter->currentData().toString(), m_textFilter->text());
    updateStatus();
}

void AuditViewDialog::updateStatus()
{
    if (!m_readError.isEmpty()) {
        m_statusLabel->setText(m_readError);
        return;
    }
    m_statusLabel->setText(
        tr("Showing %1 of %n record(s).", nullptr, m_model->rowCount()).arg(m_proxy->rowCount()));
}

} // namespace fb
