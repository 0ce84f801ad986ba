#include "gui/ConnectClientDialog.h"

#include "ui_ConnectClientDialog.h"

#include <QClipboard>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimer>

namespace fb {

namespace {

QString shellQuote(const QString &arg)
{
    static const QRegularExpression safe(QStringLiteral("^[A-Za-z0-9_./:@%+=,-]+$"));
    if (!arg.isEmpty() && safe.match(arg).hasMatch())
        return arg;
    QString quoted = arg;
    quoted.replace(u'\'', QStringLiteral("'\\''"));
    return u'\'' + quoted + u'\'';
}

QString indented(const QJsonObject &obj)
{
    return QString::fromUtf8(QJsonDocument(obj).toJson(QJsonDocument::Indented)).trimmed();
}

} // namespace

QString ConnectClientDialog::claudeCodeCommand(const QString &executablePath)
{
    return QStringLiteral("claude mcp add fabric-broker -- %1 --stdio")
        .arg(shellQuote(executablePath));
}

QString ConnectClientDialog::mcpServersJson(const QString &executablePath)
{
    const QJsonObject server{{QStringLiteral("command"), executablePath},
                             {QStringLiteral("args"), QJsonArray{QStringLiteral("--stdio")}}};
    return indented(QJsonObject{
        {QStringLiteral("mcpServers"), QJsonObject{{QStringLiteral("fabric-broker"), server}}}});
}

QString ConnectClientDialog::vsCodeJson(const QString &executablePath)
{
    const QJsonObject server{{QStringLiteral("type"), QStringLiteral("stdio")},
                             {QStringLiteral("command"), executablePath},
                             {QStringLiteral("args"), QJsonArray{QStringLiteral("--stdio")}}};
    return indented(QJsonObject{
        {QStringLiteral("servers"), QJsonObject{{QStringLiteral("fabric-broker"), server}}}});
}

ConnectClientDialog::ConnectClientDialog(const QString &executablePath, QWidget *parent)
    : QDialog(parent)
    , ui(std::make_unique<Ui::ConnectClientDialog>())
{
    ui->setupUi(this);
    setAttribute(Qt::WA_DeleteOnClose);
    ui->executableLabel->setText(tr("Executable: %1").arg(executablePath));
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    const struct {
        QPlainTextEdit *edit;
        QPushButton *copy;
        QString text;
    } rows[] = {
        {ui->claudeCodeEdit, ui->claudeCodeCopy, claudeCodeCommand(executablePath)},
        {ui->claudeDesktopEdit, ui->claudeDesktopCopy, mcpServersJson(executablePath)},
        {ui->cursorEdit, ui->cursorCopy, mcpServersJson(executablePath)},
        {ui->vsCodeEdit, ui->vsCodeCopy, vsCodeJson(executablePath)},
    };
    for (const auto &row : rows) {
        row.edit->setFont(mono);
        row.edit->setPlainText(row.text);
        const int lines = static_cast<int>(row.text.count(u'\n')) + 1;
        const int height =
            QFontMetrics(mono).lineSpacing() * lines + 2 * row.edit->frameWidth() + 12;
        row.edit->setMinimumHeight(height);
        row.edit->setMaximumHeight(height);
        QPushButton *copy = row.copy;
        const QString text = row.text;
        connect(copy, &QPushButton::clicked, this, [copy, text] {
            if (QClipboard *clipboard = QGuiApplication::clipboard())
                clipboard->setText(text);
            copy->setText(tr("Copied"));
            QTimer::singleShot(1500, copy, [copy] { copy->setText(tr("Copy")); });
        });
    }
    connect(ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

ConnectClientDialog::~ConnectClientDialog() = default;

QPlainTextEdit *ConnectClientDialog::snippet(Client client) const
{
    switch (client) {
    case Client::ClaudeCode:
        return ui->claudeCodeEdit;
    case Client::ClaudeDesktop:
        return ui->claudeDesktopEdit;
    case Client::Cursor:
        return ui->cursorEdit;
    case Client::VsCode:
        return ui->vsCodeEdit;
    }
    return nullptr;
}

QPushButton *ConnectClientDialog::copyButton(Client client) const
{
    switch (client) {
    case Client::ClaudeCode:
        return ui->claudeCodeCopy;
    case Client::ClaudeDesktop:
        return ui->claudeDesktopCopy;
    case Client::Cursor:
        return ui->cursorCopy;
    case Client::VsCode:
        return ui->vsCodeCopy;
    }
    return nullptr;
}

} // namespace fb
