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
// Every violation (schema and cross-field rules), each with its JSON path. Empty = valid.
QList<SpecViolation> validate(ChangeType type, const QJsonValue &spec);
// One-line human summary compiled from the spec, e.g.
// "EVPL_VC 1 Gbps port <name or uuid> (SV) -> service profile <name or uuid> (SV)".
QString summarize(ChangeType type, const QJsonObject &spec);
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
