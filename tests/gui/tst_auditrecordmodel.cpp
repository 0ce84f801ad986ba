// AuditRecordModel: audit records as a read-only table. Each column reads its field of the
// record or of its data (numbers and booleans as text), the status column falls back to the
// outcome and then to the reason, the client column names the client, the types come in order
// of first appearance, and what a client wrote shows escaped, never as markup.
#include "TestEnvironment.h"
#include "gui/AuditRecordModel.h"

#include <QJsonObject>
#include <QTest>

using namespace fb;

namespace {

QJsonObject record(qint64 seq, const QString &type, const QJsonObject &data)
{
    return QJsonObject{{"seq", seq},
                       {"time", QStringLiteral("2026-01-02T03:04:05.000Z")},
                       {"type", type},
                       {"data", data}};
}

} // namespace

class TestAuditRecordModel : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void columnsReadTheirFields()
    {
        AuditRecordModel model;
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(AuditRecordModel::ColumnCount));
        model.setRecords(
            {record(7, QStringLiteral("proposal_decided"),
                    QJsonObject{{"change_type", "vlan"},
                                {"target", "connection 42"},
                                {"status", "approved"},
                                {"channel", "desktop"},
                                {"uuid", "u-1"},
                                {"client", QJsonObject{{"name", "Zed"}, {"version", "1.2"}}}})});
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.cellText(0, AuditRecordModel::SeqColumn), QStringLiteral("7"));
        QCOMPARE(model.cellText(0, AuditRecordModel::TimeColumn),
                 QStringLiteral("2026-01-02T03:04:05.000Z"));
        QCOMPARE(model.cellText(0, AuditRecordModel::TypeColumn),
                 QStringLiteral("proposal_decided"));
        QCOMPARE(model.cellText(0, AuditRecordModel::ChangeTypeColumn), QStringLiteral("vlan"));
        QCOMPARE(model.cellText(0, AuditRecordModel::TargetColumn),
                 QStringLiteral("connection 42"));
        QCOMPARE(model.cellText(0, AuditRecordModel::StatusColumn), QStringLiteral("approved"));
        QCOMPARE(model.cellText(0, AuditRecordModel::ChannelColumn), QStringLiteral("desktop"));
        QCOMPARE(model.cellText(0, AuditRecordModel::UuidColumn), QStringLiteral("u-1"));
        QCOMPARE(model.cellText(0, AuditRecordModel::ClientColumn), QStringLiteral("Zed 1.2"));
        QCOMPARE(model.data(model.index(0, AuditRecordModel::TargetColumn)).toString(),
                 QStringLiteral("connection 42"));
        QCOMPARE(model.data(model.index(0, AuditRecordModel::SeqColumn), Qt::TextAlignmentRole)
                     .value<Qt::Alignment>(),
                 Qt::AlignRight | Qt::AlignVCenter);
        // Out of range: nothing.
        QVERIFY(model.cellText(1, AuditRecordModel::SeqColumn).isEmpty());
        QVERIFY(model.cellText(-1, AuditRecordModel::SeqColumn).isEmpty());
        QVERIFY(model.cellText(0, AuditRecordModel::ColumnCount).isEmpty());
    }

    void numbersBooleansAndMissingValues()
    {
        AuditRecordModel model;
        model.setRecords({record(
            1, QStringLiteral("x"),
            QJsonObject{{"target", 1234567890123.0}, {"uuid", true}, {"channel", QJsonObject{}}})});
        QCOMPARE(model.cellText(0, AuditRecordModel::TargetColumn),
                 QStringLiteral("1234567890123"));
        QCOMPARE(model.cellText(0, AuditRecordModel::UuidColumn), QStringLiteral("true"));
        QVERIFY(model.cellText(0, AuditRecordModel::ChannelColumn).isEmpty());
        QVERIFY(model.cellText(0, AuditRecordModel::ClientColumn).isEmpty());
    }

    void statusFallsBackToOutcomeThenReason()
    {
        AuditRecordModel model;
        model.setRecords({
            record(1, QStringLiteral("a"), QJsonObject{{"status", "denied"}, {"outcome", "o"}}),
            record(2, QStringLiteral("b"), QJsonObject{{"outcome", "created"}, {"reason", "r"}}),
            record(3, QStringLiteral("log_continued"), QJsonObject{{"reason", "truncated"}}),
            record(4, QStringLiteral("c"), QJsonObject{}),
        });
        QCOMPARE(model.cellText(0, AuditRecordModel::StatusColumn), QStringLiteral("denied"));
        QCOMPARE(model.cellText(1, AuditRecordModel::StatusColumn), QStringLiteral("created"));
        QCOMPARE(model.cellText(2, AuditRecordModel::StatusColumn), QStringLiteral("truncated"));
        QVERIFY(model.cellText(3, AuditRecordModel::StatusColumn).isEmpty());
    }

    void typesInOrderOfFirstAppearance()
    {
        AuditRecordModel model;
        model.setRecords({record(1, QStringLiteral("b"), {}), record(2, QStringLiteral("a"), {}),
                          record(3, QStringLiteral("b"), {}), record(4, QString(), {}),
                          record(5, QStringLiteral("c"), {})});
        QCOMPARE(model.types(), (QStringList{"b", "a", "c"}));
    }

    void clientTextIsEscaped()
    {
        AuditRecordModel model;
        model.setRecords(
            {record(1, QStringLiteral("x"), QJsonObject{{"target", "evil\nline <b>bold</b>"}})});
        const QModelIndex target = model.index(0, AuditRecordModel::TargetColumn);
        const QString shown = model.data(target).toString();
        QVERIFY2(!shown.contains(u'\n'), qPrintable(shown));
        QVERIFY(shown.contains(QStringLiteral("\\n")));
        const QString tip = model.data(target, Qt::ToolTipRole).toString();
        QVERIFY2(!tip.contains(QStringLiteral("<b>")), qPrintable(tip));
    }

    void headers()
    {
        AuditRecordModel model;
        QCOMPARE(model.headerData(AuditRecordModel::SeqColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Seq"));
        QCOMPARE(model.headerData(AuditRecordModel::ClientColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Client"));
        QVERIFY(!model.headerData(AuditRecordModel::ColumnCount, Qt::Horizontal).isValid());
        QVERIFY(!model.headerData(0, Qt::Vertical).isValid());
    }
};

QTEST_GUILESS_MAIN(TestAuditRecordModel)
#include "tst_auditrecordmodel.moc"
