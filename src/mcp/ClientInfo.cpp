#include "mcp/ClientInfo.h"

// Header-only and Qt Core only: the same text rules as the change specs, without linking core.
#include "core/UntrustedText.h"

using namespace Qt::StringLiterals;

namespace fb::mcp {

bool ClientInfo::supportsFormElicitation() const
{
    const QJsonValue elicitation = capabilities.value("elicitation"_L1);
    if (!elicitation.isObject())
        return false;
    const QJsonObject modes = elicitation.toObject();
    // 2025-06-18: "elicitation": {} means form. 2025-11-25: {"form": {}, "url": {}}.
    return modes.isEmpty() || modes.contains("form"_L1);
}

QString ClientInfo::untrustedText(const QJsonValue &value)
{
    return UntrustedText::escapeInvisible(UntrustedText::bounded(value.toString(), MaxTextLength));
}

void ClientInfo::setFromInitialize(const QJsonObject &clientInfo)
{
    name = untrustedText(clientInfo.value("name"_L1));
    title = untrustedText(clientInfo.value("title"_L1));
    version = untrustedText(clientInfo.value("version"_L1));
}

QJsonObject ClientInfo::toJson() const
{
    return QJsonObject{
        {u"sessionId"_s, QString::number(sessionId)},
        {u"name"_s, name},
        {u"title"_s, title},
        {u"version"_s, version},
        {u"protocolVersion"_s, protocolVersion},
        {u"transport"_s, transport},
        {u"capabilities"_s, capabilities},
        {u"connectedAtMs"_s, connectedAtMs},
        {u"initialized"_s, initialized},
    };
}

} // namespace fb::mcp
