#include "gui/AuditRecordModel.h"

#include "gui/ClientText.h"
#include "gui/PlainText.h"

#include <QJsonValue>

namespace fb {

namespace {

QString dataString(const QJsonObject &data, const QString &key)
{
    const QJsonValue v = data.value(key);
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 17);
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return {};
}

} // namespace

AuditRecordModel::AuditRecordModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void AuditRecordModel::setRecords(const QList<QJsonObject> &records)
{
    beginResetModel();
    m_records = records;
    endResetModel();
}

QStringList AuditRecordModel::types() const
{
    QStringList out;
    for (const QJsonObject &r : m_records) {
        const QString type = r.value(QStringLiteral("type")).toString();
        if (!type.isEmpty() && !out.contains(type))
            out.append(type);
    }
    return out;
}

QString AuditRecordModel::cellText(int row, int column) const
{
    if (row < 0 || row >= m_records.size())
        return {};
    const QJsonObject &r = m_records.at(row);
    const QJsonObject data = r.value(QStringLiteral("data")).toObject();
    switch (column) {
    case SeqColumn:
        return QString::number(r.value(QStringLiteral("seq")).toInteger());
    case TimeColumn:
        return r.value(QStringLiteral("time")).toString();
    case TypeColumn:
        return r.value(QStringLiteral("type")).toString();
    case ChangeTypeColumn:
        return dataString(data, QStringLiteral("change_type"));
    case TargetColumn:
        return dataString(data, QStringLiteral("target"));
    case StatusColumn: {
        const QString status = dataString(data, QStringLiteral("status"));
        if (!status.isEmpty())
            return status;
        const QString outcome = dataString(data, QStringLiteral("outcome"));
        // log_continued: why the writer went on in a new file.
        return outcome.isEmpty() ? dataString(data, QStringLiteral("reason")) : outcome;
    }
    case ChannelColumn:
        return dataString(data, QStringLiteral("channel"));
    case UuidColumn:
        return dataString(data, QStringLiteral("uuid"));
    case ClientColumn: {
        const QJsonObject client = data.value(QStringLiteral("client")).toObject();
        return client.isEmpty() ? QString() : ClientText::nameAndVersion(client);
    }
    default:
        return {};
    }
}

int AuditRecordModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_records.size());
}

int AuditRecordModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(ColumnCount);
}

QVariant AuditRecordModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    // Records may hold any text a client or agent wrote: escaped, and tooltips never rich.
    if (role == Qt::DisplayRole)
        return UntrustedText::escapeInvisible(cellText(index.row(), index.column()));
    if (role == Qt::ToolTipRole)
        return PlainText::toolTip(cellText(index.row(), index.column()));
    if (role == Qt::TextAlignmentRole && index.column() == SeqColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant AuditRecordModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    // One heading per Column, in Column order.
    static const char *const kHeadings[ColumnCount] = {
        QT_TR_NOOP("Seq"),         QT_TR_NOOP("Time (UTC)"),  QT_TR_NOOP("Type"),
        QT_TR_NOOP("Change type"), QT_TR_NOOP("Target"),      QT_TR_NOOP("Status / outcome"),
        QT_TR_NOOP("Channel"),     QT_TR_NOOP("Fabric UUID"), QT_TR_NOOP("Client"),
    };
    if (section < 0 || section >= ColumnCount)
        return {};
    return tr(kHeadings[section]);
}

} // namespace fb
