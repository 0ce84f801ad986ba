#include "core/ChangeType.h"

#include "core/NameTable.h"

namespace fb {

namespace {

struct ChangeTypeRow {
    ChangeType value;
    QStringView name;
    QStringView path; // the Fabric v4 collection the create is POSTed to
    QStringView noun;
};

constexpr ChangeTypeRow kChangeTypes[] = {
    {ChangeType::ConnectionCreate, u"connection_create", u"/fabric/v4/connections", u"connection"},
    {ChangeType::NetworkCreate, u"network_create", u"/fabric/v4/networks", u"network"},
    {ChangeType::ServiceTokenCreate, u"service_token_create", u"/fabric/v4/serviceTokens",
     u"service token"},
};

const ChangeTypeRow &row(ChangeType type)
{
    const ChangeTypeRow *r = findRow(kChangeTypes, type);
    Q_ASSERT(r);
    return r ? *r : kChangeTypes[0];
}

} // namespace

QString changeTypeName(ChangeType type)
{
    return row(type).name.toString();
}

std::optional<ChangeType> changeTypeFromName(QStringView name)
{
    return valueOf(kChangeTypes, name);
}

QStringList changeTypeNames()
{
    return namesOf(kChangeTypes);
}

QList<ChangeType> changeTypes()
{
    QList<ChangeType> types;
    for (const ChangeTypeRow &r : kChangeTypes)
        types.append(r.value);
    return types;
}

QString changeTypePath(ChangeType type)
{
    return row(type).path.toString();
}

QString changeTypeNoun(ChangeType type)
{
    return row(type).noun.toString();
}

} // namespace fb
