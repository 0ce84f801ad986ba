// AuditViewDialog: the audit log as a filterable table with chain verification, and its
// wiring from the main window's File menu through DesktopUi.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/MutationBroker.h"
#include "core/AuditLog.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "gui/AuditRecordModel.h"
#include "gui/AuditViewDialog.h"
#include "gui/DesktopUi.h"
#include "gui/MainWindow.h"
#include "gui/ProposalTableModel.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;

namespace {

const QString kToken = QStringLiteral("chg-0123456789abcdef0123456789abcdef");

// Writes five records: proposed, approval_requested, decision, sending, executed.
bool writeSampleLog(const QString &path)
{
    AuditLog log;
    QString error;
    if (!log.open(path, &error)) {
        qWarning("open: %s", qPrintable(error));
        return false;
    }
    const QJsonObject client = guitest::sampleClient().toJson();
    const QString sha = guitest::fakeSha('e');
    bool ok = true;
    ok &= log.record(fb::AuditEventType::Proposed,
                     {{QStringLiteral("change_type"), QStringLiteral("connection_create")},
                      {QStringLiteral("target"), QStringLiteral("EVPL_VC lab-aws-sv-1")},
                      {QStringLiteral("request_sha256"), sha},
                      {QStringLiteral("token_sha256"), guitest::fakeSha('f')},
                      // Scrubbed by AuditLog into sha256:<hex>; must never show up anyway.
                      {QStringLiteral("note"), kToken},
                      {QStringLiteral("client"), client}});
    ok &= log.record(fb::AuditEventType::ApprovalRequested,
                     {{QStringLiteral("request_sha256"), sha},
                      {QStringLiteral("channel"), QStringLiteral("desktop")},
                      {QStringLiteral("client"), client}});
    ok &= log.record(fb::AuditEventType::Decision,
                     {{QStringLiteral("request_sha256"), sha},
                      {QStringLiteral("status"), QStringLiteral("approved")},
                      {QStringLiteral("channel"), QStringLiteral("desktop")},
                      {QStringLiteral("client"), client}});
    ok &= log.record(fb::AuditEventType::Sending, {{QStringLiteral("request_sha256"), sha}});
    ok &= log.record(
        fb::AuditEventType::Executed,
        {{QStringLiteral("request_sha256"), sha},
         {QStringLiteral("sent"), true},
         {QStringLiteral("outcome"), QStringLiteral("created")},
         {QStringLiteral("uuid"), QStringLiteral("4f6d3c1a-0000-4000-8000-00000000abcd")}});
    return ok;
}

QString allText(const QAbstractItemModel *model)
{
    QString out;
    for (int r = 0; r < model->rowCount(); ++r)
        for (int c = 0; c < model->columnCount(); ++c)
            out += model->index(r, c).data().toString() + u'|';
    for (int c = 0; c < model->columnCount(); ++c)
        out += model->headerData(c, Qt::Horizontal).toString() + u'|';
    return out;
}

} // namespace

class TestAuditViewDialog : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }
    void filtersAndVerification()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("audit.jsonl"));
        QVERIFY(writeSampleLog(path));

        QPointer<AuditViewDialog> dialog = new AuditViewDialog(path);
        QVERIFY(dialog->testAttribute(Qt::WA_DeleteOnClose));
        QVERIFY(!dialog->isModal());
        dialog->show();
        QAbstractItemModel *view = dialog->view()->model();
        QCOMPARE(view->rowCount(), 5);
        QCOMPARE(view->columnCount(), int(AuditRecordModel::ColumnCount));

        // Columns: decision status, execution outcome, uuid, client.
        AuditRecordModel *model = dialog->recordModel();
        QCOMPARE(model->cellText(0, AuditRecordModel::ChangeTypeColumn),
                 QStringLiteral("connection_create"));
        QCOMPARE(model->cellText(0, AuditRecordModel::TargetColumn),
                 QStringLiteral("EVPL_VC lab-aws-sv-1"));
        QCOMPARE(model->cellText(2, AuditRecordModel::StatusColumn), QStringLiteral("approved"));
        QCOMPARE(model->cellText(2, AuditRecordModel::ChannelColumn), QStringLiteral("desktop"));
        QCOMPARE(model->cellText(4, AuditRecordModel::StatusColumn), QStringLiteral("created"));
        QCOMPARE(model->cellText(4, AuditRecordModel::UuidColumn),
                 QStringLiteral("4f6d3c1a-0000-4000-8000-00000000abcd"));
        QCOMPARE(model->cellText(0, AuditRecordModel::ClientColumn),
                 QStringLiteral("claude-code 2.1.4"));
        QCOMPARE(model->cellText(4, AuditRecordModel::SeqColumn), QStringLiteral("5"));

        // Nothing secret, nothing named token.
        const QString text = allText(view);
        QVERIFY2(!text.contains(kToken), qPrintable(text));
        QVERIFY2(!text.contains(guitest::fakeSha('f').left(12)), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("token"), Qt::CaseInsensitive), qPrintable(text));

        // Type filter: "All types" plus each type present.
        QComboBox *types = dialog->typeFilter();
        QCOMPARE(types->count(), 6);
        QCOMPARE(types->itemText(0), QStringLiteral("All types"));
        types->setCurrentIndex(types->findText(QStringLiteral("decision")));
        QCOMPARE(view->rowCount(), 1);
        QCOMPARE(view->index(0, AuditRecordModel::TypeColumn).data().toString(),
                 QStringLiteral("decision"));
        types->setCurrentIndex(0);
        QCOMPARE(view->rowCount(), 5);

        // Free text matches any column, case-insensitively, and combines with the type.
        dialog->textFilter()->setText(QStringLiteral("DESKTOP"));
        QCOMPARE(view->rowCount(), 2);
        dialog->textFilter()->setText(QStringLiteral("4f6d3c1a"));
        QCOMPARE(view->rowCount(), 1);
        QCOMPARE(view->index(0, AuditRecordModel::TypeColumn).data().toString(),
                 QStringLiteral("executed"));
        dialog->textFilter()->setText(QStringLiteral("desktop"));
        types->setCurrentIndex(types->findText(QStringLiteral("approval_requested")));
        QCOMPARE(view->rowCount(), 1);
        dialog->textFilter()->clear();
        types->setCurrentIndex(0);
        QCOMPARE(view->rowCount(), 5);

        // Verified once when opened.
        const AuditLog::VerifyResult good = AuditLog::verify(path);
        QVERIFY(good.ok);
        QCOMPARE(
            dialog->verifyLabel()->text(),
            QStringLiteral("Chain intact: 5 record(s), head %1").arg(good.headSha256.left(12)));

        // Tamper one byte of record 2 (line 2): record 3's prev no longer matches.
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray bytes = file.readAll();
        file.close();
        const qsizetype at = bytes.indexOf("\"desktop\"");
        QVERIFY(at > 0);
        QVERIFY(at < bytes.indexOf("\"decision\""));
        bytes[at + 1] = 'D';
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(file.write(bytes), bytes.size());
        file.close();

        // Still intact on screen until reloaded or verified.
        QVERIFY(dialog->verifyLabel()->text().startsWith(QStringLiteral("Chain intact")));
        types->setCurrentIndex(types->findText(QStringLiteral("decision")));
        QTest::mouseClick(dialog->reloadButton(), Qt::LeftButton);
        // The type filter survives a reload.
        QCOMPARE(types->currentText(), QStringLiteral("decision"));
        QCOMPARE(view->rowCount(), 1);
        types->setCurrentIndex(0);
        QCOMPARE(view->rowCount(), 5); // the altered record is still listed
        QTest::mouseClick(dialog->verifyButton(), Qt::LeftButton);
        const QString broken = dialog->verifyLabel()->text();
        QVERIFY2(broken.startsWith(QStringLiteral("Chain BROKEN at line 3: prev mismatch")),
                 qPrintable(broken));

        dialog->close();
        QTRY_VERIFY(dialog.isNull());
    }

    void tornLineAndMissingFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("audit.jsonl"));

        AuditViewDialog missing(path);
        missing.setAttribute(Qt::WA_DeleteOnClose, false);
        QCOMPARE(missing.view()->model()->rowCount(), 0);
        QCOMPARE(missing.typeFilter()->count(), 1);
        QVERIFY(missing.verifyLabel()->text().startsWith(QStringLiteral("No audit log yet")));

        QVERIFY(writeSampleLog(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::Append));
        file.write("{\"data\":{\"requ");
        file.close();
        missing.reload();
        QCOMPARE(missing.view()->model()->rowCount(), 5);
        const QString label = missing.verifyLabel()->text();
        QVERIFY2(label.startsWith(QStringLiteral("Chain intact: 5 record(s)")), qPrintable(label));
        QVERIFY2(label.contains(QStringLiteral("torn")), qPrintable(label));
        QVERIFY2(label.contains(QStringLiteral("line(s) 6")), qPrintable(label));
    }

    void truncatedAndContinuedLog()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("audit.jsonl"));
        QVERIFY(writeSampleLog(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().chopped(1).split('\n');
        file.close();
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(lines.mid(0, 3).join('\n') + '\n'); // the last two records cut off
        file.close();

        AuditViewDialog dialog(path);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        QCOMPARE(dialog.view()->model()->rowCount(), 3);
        QString label = dialog.verifyLabel()->text();
        QVERIFY2(label.startsWith(QStringLiteral("Audit log TRUNCATED: truncated tail")),
                 qPrintable(label));
        QVERIFY2(label.contains(QStringLiteral("2 record(s) were removed")), qPrintable(label));

        // A writer opening it records the loss (log_continued) and goes on: intact again, with
        // the continuation shown.
        {
            AuditLog log;
            QVERIFY(log.open(path, nullptr));
            QVERIFY(log.record(fb::AuditEventType::Proposed, {}));
        }
        dialog.reload();
        QCOMPARE(dialog.view()->model()->rowCount(), 5);
        QCOMPARE(dialog.recordModel()->cellText(3, AuditRecordModel::TypeColumn),
                 QStringLiteral("log_continued"));
        QCOMPARE(dialog.recordModel()->cellText(3, AuditRecordModel::StatusColumn),
                 QStringLiteral("truncated"));
        label = dialog.verifyLabel()->text();
        QVERIFY2(label.startsWith(QStringLiteral("Chain intact: 5 record(s)")), qPrintable(label));
        QVERIFY2(label.contains(QStringLiteral("Line 4: the log continues from a previous file "
                                               "(truncated); previous head seq 5")),
                 qPrintable(label));
    }

    void menuActionOpensTheDialog()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("env-audit.jsonl"));
        QVERIFY(writeSampleLog(path));
        qputenv(AuditLog::PathEnvironmentVariable, path.toLocal8Bit());

        ManualClock clock;
        ProposalStore store(&clock);
        FabricClient fabric(FabricConfig{});
        MutationBroker broker(&store, &fabric, BrokerSettings{}, &clock);
        DesktopContext ctx;
        ctx.store = &store;
        ctx.broker = &broker;
        ctx.fabric = &fabric;
        ctx.sandbox = true;
        ctx.clock = &clock;
        DesktopUi ui(ctx);

        auto *action = ui.mainWindow()->findChild<QAction *>(QStringLiteral("actionAuditLog"));
        QVERIFY(action);
        QVERIFY(action->text().contains(QStringLiteral("audit log")));
        QSignalSpy spy(ui.mainWindow(), &MainWindow::auditLogRequested);
        action->trigger();
        QCOMPARE(spy.count(), 1);

        AuditViewDialog *dialog = nullptr;
        for (QWidget *w : QApplication::topLevelWidgets()) {
            if (auto *d = qobject_cast<AuditViewDialog *>(w); d && d->isVisible())
                dialog = d;
        }
        QVERIFY(dialog);
        QCOMPARE(dialog->auditLogPath(), path);
        QCOMPARE(dialog->view()->model()->rowCount(), 5);
        QVERIFY(dialog->verifyLabel()->text().startsWith(QStringLiteral("Chain intact")));
        QPointer<AuditViewDialog> guard(dialog);
        dialog->close();
        QTRY_VERIFY(guard.isNull());
        qunsetenv(AuditLog::PathEnvironmentVariable);
    }
};

QTEST_MAIN(TestAuditViewDialog)
#include "tst_auditviewdialog.moc"
