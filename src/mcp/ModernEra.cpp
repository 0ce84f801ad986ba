#include "mcp/ModernEra.h"
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace fb::mcp::modern {

const QStringList &versions()
{
    static const QStringList list{u"2026-07-28"_s};
    return list;
}

const QStringList &allVersions()
{
    static const QStringList list = versions() + protocol::supportedVersions();
    return list;
}

Envelope readEnvelope(const QJsonObject &params)
{
    Envelope envelope;
    const QJsonValue metaValue = params.value("_meta"_L1);
    if (!metaValue.isObject())
        return envelope;
    const QJsonObject meta = metaValue.toObject();
    const auto versionIt = meta.constFind(QLatin1StringView(ProtocolVersionKey));
    const auto capabilitiesIt = meta.constFind(QLatin1StringView(ClientCapabilitiesKey));
    const auto infoIt = meta.constFind(QLatin1StringView(ClientInfoKey));
    if (versionIt == meta.constEnd() && capabilitiesIt == meta.constEnd() &&
        infoIt == meta.constEnd())
        return envelope;

    const auto invalid = [&envelope](const QString &why) {
        envelope.kind = Envelope::Kind::Invalid;
        envelope.error = why;
        return envelope;
    };
    if (versionIt == meta.constEnd() || !versionIt.value().isString())
        return invalid(u"Invalid params: _meta[\"%1\"] must be a string"_s.arg(
            QLatin1StringView(ProtocolVersionKey)));
    if (capabilitiesIt == meta.constEnd() || !capabilitiesIt.value().isObject())
        return invalid(u"Invalid params: _meta[\"%1\"] must be an object"_s.arg(
            QLatin1StringView(ClientCapabilitiesKey)));
    if (infoIt != meta.constEnd() && !infoIt.value().isObject())
        return invalid(u"Invalid params: _meta[\"%1\"] must be an object"_s.arg(
            QLatin1StringView(ClientInfoKey)));

    const QString version = versionIt.value().toString();
    if (!versions().contains(version)) {
        envelope.kind = Envelope::Kind::Unsupported;
        envelope.requested = ClientInfo::untrustedText(version);
        return envelope;
    }
    envelope.kind = Envelope::Kind::Modern;
    envelope.version = version;
    envelope.capabilities = capabilitiesIt.value().toObject();
    if (infoIt != meta.constEnd())
        envelope.clientInfo = infoIt.value().toObject();
    const QJsonValue level = meta.value(QLatin1StringView(LogLevelKey));
    if (level.isString())
        envelope.logLevel = protocol::logLevelIndex(level.toString());
    return envelope;
}

bool declaresTasks(const Envelope &envelope)
{
    return envelope.capabilities.value("extensions"_L1)
        .toObject()
        .value(QLatin1StringView(TasksExtension))
        .isObject();
}

ClientInfo clientFor(const ClientInfo &session, const Envelope &envelope)
{
    // The session's connection facts (id, transport, connection time, whether it asks for
    // unconfirmed mutations); every other field is the envelope's.
    ClientInfo client = session;
    client.protocolVersion = envelope.version;
    client.capabilities = envelope.capabilities;
    client.setFromInitialize(envelope.clientInfo);
    client.initialized = false; // nothing to initialize in this era
    return client;
}

QJsonObject unsupportedVersionData(const QString &requested)
{
    return QJsonObject{{u"supported"_s, QJsonArray::fromStringList(allVersions())},
                       {u"requested"_s, requested}};
}

QJsonObject serverInfo(const ServerOptions &options)
{
    QJsonObject info{{u"name"_s, options.name}, {u"version"_s, options.version}};
    if (!options.title.isEmpty())
        info.insert(u"title"_s, options.title);
    return info;
}

QJsonObject discoverResult(const ServerOptions &options)
{
    // tools.listChanged: delivered on subscriptions/listen (SessionSubscriptions.cpp). No
    // logging capability: this era logs only per request (logLevel).
    QJsonObject result{
        {u"resultType"_s, u"complete"_s},
        {u"supportedVersions"_s, QJsonArray::fromStringList(allVersions())},
        {u"capabilities"_s,
         QJsonObject{
             {u"tools"_s, QJsonObject{{u"listChanged"_s, true}}},
             // A tool that waits for a person may answer with a task (SessionTasks.cpp).
             {u"extensions"_s, QJsonObject{{QLatin1StringView(TasksExtension), QJsonObject()}}}}},
        {u"ttlMs"_s, CacheTtlMs},
        {u"cacheScope"_s, QLatin1StringView(CacheScope)},
        {u"_meta"_s, QJsonObject{{QLatin1StringView(ServerInfoKey), serverInfo(options)}}},
    };
    if (!options.instructions.isEmpty())
        result.insert(u"instructions"_s, options.instructions);
    return result;
}

} // namespace fb::mcp::modern
