// The operator policy's layers (src/core/Policy): the tighten-only merge of the administrator's
// and the user's files (the stricter value wins, a looser one is ignored and reported, the
// approval channels' ranks), and loading the files: the administrator file's ownership rule, a
// user file's errors and a file that cannot be examined refuse mutate.
#include "TestEnvironment.h"
#include "core/Policy.h"
#include "policy_fixtures.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace fb;
using fbtest::parseOk;

class TestPolicyLayers : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void mergeTakesTheStricterValue();
    void mergeIgnoresAndReportsLooserUserValues();
    void mergeEqualValuesKeepTheAdministratorAsSource();
    void mergeUserAloneSetsKeys();
    void auditExportIsTheAdministrators();
    void webhooksAreTheAdministrators();
    void otlpEndpointFromAUserOnlyWhereTheAdministratorSetNone();
    void channelRanks();
    void adminFileOwnership();
    void userFileErrorsRefuseMutate();
    void unstattableFilesRefuseMutate();
};

void TestPolicyLayers::mergeTakesTheStricterValue()
{
    const Policy admin = parseOk(R"({
        "spend": {"max_monthly_recurring_per_change": {"amount": 500, "currency": "USD"},
                  "unpriced": "require_desktop"},
        "approval": {"channel": "auto"},
        "revalidate_before_send_after_ms": 30000,
        "toolsets": {"allowed": ["read", "mutate"]}
    })",
                                 "admin");
    const Policy user = parseOk(R"({
        "spend": {"max_monthly_recurring_per_change": {"amount": 100, "currency": "USD"},
                  "max_monthly_recurring_per_day": {"amount": 300, "currency": "USD"},
                  "unpriced": "deny"},
        "approval": {"channel": "desktop"},
        "revalidate_before_send_after_ms": 0,
        "toolsets": {"allowed": ["read"]},
        "allow_unconfirmed_mutations": false
    })",
                                "user");
    const PolicyMergeResult m = mergePolicy(admin, user);
    QVERIFY2(m.ignored.isEmpty(), qPrintable(m.ignored.join('\n')));
    const Policy &e = m.effective;
    QCOMPARE(e.maxPerChange, (Money{100, "USD"}));
    QCOMPARE(e.maxPerDay, (Money{300, "USD"}));
    QCOMPARE(e.unpriced, UnpricedRule::Deny);
    QCOMPARE(e.channel, PolicyChannel::Desktop);
    QCOMPARE(e.revalidateAfterMs, 0);
    QCOMPARE(e.toolsetsAllowed, QStringList{"read"});
    QCOMPARE(e.allowUnconfirmed, false);
    for (const QString &key : Policy::keys()) {
        if (e.isSet(key))
            QCOMPARE(e.sources.value(key), QStringLiteral("user"));
    }
}

void TestPolicyLayers::mergeIgnoresAndReportsLooserUserValues()
{
    const Policy admin = parseOk(R"({
        "spend": {"max_monthly_recurring_per_change": {"amount": 500, "currency": "USD"},
                  "max_monthly_recurring_per_day": {"amount": 1000, "currency": "USD"},
                  "unpriced": "deny"},
        "approval": {"channel": "desktop",
                     "desktop_required_above_monthly": {"amount": 100, "currency": "USD"},
                     "typed_confirmation_above_monthly": {"amount": 100, "currency": "USD"}},
        "revalidate_before_send_after_ms": 30000,
        "toolsets": {"allowed": ["read"]},
        "allow_unconfirmed_mutations": false,
        "fabric": {"endpoint": "https://api.equinix.com"},
        "team": {"database": "postgresql://db.example/team",
                 "quorum": [{"above_monthly": {"amount": 500, "currency": "USD"}, "approvals": 2}],
                 "approver_keys": [{"role": "alice",
                     "fingerprint": "SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk",
                     "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}]},
        "observability": {"otlp_endpoint": "https://otel.corp.example"},
        "audit": {"syslog": "tls://siem.corp.example:6514"},
        "notify": {"webhooks": [{"url": "https://hooks.slack.com/services/ADMIN", "format": "slack"}]}
    })",
                                 "admin");
    const Policy user = parseOk(R"({
        "spend": {"max_monthly_recurring_per_change": {"amount": 500.01, "currency": "USD"},
                  "max_monthly_recurring_per_day": {"amount": 10, "currency": "EUR"},
                  "unpriced": "allow"},
        "approval": {"channel": "auto",
                     "desktop_required_above_monthly": {"amount": 200, "currency": "USD"},
                     "typed_confirmation_above_monthly": {"amount": 300, "currency": "USD"}},
        "revalidate_before_send_after_ms": 30001,
        "toolsets": {"allowed": ["read", "mutate"]},
        "allow_unconfirmed_mutations": true,
        "fabric": {"endpoint": "https://sandbox.example"},
        "team": {"database": "postgresql://elsewhere.example/team",
                 "quorum": [{"above_monthly": {"amount": 600, "currency": "USD"}, "approvals": 2},
                            {"above_monthly": {"amount": 500, "currency": "USD"}, "approvals": 1}],
                 "approver_keys": [{"role": "alice",
                     "fingerprint": "SHA256:If4x36FUomFia/hUBG/SJxt77UtqvkWqWId+9H+XIbk",
                     "public_key": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="},
                     {"role": "carol",
                     "fingerprint": "SHA256:OfcT0KZEJT8EUpQhufUbmwiXnQgpWVnE85kO5hf1E58",
                     "public_key": "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw="}]},
        "observability": {"otlp_endpoint": "http://127.0.0.1:9"},
        "audit": {"syslog": "tcp://127.0.0.1:9"},
        "notify": {"webhooks": [{"url": "https://agent.example/collect/USERSECRET"}]}
    })",
                                "user");
    const PolicyMergeResult m = mergePolicy(admin, user);
    for (const QString &key : Policy::keys()) {
        QCOMPARE(m.effective.value(key), admin.value(key));
        QVERIFY2(m.effective.sources.value(key) == u"admin", qPrintable(key));
    }
    QCOMPARE(m.ignored.size(), Policy::keys().size());
    for (const QString &key : Policy::keys()) {
        const QStringList lines = m.ignored.filter(key + ": the value ");
        QCOMPARE(lines.size(), 1);
        if (key == u"spend.max_monthly_recurring_per_day")
            QVERIFY(lines.first().contains("cannot be compared"));
        else if (key != u"fabric.endpoint" && key != u"team.database" &&
                 key != u"observability.otlp_endpoint" && key != u"audit.syslog" &&
                 key != u"notify.webhooks")
            QVERIFY2(lines.first().contains("looser"), qPrintable(lines.first()));
    }
}

void TestPolicyLayers::mergeEqualValuesKeepTheAdministratorAsSource()
{
    const Policy admin = parseOk(R"({"spend": {"unpriced": "deny"}})", "admin");
    const Policy user = parseOk(R"({"spend": {"unpriced": "deny"}})", "user");
    const PolicyMergeResult m = mergePolicy(admin, user);
    QVERIFY(m.ignored.isEmpty());
    QCOMPARE(m.effective.sources.value("spend.unpriced"), QStringLiteral("admin"));
}

void TestPolicyLayers::auditExportIsTheAdministrators()
{
    // Where every audit record also goes: a user's file (which the agent can write) cannot
    // name it, with or without an administrator's value; a second administrator-layer file can
    // where the first sets none.
    const Policy user = parseOk(R"({"audit": {"syslog": "tcp://attacker.example:514"}})", "user");
    PolicyMergeResult m = mergePolicy(Policy{}, user);
    QVERIFY(!m.effective.auditSyslog);
    QCOMPARE(m.ignored.size(), 1);
    QVERIFY2(m.ignored.first().startsWith("audit.syslog: the value \"tcp://attacker.example:514\" "
                                          "from user is ignored: the audit export is set by the "
                                          "administrator's policy alone"),
             qPrintable(m.ignored.first()));
    const Policy admin = parseOk(R"({"audit": {"syslog": "tls://siem.example:6514"}})", "admin");
    m = mergePolicy(admin, user);
    QCOMPARE(m.effective.auditSyslog, QStringLiteral("tls://siem.example:6514"));
    QCOMPARE(m.effective.sources.value("audit.syslog"), QStringLiteral("admin"));
    QCOMPARE(m.ignored.size(), 1);
    const Policy extra = parseOk(R"({"audit": {"syslog": "tcp://10.0.0.2:514"}})", "extra");
    m = mergePolicy(Policy{}, extra, PolicyLayer::Administrator);
    QCOMPARE(m.effective.auditSyslog, QStringLiteral("tcp://10.0.0.2:514"));
    QCOMPARE(m.effective.sources.value("audit.syslog"), QStringLiteral("extra"));
    m = mergePolicy(admin, extra, PolicyLayer::Administrator);
    QCOMPARE(m.effective.auditSyslog, QStringLiteral("tls://siem.example:6514"));
    QVERIFY2(
        m.ignored.value(0).contains("the administrator requires the audit export set in admin"),
        qPrintable(m.ignored.join('\n')));
}

void TestPolicyLayers::webhooksAreTheAdministrators()
{
    // Where every proposal's summary goes: a user's file (which the agent can write) cannot add
    // a webhook, with or without the administrator's; the report shows the URL's origin only.
    const Policy user = parseOk(
        R"({"notify": {"webhooks": [{"url": "https://agent.example/collect/USERSECRET"}]}})",
        "user");
    PolicyMergeResult m = mergePolicy(Policy{}, user);
    QVERIFY(!m.effective.notifyWebhooks);
    QVERIFY(!m.effective.isSet("notify.webhooks"));
    QCOMPARE(m.ignored.size(), 1);
    QVERIFY2(m.ignored.first().startsWith(
                 "notify.webhooks: the value [{\"events\":[\"needs_approval\",\"approved\","
                 "\"denied\",\"created\",\"unknown\"],\"format\":\"generic\",\"url\":"
                 "\"https://agent.example/\u2026\"}] from user is ignored: the webhooks are set "
                 "by the administrator's policy alone"),
             qPrintable(m.ignored.first()));
    QVERIFY(!m.ignored.first().contains("USERSECRET"));
    const Policy admin =
        parseOk(R"({"notify": {"webhooks": [{"url": "https://hooks.slack.com/services/ADMIN"}]}})",
                "admin");
    m = mergePolicy(admin, user);
    QCOMPARE(m.effective.notifyWebhooks, admin.notifyWebhooks);
    QCOMPARE(m.effective.sources.value("notify.webhooks"), QStringLiteral("admin"));
    QCOMPARE(m.ignored.size(), 1);
    // A second administrator-layer file sets them where the first does not, and is reported
    // where it names others.
    const Policy extra = parseOk(
        R"({"notify": {"webhooks": [{"url": "https://extra.example/EXTRASECRET"}]}})", "extra");
    m = mergePolicy(Policy{}, extra, PolicyLayer::Administrator);
    QCOMPARE(m.effective.notifyWebhooks, extra.notifyWebhooks);
    QCOMPARE(m.effective.sources.value("notify.webhooks"), QStringLiteral("extra"));
    m = mergePolicy(admin, extra, PolicyLayer::Administrator);
    QCOMPARE(m.effective.notifyWebhooks, admin.notifyWebhooks);
    QVERIFY2(m.ignored.value(0).contains("the administrator's webhooks are set in admin"),
             qPrintable(m.ignored.join('\n')));
    QVERIFY(!m.ignored.join('\n').contains("EXTRASECRET"));
}

void TestPolicyLayers::otlpEndpointFromAUserOnlyWhereTheAdministratorSetNone()
{
    const Policy user =
        parseOk(R"({"observability": {"otlp_endpoint": "http://127.0.0.1:4318"}})", "user");
    PolicyMergeResult m = mergePolicy(Policy{}, user);
    QVERIFY(m.ignored.isEmpty());
    QCOMPARE(m.effective.otlpEndpoint, QStringLiteral("http://127.0.0.1:4318"));
    QCOMPARE(m.effective.sources.value("observability.otlp_endpoint"), QStringLiteral("user"));
    const Policy admin =
        parseOk(R"({"observability": {"otlp_endpoint": "https://otel.corp.example"}})", "admin");
    m = mergePolicy(admin, user);
    QCOMPARE(m.effective.otlpEndpoint, QStringLiteral("https://otel.corp.example"));
    QCOMPARE(m.ignored.size(), 1);
    QVERIFY2(m.ignored.first().contains("the administrator sends telemetry to "
                                        "https://otel.corp.example (admin)"),
             qPrintable(m.ignored.first()));
}

void TestPolicyLayers::mergeUserAloneSetsKeys()
{
    const Policy user = parseOk(R"({"fabric": {"endpoint": "https://a.example"}})", "user");
    const PolicyMergeResult m = mergePolicy(Policy{}, user);
    QCOMPARE(m.effective.fabricEndpoint, QStringLiteral("https://a.example"));
    QCOMPARE(m.effective.sources.value("fabric.endpoint"), QStringLiteral("user"));
}

void TestPolicyLayers::adminFileOwnership()
{
    if (::geteuid() != 0)
        QSKIP("needs root to create a root-owned file");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(::chmod(QFile::encodeName(dir.path()).constData(), 0755) == 0);
    const QString path = dir.filePath("policy.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"spend": {"unpriced": "deny"}})");
    f.close();
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
    QCOMPARE(adminFileUnsafeReason(path), QString());
    PolicyPaths paths{QStringLiteral("/nonexistent/policy.json"), path, dir.filePath("user.json")};
    PolicyLoadResult r = loadPolicy(paths);
    QVERIFY(!r.refuseMutate);
    QCOMPARE(r.effective.unpriced, UnpricedRule::Deny);
    QVERIFY(r.lockedByAdministrator("spend.unpriced"));

    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0666) == 0);
    QVERIFY(adminFileUnsafeReason(path).contains("writable"));
    r = loadPolicy(paths);
    QVERIFY(r.refuseMutate);
    QVERIFY(!r.effective.unpriced);
    QVERIFY(r.errors.first().contains("IGNORED"));

    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
    QVERIFY(::chown(QFile::encodeName(path).constData(), 65534, 65534) == 0);
    QVERIFY(adminFileUnsafeReason(path).contains("owned by uid 65534"));
    QVERIFY(loadPolicy(paths).refuseMutate);
}

void TestPolicyLayers::userFileErrorsRefuseMutate()
{
    QTemporaryDir dir;
    const QString user = dir.filePath("user.json");
    QFile f(user);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"spend": {"unpriced": "maybe"}})");
    f.close();
    const PolicyLoadResult r = loadPolicy({"/nonexistent/a.json", {}, user});
    QVERIFY(r.refuseMutate);
    QVERIFY(r.errors.first().contains("spend.unpriced"));
    const PolicyLoadResult none = loadPolicy({"/nonexistent/a.json", {}, dir.filePath("x")});
    QVERIFY(!none.refuseMutate);
    QVERIFY(none.files.isEmpty());
}

void TestPolicyLayers::channelRanks()
{
    auto merged = [](const char *admin, const char *user) {
        const Policy a =
            admin ? parseOk(QByteArray(R"({"approval": {"channel": ")") + admin + "\"}}", "admin")
                  : Policy{};
        const Policy u =
            parseOk(QByteArray(R"({"approval": {"channel": ")") + user + "\"}}", "user");
        return mergePolicy(a, u);
    };
    // desktop is the only value stricter than auto (set or the default).
    PolicyMergeResult m = merged(nullptr, "desktop");
    QCOMPARE(m.effective.channel, PolicyChannel::Desktop);
    QCOMPARE(m.effective.sources.value("approval.channel"), QStringLiteral("user"));
    QVERIFY(m.ignored.isEmpty());
    m = merged("auto", "desktop");
    QCOMPARE(m.effective.channel, PolicyChannel::Desktop);
    // client is not comparable with auto: a user file cannot move approvals to the agent's
    // client "as tightening".
    for (const char *admin : {static_cast<const char *>(nullptr), "auto", "desktop"}) {
        m = merged(admin, "client");
        QCOMPARE(m.effective.channel,
                 admin ? std::optional<PolicyChannel>(admin == QByteArray("auto")
                                                          ? PolicyChannel::Auto
                                                          : PolicyChannel::Desktop)
                       : std::nullopt);
        QCOMPARE(m.ignored.size(), 1);
        QVERIFY2(m.ignored.first().contains("not comparable"), qPrintable(m.ignored.first()));
    }
    m = merged("client", "desktop");
    QCOMPARE(m.effective.channel, PolicyChannel::Client);
    QVERIFY(m.ignored.first().contains("not comparable"));
    m = merged("desktop", "auto");
    QCOMPARE(m.effective.channel, PolicyChannel::Desktop);
    QVERIFY(m.ignored.first().contains("looser"));
    m = merged("client", "client");
    QVERIFY(m.ignored.isEmpty());
    QCOMPARE(m.effective.sources.value("approval.channel"), QStringLiteral("admin"));
}

void TestPolicyLayers::unstattableFilesRefuseMutate()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A dangling link, a link loop and a path through a regular file: there, but not
    // readable. Each refuses mutate with the errno; only ENOENT is "absent".
    const QString dangling = dir.filePath("dangling.json");
    QVERIFY(QFile::link(dir.filePath("nowhere.json"), dangling));
    const QString loop = dir.filePath("loop.json");
    QVERIFY(QFile::link(loop, loop));
    const QString plain = dir.filePath("plain");
    QFile f(plain);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    const QString notDir = plain + "/policy.json";
    struct Case {
        QString path;
        const char *expect;
    };
    for (const Case &c :
         {Case{dangling, "ENOENT"}, Case{loop, "errno 40"}, Case{notDir, "errno 20"}}) {
        QVERIFY(policyFileExists(c.path));
        for (const PolicyPaths &paths :
             {PolicyPaths{c.path, {}, dir.filePath("absent.json")},
              PolicyPaths{"/nonexistent/a.json", c.path, dir.filePath("absent.json")},
              PolicyPaths{"/nonexistent/a.json", {}, c.path}}) {
            const PolicyLoadResult r = loadPolicy(paths);
            QVERIFY2(r.refuseMutate, qPrintable(c.path));
            QCOMPARE(r.failedFiles, QStringList{c.path});
            QVERIFY2(r.errors.first().contains(c.expect), qPrintable(r.errors.first()));
        }
    }
    QVERIFY(!policyFileExists(dir.filePath("absent.json")));
    QVERIFY(!loadPolicy({dir.filePath("a.json"), {}, dir.filePath("b.json")}).refuseMutate);
    if (::geteuid() != 0) {
        // EACCES: a directory the process may not search.
        const QString closed = dir.filePath("closed");
        QVERIFY(QDir().mkdir(closed));
        QVERIFY(::chmod(QFile::encodeName(closed).constData(), 0) == 0);
        const PolicyLoadResult r = loadPolicy({closed + "/policy.json", {}, {}});
        QVERIFY(::chmod(QFile::encodeName(closed).constData(), 0700) == 0);
        QVERIFY(r.refuseMutate);
        QVERIFY2(r.errors.first().contains("errno 13"), qPrintable(r.errors.first()));
    }
}

QTEST_GUILESS_MAIN(TestPolicyLayers)
#include "tst_policy_layers.moc"
