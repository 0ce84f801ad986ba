#include "broker/CreateLookup.h"

#include "broker/BrokerContext.h"
#include "broker/Catalog.h"
#include "core/ChangeType.h"
#include "core/UntrustedText.h"
#include "fabric/FabricClient.h"

#include <QJsonDocument>
#include <QPointer>

using namespace Qt::StringLiterals;

namespace fb {

namespace {

QString inert(const QString &s, qsizetype max)
{
    return UntrustedText::escapeInvisible(UntrustedText::bounded(s, max));
}

// The catalog's search for what a create of this change type makes (a switch over the table's
// types: a new change type does not compile until it has one).
QString toolFor(const QString &changeType)
{
    const std::optional<ChangeType> type = changeTypeFromName(changeType);
    if (!type)
        return {};
    switch (*type) {
    case ChangeType::ConnectionCreate:
        return u"fabric_search_connections"_s;
    case ChangeType::NetworkCreate:
        return u"fabric_search_networks"_s;
    case ChangeType::ServiceTokenCreate:
        return u"fabric_search_service_tokens"_s;
    }
    return {};
}

QString stateOf(const QJsonObject &o)
{
    if (const QString s = o.value(u"state"_s).toString(); !s.isEmpty())
        return s;
    return o.value(u"operation"_s).toObject().value(u"equinixStatus"_s).toString();
}

} // namespace

QString CreateLookup::onlyUuid() const
{
    return ok && matches.size() == 1 ? matches.at(0).toObject().value(u"uuid"_s).toString()
                                     : QString();
}

QString CreateLookup::text() const
{
    QStringList lines{u"Lookup: %1"_s.arg(inert(call, 400))};
    if (!ok) {
        lines << u"  the search failed: %1"_s.arg(inert(error, 400));
        return lines.join(u'\n');
    }
    if (matches.isEmpty())
        lines << u"  no resource has this name"_s;
    for (const QJsonValue &v : matches) {
        const QJsonObject o = v.toObject();
        lines << u"  found %1  %2  %3"_s.arg(inert(o.value(u"uuid"_s).toString(), 64),
                                             inert(o.value(u"name"_s).toString(), 200),
                                             inert(o.value(u"state"_s).toString(), 64));
    }
    if (otherNames > 0)
        lines << u"  (%1 more with other names containing it)"_s.arg(otherNames);
    if (!searchedAs.isEmpty())
        lines << u"  searched as %1, not with the credentials the create was sent with: another "
                 "account may not see it"_s.arg(inert(searchedAs, 200));
    return lines.join(u'\n');
}

QString createLookupCall(const QString &changeType, const QByteArray &request,
                         QJsonObject *arguments)
{
    const QString tool = toolFor(changeType);
    const QString name = QJsonDocument::fromJson(request).object().value(u"name"_s).toString();
    // The same call the proposer's result suggests (ConfirmOutcome's lookup).
    const QJsonObject args =
        name.isEmpty() ? QJsonObject{{u"limit"_s, 20}} : QJsonObject{{u"name"_s, name}};
    if (arguments)
        *arguments = args;
    if (tool.isEmpty())
        return {};
    return tool + u' ' + QString::fromUtf8(QJsonDocument(args).toJson(QJsonDocument::Compact));
}

void lookUpCreate(FabricClient *fabric, const QString &changeType, const QByteArray &request,
                  const QJsonObject &binding, QObject *context,
                  std::function<void(const CreateLookup &)> done)
{
    QJsonObject args;
    CreateLookup out;
    out.call = createLookupCall(changeType, request, &args);
    const QString name = args.value(u"name"_s).toString();
    const auto search = catalogSearch(toolFor(changeType), args);
    QPointer<QObject> ctx(context);
    auto answer = [ctx, done](const CreateLookup &l) {
        if (ctx)
            done(l);
    };
    const QString sentTo = binding.value(u"fabric_endpoint"_s).toString();
    const FabricBinding here = fabric ? FabricBinding::of(fabric->config()) : FabricBinding{};
    if (!fabric || !search || name.isEmpty() || here.endpoint != sentTo) {
        out.error = !fabric          ? u"this app has no Fabric client"_s
                    : name.isEmpty() ? u"the request has no name to search for"_s
                    : !search        ? u"no catalog search for %1"_s.arg(changeType.left(64))
                                     : u"this app talks to %1, but the create was sent to %2: "
                                "its answer would not tell"_s.arg(here.endpoint.left(200),
                                                                  sentTo.left(200));
        // Later, from the event loop, like every other answer.
        QMetaObject::invokeMethod(
            context, [answer, out] { answer(out); }, Qt::QueuedConnection);
        return;
    }
    if (const QString as = binding.value(u"credential_identity"_s).toString(); here.identity != as)
        out.searchedAs = here.identity;
    FabricCall *call = fabric->search(search->path, search->body);
    QObject::connect(
        call, &FabricCall::finished, context, [answer, out, name](const FabricResult &r) mutable {
            if (!r.ok()) {
                out.error = r.message.left(400);
                return answer(out);
            }
            out.ok = true;
            const QJsonArray data = r.body.toObject().value(u"data"_s).toArray();
            for (const QJsonValue &v : data) {
                const QJsonObject o = v.toObject();
                if (o.value(u"name"_s).toString() != name) {
                    ++out.otherNames;
                    continue;
                }
                if (out.matches.size() >= CreateLookup::MaxMatches)
                    continue;
                out.matches.append(QJsonObject{{u"uuid"_s, o.value(u"uuid"_s).toString().left(64)},
                                               {u"name"_s, o.value(u"name"_s).toString().left(200)},
                                               {u"state"_s, stateOf(o).left(64)}});
            }
            answer(out);
        });
}

} // namespace fb
