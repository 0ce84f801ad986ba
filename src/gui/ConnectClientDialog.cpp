#include "gui/ConnectClientDialog.h"

#include "gui/Accessibility.h"
#include "mcp/ClientSnippets.h"
#include "ui_ConnectClientDialog.h"

#include <QClipboard>
#include <QDesktopServices>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGroupBox>
#include <QGuiApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTimer>
#include <QUrl>

namespace fb {

namespace {

QLabel *plainLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setText(text);
    return label;
}

} // namespace

ConnectClientDialog::ConnectClientDialog(const QString &executablePath, QWidget *parent,
                                         const QString &httpUrl)
    : QDialog(parent)
    , ui(std::make_unique<Ui::ConnectClientDialog>())
{
    ui->setupUi(this);
    setAttribute(Qt::WA_DeleteOnClose);
    ui->executableLabel->setText(tr("Executable: %1").arg(executablePath));
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);

    // Without the app, what the snippets start is read-only: say how to turn proposals on.
    QLabel *note =
        plainLabel(tr("With no Fabric Broker app running, a spawned fabric-broker --stdio serves "
                      "only the read tools: proposals are off. To let agents propose creates, "
                      "start the Fabric Broker app and turn on proposals there (Turn on proposals, "
                      "or Settings), or add --toolsets read,mutate after --stdio (used while no "
                      "app runs; a running app refuses it unless proposals are on there)."),
                   ui->clientsWidget);
    note->setObjectName(QStringLiteral("proposalsNote"));
    ui->clientsLayout->addWidget(note);
    QLabel *toolsets = plainLabel(
        tr("The agent reads through the core read tools by default. For the whole estate add "
           "--toolsets all-read after --stdio, or name the read toolsets it needs: read, estate, "
           "routing, observability, precision-time, marketplace, account (README, Toolsets); "
           "with the app running, turn them on in its Settings."),
        ui->clientsWidget);
    toolsets->setObjectName(QStringLiteral("toolsetsNote"));
    ui->clientsLayout->addWidget(toolsets);

    QGroupBox *group = nullptr;
    QGridLayout *grid = nullptr;
    // Over HTTP no snippet holds the token (it rotates at every start): each client gets it
    // from `fabric-broker http-headers` or an environment variable that command fills.
    QList<mcp::ClientSnippet> snippets = mcp::ClientSnippets::all(executablePath);
    QLabel *httpNote = nullptr; // placed before the first HTTP snippet
    if (!httpUrl.isEmpty()) {
        httpNote = plainLabel(
            tr("MCP over HTTP at %1. Every request needs the bearer token, which is new at every "
               "start of Fabric Broker; none of these snippets holds it. VS Code and Claude "
               "Desktop can only be given the token as a literal (VS Code's inputs keep a pasted "
               "one, which goes stale at the next start; Claude Desktop's config file takes no "
               "headers): connect them with the stdio snippets above.")
                .arg(httpUrl),
            ui->clientsWidget);
        httpNote->setObjectName(QStringLiteral("httpNote"));
        snippets += mcp::ClientSnippets::http(httpUrl, executablePath);
    }
    for (const mcp::ClientSnippet &s : std::as_const(snippets)) {
        if (httpNote && s.id == QStringLiteral("claude-code-http")) {
            ui->clientsLayout->addWidget(httpNote);
            httpNote = nullptr;
            group = nullptr;
        }
        if (!group || group->title() != s.client) {
            group = new QGroupBox(s.client, ui->clientsWidget);
            grid = new QGridLayout(group);
            ui->clientsLayout->addWidget(group);
        }
        const int row = grid->rowCount();
        m_ids << s.id;
        const bool link = s.kind == mcp::ClientSnippet::Kind::Link;
        const QString copyLabel = link ? tr("Copy link") : tr("Copy");
        auto *copy = new QPushButton(copyLabel, group);
        copy->setAutoDefault(false);
        copy->setObjectName(s.id + QStringLiteral("Copy"));
        copy->setAccessibleName(tr("%1 for %2").arg(copyLabel, s.client));
        copy->setAccessibleDescription(tr("Copies this text to the clipboard."));
        m_copy.insert(s.id, copy);
        const QString text = s.text;
        connect(copy, &QPushButton::clicked, this, [copy, text, copyLabel] {
            if (QClipboard *clipboard = QGuiApplication::clipboard())
                clipboard->setText(text);
            copy->setText(tr("Copied"));
            QTimer::singleShot(1500, copy, [copy, copyLabel] { copy->setText(copyLabel); });
        });
        if (link) {
            auto *install = new QPushButton(tr("Install in %1").arg(s.client), group);
            install->setAutoDefault(false);
            install->setObjectName(s.id + QStringLiteral("Install"));
            install->setAccessibleDescription(
                tr("Opens %1, which asks you to add this broker as an MCP server.").arg(s.client));
            m_install.insert(s.id, install);
            connect(install, &QPushButton::clicked, this, [this, text] {
                if (m_openLinks)
                    QDesktopServices::openUrl(QUrl(text));
                else
                    emit linkRequested(text);
            });
            grid->addWidget(plainLabel(tr("One click (opens %1):").arg(s.client), group), row, 0);
            grid->addWidget(install, row, 1, Qt::AlignLeft);
            grid->addWidget(copy, row, 2, Qt::AlignTop);
            continue;
        }
        const QString hint = s.kind == mcp::ClientSnippet::Kind::File
                                 ? tr("Add to %1:").arg(s.where)
                                 : tr("Run in a terminal:");
        grid->addWidget(plainLabel(hint, group), row, 0, 1, 3);
        auto *edit = new QPlainTextEdit(group);
        edit->setObjectName(s.id + QStringLiteral("Edit"));
        edit->setReadOnly(true);
        edit->setAccessibleName(s.kind == mcp::ClientSnippet::Kind::File
                                    ? tr("Configuration for %1").arg(s.client)
                                    : tr("Command for %1").arg(s.client));
        edit->setAccessibleDescription(hint + u' ' +
                                       tr("Read-only; Copy puts it on the clipboard."));
        edit->setTabChangesFocus(true);
        edit->setLineWrapMode(QPlainTextEdit::WidgetWidth);
        edit->setFont(mono);
        edit->setPlainText(text);
        const int lines = static_cast<int>(text.count(u'\n')) + 1;
        const int height = QFontMetrics(mono).lineSpacing() * lines + 2 * edit->frameWidth() + 12;
        edit->setMinimumHeight(height);
        edit->setMaximumHeight(height + QFontMetrics(mono).lineSpacing() * 2);
        m_edits.insert(s.id, edit);
        grid->addWidget(edit, row + 1, 0, 1, 2);
        grid->addWidget(copy, row + 1, 2, Qt::AlignTop);
        if (!s.note.isEmpty()) {
            QLabel *snippetNote = plainLabel(s.note, group);
            snippetNote->setObjectName(s.id + QStringLiteral("Note"));
            snippetNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
            grid->addWidget(snippetNote, row + 2, 0, 1, 3);
        }
    }
    ui->clientsLayout->addStretch();
    connect(ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    Accessibility::describeButtons(ui->buttonBox);
}

ConnectClientDialog::~ConnectClientDialog() = default;

QPlainTextEdit *ConnectClientDialog::snippet(const QString &id) const
{
    return m_edits.value(id);
}

QPushButton *ConnectClientDialog::copyButton(const QString &id) const
{
    return m_copy.value(id);
}

QPushButton *ConnectClientDialog::installButton(const QString &id) const
{
    return m_install.value(id);
}

QStringList ConnectClientDialog::snippetIds() const
{
    return m_ids;
}

} // namespace fb
