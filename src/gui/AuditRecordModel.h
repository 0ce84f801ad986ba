#pragma once
// AuditRecordModel: the records of the audit log (AuditLog::readRecords) as a read-only table
// for the audit view. Only non-secret fields are shown: never anything named token (records
// carry only token_sha256, and even that is left out).
#include <QAbstractTableModel>
#include <QJsonObject>
#include <QList>
#include <QStringList>

namespace fb {

class AuditRecordModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        SeqColumn,
        TimeColumn,
        TypeColumn,
        ChangeTypeColumn,
        TargetColumn,
        StatusColumn, // decision status or execution / redemption outcome
        ChannelColumn,
        UuidColumn,
        ClientColumn,
        ColumnCount
    };

    explicit AuditRecordModel(QObject *parent = nullptr);

    void setRecords(const QList<QJsonObject> &records);
    const QList<QJsonObject> &records() const { return m_records; }
    // The distinct record types, in order of first appearance.
    QStringList types() const;
    // The text of one cell (what DisplayRole returns).
    QString cellText(int row, int column) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<QJsonObject> m_records;
};

} // namespace fb
