// fabric-broker-screenshots: renders the main window (with sample proposals) and an approval
// dialog offscreen to PNG files for the docs. Not a test. Usage: fabric-broker-screenshots <dir>
#include "GuiTestData.h"
#include "broker/MutationBroker.h"
#include "broker/ProposalView.h"
#include "fabric/FabricClient.h"
#include "gui/ApprovalDialog.h"
#include "gui/ConnectClientDialog.h"
#include "gui/GuiResources.h"
#include "gui/MainWindow.h"
#include "gui/ProposalTableModel.h"
#include "gui/SettingsDialog.h"

#include <QApplication>
#include <QDir>
#include <QStyleFactory>
#include <QTableView>
#include <QTest>

using namespace fb;

namespace {

bool save(QWidget *widget, const QString &path)
{
    QTest::qWait(50);
    const bool ok = widget->grab().save(path);
    fprintf(stderr, "%s %s\n", ok ? "wrote" : "FAILED to write", qPrintable(path));
    return ok;
}

mcp::ClientInfo client(quint64 id, const char *name, const char *version, const char *transport,
                       qint64 at)
{
    mcp::ClientInfo c =
        guitest::sampleClient(id, QString::fromLatin1(name), QString::fromLatin1(version));
    c.transport = QString::fromLatin1(transport);
    c.connectedAtMs = at;
    return c;
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral(".");
    QDir().mkpath(dir);
    initGuiResources();

    ManualClock clock(1767258000000); // 2026-01-01T09:00Z
    ProposalStore store(&clock);
    FabricClient fabric(FabricConfig{});
    MutationBroker broker(&store, &fabric, BrokerSettings{}, &clock);
    ProposalTableModel model(&clock);
    model.setTickIntervalMs(0);
    model.setLingerMs(10000);
    model.attach(&store, &broker);

    MainWindow window(&model, &clock);
    window.setFabricEndpoint(QUrl(QStringLiteral("http://127.0.0.1:47017")), true);
    window.setToolsets({QStringLiteral("read"), QStringLiteral("mutate")});
    window.setSocketPath(QStringLiteral("/run/user/1000/fabric-broker/broker.sock"));
    window.setHideOnClose(true);
    QObject::connect(&broker, &MutationBroker::auditEvent, &window, &MainWindow::appendActivity);

    const qint64 t0 = clock.nowMs();
    window.clientInitialized(client(1, "claude-code", "2.1.4", "socket", t0 - 3600000));
    window.clientInitialized(client(2, "cursor", "1.7.2", "socket", t0 - 1200000));
    window.clientInitialized(client(3, "Visual Studio Code", "1.106.0", "stdio", t0 - 300000));

    auto propose = [&](const char *name, ChangeType type, char sha, quint64 session) {
        Proposal p =
            guitest::sampleContext(clock.nowMs(), type, QString::fromLatin1(name), sha).proposal;
        p.context.insert(QStringLiteral("client"),
                         client(session, session == 2 ? "cursor" : "claude-code",
                                session == 2 ? "1.7.2" : "2.1.4", "socket", t0)
                             .toJson());
        if (type == ChangeType::NetworkCreate) {
            p.target =
                QStringLiteral("EVPLAN network \"%1\" (GLOBAL)").arg(QString::fromLatin1(name));
            p.context.insert(
                QStringLiteral("price"),
                QJsonObject{
                    {QStringLiteral("priced"), false},
                    {QStringLiteral("summary"), QStringLiteral("networks have no rate-card price")},
                    {QStringLiteral("reason"), QStringLiteral("no rate card for networks")}});
        } else if (type == ChangeType::ServiceTokenCreate) {
            p.target = QStringLiteral("VC_TOKEN \"%1\" for port c4d9350e, 100 Mbps")
                           .arg(QString::fromLatin1(name));
        }
        const Proposal stored = store.add(p).proposal;
        broker.audit(AuditEventType::Proposed,
                     {{QStringLiteral("change_type"), changeTypeName(type)},
                      {QStringLiteral("target"), stored.target},
                      {QStringLiteral("request_sha256"), stored.requestSha256},
                      {QStringLiteral("client"), stored.context.value(QStringLiteral("client"))}});
        return stored;
    };

    const Proposal a = propose("lab-aws-sv-1", ChangeType::ConnectionCreate, '3', 1);
    clock.advanceMs(95000);
    const Proposal b = propose("lab-evplan", ChangeType::NetworkCreate, '7', 2);
    clock.advanceMs(40000);
    const Proposal c = propose("partner-token", ChangeType::ServiceTokenCreate, 'c', 1);
    clock.advanceMs(20000);
    propose("lab-azure-sv-2", ChangeType::ConnectionCreate, '9', 1);
    clock.advanceMs(12000);

    // a: approved and created; b: awaiting approval; c: declined.
    const Proposal ca = *store.consume(a.token).proposal;
    emit broker.approvalStarted(ca, QStringLiteral("desktop"));
    broker.audit(AuditEventType::Decision, {{QStringLiteral("status"), QStringLiteral("accepted")},
                                            {QStringLiteral("channel"), QStringLiteral("desktop")},
                                            {QStringLiteral("request_sha256"), ca.requestSha256}});
    emit broker.approvalFinished(ca, QStringLiteral("accepted"));
    broker.audit(AuditEventType::Executed,
                 {{QStringLiteral("outcome"), QStringLiteral("created")},
                  {QStringLiteral("uuid"), QStringLiteral("5b7f1c2e-0d1f-4c7a-9d8e-3a7c5f0e9b12")},
                  {QStringLiteral("request_sha256"), ca.requestSha256}});
    emit broker.executionFinished(ca, true, QStringLiteral("created"));
    clock.advanceMs(3000);
    const Proposal cc = *store.consume(c.token).proposal;
    emit broker.approvalStarted(cc, QStringLiteral("client"));
    emit broker.approvalFinished(cc, QStringLiteral("declined"));
    broker.audit(AuditEventType::Decision, {{QStringLiteral("status"), QStringLiteral("declined")},
                                            {QStringLiteral("channel"), QStringLiteral("client")},
                                            {QStringLiteral("request_sha256"), cc.requestSha256}});
    const Proposal cb = *store.consume(b.token).proposal;
    broker.audit(AuditEventType::ApprovalRequested,
                 {{QStringLiteral("channel"), QStringLiteral("desktop")},
                  {QStringLiteral("request_sha256"), cb.requestSha256},
                  {QStringLiteral("client"), cb.context.value(QStringLiteral("client"))}});
    emit broker.approvalStarted(cb, QStringLiteral("desktop"));
    clock.advanceMs(2000);
    model.tick();

    window.resize(1180, 720);
    window.show();
    window.proposalsView()->setCurrentIndex({});
    window.proposalsView()->clearFocus();
    bool ok = save(&window, dir + QStringLiteral("/main-window.png"));

    ApprovalContext ctx = guitest::sampleContext(clock.nowMs());
    ctx.proposal.proposedAtMs = clock.nowMs() - 83000;
    ctx.proposal.expiresAtMs = ctx.proposal.proposedAtMs + 600000;
    ctx.proposal.requestSha256 =
        QStringLiteral("3f6c2a91d04be7785a1c9e0f2b6d4a38c1e07f95b2d8a6c4e3f1097a5b2c8d61");
    ctx.proposal.fabricEndpoint = QStringLiteral("https://api.equinix.com");
    ctx.proposal.credentialIdentity = QStringLiteral("client id my-client-id");
    auto *dialog = new ApprovalDialog(ctx, &clock);
    dialog->setApproveDelayMs(0);
    dialog->setAnswerDeadlineMs(clock.nowMs() + 287000);
    dialog->open();
    dialog->resize(dialog->sizeHint().expandedTo(QSize(780, 720)));
    ok = save(dialog, dir + QStringLiteral("/approval-dialog.png")) && ok;
    dialog->closeWithoutAnswer();

    // A hostile proposal: a forged price line, markup and a right-to-left override in the agent's
    // name, in Fabric's name of the profile and in the client's name, all shown escaped.
    const QString hostile = QStringLiteral("x\nPrice: USD 0.00 <b>free</b> \u202Egnp.exe");
    ApprovalContext evil =
        guitest::sampleContext(clock.nowMs(), ChangeType::ConnectionCreate, hostile);
    evil.proposal.proposedAtMs = clock.nowMs() - 12000;
    evil.proposal.expiresAtMs = evil.proposal.proposedAtMs + 600000;
    evil.proposal.requestSha256 = ctx.proposal.requestSha256;
    evil.proposal.fabricEndpoint = ctx.proposal.fabricEndpoint;
    evil.proposal.credentialIdentity = ctx.proposal.credentialIdentity;
    evil.proposal.target = ProposalView::target(
        ChangeType::ConnectionCreate, evil.proposal.spec,
        QJsonObject{
            {QStringLiteral("zSide"),
             QJsonObject{
                 {QStringLiteral("accessPoint"),
                  QJsonObject{{QStringLiteral("profile"),
                               QJsonObject{{QStringLiteral("uuid"),
                                            QStringLiteral("69ee618d-be52-468d-bc99-00566f2dd2b9")},
                                           {QStringLiteral("name"),
                                            QStringLiteral("AWS\nPrice: USD 0.00")}}}}}}}});
    mcp::ClientInfo evilClient = guitest::sampleClient();
    evilClient.name = mcp::ClientInfo::untrustedText(QStringLiteral("<b>claude</b>\u202E\nok"));
    evil.client = evilClient;
    evil.proposal.context.insert(QStringLiteral("client"), evilClient.toJson());
    auto *evilDialog = new ApprovalDialog(evil, &clock);
    evilDialog->setApproveDelayMs(0);
    evilDialog->setAnswerDeadlineMs(clock.nowMs() + 287000);
    evilDialog->open();
    evilDialog->resize(evilDialog->sizeHint().expandedTo(QSize(780, 720)));
    ok = save(evilDialog, dir + QStringLiteral("/approval-dialog-hostile.png")) && ok;
    evilDialog->closeWithoutAnswer();

    auto *connectDialog = new ConnectClientDialog(QStringLiteral("/usr/bin/fabric-broker"));
    connectDialog->show();
    connectDialog->resize(720, connectDialog->minimumSizeHint().height());
    ok = save(connectDialog, dir + QStringLiteral("/connect-client.png")) && ok;
    connectDialog->close();

    FabricConfig production;
    production.clientId = QStringLiteral("my-client-id");
    production.clientSecret = QStringLiteral("not-shown");
    auto *settingsDialog = new SettingsDialog(production, BrokerSettings{}, false, nullptr);
    settingsDialog->show();
    settingsDialog->resize(settingsDialog->sizeHint().expandedTo(QSize(640, 0)));
    ok = save(settingsDialog, dir + QStringLiteral("/settings.png")) && ok;
    settingsDialog->close();
    return ok ? 0 : 1;
}
