#include "app/TeamCommand.h"

#include "app/ConsoleOutput.h"
#include "app/Subcommand.h"
#include "core/Policy.h"
#include "core/TeamPolicy.h"
#include "core/UntrustedText.h"
#include "team/ApprovalKeys.h"
#include "team/PgConnection.h"
#include "team/TeamAudit.h"
#include "team/TeamSchema.h"
#include "team/TeamVerify.h"
#ifdef HAVE_FABRICBROKER_KEYCHAIN
#include "keychain/ApproverKeyStore.h"
#include "keychain/CredentialStore.h"
#endif

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QSaveFile>

#include <cstdio>
#include <memory>

namespace fb {

namespace {

using team::PgConnection;
using team::TeamSchema;

using console::err;
using console::out;

QString help()
{
    return QStringLiteral(
        "Usage: fabric-broker team <command> [URI]\n"
        "Team mode's shared PostgreSQL database (docs/team.md).\n"
        "\n"
        "Commands:\n"
        "  init URI     create or migrate the schema fabric_team; run it as the role that owns\n"
        "               (or will own) the schema; idempotent; refuses a newer schema\n"
        "  status URI   the schema version and the role this connection is\n"
        "  key          this operator's Ed25519 approval key (made in the OS keychain on first\n"
        "               use): prints its public key and fingerprint for the administrator's\n"
        "               team.approver_keys, never the private key\n"
        "  verify URI [--since DATE] [--export FILE]\n"
        "  verify --bundle FILE [--trust-bundle-keys]\n"
        "               check the team's history; 'team verify --help' says what holds\n"
        "\n"
        "An approver's decisions from a terminal (headless or over SSH), on the database the\n"
        "administrator's team.database names:\n"
        "  pending      the proposals open to a decision, with their approvals so far\n"
        "  show ID      exactly the text the desktop app's Team approvals dialog shows\n"
        "  approve ID [--key keychain | --key ssh-agent[:FINGERPRINT]]\n"
        "  deny ID [--key ...]\n"
        "               print that text, ask for the first 8 characters of its Request\n"
        "               SHA-256 typed on the terminal, record the signed decision;\n"
        "               'team approve --help' says more\n"
        "\n"
        "URI is a libpq connection URI, e.g. postgresql://fb_owner@db.example.com/fabric?"
        "sslmode=verify-full\n"
        "Keep passwords out of it (a command line is visible to other local users): use\n"
        "~/.pgpass, peer or certificate authentication.\n"
        "Verify the team audit chain with 'fabric-broker audit verify --team URI'.\n"
        "Exit codes: 0 = done, 1 = refused by the database, schema mismatch, a verify\n"
        "failure, or a decision not confirmed or not recorded, 2 = usage error, no\n"
        "connection, no keychain, no key or no terminal.\n");
}

QString verifyHelp()
{
    return QStringLiteral(
        "Usage: fabric-broker team verify URI [--since DATE] [--export FILE]\n"
        "       fabric-broker team verify --bundle FILE [--trust-bundle-keys]\n"
        "Checks the team's history (docs/team-signing.md), read from the database in one\n"
        "snapshot or from an exported bundle. It fails, naming the row, when:\n"
        "  - a team audit chain row's seq, prev_hash or hash does not hold;\n"
        "  - the chain and the rows disagree, either way: a proposal, approval or resolution\n"
        "    without its chain event (proposal_created, approval_recorded, outcome_resolved),\n"
        "    a chain event whose row is gone, a row that differs from its event, a state\n"
        "    change without a proposal_state event, or a row whose state is not the last one\n"
        "    the chain moved it to;\n"
        "  - an approval or resolution does not verify against team.approver_keys;\n"
        "  - a create (a proposal sending, created, unknown or not_created, or failed once\n"
        "    sent) lacks the verified approvals the policy's team.quorum requires for its\n"
        "    price, from roles other than the proposer's (the proposer's own role, the\n"
        "    proposing OS user on the proposing host, an unsigned approval and one recorded\n"
        "    after the create was sent never count), or anyone denied it.\n"
        "The quorum is the policy's where verify runs. One line per create says who approved\n"
        "what, with what they saw. Every value from the database or the bundle is printed\n"
        "escaped (control, bidi and invisible characters as \\n, \\u202E) and cut at 200\n"
        "characters.\n"
        "\n"
        "  --since DATE    the proposals created from DATE (ISO 8601, UTC); the chain's events\n"
        "                  of proposals created before it are outside the history\n"
        "  --export FILE   also write a bundle that verifies without the database\n"
        "  --bundle FILE   verify an exported bundle offline, against the effective policy's\n"
        "                  team.approver_keys, never the bundle's own keys; without policy keys\n"
        "                  it prints UNVERIFIED and exits 1\n"
        "  --trust-bundle-keys\n"
        "                  with --bundle and no policy keys: verify against the keys the bundle\n"
        "                  lists (whoever wrote the bundle chose them: compare the printed\n"
        "                  fingerprints with 'fabric-broker team key' on each workstation)\n"
        "\n"
        "Exit codes: 0 = OK, 1 = a failure, or UNVERIFIED, 2 = usage error, no policy keys (URI),\n"
        "no connection or an unreadable file.\n");
}

QString initHelp()
{
    return QStringLiteral(
        "Usage: fabric-broker team init URI\n"
        "Creates the schema fabric_team in the database at URI, or migrates it to the newest\n"
        "version this fabric-broker knows; refuses a schema newer than that. Idempotent. Run\n"
        "it as the role that owns (or will own) the schema; docs/team.md says which roles\n"
        "propose and which approve.\n"
        "URI is a libpq connection URI; keep passwords out of it (~/.pgpass, peer or\n"
        "certificate authentication).\n"
        "Exit codes: 0 = done, 1 = refused by the database or a newer schema, 2 = usage\n"
        "error or no connection.\n");
}

QString statusHelp()
{
    return QStringLiteral(
        "Usage: fabric-broker team status URI\n"
        "Prints the version of the schema fabric_team at URI, the newest this fabric-broker\n"
        "knows, which role the connection is and whether that role is a member of\n"
        "fabric_proposers or fabric_approvers.\n"
        "Exit codes: 0 = the schema is the version this fabric-broker needs, 1 = no schema,\n"
        "an older or newer one, or a role that may not read it, 2 = usage error or no\n"
        "connection.\n");
}

QString keyHelp()
{
    return QStringLiteral(
        "Usage: fabric-broker team key\n"
        "Prints this operator's Ed25519 approval key: its public key (base64) and its\n"
        "fingerprint (SHA256:..., as OpenSSH writes it), for the administrator to list in\n"
        "team.approver_keys. The key is made in the OS keychain (Secret Service) on first use;\n"
        "the private key never leaves it and is never printed. The desktop app signs every\n"
        "team decision with it.\n"
        "Exit codes: 0 = printed, 2 = usage error or no keychain.\n");
}

std::unique_ptr<PgConnection> connect(const QString &command, const QString &uri)
{
    auto c = PgConnection::open(uri);
    if (!c.ok()) {
        err(QStringLiteral("fabric-broker %1: cannot connect: %2\n").arg(command, c.error.text()));
        return nullptr;
    }
    return std::move(*c.value);
}

int init(const QString &uri)
{
    const auto db = connect(QStringLiteral("team init"), uri);
    if (!db)
        return 2;
    const team::MigrateResult r = TeamSchema::migrate(*db);
    if (!r.ok) {
        err(QStringLiteral("fabric-broker team init: %1\n").arg(r.error));
        return 1;
    }
    if (r.applied.isEmpty())
        out(QStringLiteral("fabric_team is at version %1, the newest this fabric-broker knows: "
                           "nothing to do (%2)\n")
                .arg(r.toVersion)
                .arg(db->describe()));
    else
        out(QStringLiteral("fabric_team migrated from version %1 to %2 (applied %3; %4)\n")
                .arg(r.fromVersion)
                .arg(r.toVersion)
                .arg(r.applied.join(QStringLiteral(", ")), db->describe()));
    return 0;
}

int status(const QString &uri)
{
    const auto db = connect(QStringLiteral("team status"), uri);
    if (!db)
        return 2;
    team::PgError e;
    const auto version = TeamSchema::currentVersion(*db, &e);
    if (!version) {
        err(QStringLiteral("fabric-broker team status: %1\n").arg(e.text()));
        if (e.sqlState == u"42501")
            err(QStringLiteral("%1 may not read the schema fabric_team: it is a member of "
                               "neither fabric_proposers nor fabric_approvers\n")
                    .arg(db->role()));
        return 1;
    }
    const auto roles =
        db->exec("SELECT pg_has_role(current_user, 'fabric_proposers', 'USAGE') AS proposer, "
                 "pg_has_role(current_user, 'fabric_approvers', 'USAGE') AS approver "
                 "WHERE EXISTS (SELECT FROM pg_roles WHERE rolname = 'fabric_proposers') "
                 "AND EXISTS (SELECT FROM pg_roles WHERE rolname = 'fabric_approvers')");
    QString member = QStringLiteral("the roles fabric_proposers and fabric_approvers do not exist");
    if (roles.ok() && roles.value->rowCount() == 1) {
        QStringList in;
        if (roles.value->value(0, "proposer") == "t")
            in << QStringLiteral("fabric_proposers");
        if (roles.value->value(0, "approver") == "t")
            in << QStringLiteral("fabric_approvers");
        member = in.isEmpty() ? QStringLiteral("member of neither fabric_proposers nor "
                                               "fabric_approvers")
                              : QStringLiteral("member of ") + in.join(QStringLiteral(", "));
    }
    const int known = TeamSchema::knownVersion();
    out(QStringLiteral("%1\nschema fabric_team: version %2 (this fabric-broker knows %3)\n%4\n")
            .arg(db->describe())
            .arg(*version)
            .arg(known)
            .arg(member));
    // An upgrade leaves the schema where it was until its owner migrates it: say what to do.
    if (*version == 0)
        out(QStringLiteral("there is no schema yet: the schema owner runs `fabric-broker team "
                           "init URI`\n"));
    else if (*version < known)
        out(QStringLiteral("the schema is older than this fabric-broker needs: team mode refuses "
                           "it until the schema owner runs `fabric-broker team init URI`\n"));
    else if (*version > known)
        out(QStringLiteral("the schema is newer than this fabric-broker knows: team mode refuses "
                           "it; upgrade fabric-broker\n"));
    return *version == known ? 0 : 1;
}

Policy effectivePolicy()
{
    const PolicyLoadResult policy = loadPolicy(PolicyPaths::fromEnvironment());
    for (const QString &e : policy.errors)
        err(QStringLiteral("fabric-broker team verify: policy: %1\n").arg(e));
    return policy.effective;
}

// Every line through UntrustedText once more: the library escaped each value already (idempotent),
// this keeps any line the library did not build (a database's error) inert too.
void print(const QString &line)
{
    out(UntrustedText::escapeInvisible(line) + u'\n');
}

int report(const team::TeamVerifyReport &r, const QString &what, const QString &keysNote = {})
{
    for (const QString &line : r.creates)
        print(line);
    for (const QString &f : r.failures)
        print(QStringLiteral("FAIL: ") + f);
    if (!r.ok()) {
        print(QStringLiteral("BROKEN: %1: %2 failure(s)").arg(what).arg(r.failures.size()));
        return 1;
    }
    print(QStringLiteral("OK: %1: %2 create(s), every approval verified%3")
              .arg(what)
              .arg(r.creates.size())
              .arg(keysNote));
    return 0;
}

int verifyBundle(const QString &path, bool trustBundleKeys)
{
    const QString what = QStringLiteral("bundle ") + team::shown(path);
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly) || f.size() > team::TeamHistory::MaxBundleBytes) {
        err(QStringLiteral("fabric-broker team verify: cannot read %1 (%2)\n")
                .arg(team::shown(path), f.errorString()));
        return 2;
    }
    QString why;
    const auto history = team::TeamHistory::fromBundle(f.readAll(), &why);
    if (!history) {
        print(QStringLiteral("BROKEN: %1: %2").arg(what, why));
        return 1;
    }
    const Policy policy = effectivePolicy();
    auto keys = policy.teamApproverKeys;
    QString note;
    if (keys) {
        if (!history->keys.isEmpty())
            print(QStringLiteral("note: verifying against the policy's team.approver_keys; the "
                                 "bundle's own %1 key(s) are not used")
                      .arg(history->keys.size()));
    } else if (!trustBundleKeys) {
        print(QStringLiteral(
                  "UNVERIFIED: %1: the policy lists no team.approver_keys, and the bundle's own "
                  "keys are whatever its writer chose: nothing was verified. Set "
                  "team.approver_keys in the policy, or compare the bundle's fingerprints with "
                  "'fabric-broker team key' on each workstation and pass --trust-bundle-keys")
                  .arg(what));
        return 1;
    } else {
        print(QStringLiteral("note: --trust-bundle-keys: the policy lists no team.approver_keys; "
                             "verifying against the bundle's own keys, which its writer chose; "
                             "compare their fingerprints:"));
        for (const ApproverKey &k : history->keys)
            print(QStringLiteral("  %1 %2").arg(team::shown(k.role), k.fingerprint));
        keys = history->keys;
        note = QStringLiteral(" against the bundle's own keys (--trust-bundle-keys)");
    }
    return report(team::verifyHistory(*history, *keys, policy), what, note);
}

int verify(const QString &uri, const QStringList &options)
{
    std::optional<qint64> since;
    QString exportPath;
    for (qsizetype i = 0; i + 1 < options.size(); i += 2) {
        if (options.at(i) == u"--since") {
            QDateTime t = QDateTime::fromString(options.at(i + 1), Qt::ISODateWithMs);
            if (!t.isValid())
                t = QDateTime::fromString(options.at(i + 1) + QStringLiteral("T00:00:00Z"),
                                          Qt::ISODate);
            if (t.isValid() && t.timeSpec() == Qt::LocalTime)
                t.setTimeSpec(Qt::UTC); // no zone given: UTC, as documented
            if (!t.isValid() || since) {
                err(QStringLiteral("fabric-broker team verify: --since must be an ISO 8601 date "
                                   "or time (2026-12-01, 2026-12-01T08:00:00Z)\n"));
                return 2;
            }
            since = t.toMSecsSinceEpoch();
        } else if (options.at(i) == u"--export" && exportPath.isEmpty()) {
            exportPath = options.at(i + 1);
        } else {
            err(QStringLiteral("fabric-broker team verify: unknown option %1\n")
                    .arg(options.at(i)));
            return 2;
        }
    }
    if (options.size() % 2 != 0) {
        err(QStringLiteral("fabric-broker team verify: %1 needs a value\n").arg(options.last()));
        return 2;
    }
    const Policy policy = effectivePolicy();
    const auto keys = policy.teamApproverKeys;
    if (!keys) {
        err(QStringLiteral("fabric-broker team verify: the policy sets no team.approver_keys: "
                           "there is no key to verify approvals against (docs/team-signing.md)\n"));
        return 2;
    }
    const auto db = connect(QStringLiteral("team verify"), uri);
    if (!db)
        return 2;
    const team::TeamAuditVerifyResult chain = team::TeamAudit::verify(*db);
    if (chain.dbError) {
        err(QStringLiteral("fabric-broker team verify: %1\n").arg(team::shown(chain.problem)));
        return 2;
    }
    QString why;
    auto history = team::TeamHistory::read(*db, since, &why);
    if (!history) {
        err(QStringLiteral("fabric-broker team verify: %1\n").arg(team::shown(why)));
        return 2;
    }
    history->keys = *keys;
    team::TeamVerifyReport r = team::verifyHistory(*history, *keys, policy);
    if (!chain.ok)
        r.failures.prepend(QStringLiteral("team audit chain: ") + chain.problem);
    if (!exportPath.isEmpty()) {
        QSaveFile f(exportPath);
        if (!f.open(QIODevice::WriteOnly) || f.write(history->toBundle()) < 0 || !f.commit()) {
            err(QStringLiteral("fabric-broker team verify: cannot write %1 (%2)\n")
                    .arg(exportPath, f.errorString()));
            return 2;
        }
        out(QStringLiteral("exported %1 proposal(s), %2 approval(s), %3 audit row(s) to %4\n")
                .arg(history->proposals.size())
                .arg(history->approvals.size())
                .arg(history->audit.size())
                .arg(exportPath));
    }
    return report(r, QStringLiteral("team history"));
}

int key()
{
#ifdef HAVE_FABRICBROKER_KEYCHAIN
    using keychain::ApproverKeyStore;
    ApproverKeyStore store(QString::fromLatin1(keychain::CredentialStore::DefaultService));
    int code = 2;
    store.load(true, [&code](bool ok, const QByteArray &privateKey, bool created,
                             const QString &error) {
        if (!ok) {
            err(QStringLiteral("fabric-broker team key: %1\n").arg(error));
        } else {
            const QByteArray pub =
                team::ApprovalKeys::publicKeyOf(privateKey).value_or(QByteArray());
            if (created)
                err(QStringLiteral("fabric-broker team key: made a new approval key in the "
                                   "keychain (entry %1)\n")
                        .arg(QString::fromLatin1(ApproverKeyStore::EntryName)));
            out(QStringLiteral("public_key  %1\nfingerprint %2\n")
                    .arg(team::ApprovalKeys::toBase64(pub), team::ApprovalKeys::fingerprint(pub)));
            code = 0;
        }
        QCoreApplication::exit(code);
    });
    QCoreApplication::exec();
    return code;
#else
    err(QStringLiteral("fabric-broker team key: this build has no keychain support\n"));
    return 2;
#endif
}

} // namespace

int runTeamAuditVerify(const QString &uri)
{
    const auto db = connect(QStringLiteral("audit verify --team"), uri);
    if (!db)
        return 2;
    const team::TeamAuditVerifyResult r = team::TeamAudit::verify(*db);
    if (r.dbError) {
        err(QStringLiteral("fabric-broker audit verify --team: %1\n").arg(r.problem));
        return 2;
    }
    if (!r.ok) {
        out(QStringLiteral("BROKEN: team audit chain (%1 rows read): %2\n")
                .arg(r.rows)
                .arg(r.problem));
        return 1;
    }
    out(QStringLiteral("OK: team audit chain intact, %1 rows, head %2:%3\n")
            .arg(r.rows)
            .arg(r.headSeq)
            .arg(QString::fromLatin1(r.headHash.toHex())));
    return 0;
}

int runTeamCommand(const QStringList &args)
{
    QStringList rest = subcommandWords(args, u"team");
    if (const std::optional<int> exit = answerUsage(rest, help()))
        return *exit;
    const QString command = rest.takeFirst();
    if (isTeamTerminalCommand(command))
        return runTeamTerminalCommand(command, rest);
    // Every command answers --help (or -h) with its own usage, wherever the flag stands.
    if (rest.contains(QStringLiteral("--help")) || rest.contains(QStringLiteral("-h"))) {
        const QString usage = command == u"init"     ? initHelp()
                              : command == u"status" ? statusHelp()
                              : command == u"key"    ? keyHelp()
                              : command == u"verify" ? verifyHelp()
                                                     : QString();
        if (!usage.isEmpty()) {
            out(usage);
            return 0;
        }
    }
    if (command == u"key" && rest.isEmpty())
        return key();
    if (command == u"verify" && rest.contains(QStringLiteral("--bundle"))) {
        const bool trust = rest.removeAll(QStringLiteral("--trust-bundle-keys")) == 1;
        if (rest.size() == 2 && rest.first() == u"--bundle")
            return verifyBundle(rest.last(), trust);
        err(QStringLiteral("fabric-broker team verify: --bundle FILE takes only "
                           "--trust-bundle-keys\n") +
            verifyHelp());
        return 2;
    }
    if (command == u"verify" && !rest.isEmpty() && !rest.first().startsWith(u'-'))
        return verify(rest.first(), rest.mid(1));
    if (rest.size() == 1 && !rest.first().startsWith(u'-')) {
        if (command == u"init")
            return init(rest.first());
        if (command == u"status")
            return status(rest.first());
    }
    err(QStringLiteral("fabric-broker team: unknown command or arguments\n") + help());
    return 2;
}

} // namespace fb
