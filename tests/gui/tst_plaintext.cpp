// Every client or agent string in the desktop app is plain text: every label of the approval
// dialog, main window, audit view and settings dialog has Qt::PlainText; the request tree,
// activity log, audit table and tooltips show invisible structure escaped and markup inert.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/ProposalView.h"
#include "core/AuditLog.h"
#include "core/ProposalStore.h"
#include "gui/ApprovalDialog.h"
#include "gui/AuditViewDialog.h"
#include "gui/MainWindow.h"
#include "gui/PlainText.h"
#include "gui/ProposalTableModel.h"
#include "gui/SettingsDialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

using namespace fb;

namespace {

const QString kHostile = QStringLiteral("x\nPrice: USD 0.00 <b>free</b>\u202Elive");
const QString kHostileShown = QStringLiteral("x\\nPrice: USD 0.00 <b>free</b>\\u202Elive");

QStringList richLabels(const QWidget *root)
{
    QStringList out;
    for (const QLabel *label : root->findChildren<QLabel *>()) {
        if (label->textFormat() != Qt::PlainText)
            out << label->objectName();
    }
    return out;
}

} // namespace

class TestPlainText : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }

    void approvalDialogLabelsArePlainText()
    {
        ManualClock clock;
        ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
        ApprovalDialog dialog(ctx, &clock);
        QVERIFY(dialog.findChildren<QLabel *>().size() >= 20);
        QCOMPARE(richLabels(&dialog), QStringList());
    }

    void approvalDialogShowsHostileValuesEscaped()
    {
        ManualClock clock;
        ApprovalContext ctx =
            guitest::sampleContext(clock.nowMs(), ChangeType::ConnectionCreate, kHostile);
        ctx.proposal.target = ProposalView::target(
            ChangeType::ConnectionCreate, ctx.proposal.spec,
            QJsonObject{
                {"zSide",
                 QJsonObject{
                     {"accessPoint",
                      QJsonObject{
                          {"profile", QJsonObject{{"uuid", "69ee618d-be52-468d-bc99-00566f2dd2b9"},
                                                  {"name", "<i>AWS</i>\nPrice: 0"}}}}}}}});
        ctx.proposal.fabricEndpoint = QStringLiteral("https://api.equinix.com");
        ctx.proposal.credentialIdentity = QStringLiteral("client id abc");
        mcp::ClientInfo client = guitest::sampleClient();
        client.name = mcp::ClientInfo::untrustedText(QStringLiteral("<b>claude</b>\u202E\n"));
        ctx.proposal.context.insert("client", client.toJson());
        ctx.client = client;
        ApprovalDialog dialog(ctx, &clock);
        dialog.show();

        QString shownName;
        QString toolTip;
        for (QTreeWidgetItemIterator it(dialog.requestTree()); *it; ++it) {
            if ((*it)->data(0, Qt::UserRole).toString() == u"name") {
                shownName = (*it)->text(1);
                toolTip = (*it)->toolTip(1);
            }
        }
        QCOMPARE(shownName, kHostileShown);
        QVERIFY(!toolTip.contains("<b>"));
        QVERIFY(toolTip.contains("&lt;b&gt;free&lt;/b&gt;"));
        QVERIFY(toolTip.contains("\\u202E"));

        const auto labels = dialog.findChildren<QLabel *>();
        const auto target = std::find_if(labels.begin(), labels.end(), [&](QLabel *l) {
            return l->text() == ctx.proposal.target;
        });
        QVERIFY(target != labels.end());
        QCOMPARE((*target)->textFormat(), Qt::PlainText);
        QVERIFY(!(*target)->text().contains(u'\n'));
        QVERIFY((*target)->text().contains("\\u003Ci\\u003EAWS\\u003C/i\\u003E\\nPrice: 0"));
        QCOMPARE(dialog.clientLabel()->textFormat(), Qt::PlainText);
        const auto *account = dialog.findChild<QLabel *>("fabricAccountValue");
        QVERIFY(account);
        QCOMPARE(account->text(), QStringLiteral("https://api.equinix.com with client id abc"));
        QVERIFY(dialog.clientLabel()->text().startsWith("<b>claude</b>\\u202E\\n"));
    }

    void mainWindowLabelsAndActivityArePlainText()
    {
        ManualClock clock;
        ProposalTableModel model(&clock);
        MainWindow window(&model, &clock);
        QCOMPARE(richLabels(&window), QStringList());
        window.appendActivity(fb::AuditEventType::Proposed,
                              {{"change_type", "connection_create"},
                               {"target", kHostile},
                               {"client", guitest::sampleClient().toJson()}});
        const QString log = window.activityLog()->toPlainText();
        QVERIFY2(log.contains(kHostileShown), qPrintable(log));
        QCOMPARE(window.activityLog()->document()->blockCount(), 1);
        mcp::ClientInfo c = guitest::sampleClient(9);
        c.title = QStringLiteral("<b>bold</b>");
        window.clientInitialized(c);
        const QString tip = window.clientsTree()->topLevelItem(0)->toolTip(0);
        QVERIFY2(tip.contains("&lt;b&gt;bold&lt;/b&gt;"), qPrintable(tip));
    }

    void auditViewIsPlainText()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("audit.jsonl");
        {
            AuditLog log;
            QString error;
            QVERIFY2(log.open(path, &error), qPrintable(error));
            QVERIFY(log.record(fb::AuditEventType::Proposed,
                               {{"change_type", "connection_create"},
                                {"target", kHostile},
                                {"request_sha256", guitest::fakeSha('e')}}));
        }
        AuditViewDialog dialog(path);
        QCOMPARE(richLabels(&dialog), QStringList());
        const QAbstractItemModel *m = dialog.view()->model();
        bool found = false;
        for (int r = 0; r < m->rowCount(); ++r) {
            for (int c = 0; c < m->columnCount(); ++c) {
                const QString text = m->index(r, c).data().toString();
                QVERIFY(!text.contains(u'\n'));
                QVERIFY(!text.contains(QChar(0x202E)));
                if (text.contains(kHostileShown)) {
                    found = true;
                    QVERIFY(m->index(r, c).data(Qt::ToolTipRole).toString().contains("&lt;b&gt;"));
                }
            }
        }
        QVERIFY(found);
    }

    void toolTipsNeverRenderMarkup()
    {
        QCOMPARE(PlainText::toolTip("<b>x</b>\nline 2 \u202E"),
                 QStringLiteral("<qt>&lt;b&gt;x&lt;/b&gt;<br>line 2 \\u202E</qt>"));
        QCOMPARE(PlainText::toolTip(QString()), QString());
    }

    void settingsDialogLabelsArePlainText()
    {
        FabricConfig current;
        current.endpoint = QUrl("https://api.equinix.com");
        SettingsDialog dialog(current, BrokerSettings{}, false, nullptr);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.show();
        QVERIFY(dialog.findChildren<QLabel *>().size() >= 5);
        QCOMPARE(richLabels(&dialog), QStringList());
    }
};

QTEST_MAIN(TestPlainText)
#include "tst_plaintext.moc"
