#include "gui/MainWindow.h"

#include "gui/ClientText.h"
#include "gui/GuiResources.h"
#include "gui/PlainText.h"
#include "gui/ProposalTableModel.h"
#include "ui_MainWindow.h"

#include <QCloseEvent>
#include <QDateTime>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLoggingCategory>
#include <QTreeWidgetItem>

Q_LOGGING_CATEGORY(lcMainWindow, "fabricbroker.gui.mainwindow")

namespace fb {

namespace {

// A warning banner under the sandbox banner: plain selectable text, hidden until it has one.
QLabel *warningBanner(QWidget *parent, const QString &objectName)
{
    auto *banner = new QLabel(parent);
    banner->setObjectName(objectName);
    banner->setTextFormat(Qt::PlainText);
    banner->setWordWrap(true);
    banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    banner->setStyleSheet(QStringLiteral(
        "QLabel { background: #f8d7da; color: #58151c; padding: 6px; border-radius: 4px; }"));
    banner->setVisible(false);
    return banner;
}

// Shows message, with reason in it, in the banner (named accessibleName for screen readers), or
// hides the banner when there is no reason.
void showWarning(QLabel *banner, const QString &reason, const QString &message,
                 const QString &accessibleName)
{
    const QString text = reason.isEmpty() ? QString() : message.arg(reason);
    banner->setText(text);
    banner->setAccessibleName(reason.isEmpty() ? QString() : accessibleName);
    banner->setAccessibleDescription(text);
    banner->setVisible(!reason.isEmpty());
}

QString localTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss"));
}

QTreeWidgetItem *findClient(QTreeWidget *tree, quint64 sessionId)
{
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->data(0, Qt::UserRole).toULongLong() == sessionId)
            return tree->topLevelItem(i);
    return nullptr;
}

void fillClient(QTreeWidgetItem *item, const mcp::ClientInfo &c)
{
    item->setData(0, Qt::UserRole, QVariant::fromValue<qulonglong>(c.sessionId));
    item->setText(0, c.name.isEmpty() ? MainWindow::tr("(connecting, session %1)").arg(c.sessionId)
                                      : c.name);
    item->setToolTip(
        0, PlainText::toolTip(
               MainWindow::tr("session %1%2")
                   .arg(c.sessionId)
                   .arg(c.title.isEmpty() ? QString() : QStringLiteral(" - ") + c.title)));
    item->setText(1, c.version);
    item->setText(2, c.protocolVersion);
    item->setText(3, c.transport);
    item->setText(4, c.connectedAtMs ? localTime(c.connectedAtMs) : QString());
}

} // namespace

MainWindow::MainWindow(ProposalTableModel *model, Clock *clock, QWidget *parent)
    : QMainWindow(parent)
    , ui(std::make_unique<Ui::MainWindow>())
    , m_model(model)
    , m_clock(clock ? clock : Clock::system())
{
    ui->setupUi(this);
    setWindowIcon(appIcon());
    ui->sandboxBanner->setVisible(false);
    ui->sandboxBanner->setStyleSheet(QStringLiteral(
        "QLabel { background: #f5c542; color: #1d1d1d; font-weight: bold; padding: 6px; "
        "border-radius: 4px; }"));
    m_httpWarning = warningBanner(ui->centralWidget, QStringLiteral("httpWarningBanner"));
    ui->centralLayout->insertWidget(ui->centralLayout->indexOf(ui->sandboxBanner) + 1,
                                    m_httpWarning);
    m_teamWarning = warningBanner(ui->centralWidget, QStringLiteral("teamWarningBanner"));
    ui->centralLayout->insertWidget(ui->centralLayout->indexOf(m_httpWarning) + 1, m_teamWarning);

    ui->proposalsView->setModel(model);
    QHeaderView *header = ui->proposalsView->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(ProposalTableModel::TargetColumn, QHeaderView::Stretch);
    header->setMinimumSectionSize(60);
    ui->proposalsView->verticalHeader()->setVisible(false);
    ui->proposalsView->setAlternatingRowColors(false);

    ui->clientsTree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    ui->activityLog->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    ui->activityLog->setPlaceholderText(tr("Proposals, approvals and creates appear here."));
    ui->verticalSplitter->setStretchFactor(0, 3);
    ui->verticalSplitter->setStretchFactor(1, 2);
    ui->bottomSplitter->setStretchFactor(0, 2);
    ui->bottomSplitter->setStretchFactor(1, 3);

    connect(ui->actionSettings, &QAction::triggered, this, &MainWindow::settingsRequested);
    connect(ui->actionConnectClient, &QAction::triggered, this,
            &MainWindow::connectClientRequested);
    connect(ui->actionAuditLog, &QAction::triggered, this, &MainWindow::auditLogRequested);
    connect(ui->actionTeamApprovals, &QAction::triggered, this,
            &MainWindow::teamApprovalsRequested);
    connect(ui->actionQuit, &QAction::triggered, this, &MainWindow::quitRequested);
    connect(ui->emptyConnectButton, &QPushButton::clicked, this,
            &MainWindow::connectClientRequested);
    connect(ui->enableProposalsButton, &QPushButton::clicked, this,
            &MainWindow::enableProposalsRequested);
    connect(model, &QAbstractItemModel::rowsInserted, this, &MainWindow::updateEmptyHint);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &MainWindow::updateEmptyHint);
    connect(model, &QAbstractItemModel::modelReset, this, &MainWindow::updateEmptyHint);
    updateEmptyHint();
    updateTitle();
}

void MainWindow::updateEmptyHint()
{
    const bool empty = m_model->rowCount() == 0;
    ui->proposalsView->setVisible(!empty);
    ui->emptyHint->setVisible(empty);
    ui->enableProposalsButton->setVisible(!m_mutate && m_mutateLock.isEmpty());
    if (!m_mutate && !m_mutateLock.isEmpty()) {
        ui->emptyHintLabel->setText(
            tr("No proposals yet. Connect an MCP client (Claude Code, Claude Desktop, VS Code, "
               "Cursor, Codex, Gemini CLI) to let its agent read your Fabric estate. Proposals "
               "are off and cannot be turned on here: %1.")
                .arg(m_mutateLock));
        return;
    }
    ui->emptyHintLabel->setText(
        m_mutate ? tr("No proposals yet. Connect an MCP client (Claude Code, Claude Desktop, VS "
                      "Code, Cursor, Codex, Gemini CLI): when its agent proposes a create, it "
                      "appears here, and nothing is created until you approve it.")
                 : tr("No proposals yet. Connect an MCP client (Claude Code, Claude Desktop, VS "
                      "Code, Cursor, Codex, Gemini CLI) to let its agent read your Fabric "
                      "estate. Proposals are off: agents can only read. Turn them on to let "
                      "agents propose creates, which you approve or deny here."));
}

MainWindow::~MainWindow() = default;

void MainWindow::setFabricEndpoint(const QUrl &endpoint, bool sandbox)
{
    m_sandbox = sandbox;
    const QString url = endpoint.toDisplayString(QUrl::RemoveUserInfo);
    ui->endpointValue->setText(sandbox ? tr("%1 (embedded SANDBOX)").arg(url)
                                       : tr("%1 (production)").arg(url));
    ui->sandboxBanner->setVisible(sandbox);
    updateTitle();
}

void MainWindow::setToolsets(const QStringList &toolsets)
{
    m_toolsets = toolsets;
    QString text = toolsets.join(QStringLiteral(", "));
    if (!toolsets.contains(QStringLiteral("mutate")))
        text +=
            m_mutateLock.isEmpty()
                ? tr(" (read-only: agents cannot propose creates)")
                : tr(" (read-only: agents cannot propose creates; mutate is %1)").arg(m_mutateLock);
    ui->toolsetsValue->setText(text);
    m_mutate = toolsets.contains(QStringLiteral("mutate"));
    updateEmptyHint();
}

void MainWindow::setMutateLock(const QString &lock)
{
    m_mutateLock = lock;
    setToolsets(m_toolsets);
}

void MainWindow::setSocketPath(const QString &path)
{
    ui->socketValue->setText(path.isEmpty() ? tr("(not listening)") : path);
}

void MainWindow::setHideOnClose(bool hide)
{
    m_hideOnClose = hide;
}

void MainWindow::updateTitle()
{
    setWindowTitle(m_sandbox ? tr("Fabric Broker - SANDBOX") : tr("Fabric Broker"));
}

QString MainWindow::formatActivity(AuditEventType type, const QJsonObject &record, qint64 nowMs)
{
    auto str = [&](const char *key) { return record.value(QLatin1String(key)).toString(); };
    const QString sha = str("request_sha256");
    const QString shaShort = sha.isEmpty() ? QString() : tr(" [sha %1...]").arg(sha.left(12));
    const QJsonObject client = record.value(QStringLiteral("client")).toObject();
    const QString by =
        client.isEmpty() ? QString() : tr(" by %1").arg(ClientText::nameAndVersion(client));
    QString what;
    switch (type) {
    case AuditEventType::Proposed:
        what = tr("proposed %1: %2%3").arg(str("change_type"), str("target"), by);
        break;
    case AuditEventType::ProposeFailed: {
        const QJsonObject error = record.value(QStringLiteral("error")).toObject();
        QString why = error.value(QStringLiteral("kind")).toString();
        if (why.isEmpty())
            why = str("message");
        what = tr("proposal refused%1%2")
                   .arg(by, why.isEmpty() ? QString() : QStringLiteral(": ") + why.left(160));
        break;
    }
    case AuditEventType::Redemption:
        what = tr("confirm token redeemed: %1%2").arg(str("outcome"), by);
        break;
    case AuditEventType::ApprovalRequested:
        what = tr("asking a person (%1 channel)%2").arg(str("channel"), by);
        break;
    case AuditEventType::Decision:
        what = str("status") == u"call_cancelled"
                   ? tr("decision: the agent gave up waiting (call_cancelled via %1); nothing "
                        "was sent")
                         .arg(str("channel"))
                   : tr("decision: %1 via %2").arg(str("status"), str("channel"));
        break;
    case AuditEventType::Sending:
        what = tr("sending the approved create to Fabric");
        break;
    case AuditEventType::Executed:
        what = tr("create %1").arg(str("outcome"));
        if (!str("uuid").isEmpty())
            what += tr(", uuid %1").arg(str("uuid"));
        if (!str("correlation_id").isEmpty())
            what += tr(" (correlation id %1)").arg(str("correlation_id"));
        break;
    case AuditEventType::PolicyChanged:
        what = record.value(QStringLiteral("refuse_mutate")).toBool()
                   ? tr("policy files changed: the mutate toolset is refused until they are fixed")
                   : tr("policy files changed: served toolsets %1").arg(str("toolsets"));
        break;
    case AuditEventType::ApprovalRejected:
        what = tr("team approval by %1 rejected: %2")
                   .arg(str("approver").left(64), str("reason").left(300));
        break;
    case AuditEventType::EndpointSwitched:
        what = tr("switched from the sandbox to %1: %2")
                   .arg(str("to").left(200), str("outcome").left(40));
        break;
    case AuditEventType::ExportInterrupted:
        what = tr("audit export to %1 interrupted after record %2: %3")
                   .arg(str("sink").left(200),
                        QString::number(record.value(QStringLiteral("last_sent_seq")).toInteger()),
                        str("reason").left(300));
        break;
    case AuditEventType::ExportResumed:
        what =
            tr("audit export to %1 resumed from record %2")
                .arg(str("sink").left(200),
                     QString::number(record.value(QStringLiteral("resent_from_seq")).toInteger()));
        break;
    case AuditEventType::ExportGap:
        what = tr("audit export to %1 lost records %2 to %3: %4")
                   .arg(str("sink").left(200),
                        QString::number(record.value(QStringLiteral("from_seq")).toInteger()),
                        QString::number(record.value(QStringLiteral("to_seq")).toInteger()),
                        str("reason").left(120));
        break;
    case AuditEventType::Revalidation:
    case AuditEventType::Policy:
    case AuditEventType::Evicted:
    case AuditEventType::Expired:
    case AuditEventType::LedgerReset:
    case AuditEventType::WebhookDelivered:
    case AuditEventType::WebhookFailed:
    case AuditEventType::LogContinued:
        what = auditEventNameString(type);
        break;
    }
    return QStringLiteral("%1  %2%3").arg(localTime(nowMs), what, shaShort);
}

void MainWindow::appendActivity(AuditEventType type, const QJsonObject &record)
{
    const QString line = formatActivity(type, record, m_clock->nowMs());
    if (!line.isEmpty())
        appendActivityLine(line);
}

void MainWindow::appendActivityLine(const QString &line)
{
    // One line per event, whatever a client or agent string in it contains.
    ui->activityLog->appendPlainText(UntrustedText::escapeInvisible(line));
}

void MainWindow::clientOpened(const mcp::ClientInfo &client)
{
    QTreeWidgetItem *item = findClient(ui->clientsTree, client.sessionId);
    if (!item)
        item = new QTreeWidgetItem(ui->clientsTree);
    fillClient(item, client);
}

void MainWindow::clientInitialized(const mcp::ClientInfo &client)
{
    clientOpened(client);
    appendActivityLine(QStringLiteral("%1  %2").arg(
        localTime(m_clock->nowMs()), tr("client connected: %1").arg(ClientText::summary(client))));
}

void MainWindow::clientClosed(const mcp::ClientInfo &client)
{
    delete findClient(ui->clientsTree, client.sessionId);
    if (!client.name.isEmpty())
        appendActivityLine(QStringLiteral("%1  %2").arg(
            localTime(m_clock->nowMs()),
            tr("client disconnected: %1").arg(ClientText::summary(client))));
}

void MainWindow::showStatusMessage(const QString &message)
{
    ui->statusBar->showMessage(message, 10000);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    event->ignore();
    if (m_hideOnClose) {
        hide();
        emit hiddenToTray();
        return;
    }
    emit quitRequested();
}

QWidget *MainWindow::emptyHint() const
{
    return ui->emptyHint;
}
QLabel *MainWindow::emptyHintLabel() const
{
    return ui->emptyHintLabel;
}
QPushButton *MainWindow::emptyConnectButton() const
{
    return ui->emptyConnectButton;
}
QPushButton *MainWindow::enableProposalsButton() const
{
    return ui->enableProposalsButton;
}

QTableView *MainWindow::proposalsView() const
{
    return ui->proposalsView;
}
QTreeWidget *MainWindow::clientsTree() const
{
    return ui->clientsTree;
}
QPlainTextEdit *MainWindow::activityLog() const
{
    return ui->activityLog;
}
void MainWindow::setHttpWarning(const QString &warning)
{
    showWarning(m_httpWarning, warning,
                tr("Warning: %1. The HTTP bearer token was replaced; clients using stdio or the "
                   "local socket are not affected."),
                tr("Warning: MCP over HTTP is off"));
}

void MainWindow::setTeamMode(bool team)
{
    ui->actionTeamApprovals->setVisible(team);
}

QAction *MainWindow::teamApprovalsAction() const
{
    return ui->actionTeamApprovals;
}

void MainWindow::setTeamWarning(const QString &reason)
{
    showWarning(m_teamWarning, reason.left(300),
                tr("Warning: the team database is unreachable (%1). Proposals and confirms are "
                   "refused until it is back; reads keep working, and a confirm already waiting "
                   "for approvals waits on."),
                tr("Warning: the team database is unreachable"));
}

QLabel *MainWindow::httpWarningBanner() const
{
    return m_httpWarning;
}

QLabel *MainWindow::sandboxBanner() const
{
    return ui->sandboxBanner;
}

} // namespace fb
