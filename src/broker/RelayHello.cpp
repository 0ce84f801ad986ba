#include "broker/RelayHello.h"

#include "mcp/ToolRegistry.h"

#include "core/AuditLog.h"
#include "core/Policy.h"
#include "core/Sha256.h"
#include "fabric/FabricClient.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace fb {

namespace {

// The limits a relayed session must share with the instance: the table's RelayRule::Exact rows,
// named on the wire by their environment variable.
QList<const SettingSpec *> limitRows()
{
    QList<const SettingSpec *> rows;
    for (const SettingSpec &spec : Settings::table()) {
        if (spec.relay == RelayRule::Exact)
            rows << &spec;
    }
    return rows;
}

const SettingSpec *limitRow(const QString &env)
{
    for (const SettingSpec *limit : limitRows()) {
        if (env == limit->env)
            return limit;
    }
    return nullptr;
}

// Hostile-input bounds: a hello is one small object from a process of the same user, but it is
// still parsed as untrusted.
QString boundedString(const QJsonValue &v, qsizetype max = 512)
{
    return v.isString() ? v.toString().left(max) : QString();
}

struct Conflict {
    QString setting;
    QString asked;
    QString instance;
    QString fix;
};

// A relay's policy file that the instance does not apply, read here (a file of the same user)
// and merged tighten-only over the instance's policy, for that session only. Returns the
// toolsets the session may see when the only key it tightens is toolsets.allowed (a narrowing,
// honoured per session); nullopt with why when it cannot be honoured per session: unreadable,
// changed since the relay read it, invalid, or stricter (or different) in a key that only the
// whole instance can enforce.
std::optional<QStringList> sessionToolsetsUnder(const QString &path, const QString &sha256,
                                                const Policy &instancePolicy, QString *why)
{
    if (sha256 == u"unreadable") {
        *why = u"unreadable, which refuses mutate"_s;
        return std::nullopt;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *why = u"unreadable by the instance: "_s + f.errorString();
        return std::nullopt;
    }
    const QByteArray bytes = f.read(64 * 1024 + 1);
    if (QString::fromLatin1(Sha256::hash(bytes).toHex()) != sha256) {
        *why = u"changed since this session read it"_s;
        return std::nullopt;
    }
    const PolicyParseResult parsed = parsePolicy(bytes, path);
    if (!parsed.ok()) {
        *why = u"invalid, which refuses mutate: "_s + parsed.errors.value(0).left(300);
        return std::nullopt;
    }
    const Policy merged = mergePolicy(instancePolicy, parsed.policy).effective;
    QStringList others;
    for (const QString &key : Policy::keys()) {
        if (key != u"toolsets.allowed" && merged.value(key) != instancePolicy.value(key))
            others << key;
    }
    if (!others.isEmpty()) {
        *why = u"it sets %1, which only the whole instance can enforce"_s.arg(others.join(u", "_s));
        return std::nullopt;
    }
    return merged.toolsetsAllowed.value_or(mcp::ToolRegistry::knownToolsets());
}

} // namespace

QString credentialsFingerprint(const FabricConfig &config)
{
    if (config.clientId.isEmpty() && config.clientSecret.isEmpty() && config.staticToken.isEmpty())
        return {};
    const QByteArray material = "fabric-broker credentials v1\n" + config.clientId.toUtf8() + '\n' +
                                config.clientSecret.toUtf8() + '\n' + config.staticToken.toUtf8();
    return QString::fromLatin1(Sha256::hash(material).toHex());
}

QString normalizedEndpoint(const QString &url)
{
    QUrl u(url.trimmed());
    if (u.path() == u"/")
        u.setPath(QString()); // "https://host/" and "https://host" are one endpoint
    return u.adjusted(QUrl::StripTrailingSlash | QUrl::NormalizePathSegments).toString();
}

bool RelayRequest::fromCommandLine(const QString &toolsetsOption, bool sandbox,
                                   const QProcessEnvironment &env, RelayRequest *out,
                                   QString *error)
{
    RelayRequest r;
    SettingSources sources;
    sources.environment = env;
    if (!toolsetsOption.isEmpty())
        sources.flags.insert(SettingId::Toolsets, toolsetsOption);
    BrokerSettings settings;
    QMap<SettingId, SettingSource> from;
    if (!BrokerSettings::fromSources(sources, &settings, error, &from))
        return false;
    if (from.value(SettingId::Toolsets) != SettingSource::Default) {
        r.toolsets = settings.toolsets;
        r.toolsetsSource =
            Settings::spec(SettingId::Toolsets).sourceLabel(from.value(SettingId::Toolsets));
    }
    r.sandbox = sandbox;
    const FabricConfig config = FabricConfig::fromEnvironment(env);
    if (config.hasCredentials()) {
        r.credentialsFingerprint = fb::credentialsFingerprint(config);
        r.credentialSource = config.credentialSource();
    }
    if (config.hasCredentials() ||
        env.contains(QString(Settings::spec(SettingId::FabricEndpoint).env)))
        r.endpoint = normalizedEndpoint(config.endpoint.toString());
    if (from.value(SettingId::Approval) != SettingSource::Default)
        r.approval = settings.valueText(SettingId::Approval);
    r.allowUnconfirmedMutations = settings.allowUnconfirmedMutations;
    for (const SettingSpec *limit : limitRows()) {
        if (from.value(limit->id) != SettingSource::Default)
            r.limits.insert(QString(limit->env), settings.valueText(limit->id));
    }
    r.policyFiles = policyFileDigests(PolicyPaths::fromEnvironment(env));
    const QString namedLog = env.value(QString::fromLatin1(AuditLog::PathEnvironmentVariable));
    r.auditLogNamed = !namedLog.isEmpty();
    r.auditLog = r.auditLogNamed ? namedLog : AuditLog::defaultPath();
    r.pid = QCoreApplication::applicationPid();
    *out = r;
    return true;
}

QJsonObject RelayRequest::toJson() const
{
    QJsonObject o{{u"v"_s, 1}, {u"pid"_s, pid}};
    if (toolsets) {
        o.insert(u"toolsets"_s, QJsonArray::fromStringList(*toolsets));
        o.insert(u"toolsetsSource"_s, toolsetsSource);
    }
    if (sandbox)
        o.insert(u"sandbox"_s, true);
    if (!credentialsFingerprint.isEmpty()) {
        o.insert(u"credentialsFingerprint"_s, credentialsFingerprint);
        o.insert(u"credentialSource"_s, credentialSource);
    }
    if (!endpoint.isEmpty())
        o.insert(u"endpoint"_s, endpoint);
    if (!approval.isEmpty())
        o.insert(u"approval"_s, approval);
    if (allowUnconfirmedMutations)
        o.insert(u"allowUnconfirmedMutations"_s, true);
    QJsonObject l;
    for (auto it = limits.cbegin(); it != limits.cend(); ++it)
        l.insert(it.key(), it.value());
    if (!l.isEmpty())
        o.insert(u"limits"_s, l);
    QJsonArray files;
    for (auto it = policyFiles.cbegin(); it != policyFiles.cend(); ++it)
        files.append(QJsonObject{{u"path"_s, it.key()}, {u"sha256"_s, it.value()}});
    o.insert(u"policyFiles"_s, files);
    o.insert(u"auditLog"_s, QJsonObject{{u"path"_s, auditLog}, {u"named"_s, auditLogNamed}});
    return o;
}

RelayRequest RelayRequest::fromJson(const QJsonObject &hello)
{
    RelayRequest r;
    if (hello.value(u"toolsets"_s).isArray()) {
        QStringList asked;
        for (const QJsonValue &v : hello.value(u"toolsets"_s).toArray()) {
            if (asked.size() < 8)
                asked << boundedString(v, 32);
        }
        r.toolsets = asked;
        r.toolsetsSource = boundedString(hello.value(u"toolsetsSource"_s), 32);
    }
    r.sandbox = hello.value(u"sandbox"_s).toBool();
    r.credentialsFingerprint = boundedString(hello.value(u"credentialsFingerprint"_s), 64);
    r.credentialSource = boundedString(hello.value(u"credentialSource"_s), 80);
    r.endpoint = boundedString(hello.value(u"endpoint"_s), 512);
    r.approval = boundedString(hello.value(u"approval"_s), 16);
    r.allowUnconfirmedMutations = hello.value(u"allowUnconfirmedMutations"_s).toBool();
    const QJsonObject limits = hello.value(u"limits"_s).toObject();
    for (const SettingSpec *limit : limitRows()) {
        const QString name = QString(limit->env);
        if (limits.contains(name))
            r.limits.insert(name, boundedString(limits.value(name), 24));
    }
    for (const QJsonValue &v : hello.value(u"policyFiles"_s).toArray()) {
        const QJsonObject f = v.toObject();
        const QString path = boundedString(f.value(u"path"_s), 4096);
        if (r.policyFiles.size() < 3 && !path.isEmpty())
            r.policyFiles.insert(path, boundedString(f.value(u"sha256"_s), 64));
    }
    const QJsonObject log = hello.value(u"auditLog"_s).toObject();
    r.auditLog = boundedString(log.value(u"path"_s), 4096);
    r.auditLogNamed = log.value(u"named"_s).toBool() && !r.auditLog.isEmpty();
    r.pid = hello.value(u"pid"_s).toInteger();
    return r;
}

mcp::SessionPolicy decideRelayedSession(const RelayRequest &request,
                                        const RelayInstanceFacts &instance)
{
    const QString who = u"the running Fabric Broker (pid %1)"_s.arg(instance.pid);
    const QString separate = u"or run a separate session with `fabric-broker --headless --stdio` "
                             u"in this client's command"_s;
    QList<Conflict> conflicts;
    QStringList narrowed;

    if (request.toolsets) {
        QStringList widening;
        for (const QString &t : *request.toolsets) {
            if (!instance.toolsets.contains(t))
                widening << t;
        }
        if (!widening.isEmpty()) {
            conflicts.append(
                {request.toolsetsSource.isEmpty() ? u"--toolsets"_s : request.toolsetsSource,
                 request.toolsets->join(u','), instance.toolsets.join(u','),
                 u"turn on the %1 toolset in the running app (Settings > Toolsets) or start it "
                 u"with --toolsets %2, or drop %1 from this client's command"_s.arg(
                     widening.join(u','), request.toolsets->join(u','))});
        } else if (!request.toolsets->isEmpty()) {
            narrowed = *request.toolsets;
        }
    }
    if (request.sandbox && !instance.sandbox) {
        conflicts.append(
            {u"--sandbox"_s, u"the embedded sandbox"_s,
             u"Equinix Fabric at %1"_s.arg(instance.endpoint),
             u"remove --sandbox from this client's command, "_s + separate + u" --sandbox"_s});
    }
    if (!request.credentialsFingerprint.isEmpty()) {
        if (instance.sandbox) {
            conflicts.append(
                {u"credentials"_s, request.credentialSource + u" for "_s + request.endpoint,
                 u"the embedded sandbox"_s,
                 u"save the credentials in the running app (Settings) and restart it, or remove "
                 u"them from this client's env, "_s +
                     separate});
        } else if (request.credentialsFingerprint != instance.credentialsFingerprint ||
                   normalizedEndpoint(request.endpoint) != normalizedEndpoint(instance.endpoint)) {
            const bool sameEndpoint =
                normalizedEndpoint(request.endpoint) == normalizedEndpoint(instance.endpoint);
            conflicts.append(
                {sameEndpoint ? u"credentials"_s : u"EQUINIX_API_ENDPOINT"_s,
                 sameEndpoint ? u"other credentials (%1)"_s.arg(request.credentialSource)
                              : request.endpoint,
                 sameEndpoint ? u"the credentials saved in the running app"_s : instance.endpoint,
                 u"remove the Fabric credentials and endpoint from this client's env (the "
                 u"running app's are used), "_s +
                     separate});
        }
    }
    if (request.credentialsFingerprint.isEmpty() && !request.endpoint.isEmpty() &&
        (instance.sandbox ||
         normalizedEndpoint(request.endpoint) != normalizedEndpoint(instance.endpoint))) {
        conflicts.append({u"EQUINIX_API_ENDPOINT"_s, request.endpoint,
                          instance.sandbox ? u"the embedded sandbox"_s : instance.endpoint,
                          u"remove EQUINIX_API_ENDPOINT from this client's env (the running "
                          u"app's endpoint is used), "_s +
                              separate});
    }
    // A policy file the relay would apply that the instance does not (other bytes, or a file
    // the instance does not read): served alone, the relay could be stricter. Where it only
    // narrows toolsets.allowed the session is served under it (merged tighten-only, for that
    // session); anything else is refused with the fix, never served under the instance's
    // policy as if nothing happened. Absent files add nothing.
    QStringList instanceFiles;
    for (auto it = instance.policyFiles.cbegin(); it != instance.policyFiles.cend(); ++it) {
        if (!it.value().isEmpty())
            instanceFiles << u"%1 (SHA-256 %2)"_s.arg(it.key(), it.value().left(12));
    }
    const QList<QString> instanceDigests = instance.policyFiles.values();
    std::optional<QStringList> policyToolsets;
    QStringList policyFilesUsed;
    for (auto it = request.policyFiles.cbegin(); it != request.policyFiles.cend(); ++it) {
        if (it.value().isEmpty() ||
            (it.value() != u"unreadable" && instanceDigests.contains(it.value())))
            continue;
        QString why;
        if (const auto allowed =
                sessionToolsetsUnder(it.key(), it.value(), instance.settings.policy, &why)) {
            QStringList both;
            for (const QString &t : *allowed) {
                if (!policyToolsets || policyToolsets->contains(t))
                    both << t;
            }
            policyToolsets = both;
            policyFilesUsed << it.key();
            continue;
        }
        conflicts.append(
            {u"policy file"_s,
             it.value() == u"unreadable"
                 ? u"%1 (%2)"_s.arg(it.key(), why)
                 : u"%1 (SHA-256 %2: %3)"_s.arg(it.key(), it.value().left(12), why),
             instanceFiles.isEmpty() ? u"no policy file"_s : instanceFiles.join(u", "_s),
             u"give the running app the same policy (FABRIC_BROKER_POLICY=%1 where it starts, "
             u"or put these rules in the policy file it reads) and restart it, or remove "
             u"FABRIC_BROKER_POLICY from this client's env, "_s.arg(it.key()) +
                 separate});
    }
    if (policyToolsets) {
        QStringList served;
        for (const QString &t : narrowed.isEmpty() ? instance.toolsets : narrowed) {
            if (policyToolsets->contains(t))
                served << t;
        }
        if (served.isEmpty())
            conflicts.append({u"policy file"_s,
                              u"toolsets.allowed %1 in %2"_s.arg(policyToolsets->join(u','),
                                                                 policyFilesUsed.join(u", "_s)),
                              instance.toolsets.join(u','),
                              u"allow a toolset the running app serves in that file, or remove "
                              u"FABRIC_BROKER_POLICY from this client's env, "_s +
                                  separate});
        else if (served != instance.toolsets)
            narrowed = served;
    }
    // The audit log this client's environment names must be the one the instance writes.
    if (request.auditLogNamed && !instance.auditLog.isEmpty() &&
        QDir::cleanPath(QDir(request.auditLog).absolutePath()) !=
            QDir::cleanPath(QDir(instance.auditLog).absolutePath())) {
        conflicts.append(
            {QString::fromLatin1(AuditLog::PathEnvironmentVariable), request.auditLog,
             instance.auditLog,
             u"remove %1 from this client's env (the running app records this session in "
             u"%2), or start the app with %1=%3, "_s.arg(
                 QString::fromLatin1(AuditLog::PathEnvironmentVariable), instance.auditLog,
                 request.auditLog) +
                 separate});
    }
    if (request.allowUnconfirmedMutations && !instance.settings.allowUnconfirmedMutations) {
        conflicts.append({u"EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS"_s, u"true"_s, u"false"_s,
                          u"remove EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS from this client's "
                          u"env: a relayed session never widens what the instance confirms"_s});
    }
    if (request.approval == u"desktop" && instance.approvalChannel != u"desktop") {
        conflicts.append(
            {u"EQUINIX_MCP_APPROVAL"_s, u"desktop"_s,
             u"%1 (headless, or Settings > Approval says so)"_s.arg(instance.approvalChannel),
             u"start the Fabric Broker desktop app instead of the headless "
             u"instance, or choose \"This app's approval dialog\" in its Settings, "
             u"or remove EQUINIX_MCP_APPROVAL from this client's env"_s});
    } else if (request.approval == u"client" && instance.approvalChannel != u"client") {
        conflicts.append({u"EQUINIX_MCP_APPROVAL"_s, u"client"_s, instance.approvalChannel,
                          u"remove EQUINIX_MCP_APPROVAL from this client's env (approvals then "
                          u"appear in the desktop app), or choose \"The MCP client's prompt\" "
                          u"in its Settings, "_s +
                              separate});
    }
    for (auto it = request.limits.cbegin(); it != request.limits.cend(); ++it) {
        const SettingSpec *limit = limitRow(it.key());
        if (!limit)
            continue;
        const QString current = instance.settings.valueText(limit->id);
        if (it.value() != current) {
            conflicts.append({it.key(), it.value(), current,
                              u"remove %1 from this client's env or set it where the instance "
                              u"starts, "_s.arg(it.key()) +
                                  separate});
        }
    }

    mcp::SessionPolicy policy;
    policy.welcome.insert(u"v"_s, 1);
    policy.welcome.insert(u"pid"_s, instance.pid);
    if (conflicts.isEmpty()) {
        policy.toolsets = narrowed;
        // Per session: only a relay that asked itself is exempted from the person.
        policy.allowUnconfirmedMutations =
            request.allowUnconfirmedMutations && instance.settings.allowUnconfirmedMutations;
        policy.welcome.insert(u"allowUnconfirmedMutations"_s, policy.allowUnconfirmedMutations);
        policy.welcome.insert(u"auditLog"_s, instance.auditLog);
        const QStringList served = narrowed.isEmpty() ? instance.toolsets : narrowed;
        policy.welcome.insert(u"toolsets"_s, QJsonArray::fromStringList(served));
        policy.welcome.insert(u"approvalChannel"_s, instance.approvalChannel);
        policy.welcome.insert(u"sandbox"_s, instance.sandbox);
        return policy;
    }
    QStringList parts;
    QJsonArray data;
    for (const Conflict &c : conflicts) {
        parts << u"%1: this session asks for %2, but %3 uses %4. Fix: %5."_s.arg(
            c.setting, c.asked, who, c.instance, c.fix);
        data.append(QJsonObject{{u"setting"_s, c.setting},
                                {u"asked"_s, c.asked},
                                {u"instance"_s, c.instance},
                                {u"fix"_s, c.fix}});
    }
    policy.refusal = u"Fabric Broker refused this relayed session, so that it is not served with "
                     u"settings it did not ask for. "_s +
                     parts.join(u' ');
    policy.refusalData = QJsonObject{{u"conflicts"_s, data}, {u"instancePid"_s, instance.pid}};
    policy.welcome.insert(u"refused"_s, policy.refusal);
    policy.welcome.insert(u"conflicts"_s, data); // the relay prints the fixes first
    return policy;
}

} // namespace fb
