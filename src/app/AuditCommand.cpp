#include "app/AuditCommand.h"

#include "app/ConsoleOutput.h"
#include "app/TeamCommand.h"
#include "core/AuditLog.h"
#include "core/CanonicalJson.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QTimeZone>

#include <algorithm>
#include <cstdio>
#include <optional>

using namespace Qt::StringLiterals;

namespace fb {

namespace {

using console::err;
using console::out;
using console::writeOut;

constexpr int ExitIntact = 0;
constexpr int ExitBroken = 1;
constexpr int ExitUsage = 2;

// One subcommand: its help, its options (besides --help and FILE), and what it does once the
// command line parsed.
struct Subcommand {
    QString name;
    QString synopsis;
    QString description;
    QList<QCommandLineOption> options;
    int (*run)(const QCommandLineParser &parser, const QString &file);
};

QString generalHelp()
{
    return QStringLiteral(
               "Usage: fabric-broker audit <command> [options] [FILE]\n"
               "Check and export the tamper-evident audit trail of the Safe Mutation Broker.\n"
               "\n"
               "Commands:\n"
               "  verify [--strict] [--head SEQ:SHA256] [FILE]      check the hash chain\n"
               "  verify --team URI                                 check the team database's "
               "chain\n"
               "                                                    (docs/team.md)\n"
               "  head [FILE]                                       print the current head\n"
               "  export --format csv|json [--since DATE] [FILE]    print the records\n"
               "\n"
               "FILE defaults to $EQUINIX_MCP_AUDIT_LOG, else "
               "$XDG_DATA_HOME/fabric-broker/audit.jsonl\n"
               "(currently %1).\n"
               "Exit codes: 0 = chain intact, 1 = chain broken or truncated, 2 = usage or I/O "
               "error.\n"
               "Run 'fabric-broker audit <command> --help' for the options of a command.\n")
        .arg(AuditLog::defaultPath());
}

// Parses the options of one subcommand. Returns an exit code when the command should stop
// here (help printed, or a usage error), otherwise nullopt and the log file to use.
std::optional<int> parseCommand(QCommandLineParser &parser, const Subcommand &command,
                                const QStringList &args, QString *file)
{
    for (const QCommandLineOption &option : command.options)
        parser.addOption(option);
    parser.setApplicationDescription(command.description);
    parser.addPositionalArgument(
        QStringLiteral("FILE"),
        QStringLiteral("The audit log (default: %1).").arg(AuditLog::defaultPath()),
        QStringLiteral("[FILE]"));
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help."));
    parser.addOption(help);
    if (!parser.parse(QStringList{QStringLiteral("fabric-broker")} + args)) {
        err(QStringLiteral("fabric-broker audit %1: %2\nTry 'fabric-broker audit %1 --help'.\n")
                .arg(command.name, parser.errorText()));
        return ExitUsage;
    }
    if (parser.isSet(help)) {
        QString text = parser.helpText();
        const qsizetype firstNewline = text.indexOf(u'\n');
        text = QStringLiteral("Usage: fabric-broker audit %1\n").arg(command.synopsis) +
               (firstNewline >= 0 ? text.mid(firstNewline + 1) : QString());
        out(text);
        return ExitIntact;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        err(QStringLiteral("fabric-broker audit %1: expected at most one FILE, got %2\n")
                .arg(command.name, positional.join(QStringLiteral(" "))));
        return ExitUsage;
    }
    *file = positional.isEmpty() ? AuditLog::defaultPath() : positional.first();
    return std::nullopt;
}

int runVerify(const QCommandLineParser &parser, const QString &file)
{
    AuditVerifyOptions options;
    if (parser.isSet(u"head"_s)) {
        options.keptHead = AuditHead::parse(parser.value(u"head"_s));
        if (!options.keptHead) {
            err(QStringLiteral("fabric-broker audit verify: --head \"%1\" is not SEQ:SHA256 or "
                               "SHA256 (64 lowercase hex digits)\n")
                    .arg(parser.value(u"head"_s).left(200)));
            return ExitUsage;
        }
    }

    const AuditLog::VerifyResult r = AuditLog::verify(file, options);
    if (r.ioError) {
        err(QStringLiteral("fabric-broker audit verify: %1\n").arg(r.problem));
        return ExitUsage;
    }
    if (!r.ok) {
        if (r.truncated)
            out(QStringLiteral("TRUNCATED: %1: %2\n").arg(file, r.problem));
        else if (r.firstBadLine > 0)
            out(QStringLiteral("BROKEN: %1: line %2: %3\n")
                    .arg(file)
                    .arg(r.firstBadLine)
                    .arg(r.problem));
        else
            out(QStringLiteral("BROKEN: %1: %2\n").arg(file, r.problem));
        out(QStringLiteral("%1 record(s) verified (last good seq %2, sha256 %3).\n")
                .arg(r.records)
                .arg(r.lastSeq)
                .arg(r.headSha256));
        return ExitBroken;
    }
    const bool strictBroken =
        parser.isSet(u"strict"_s) && (!r.tornLines.isEmpty() || !r.continuations.isEmpty());
    out(QStringLiteral("%1: %2: %3 record(s) verified, chain intact.\n")
            .arg(strictBroken ? QStringLiteral("BROKEN (strict)") : QStringLiteral("OK"), file)
            .arg(r.records));
    out(QStringLiteral("head: seq %1 sha256 %2\n").arg(r.lastSeq).arg(r.headSha256));
    if (!r.headFileNote.isEmpty())
        out((r.headFileChecked ? QStringLiteral("tail: ") : QStringLiteral("warning: ")) +
            r.headFileNote + u'\n');
    if (options.keptHead)
        out(QStringLiteral("kept head: found: %1; %2 record(s) after it.\n")
                .arg(r.keptHeadNote)
                .arg(r.recordsAfterKeptHead));
    for (const AuditLog::VerifyResult::Continuation &c : r.continuations)
        out(QStringLiteral("warning: line %1 (seq %2): the log continues from a previous file "
                           "(reason: %3); previous head seq %4 sha256 %5\n")
                .arg(c.line)
                .arg(c.seq)
                .arg(c.reason.left(64))
                .arg(c.previous.seq)
                .arg(c.previous.sha256.left(64)));
    if (!r.tornLines.isEmpty()) {
        out(QStringLiteral("warning: %1\n").arg(r.problem));
        for (qsizetype i = 1; i < r.tornLines.size(); ++i)
            out(QStringLiteral("warning: truncated/torn record at line %1\n")
                    .arg(r.tornLines.at(i)));
    }
    return strictBroken ? ExitBroken : ExitIntact;
}

int runHead(const QCommandLineParser &, const QString &file)
{
    const AuditLog::VerifyResult r = AuditLog::verify(file);
    if (r.ioError) {
        err(QStringLiteral("fabric-broker audit head: %1\n").arg(r.problem));
        return ExitUsage;
    }
    if (!r.ok) {
        err(QStringLiteral("fabric-broker audit head: the chain of %1 is %2: %3\nRun "
                           "'fabric-broker audit verify' for details.\n")
                .arg(file, r.truncated ? QStringLiteral("truncated") : QStringLiteral("broken"),
                     r.problem));
        return ExitBroken;
    }
    out(AuditHead{r.lastSeq, r.headSha256}.toString() + u'\n');
    return ExitIntact;
}

// YYYY-MM-DD (midnight UTC) or a full ISO-8601 date-time (UTC when it has no offset).
std::optional<QDateTime> parseSince(const QString &text)
{
    if (text.size() == 10) {
        const QDate date = QDate::fromString(text, Qt::ISODate);
        if (date.isValid())
            return QDateTime(date, QTime(0, 0), QTimeZone::utc());
        return std::nullopt;
    }
    QDateTime dt = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!dt.isValid())
        return std::nullopt;
    if (dt.timeSpec() == Qt::LocalTime)
        dt.setTimeZone(QTimeZone::utc());
    return dt;
}

QString cellText(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::String:
        return v.toString();
    case QJsonValue::Double:
        return QString::fromLatin1(canonicalNumber(v.toDouble()));
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Object:
    case QJsonValue::Array:
        return QString::fromUtf8(canonicalJson(v));
    default:
        return {};
    }
}

// "name version (transport; session N)" from an MCP client identity.
QString clientText(const QJsonValue &v)
{
    if (!v.isObject())
        return cellText(v);
    const QJsonObject c = v.toObject();
    QString text = c.value(QStringLiteral("name")).toString();
    const QString version = c.value(QStringLiteral("version")).toString();
    if (!version.isEmpty())
        text += (text.isEmpty() ? QString() : QStringLiteral(" ")) + version;
    QStringList details;
    const QString transport = c.value(QStringLiteral("transport")).toString();
    if (!transport.isEmpty())
        details << transport;
    const QString session = cellText(c.value(QStringLiteral("sessionId")));
    if (!session.isEmpty())
        details << QStringLiteral("session ") + session;
    if (!details.isEmpty())
        text += (text.isEmpty() ? QString() : QStringLiteral(" ")) + QStringLiteral("(") +
                details.join(QStringLiteral("; ")) + QStringLiteral(")");
    return text;
}

// RFC 4180 quoting; cells a spreadsheet would run as a formula get a leading apostrophe.
QString csvCell(QString s)
{
    if (!s.isEmpty() && QStringLiteral("=+-@\t\r").contains(s.front()))
        s.prepend(u'\'');
    if (s.contains(u',') || s.contains(u'"') || s.contains(u'\n') || s.contains(u'\r')) {
        s.replace(QStringLiteral("\""), QStringLiteral("\"\""));
        s = QStringLiteral("\"") + s + QStringLiteral("\"");
    }
    return s;
}

int runExport(const QCommandLineParser &parser, const QString &file)
{
    const QString fmt = parser.value(u"format"_s);
    if (fmt != u"csv" && fmt != u"json") {
        err(fmt.isEmpty() ? QStringLiteral("fabric-broker audit export: --format csv|json is "
                                           "required\n")
                          : QStringLiteral("fabric-broker audit export: unknown format \"%1\" "
                                           "(expected csv or json)\n")
                                .arg(fmt));
        return ExitUsage;
    }
    std::optional<QDateTime> sinceTime;
    if (parser.isSet(u"since"_s)) {
        sinceTime = parseSince(parser.value(u"since"_s));
        if (!sinceTime) {
            err(QStringLiteral("fabric-broker audit export: --since \"%1\" is not YYYY-MM-DD or an "
                               "ISO-8601 date-time\n")
                    .arg(parser.value(u"since"_s)));
            return ExitUsage;
        }
    }

    const AuditLog::VerifyResult verified = AuditLog::verify(file);
    if (verified.ioError) {
        err(QStringLiteral("fabric-broker audit export: %1\n").arg(verified.problem));
        return ExitUsage;
    }
    QList<QJsonObject> records;
    QString readError;
    if (!AuditLog::readRecords(file, &records, &readError)) {
        err(QStringLiteral("fabric-broker audit export: %1\n").arg(readError));
        return ExitUsage;
    }
    if (sinceTime) {
        const qint64 cutoff = sinceTime->toMSecsSinceEpoch();
        QList<QJsonObject> kept;
        for (const QJsonObject &r : std::as_const(records)) {
            const QDateTime t = QDateTime::fromString(r.value(QStringLiteral("time")).toString(),
                                                      Qt::ISODateWithMs);
            if (t.isValid() && t.toMSecsSinceEpoch() >= cutoff)
                kept.append(r);
        }
        records = kept;
    }

    if (fmt == u"json") {
        // Each element is the record's canonical line, byte for byte: its SHA-256 is the next
        // record's prev.
        QByteArray body = "[";
        for (qsizetype i = 0; i < records.size(); ++i) {
            body += i ? ",\n" : "\n";
            body += canonicalJson(records.at(i));
        }
        body += records.isEmpty() ? "]\n" : "\n]\n";
        writeOut(body);
    } else {
        out(QStringLiteral("seq,time,type,change_type,target,request_sha256,status,channel,"
                           "outcome,uuid,client\n"));
        for (const QJsonObject &r : std::as_const(records)) {
            const QJsonObject d = r.value(QStringLiteral("data")).toObject();
            const QStringList cells{
                cellText(r.value(QStringLiteral("seq"))),
                cellText(r.value(QStringLiteral("time"))),
                cellText(r.value(QStringLiteral("type"))),
                cellText(d.value(QStringLiteral("change_type"))),
                cellText(d.value(QStringLiteral("target"))),
                cellText(d.value(QStringLiteral("request_sha256"))),
                cellText(d.value(QStringLiteral("status"))),
                cellText(d.value(QStringLiteral("channel"))),
                cellText(d.value(QStringLiteral("outcome"))),
                cellText(d.value(QStringLiteral("uuid"))),
                clientText(d.value(QStringLiteral("client"))),
            };
            QStringList quoted;
            for (const QString &c : cells)
                quoted << csvCell(c);
            out(quoted.join(u',') + u'\n');
        }
    }
    std::fflush(stdout);

    if (!verified.ok) {
        if (verified.truncated || verified.firstBadLine == 0)
            err(QStringLiteral("fabric-broker audit export: warning: the chain of %1 is %2: %3\n")
                    .arg(file,
                         verified.truncated ? QStringLiteral("truncated")
                                            : QStringLiteral("broken"),
                         verified.problem));
        else
            err(QStringLiteral("fabric-broker audit export: warning: the chain of %1 is broken at "
                               "line %2: %3\n")
                    .arg(file)
                    .arg(verified.firstBadLine)
                    .arg(verified.problem));
        return ExitBroken;
    }
    if (!verified.tornLines.isEmpty())
        err(QStringLiteral("fabric-broker audit export: warning: %1\n").arg(verified.problem));
    return ExitIntact;
}

const QList<Subcommand> &subcommands()
{
    static const QList<Subcommand> table{
        {u"verify"_s,
         u"verify [--strict] [--head SEQ:SHA256] [FILE]"_s,
         u"Checks every record of the audit log: canonical JSON, consecutive seq,\n"
         u"and prev = SHA-256 of the previous record's line. Reports the first\n"
         u"broken record, and a truncated tail when the log ends before the head\n"
         u"recorded in FILE.head (or before the --head given). Exit codes:\n"
         u"0 = intact, 1 = broken or truncated, 2 = usage or I/O error."_s,
         {QCommandLineOption(u"strict"_s,
                             u"Treat torn records (interrupted writes) and log continuations (the "
                             u"log was replaced, moved, unlinked or truncated while written) as a "
                             u"broken chain."_s),
          QCommandLineOption(u"head"_s,
                             u"A head kept elsewhere (printed earlier by 'fabric-broker audit "
                             u"head'): the log must still contain it; records deleted after it "
                             u"are reported."_s,
                             u"SEQ:SHA256"_s)},
         &runVerify},
        {u"head"_s,
         u"head [FILE]"_s,
         u"Verifies the audit log and prints its head as SEQ:SHA256 (the seq and the\n"
         u"SHA-256 of the last record's line) on one line. Keep it somewhere the\n"
         u"broker's user cannot write (a ticket, another host) and later run\n"
         u"'fabric-broker audit verify --head SEQ:SHA256': it reports a log rewritten\n"
         u"or cut back before that head. Exit codes: 0 = printed, 1 = the chain is\n"
         u"broken or truncated (nothing printed), 2 = usage or I/O error."_s,
         {},
         &runHead},
        {u"export"_s,
         u"export --format csv|json [--since DATE] [FILE]"_s,
         u"Prints the records of the audit log as CSV or as a JSON array. The\n"
         u"chain is verified first: when it is broken the records are still\n"
         u"printed, a warning goes to stderr and the exit code is 1."_s,
         {QCommandLineOption(u"format"_s,
                             u"Output format: csv (one row per record, columns "
                             u"seq,time,type,change_type,target,"
                             u"request_sha256,status,channel,outcome,uuid,"
                             u"client) or json (an array of the records)."_s,
                             u"csv|json"_s),
          QCommandLineOption(u"since"_s,
                             u"Only records at or after DATE: YYYY-MM-DD (midnight UTC) or "
                             u"ISO-8601 date-time (UTC unless it has an offset)."_s,
                             u"DATE"_s)},
         &runExport},
    };
    return table;
}

int runSubcommand(const Subcommand &command, const QStringList &args)
{
    QCommandLineParser parser;
    QString file;
    if (const auto stop = parseCommand(parser, command, args, &file))
        return *stop;
    return command.run(parser, file);
}

} // namespace

int runAuditCommand(const QStringList &argsIn)
{
    QStringList args = argsIn;
    if (args.size() >= 2 && args.at(1) == u"audit")
        args = args.mid(2);
    else if (!args.isEmpty() && args.first() == u"audit")
        args = args.mid(1);

    int rc = ExitUsage;
    if (args.isEmpty()) {
        err(generalHelp());
    } else {
        const QString command = args.first();
        const QList<Subcommand> &table = subcommands();
        const auto found = std::find_if(table.cbegin(), table.cend(),
                                        [&](const Subcommand &c) { return c.name == command; });
        if (command == u"verify" && args.size() == 3 && args.at(1) == u"--team") {
            rc = runTeamAuditVerify(args.at(2));
        } else if (command == u"verify" && args.size() == 2 && args.at(1).startsWith(u"--team=")) {
            rc = runTeamAuditVerify(args.at(1).mid(7));
        } else if (found != table.cend()) {
            rc = runSubcommand(*found, args.mid(1));
        } else if (command == u"-h" || command == u"--help" || command == u"help") {
            out(generalHelp());
            rc = ExitIntact;
        } else {
            err(QStringLiteral("fabric-broker audit: unknown command \"%1\"\n\n").arg(command) +
                generalHelp());
        }
    }
    std::fflush(stdout);
    std::fflush(stderr);
    return rc;
}

} // namespace fb
