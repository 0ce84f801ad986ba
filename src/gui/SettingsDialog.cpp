#include "gui/SettingsDialog.h"

#include "broker/Catalog.h"
#include "broker/MutationBroker.h"
#include "broker/ProposalView.h"
#include "broker/ReadOperations.h"
#include "core/Executable.h"
#include "core/ObservabilityTargets.h"
#include "core/ProposalStore.h"
#include "core/Settings.h"
#include "core/TeamPolicy.h"
#include "gui/Accessibility.h"
#include "gui/LoginAutostart.h"
#include "gui/PolicyLocks.h"
#include "gui/WindowFit.h"
#include "keychain/CredentialStore.h"
#include "mcp/ToolRegistry.h"
#include "telemetry/SyslogSink.h"
#include "transport/http/HttpAddress.h"
#include "ui_SettingsDialog.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QPushButton>
#include <QSettings>

Q_LOGGING_CATEGORY(lcSettingsDialog, "fabricbroker.gui.settings")

namespace fb {

SettingsDialog::SettingsDialog(const FabricConfig &current, const BrokerSettings &settings,
                               bool sandbox, keychain::CredentialStore *store, QWidget *parent)
    : QDialog(parent)
    , ui(std::make_unique<Ui::SettingsDialog>())
    , m_current(current)
    , m_settings(settings)
    , m_sandbox(sandbox)
    , m_store(store)
{
    ui->setupUi(this);
    setAttribute(Qt::WA_DeleteOnClose);

    if (sandbox) {
        ui->sandboxNote->setText(
            tr("SANDBOX: this session talks to the embedded Fabric sandbox. Saved values apply "
               "when Fabric Broker runs against Equinix Fabric."));
        ui->sandboxNote->setStyleSheet(QStringLiteral(
            "QLabel { background: #f5c542; color: #1d1d1d; font-weight: bold; padding: 6px; "
            "border-radius: 4px; }"));
    } else {
        ui->sandboxNote->setVisible(false);
    }

    const DesktopPreferences prefs = DesktopPreferences::load(QSettings());
    if (sandbox) {
        // On the sandbox the form is about the Equinix account: never the sandbox's own loopback
        // address (another port at every start, free for anyone to take once the app ends) or its
        // placeholder credentials, which would otherwise be saved as the account's.
        m_sandboxEndpoint = current.endpoint;
        m_current = FabricConfig{};
        if (!prefs.endpoint.isEmpty() && !isSandboxEndpoint(prefs.endpoint))
            m_current.endpoint = prefs.endpoint;
    }
    ui->endpointEdit->setText(
        (!prefs.endpoint.isEmpty() && !sandbox ? prefs.endpoint : m_current.endpoint).toString());
    ui->clientIdEdit->setText(m_current.clientId);
    ui->clientSecretEdit->setPlaceholderText(
        m_current.clientSecret.isEmpty() ? tr("not set")
                                         : tr("set - leave empty to keep the current secret"));

    addReadToolsetChecks();
    const QStringList toolsets = prefs.toolsets.isEmpty() ? settings.toolsets : prefs.toolsets;
    for (const QString &name : mcp::ToolRegistry::knownToolsets())
        if (QCheckBox *check = toolsetCheck(name))
            check->setChecked(toolsets.contains(name));

    ui->approvalCombo->addItem(tr("Automatic"), QStringLiteral("auto"));
    ui->approvalCombo->addItem(tr("The MCP client's prompt (elicitation)"),
                               QStringLiteral("client"));
    ui->approvalCombo->addItem(tr("This app's approval dialog"), QStringLiteral("desktop"));
    const QString mode =
        BrokerSettings::approvalModeName(prefs.approvalMode.value_or(settings.approvalMode));
    ui->approvalCombo->setCurrentIndex(std::max(0, ui->approvalCombo->findData(mode)));

    // The loopback HTTP endpoint: takes effect at the next start (--http overrides it).
    m_httpCheck = new QCheckBox(
        tr("Also serve MCP over HTTP on %1 (loopback; clients need the bearer token shown in "
           "Connect a client; takes effect at the next start)")
            .arg(prefs.httpAddress.isEmpty() ? transport::HttpAddress::defaultAddress()
                                             : prefs.httpAddress),
        this);
    m_httpCheck->setObjectName(QStringLiteral("httpCheck"));
    m_httpCheck->setAccessibleDescription(
        tr("Serves MCP over HTTP on the loopback address too, from the next start."));
    m_httpCheck->setChecked(!prefs.httpAddress.isEmpty());
    m_savedHttpAddress = prefs.httpAddress;
    ui->desktopLayout->addWidget(m_httpCheck);
    // Desktop notifications (DesktopNotifier): they open the dialog, never decide.
    m_notifyCheck =
        new QCheckBox(tr("Notify me when a proposal needs me or a decision arrives"), this);
    m_notifyCheck->setObjectName(QStringLiteral("notificationsCheck"));
    m_notifyCheck->setAccessibleDescription(
        tr("Shows a desktop notification when an approval waits for you and, in team mode, when "
           "the team decided on your proposal; it opens the dialog and never approves."));
    m_notifyCheck->setChecked(prefs.notifications);
    ui->desktopLayout->addWidget(m_notifyCheck);
    addTeamGroup(settings);
    m_savedPrefs = prefs;
    addObservabilityGroup(prefs);
    showPolicyLocks(settings.policy, this); // locked settings: disabled, and who set them

    ui->startAtLoginCheck->setChecked(LoginAutostart::forCurrentUser(launcherPath()).isEnabled());

    ui->ttlValue->setText(ProposalView::formatDuration(settings.proposalTtlMs));
    ui->elicitValue->setText(ProposalView::formatDuration(settings.elicitTimeoutMs));
    ui->maxPendingValue->setText(QString::number(settings.maxPending));

    if (!m_store) {
        ui->credentialsNote->setText(
            tr("No keychain is available: credentials can only come from the environment."));
    } else {
        // Prefill from the keychain, asynchronously.
        QPointer<SettingsDialog> self(this);
        m_store->read(
            [self](bool ok, const keychain::FabricCredentials &creds, const QString &error) {
                if (!self)
                    return;
                if (!ok) {
                    self->ui->credentialsNote->setText(tr("Keychain unavailable: %1").arg(error));
                    return;
                }
                if (self->ui->clientIdEdit->text().isEmpty())
                    self->ui->clientIdEdit->setText(creds.clientId);
                if (self->m_current.clientSecret.isEmpty() && !creds.clientSecret.isEmpty()) {
                    self->m_current.clientSecret = creds.clientSecret;
                    self->ui->clientSecretEdit->setPlaceholderText(
                        tr("stored in the keychain - leave empty to keep it"));
                }
            });
    }

    // Shown when saving would change where creates go or as whom (see setProposalStore).
    m_voidWarning = new QLabel(this);
    m_voidWarning->setObjectName(QStringLiteral("voidWarningLabel"));
    m_voidWarning->setTextFormat(Qt::PlainText);
    m_voidWarning->setWordWrap(true);
    m_voidWarning->setStyleSheet(QStringLiteral("QLabel { color: #b00020; font-weight: bold; }"));
    m_voidWarning->setVisible(false);
    ui->fabricLayout->addRow(m_voidWarning);
    for (QLineEdit *edit : {ui->endpointEdit, ui->clientIdEdit, ui->clientSecretEdit})
        connect(edit, &QLineEdit::textChanged, this, &SettingsDialog::updateVoidWarning);
    // Test results and keychain errors carry remote text: no label guesses rich text.
    for (QLabel *label : findChildren<QLabel *>())
        label->setTextFormat(Qt::PlainText);

    connect(ui->testButton, &QPushButton::clicked, this, &SettingsDialog::testConnection);
    // Return saves (from any field), as in most settings dialogs; Escape cancels.
    ui->buttonBox->button(QDialogButtonBox::Save)->setDefault(true);
    Accessibility::describeButtons(ui->buttonBox);
    Accessibility::nameChoices(ui->approvalCombo);
    keepTallEnoughForText(this); // no help text clipped at the default size, nor later
    connect(ui->buttonBox, &QDialogButtonBox::accepted, this, &SettingsDialog::save);
    connect(ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

SettingsDialog::~SettingsDialog()
{
    if (m_testCall)
        m_testCall->abort();
}

FabricConfig SettingsDialog::fabricConfig() const
{
    FabricConfig c = m_current;
    c.endpoint = QUrl(ui->endpointEdit->text().trimmed());
    c.clientId = ui->clientIdEdit->text().trimmed();
    if (!ui->clientSecretEdit->text().isEmpty())
        c.clientSecret = ui->clientSecretEdit->text();
    return c;
}

void SettingsDialog::addReadToolsetChecks()
{
    ui->readToolsetCheck->setText(tr("read (%1 tools): the core catalog and searches")
                                      .arg(readToolCount(QStringLiteral("read"))));
    int at = 1; // after read, before mutate
    for (const readops::Toolset &set : readops::table().toolsets) {
        auto *check = new QCheckBox(
            tr("%1 (%2 tools): %3").arg(set.name).arg(readToolCount(set.name)).arg(set.summary),
            ui->brokerGroup);
        check->setObjectName(set.name + QStringLiteral("ToolsetCheck"));
        check->setToolTip(set.description);
        check->setAccessibleDescription(set.description);
        ui->toolsetsLayout->insertWidget(at++, check);
    }
}

QCheckBox *SettingsDialog::toolsetCheck(const QString &name) const
{
    return findChild<QCheckBox *>(name + QStringLiteral("ToolsetCheck"));
}

DesktopPreferences SettingsDialog::preferences() const
{
    DesktopPreferences p;
    p.endpoint = QUrl(ui->endpointEdit->text().trimmed());
    for (const QString &name : mcp::ToolRegistry::knownToolsets())
        if (QCheckBox *check = toolsetCheck(name); check && check->isChecked())
            p.toolsets << name;
    p.approvalMode =
        BrokerSettings::approvalModeFromName(ui->approvalCombo->currentData().toString());
    if (m_httpCheck->isChecked())
        p.httpAddress = m_savedHttpAddress.isEmpty() ? transport::HttpAddress::defaultAddress()
                                                     : m_savedHttpAddress;
    p.notifications = m_notifyCheck->isChecked();
    // A field the policy locks shows the policy's value; the saved one is kept as it was.
    p.otlpEndpoint =
        m_otlpEndpoint->isEnabled() ? m_otlpEndpoint->text().trimmed() : m_savedPrefs.otlpEndpoint;
    p.auditSyslog =
        m_auditSyslog->isEnabled() ? m_auditSyslog->text().trimmed() : m_savedPrefs.auditSyslog;
    return p;
}

void SettingsDialog::showMutateLock(const QString &lock, const QStringList &overridden)
{
    fb::showMutateLock(lock, overridden, this);
}

void SettingsDialog::setStatus(const QString &text, bool error)
{
    ui->statusLabel->setText(text);
    ui->statusLabel->setStyleSheet(error ? QStringLiteral("QLabel { color: #b00020; }")
                                         : QString());
}

void SettingsDialog::testConnection()
{
    const FabricConfig config = fabricConfig();
    if (const QString problem = config.endpointProblem(); !problem.isEmpty()) {
        ui->testResultLabel->setText(problem);
        return;
    }
    if (!config.hasCredentials()) {
        ui->testResultLabel->setText(tr("Enter a client ID and secret first."));
        return;
    }
    if (m_testCall)
        m_testCall->abort();
    delete m_testClient;
    m_testClient = new FabricClient(config, this);
    ui->testButton->setEnabled(false);
    ui->testResultLabel->setText(tr("Testing..."));
    m_testCall = m_testClient->testConnection();
    connect(m_testCall, &FabricCall::finished, this, [this](const FabricResult &r) {
        ui->testButton->setEnabled(true);
        if (r.ok())
            ui->testResultLabel->setText(tr("Connected: Fabric issued an access token."));
        else
            ui->testResultLabel->setText(
                tr("Failed (%1): %2").arg(FabricResult::kindName(r.kind), r.message));
        if (m_testClient)
            m_testClient->deleteLater();
    });
}

bool SettingsDialog::isSandboxEndpoint(const QUrl &endpoint) const
{
    // Same scheme, host and port: any path on the sandbox's own address is the sandbox.
    const auto origin = [](const QUrl &u) -> QString {
        return u.scheme().toLower() + QLatin1String("://") + u.host().toLower() + u':' +
               QString::number(u.port(u.scheme().toLower() == QLatin1String("https") ? 443 : 80));
    };
    return m_sandbox && !m_sandboxEndpoint.isEmpty() &&
           origin(endpoint) == origin(m_sandboxEndpoint);
}

void SettingsDialog::save()
{
    const FabricConfig config = fabricConfig();
    if (const QString problem = config.endpointProblem(); !problem.isEmpty()) {
        setStatus(problem, true);
        return;
    }
    if (isSandboxEndpoint(config.endpoint)) {
        setStatus(tr("That is the embedded sandbox's own address, which changes at every start. "
                     "Enter your Equinix Fabric endpoint (%1).")
                      .arg(FabricConfig{}.endpoint.toString()),
                  true);
        return;
    }
    const DesktopPreferences prefs = preferences();
    if (prefs.toolsets.isEmpty()) {
        setStatus(tr("Choose at least one toolset."), true);
        return;
    }
    if (m_otlpEndpoint->isEnabled() && !prefs.otlpEndpoint.isEmpty()) {
        if (const QString why = otlpEndpointError(prefs.otlpEndpoint); !why.isEmpty()) {
            setStatus(tr("OpenTelemetry collector: %1").arg(why), true);
            return;
        }
    }
    if (QString why; m_auditSyslog->isEnabled() && !prefs.auditSyslog.isEmpty() &&
                     !telemetry::SyslogConfig::parse(prefs.auditSyslog, &why)) {
        setStatus(tr("Audit records to syslog: %1").arg(why), true);
        return;
    }
    // The team role's password goes to the keychain first; then the rest is saved.
    if (!m_teamPassword->text().isEmpty()) {
        if (!m_store) {
            setStatus(tr("No keychain: the team database password was not saved."), true);
            return;
        }
        ui->buttonBox->setEnabled(false);
        setStatus(tr("Saving to the keychain..."), false);
        QPointer<SettingsDialog> self(this);
        m_store->writeTeamPassword(m_teamPassword->text(), [self](bool ok, const QString &error) {
            if (!self || !self->keychainWrote(ok, error, tr("the team database password")))
                return;
            self->m_teamPassword->clear();
            self->m_teamPassword->setPlaceholderText(tr("saved in the OS keychain"));
            self->save();
        });
        return;
    }
    LoginAutostart autostart = LoginAutostart::forCurrentUser(launcherPath());
    if (QString error; ui->startAtLoginCheck->isChecked() != autostart.isEnabled() &&
                       !autostart.setEnabled(ui->startAtLoginCheck->isChecked(), &error)) {
        setStatus(tr("Start at login could not be changed: %1").arg(error), true);
        return;
    }
    QSettings settings;
    prefs.save(settings);

    const bool credentialsChanged =
        config.clientId != m_current.clientId || config.clientSecret != m_current.clientSecret;
    if (!credentialsChanged || !m_store) {
        if (credentialsChanged)
            setStatus(tr("No keychain: the credentials were not saved."), true);
        voidPendingProposals(config);
        emit saved(config, prefs);
        if (!credentialsChanged)
            accept();
        return;
    }
    ui->buttonBox->setEnabled(false);
    setStatus(tr("Saving to the keychain..."), false);
    QPointer<SettingsDialog> self(this);
    m_store->write(keychain::FabricCredentials{config.clientId, config.clientSecret},
                   [self, config, prefs](bool ok, const QString &error) {
                       if (!self || !self->keychainWrote(ok, error, tr("the credentials")))
                           return;
                       QSettings stored;
                       DesktopPreferences::setCredentialsInKeychain(
                           stored, !config.clientId.isEmpty() || !config.clientSecret.isEmpty());
                       self->voidPendingProposals(config);
                       emit self->saved(config, prefs);
                       self->accept();
                   });
}

bool SettingsDialog::keychainWrote(bool ok, const QString &error, const QString &what)
{
    ui->buttonBox->setEnabled(true);
    if (!ok)
        setStatus(tr("The keychain refused %1: %2. Nothing was stored in a file.").arg(what, error),
                  true);
    return ok;
}

void SettingsDialog::setProposalStore(ProposalStore *store)
{
    m_proposals = store;
    updateVoidWarning();
}

QLabel *SettingsDialog::voidWarningLabel() const
{
    return m_voidWarning;
}

bool SettingsDialog::bindingChanged(const FabricConfig &config) const
{
    // Stricter than the confirm-time check (which compares endpoint and client id): a new
    // secret or token for the same id also voids, as the person was told.
    return MutationBroker::fabricBinding(config).endpoint !=
               MutationBroker::fabricBinding(m_current).endpoint ||
           config.clientId != m_current.clientId || config.clientSecret != m_current.clientSecret ||
           config.staticToken != m_current.staticToken;
}

void SettingsDialog::updateVoidWarning()
{
    // In the sandbox saved values do not apply to this session, so nothing is voided.
    const int pending = m_proposals && !m_sandbox ? m_proposals->pendingCount() : 0;
    const bool show = pending > 0 && bindingChanged(fabricConfig());
    if (show)
        m_voidWarning->setText(
            tr("Saving another endpoint or new credentials voids the %n pending proposal(s): "
               "they were dry-run under the current account. Agents must propose them again.",
               nullptr, pending));
    m_voidWarning->setVisible(show);
}

void SettingsDialog::voidPendingProposals(const FabricConfig &config)
{
    if (!m_proposals || m_sandbox || !bindingChanged(config))
        return;
    const QList<Proposal> voided = m_proposals->evictAll(
        QStringLiteral("the Fabric endpoint or credentials were changed in the settings after "
                       "it was proposed"));
    if (!voided.isEmpty())
        qCInfo(lcSettingsDialog) << "voided" << voided.size()
                                 << "pending proposal(s): endpoint or credentials changed";
}

QLineEdit *SettingsDialog::endpointEdit() const
{
    return ui->endpointEdit;
}
QLineEdit *SettingsDialog::clientIdEdit() const
{
    return ui->clientIdEdit;
}
QLineEdit *SettingsDialog::clientSecretEdit() const
{
    return ui->clientSecretEdit;
}
QPushButton *SettingsDialog::testButton() const
{
    return ui->testButton;
}
QLabel *SettingsDialog::testResultLabel() const
{
    return ui->testResultLabel;
}

void SettingsDialog::addObservabilityGroup(const DesktopPreferences &prefs)
{
    auto *group = new QGroupBox(tr("Observability"), this);
    group->setObjectName(QStringLiteral("observabilityGroup"));
    auto *form = new QFormLayout(group);
    const auto field = [&](const QString &name, const QString &saved, const QString &placeholder,
                           const QString &accessibleName, SettingId id) {
        auto *edit = new QLineEdit(saved, group);
        edit->setObjectName(name);
        edit->setPlaceholderText(placeholder);
        edit->setAccessibleName(accessibleName);
        // The environment the app runs with wins over the saved value; say so where it is typed.
        const QString env = Settings::envName(id);
        const QString envValue = qEnvironmentVariable(env.toLatin1().constData()).trimmed();
        edit->setAccessibleDescription(
            envValue.isEmpty()
                ? tr("Used from the next start; the policy's %1 and %2 win over it.")
                      .arg(QString(Settings::spec(id).policyKey), env)
                : tr("%1 is set in this app's environment and wins over the saved value.")
                      .arg(env));
        edit->setToolTip(edit->accessibleDescription());
        return edit;
    };
    m_otlpEndpoint = field(QStringLiteral("otlpEndpointEdit"), prefs.otlpEndpoint,
                           QStringLiteral("http://127.0.0.1:4318"), tr("OpenTelemetry collector"),
                           SettingId::OtlpEndpoint);
    m_auditSyslog = field(QStringLiteral("auditSyslogEdit"), prefs.auditSyslog,
                          QStringLiteral("tls://siem.example.com:6514"),
                          tr("Audit records to syslog"), SettingId::AuditSyslog);
    form->addRow(tr("OpenTelemetry collector:"), m_otlpEndpoint);
    form->addRow(tr("Audit records to syslog:"), m_auditSyslog);
    auto *note = new QLabel(
        tr("Traces and metrics over OTLP/HTTP, and every audit record as syslog (tcp:// or "
           "tls://). Used from the next start; the policy and the environment "
           "(OTEL_EXPORTER_OTLP_ENDPOINT, FABRIC_BROKER_AUDIT_SYSLOG) win. Never an argument "
           "value, a result or a secret (docs/observability.md)."),
        group);
    note->setObjectName(QStringLiteral("observabilityNote"));
    note->setTextFormat(Qt::PlainText);
    note->setWordWrap(true);
    form->addRow(note);
    // After the team group (which follows the desktop group).
    auto *team = findChild<QGroupBox *>(QStringLiteral("teamGroup"));
    ui->mainLayout->insertWidget(
        ui->mainLayout->indexOf(team ? static_cast<QWidget *>(team) : ui->desktopGroup) + 1, group);
}

void SettingsDialog::showObservability(const QList<QPair<QString, QString>> &rows)
{
    auto *group = findChild<QGroupBox *>(QStringLiteral("observabilityGroup"));
    if (!group)
        return;
    // The rows live in one widget, replaced as a whole (deleted now: nothing of it is on the
    // stack, and a second call must not find the first call's labels).
    delete group->findChild<QWidget *>(QStringLiteral("observabilityStatus"));
    auto *status = new QWidget(group);
    status->setObjectName(QStringLiteral("observabilityStatus"));
    auto *form = new QFormLayout(status);
    form->setContentsMargins(0, 0, 0, 0);
    int i = 0;
    for (const auto &[label, text] : rows) {
        auto *value = new QLabel(text, status);
        value->setObjectName(QStringLiteral("observabilityValue%1").arg(i++));
        value->setTextFormat(Qt::PlainText);
        value->setWordWrap(true);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setAccessibleName(label);
        form->addRow(label + QStringLiteral(":"), value);
    }
    static_cast<QFormLayout *>(group->layout())->addRow(status);
}

void SettingsDialog::addTeamGroup(const BrokerSettings &settings)
{
    auto *group = new QGroupBox(tr("Team mode"), this);
    group->setObjectName(QStringLiteral("teamGroup"));
    auto *form = new QFormLayout(group);
    m_teamDatabase = new QLineEdit(group);
    m_teamDatabase->setObjectName(QStringLiteral("teamDatabaseEdit"));
    m_teamDatabase->setPlaceholderText(
        QStringLiteral("postgresql://you@db.example.com/fabric_team?sslmode=verify-full"));
    m_teamDatabase->setAccessibleName(tr("Team database"));
    m_teamDatabase->setAccessibleDescription(
        tr("The team's PostgreSQL database as a libpq URI, without a password. Empty: no team "
           "mode."));
    m_teamPassword = new QLineEdit(group);
    m_teamPassword->setObjectName(QStringLiteral("teamPasswordEdit"));
    m_teamPassword->setEchoMode(QLineEdit::Password);
    m_teamPassword->setPlaceholderText(
        tr("kept in the OS keychain; empty: ~/.pgpass, peer or a certificate"));
    m_teamPassword->setAccessibleName(tr("Team database password"));
    auto *note = new QLabel(group);
    note->setObjectName(QStringLiteral("teamNote"));
    note->setTextFormat(Qt::PlainText);
    note->setWordWrap(true);
    // Only the administrator's policy turns team mode on (docs/team.md, "Who turns team mode
    // on"): the field shows who set it and where it points, and is never editable here.
    QString who;
    if (settings.policy.teamDatabase) {
        m_teamDatabase->setText(*settings.policy.teamDatabase);
        who = tr("Set by your administrator: team.database in %1.")
                  .arg(settings.policy.sources.value(QStringLiteral("team.database")));
    } else {
        who = tr("Off. Only your administrator's policy (team.database in "
                 "/etc/fabric-broker/policy.json) turns team mode on.");
    }
    m_teamDatabase->setReadOnly(true);
    note->setText(who + QLatin1Char(' ') +
                  tr("Team mode changes apply when Fabric Broker starts again (docs/team.md)."));
    form->addRow(tr("Team database:"), m_teamDatabase);
    form->addRow(tr("Password:"), m_teamPassword);
    form->addRow(note);
    ui->mainLayout->insertWidget(ui->mainLayout->indexOf(ui->desktopGroup) + 1, group);
}

} // namespace fb
