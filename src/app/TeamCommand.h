#pragma once
// "fabric-broker team ...": the team database (src/team, docs/team.md).
//
//   fabric-broker team init URI    create or migrate the schema fabric_team (as its owner)
//   fabric-broker team status URI  the schema version and who this connection is
//   fabric-broker team key         this operator's approval key: public key and fingerprint
//   fabric-broker team verify URI [--since DATE] [--export FILE] | --bundle FILE
//                                  signed approvals and the audit chain (docs/team-signing.md)
//   fabric-broker team pending     the proposals open to a decision (TeamTerminalCommand.cpp)
//   fabric-broker team show ID     the text the Team approvals dialog shows for one
//   fabric-broker team approve ID [--key keychain|ssh-agent[:FINGERPRINT]]
//   fabric-broker team deny ID [--key ...]
//                                  this role's decision, confirmed on the terminal, signed
//
// URI is a libpq connection URI (postgresql://...); keep passwords out of it (use .pgpass, peer or
// certificate authentication): a command line is visible to every local user.
// Exit codes: 0 = done, 1 = the database refused, the schema is not what this binary knows or a
// verify failed, 2 = usage error, no connection or no keychain.
#include <QStringList>

namespace fb {

// args: the full command line ({program, "team", ...}). Prints to stdout, errors to stderr.
int runTeamCommand(const QStringList &args);

// Whether command is one of an approver's terminal commands: pending, show, approve, deny.
bool isTeamTerminalCommand(const QString &command);
// "fabric-broker team <command> args..." for those (docs/team.md, "From a terminal"): the
// database is the administrator's team.database. Exit codes: 0 = done, 1 = refused, not
// confirmed or not recorded, 2 = usage error, no team.database, no connection, no key or no
// terminal.
int runTeamTerminalCommand(const QString &command, const QStringList &args);

// "fabric-broker audit verify --team URI": verifies the team audit chain (src/team/TeamAudit).
// Exit codes as "audit verify": 0 = intact, 1 = broken, 2 = usage or connection error.
int runTeamAuditVerify(const QString &uri);

} // namespace fb
