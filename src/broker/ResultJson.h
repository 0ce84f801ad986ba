#pragma once
// ResultJson: small pieces shared by the broker's tool results.
#include "core/ChangeSpec.h"
#include "fabric/FabricResult.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

namespace fb::result {

// [{path, message}, ...]
QJsonArray violationsJson(const QList<SpecViolation> &violations);
// [FabricError::toJson(), ...]
// The first kMaxFabricErrorsShown of Fabric's errors (each field already escaped and bounded by
// parseFabricErrorList); the caller says how many were left out when there are more.
inline constexpr qsizetype kMaxFabricErrorsShown = 20;
QJsonArray fabricErrorsJson(const FabricResult &r);
// The text content of a structured result: the summary, a blank line, the indented JSON.
QString renderText(const QString &summary, const QJsonObject &structured);
// Arguments must be exactly the declared ones: the keys of args not in allowed.
QStringList unknownArguments(const QJsonObject &args, const QStringList &allowed);

} // namespace fb::result
