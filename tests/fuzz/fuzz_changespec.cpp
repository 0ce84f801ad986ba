// Fuzzes the change-spec validator and compiler: for every change type, ChangeSpec::validate,
// validateTimes and ChangeCompiler::compile on the parsed input. Properties: no
// crash/UB; compile succeeds exactly when validate reports nothing; a compiled body is
// canonical JSON (canonicalizing it again changes nothing), parses back to the spec, and
// hashes.
#include "FuzzCommon.h"
#include "core/CanonicalJson.h"
#include "core/ChangeSpec.h"

#include <QJsonDocument>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    QJsonParseError err;
    // Scalars too: the MCP layer hands whatever "spec" holds to the validator.
    const QJsonDocument doc = QJsonDocument::fromJson('[' + input + ']', &err);
    if (err.error != QJsonParseError::NoError || doc.array().size() != 1)
        return 0;
    const QJsonValue spec = doc.array().at(0);
    const fb::ChangeCompiler compiler;
    for (fb::ChangeType type : {fb::ChangeType::ConnectionCreate, fb::ChangeType::NetworkCreate,
                                fb::ChangeType::ServiceTokenCreate}) {
        const QList<fb::SpecViolation> violations = fb::ChangeSpec::validate(type, spec);
        (void)fb::formatViolations(violations);
        (void)fb::ChangeSpec::validateTimes(type, spec, 1767225600000);
        const fb::CompileResult result = compiler.compile(type, spec);
        if (result.ok() != violations.isEmpty())
            fbfuzz::fail("compile() and validate() disagree");
        if (!result.ok())
            continue;
        const std::optional<QByteArray> canon = fb::canonicalizeText(result.request->body);
        if (!canon || *canon != result.request->body)
            fbfuzz::fail("compiled body is not canonical JSON");
        // What is sent is what was written: the body parses back to the spec.
        if (spec.isObject() &&
            !fbfuzz::sameJson(QJsonDocument::fromJson(result.request->body).object(), spec))
            fbfuzz::fail("compiled body does not parse back to the spec");
        if (result.request->sha256Hex().size() != 64)
            fbfuzz::fail("request hash is not 64 hex digits");
        (void)result.request->toJson();
    }
    return 0;
}
