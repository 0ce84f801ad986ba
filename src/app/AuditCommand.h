#pragma once
// "fabric-broker audit ...": verify and export the audit trail (src/core/AuditLog).
//
//   fabric-broker audit verify [--strict] [--head SEQ:SHA256] [FILE]
//   fabric-broker audit head [FILE]
//   fabric-broker audit export --format csv|json [--since DATE] [FILE]
//
// FILE defaults to AuditLog::defaultPath() ($EQUINIX_MCP_AUDIT_LOG, else
// $XDG_DATA_HOME/fabric-broker/audit.jsonl). Exit codes: 0 = the chain is intact, 1 = the chain
// is broken or truncated (export still writes the records it could read), 2 = usage or I/O error.
#include <QStringList>

namespace fb {

// args: the full command line (QCoreApplication::arguments(), i.e. {program, "audit", ...});
// {"audit", ...} is accepted too. Prints results to stdout and errors to stderr.
int runAuditCommand(const QStringList &args);

} // namespace fb
