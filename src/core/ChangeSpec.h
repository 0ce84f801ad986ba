#pragma once
// ChangeSpec: the typed create specifications (a strict subset of the Fabric v4 request bodies
// ConnectionPostRequest, NetworkPostRequest and ServiceToken, with their field names and
// nesting), their JSON Schemas (the same text the MCP tool publishes), validation that reports
// every violation with its JSON path, the one-line target summary, and the compiler to a
// CompiledRequest whose body is canonical JSON.
#include "core/ChangeType.h"
#include "core/CompiledRequest.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <optional>

namespace fb {

struct SpecViolation {
    QString path;    // JSON path from the spec root, e.g. "$.aSide.accessPoint.port.uuid"
    QString message; // what is wrong and what is allowed
    bool operator==(const SpecViolation &) const = default;
};

// "$.bandwidth: must be ... ; $.name: ..." for messages.
QString formatViolations(const QList<SpecViolation> &violations);

namespace ChangeSpec {
// JSON Schema (draft 2020-12 subset) of one change type's spec. Unknown fields are rejected
// (additionalProperties: false at every level).
QJsonObject schema(ChangeType type);
// Input schema of fabric_propose_change: {change_type, spec} where spec's schema depends on
// change_type.
QJsonObject proposeInputSchema();
// Every violation (schema, cross-field rules and text rules), each with its JSON path.
// Empty = valid.
QList<SpecViolation> validate(ChangeType type, const QJsonValue &spec);
// The text rules alone, for every string anywhere in the spec (core/UntrustedText.h): no C0/C1
// control, U+2028/U+2029 or bidi control, and no '<' or '>'. One violation per rule per string.
QList<SpecViolation> validateText(const QJsonValue &spec);
// One-line human summary compiled from the spec only (names when the spec has them, else
// uuids), e.g. "EVPL_VC 1 Gbps port SV-Port-01 (SV) → AWS us-west-1" or
// "EVPL_VC 50 Mbps port <uuid> (SV) → service profile <uuid> (DC)".
QString summarize(ChangeType type, const QJsonObject &spec);
// The time-dependent rules that validate() leaves out (it has no clock): a service token's
// expirationDateTime must be after nowMs (milliseconds since the epoch, e.g. Clock::nowMs()).
// Empty for other change types and for specs whose expiry validate() already rejects.
QList<SpecViolation> validateTimes(ChangeType type, const QJsonValue &spec, qint64 nowMs);
// Bandwidth for people: whole multiples of 1000 Mbps as "1 Gbps"/"10 Gbps", else "50 Mbps".
QString bandwidthText(double mbps);
} // namespace ChangeSpec

struct CompileResult {
    std::optional<CompiledRequest> request;
    QList<SpecViolation> violations;
    bool ok() const { return request.has_value(); }
};

// Spec -> CompiledRequest. Virtual so tests can inject a drifting compiler.
class ChangeCompiler {
public:
    virtual ~ChangeCompiler() = default;
    virtual CompileResult compile(ChangeType type, const QJsonValue &spec) const;
};

} // namespace fb
