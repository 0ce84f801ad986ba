#pragma once
// AuditViewDialog: the audit log (docs/audit.md) as a filterable table, with the same chain
// verification as "fabric-broker audit verify" (AuditLog::verify). Read-only; non-modal (the
// caller show()s or open()s it; it deletes itself when closed). Never shows a secret: records
// hold only token_sha256, and the table has no token column at all.
#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace fb {

class AuditRecordModel;

class AuditViewDialog : public QDialog {
    Q_OBJECT
public:
    explicit AuditViewDialog(const QString &auditLogPath, QWidget *parent = nullptr);
    ~AuditViewDialog() override;

    QString auditLogPath() const { return m_path; }

    QTableView *view() const { return m_view; }
    AuditRecordModel *recordModel() const { return m_model; }
    QSortFilterProxyModel *filterModel() const;
    QComboBox *typeFilter() const { return m_typeFilter; }
    QLineEdit *textFilter() const { return m_textFilter; }
    QLabel *verifyLabel() const { return m_verifyLabel; }
    QLabel *statusLabel() const { return m_statusLabel; }
    QPushButton *verifyButton() const { return m_verifyButton; }
    QPushButton *reloadButton() const { return m_reloadButton; }

public slots:
    // Re-reads the records (keeping the type filter when that type is still present) and
    // verifies the chain again.
    void reload();
    // Runs AuditLog::verify on the file and shows the result in verifyLabel().
    void verifyChain();

private:
    void applyFilters();
    void updateStatus();

    class FilterProxy;
    QString m_path;
    AuditRecordModel *m_model;
    FilterProxy *m_proxy;
    QTableView *m_view;
    QComboBox *m_typeFilter;
    QLineEdit *m_textFilter;
    QLabel *m_verifyLabel;
    QLabel *m_statusLabel;
    QPushButton *m_verifyButton;
    QPushButton *m_reloadButton;
    QString m_readError;
};

} // namespace fb
