#include "app/PolicyCommand.h"

#include "app/Subcommand.h"
#include "core/AuditDayMarker.h"
#include "core/AuditLog.h"
#include "core/Policy.h"
#include "core/SpendLedger.h"
#include "telemetry/SyslogSink.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <pwd.h>
#include <unistd.h>

namespace fb {

namespace {

void out(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
}
void err(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stderr);
}

QString help()
{
    return QStringLiteral(
        "Usage: fabric-broker policy <command>\n"
        "The operator policy: spend limits, approval channel rules and locked settings.\n"
        "\n"
        "Commands:\n"
        "  show [--json]   print the effective policy and where each value came from\n"
        "  check FILE      validate one policy file (unknown keys and wrong types are errors)\n"
        "  reset-ledger --reason TEXT\n"
        "                  start the daily spend count over: writes an audited ledger_reset\n"
        "                  record to the audit log ($EQUINIX_MCP_AUDIT_LOG or the default);\n"
        "                  when the administrator set the daily limit, only a user who can\n"
        "                  write the administrator's policy file may run it. Restart the app\n"
        "                  afterwards.\n"
        "\n"
        "Files, merged tighten-only (for each key the stricter value wins):\n"
        "  /etc/fabric-broker/policy.json                       the administrator's (root-owned,\n"
        "                                                       writable by root only)\n"
        "  $FABRIC_BROKER_POLICY, else\n"
        "  $XDG_CONFIG_HOME/fabric-broker/policy.json           the user's (can only tighten)\n"
        "Schema: /usr/share/fabric-broker/policy.schema.json. See docs/policy.md.\n"
        "Exit codes: 0 = fine, 1 = a policy file is invalid or was ignored, 2 = usage error.\n");
}

QString commandHelp(const QString &command)
{
    if (command == u"show")
        return QStringLiteral(
            "Usage: fabric-broker policy show [--json]\n"
            "Prints the effective policy (the administrator's and the user's files merged\n"
            "tighten-only) and, for each value, which file it came from; a file that is\n"
            "invalid or was ignored is named with the reason. --json prints the same as one\n"
            "JSON object.\n"
            "Exit codes: 0 = fine, 1 = a policy file is invalid or was ignored, 2 = usage "
            "error.\n");
    if (command == u"check")
        return QStringLiteral(
            "Usage: fabric-broker policy check FILE\n"
            "Validates one policy file against the policy schema: unknown keys, wrong types and\n"
            "values out of range are errors, each named with its key.\n"
            "Exit codes: 0 = valid, 1 = invalid, 2 = usage error or an unreadable file.\n");
    if (command == u"reset-ledger")
        return QStringLiteral(
            "Usage: fabric-broker policy reset-ledger --reason TEXT\n"
            "Starts the daily spend count over: writes an audited ledger_reset record (with\n"
            "TEXT, at most 500 characters) to the audit log ($EQUINIX_MCP_AUDIT_LOG or the\n"
            "default). When the administrator set the daily limit, only a user who can write\n"
            "the administrator's policy file may run it. Restart the app afterwards.\n"
            "Exit codes: 0 = recorded, 1 = refused, 2 = usage error.\n");
    return {};
}

QString valueText(const QJsonValue &v)
{
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        return Money{o.value(QStringLiteral("amount")).toDouble(),
                     o.value(QStringLiteral("currency")).toString()}
            .display();
    }
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return QString::number(static_cast<qint64>(v.toDouble()));
    return v.toString();
}

int show(bool json)
{
    const PolicyPaths paths = PolicyPaths::fromEnvironment();
    const PolicyLoadResult r = loadPolicy(paths);
    const Policy &p = r.effective;
    if (json) {
        QJsonObject values;
        for (const QString &key : Policy::keys()) {
            QJsonObject entry;
            if (p.isSet(key)) {
                entry = {{QStringLiteral("value"), p.shownValue(key)},
                         {QStringLiteral("source"), p.sources.value(key)},
                         {QStringLiteral("locked_by_administrator"), r.lockedByAdministrator(key)}};
            } else if (key == u"revalidate_before_send_after_ms") {
                entry = {{QStringLiteral("value"), static_cast<double>(p.revalidateAfter())},
                         {QStringLiteral("source"), QStringLiteral("default")}};
            } else if (key == u"spend.unpriced") {
                entry = {{QStringLiteral("value"), Policy::unpricedName(p.unpricedRule())},
                         {QStringLiteral("source"), QStringLiteral("default")}};
            } else {
                entry = {{QStringLiteral("value"), QJsonValue()},
                         {QStringLiteral("source"), QStringLiteral("not set")}};
            }
            values.insert(key, entry);
        }
        const QJsonObject doc{
            {QStringLiteral("policy"), values},
            {QStringLiteral("files"), QJsonArray::fromStringList(r.files)},
            {QStringLiteral("errors"), QJsonArray::fromStringList(r.errors)},
            {QStringLiteral("ignored"), QJsonArray::fromStringList(r.ignored)},
            {QStringLiteral("mutate_refused"), r.refuseMutate},
            {QStringLiteral("paths"), QJsonObject{{QStringLiteral("system"), paths.system},
                                                  {QStringLiteral("extra_admin"), paths.extraAdmin},
                                                  {QStringLiteral("user"), paths.user}}}};
        out(QString::fromUtf8(QJsonDocument(doc).toJson(QJsonDocument::Indented)));
        return r.errors.isEmpty() ? 0 : 1;
    }
    out(QStringLiteral("Effective policy (administrator: %1%2; user: %3)\n")
            .arg(paths.system,
                 paths.extraAdmin.isEmpty() ? QString() : QStringLiteral(" + ") + paths.extraAdmin,
                 paths.user));
    for (const QString &key : Policy::keys()) {
        QString value, source;
        if (p.isSet(key)) {
            value = valueText(p.shownValue(key));
            source = p.sources.value(key) + (r.lockedByAdministrator(key)
                                                 ? QStringLiteral(", set by your administrator")
                                                 : QString());
        } else if (key == u"revalidate_before_send_after_ms") {
            value = QString::number(p.revalidateAfter());
            source = QStringLiteral("default");
        } else if (key == u"spend.unpriced") {
            value = Policy::unpricedName(p.unpricedRule());
            source = p.unpricedRule() == UnpricedRule::Allow
                         ? QStringLiteral("default")
                         : QStringLiteral("default while an amount limit is set");
        } else {
            value = QStringLiteral("(not set)");
            source = QStringLiteral("default");
        }
        out(QStringLiteral("  %1 = %2  [%3]\n").arg(key, value, source));
    }
    for (const QString &e : r.errors)
        err(QStringLiteral("ERROR: ") + e + u'\n');
    for (const QString &i : r.ignored)
        err(QStringLiteral("ignored: ") + i + u'\n');
    if (r.refuseMutate)
        err(QStringLiteral("The mutate toolset is refused until the policy files are fixed.\n"));
    return r.errors.isEmpty() ? 0 : 1;
}

int check(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        err(QStringLiteral("fabric-broker policy check: cannot read %1: %2\n")
                .arg(path, f.errorString()));
        return 2;
    }
    const PolicyParseResult r = parsePolicy(f.read(64 * 1024 + 1), path);
    if (f.size() > 64 * 1024) {
        err(QStringLiteral("%1: larger than 65536 bytes\n").arg(path));
        return 1;
    }
    QStringList errors = r.errors;
    // The whole syslog target, as the start checks it (core only checks its shape).
    if (QString why; r.ok() && r.policy.auditSyslog &&
                     !telemetry::SyslogConfig::parse(*r.policy.auditSyslog, &why))
        errors << QStringLiteral("audit.syslog: %1").arg(why);
    if (!errors.isEmpty()) {
        for (const QString &e : std::as_const(errors))
            err(QStringLiteral("%1: %2\n").arg(path, e));
        return 1;
    }
    out(QStringLiteral("%1: valid policy (%2 key(s) set)\n")
            .arg(path)
            .arg(r.policy.sources.size()));
    return 0;
}

QString userName()
{
    const struct passwd *pw = ::getpwuid(::geteuid());
    return pw ? QString::fromLocal8Bit(pw->pw_name) : QString::number(::geteuid());
}

// The day's spend count starts over at a ledger_reset record (docs/policy.md#spend-ledger).
int resetLedger(const QString &reason)
{
    const PolicyLoadResult policy = loadPolicy(PolicyPaths::fromEnvironment());
    const QString key = QStringLiteral("spend.max_monthly_recurring_per_day");
    if (policy.lockedByAdministrator(key)) {
        const QString file = policy.effective.sources.value(key);
        if (::access(QFile::encodeName(file).constData(), W_OK) != 0) {
            err(QStringLiteral("fabric-broker policy reset-ledger: the daily limit is set by your "
                               "administrator in %1; only a user who can write that file may "
                               "reset the ledger. Nothing was changed.\n")
                    .arg(file));
            return 1;
        }
    }
    const QString path = AuditLog::defaultPath();
    SpendLedger before;
    const LedgerSeed seed = seedSpendLedger(path, Clock::system()->nowMs(), &before);
    AuditLog log;
    log.setDayMarker(AuditDayMarker::defaultPath()); // the reset starts the marker's day over
    QString error;
    if (!log.open(path, &error)) {
        err(QStringLiteral("fabric-broker policy reset-ledger: cannot open the audit log: %1\n")
                .arg(error));
        return 2;
    }
    const bool ok =
        log.record(AuditEventType::LedgerReset,
                   {{QStringLiteral("reason"), reason},
                    {QStringLiteral("by"), userName()},
                    {QStringLiteral("uid"), static_cast<double>(::geteuid())},
                    {QStringLiteral("previous_problem"), !seed.established ? QJsonValue(seed.why)
                                                         : !log.dayMarkerProblem().isEmpty()
                                                             ? QJsonValue(log.dayMarkerProblem())
                                                             : QJsonValue()}});
    if (!ok) {
        err(QStringLiteral("fabric-broker policy reset-ledger: the audit log could not record "
                           "the reset: %1\n")
                .arg(log.lastError()));
        return 2;
    }
    out(QStringLiteral("%1: ledger_reset recorded (seq %2). The daily spend count starts over "
                       "from now; restart Fabric Broker for a running app to use it.\n%3")
            .arg(path)
            .arg(log.recordCount())
            .arg(seed.established
                     ? QStringLiteral("The last 24 hours were readable before the reset.\n")
                     : QStringLiteral("Before the reset: %1\n").arg(seed.why)));
    return 0;
}

} // namespace

int runPolicyCommand(const QStringList &args)
{
    QStringList rest = subcommandWords(args, u"policy");
    if (const std::optional<int> exit = answerUsage(rest, help()))
        return *exit;
    const QString command = rest.takeFirst();
    // Every command answers --help (or -h) with its own usage, wherever the flag stands.
    if ((rest.contains(QStringLiteral("--help")) || rest.contains(QStringLiteral("-h"))) &&
        !commandHelp(command).isEmpty()) {
        out(commandHelp(command));
        return 0;
    }
    if (command == u"show") {
        if (rest.isEmpty())
            return show(false);
        if (rest == QStringList{QStringLiteral("--json")})
            return show(true);
    } else if (command == u"check") {
        if (rest.size() == 1 && !rest.first().startsWith(u'-'))
            return check(rest.first());
    } else if (command == u"reset-ledger") {
        if (rest.size() == 2 && rest.first() == u"--reason" && !rest.at(1).trimmed().isEmpty())
            return resetLedger(rest.at(1).left(500));
    }
    err(QStringLiteral("fabric-broker policy: unknown command or arguments\n") + help());
    return 2;
}

} // namespace fb
