#pragma once
// The cross-field rules of the change specs, beyond each change type's JSON schema (internal to
// core: ChangeSpec::validate runs them). They run on the raw spec and tolerate any JSON shape;
// each rule stays only with an Equinix source (src/sandbox/CONTRACT.md, "The broker's cross-field
// rules").
#include "core/ChangeSpec.h"

#include <QJsonObject>
#include <QList>

namespace fb::ChangeSpec {

// Appends to out every violation of type's cross-field rules in spec, each with its JSON path.
void addCrossFieldViolations(ChangeType type, const QJsonObject &spec, QList<SpecViolation> *out);

} // namespace fb::ChangeSpec
