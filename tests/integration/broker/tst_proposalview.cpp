// What the person sees (ProposalView) and the one spelling of the dangerous switch
// (BrokerSettings): every escape of the elicitation text, values on their own lines, the Target
// line from Fabric's names and the request's identifiers only, never the agent's labels.
#include "TestEnvironment.h"
#include "broker/BrokerSettings.h"
#include "broker/ProposalView.h"
#include "core/ChangeSpec.h"
#include "core/UntrustedText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace fb;

namespace {

const QString kPort = QStringLiteral("50000000-0000-4000-8000-000000000001");
const QString kProfile = QStringLiteral("5e000000-0000-4000-8000-000000000001");

QJsonObject spec(const QString &name, const QString &portLabel, const QString &profileLabel)
{
    QJsonObject port{{"uuid", kPort}};
    if (!portLabel.isNull())
        port.insert("name", portLabel);
    QJsonObject profile{{"type", "L2_PROFILE"}, {"uuid", kProfile}};
    if (!profileLabel.isNull())
        profile.insert("name", profileLabel);
    return QJsonObject{
        {"type", "EVPL_VC"},
        {"name", name},
        {"bandwidth", 50},
        {"notifications",
         QJsonArray{QJsonObject{{"type", "ALL"}, {"emails", QJsonArray{"netops@example.com"}}}}},
        {"aSide", QJsonObject{{"accessPoint",
                               QJsonObject{{"type", "COLO"},
                                           {"port", port},
                                           {"linkProtocol",
                                            QJsonObject{{"type", "DOT1Q"}, {"vlanTag", 100}}}}}}},
        {"zSide",
         QJsonObject{{"accessPoint", QJsonObject{{"type", "SP"},
                                                 {"profile", profile},
                                                 {"location", QJsonObject{{"metroCode", "SV"}}},
                                                 {"sellerRegion", "us-west-1"}}}}}};
}

// What the sandbox's dry run answers: Fabric's names for the same uuids.
QJsonObject validated(const QString &portName, const QString &profileName)
{
    return QJsonObject{
        {"aSide",
         QJsonObject{
             {"accessPoint", QJsonObject{{"type", "COLO"},
                                         {"port", QJsonObject{{"uuid", kPort}, {"name", portName}}},
                                         {"location", QJsonObject{{"metroCode", "SV"}}}}}}},
        {"zSide", QJsonObject{{"accessPoint",
                               QJsonObject{{"type", "SP"},
                                           {"profile",
                                            QJsonObject{{"uuid", kProfile}, {"name", profileName}}},
                                           {"location", QJsonObject{{"metroCode", "SV"}}}}}}}};
}

std::pair<Proposal, CompiledRequest> proposalFor(const QJsonObject &s, const QJsonObject &v)
{
    Proposal p;
    p.token = QStringLiteral("chg-00000000000000000000000000000000");
    p.changeType = ChangeType::ConnectionCreate;
    p.spec = s;
    p.target = ProposalView::target(ChangeType::ConnectionCreate, s, v);
    p.proposedAtMs = 1000000;
    p.expiresAtMs = 1600000;
    p.requestSha256 = QString(64, u'a');
    p.fabricEndpoint = QStringLiteral("https://api.equinix.com");
    p.credentialIdentity = QStringLiteral("client id abc");
    p.context = {
        {"price", QJsonObject{{"priced", true},
                              {"currency", "USD"},
                              {"monthly_recurring", 150},
                              {"non_recurring", 0}}},
        {"client", QJsonObject{{"name", "a\\u202Eb<i>"}, {"version", "1"}, {"sessionId", "7"}}}};
    const CompileResult c = ChangeCompiler().compile(ChangeType::ConnectionCreate, s);
    CompiledRequest r;
    if (c.ok())
        r = *c.request;
    else { // hostile values the validator refuses still render safely
        r.changeType = ChangeType::ConnectionCreate;
        r.method = "POST";
        r.path = changeTypePath(ChangeType::ConnectionCreate);
        r.body = QJsonDocument(s).toJson(QJsonDocument::Compact);
    }
    return {p, r};
}

bool hasRaw(const QString &text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == u'\n')
            continue; // the broker's own line breaks
        if (UntrustedText::isForbidden(c.unicode()) || c.category() == QChar::Other_Format ||
            c.isSurrogate())
            return true;
    }
    return false;
}

std::optional<QString> envError(const QString &value, bool set = true)
{
    QProcessEnvironment env;
    if (set)
        env.insert(QStringLiteral("EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS"), value);
    BrokerSettings s;
    QString error;
    if (BrokerSettings::fromEnvironment(env, &s, &error))
        return std::nullopt;
    return error;
}

} // namespace

class TestProposalView : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void everyEscape_data()
    {
        QTest::addColumn<QString>("raw");
        QTest::addColumn<QString>("message"); // escapeForMessage / displayValue
        QTest::addColumn<QString>("plain");   // escapeInvisible / plainValue
        QTest::newRow("newline") << "x\nPrice: USD 0.00"
                                 << "x\\nPrice: USD 0.00"
                                 << "x\\nPrice: USD 0.00";
        QTest::newRow("cr") << "a\rb"
                            << "a\\rb"
                            << "a\\rb";
        QTest::newRow("tab") << "a\tb"
                             << "a\\tb"
                             << "a\\tb";
        QTest::newRow("nul") << QString("a") + QChar(0) + "b"
                             << "a\\u0000b"
                             << "a\\u0000b";
        QTest::newRow("esc") << "a\x1b[31mb"
                             << "a\\u001B\\u005B31mb"
                             << "a\\u001B[31mb";
        QTest::newRow("del") << "a\x7f"
                             << "a\\u007F"
                             << "a\\u007F";
        QTest::newRow("c1 nel") << "a\u0085b"
                                << "a\\u0085b"
                                << "a\\u0085b";
        QTest::newRow("c1 csi") << "a\u009bb"
                                << "a\\u009Bb"
                                << "a\\u009Bb";
        QTest::newRow("line sep") << "a\u2028b"
                                  << "a\\u2028b"
                                  << "a\\u2028b";
        QTest::newRow("para sep") << "a\u2029b"
                                  << "a\\u2029b"
                                  << "a\\u2029b";
        for (const char16_t c :
             {char16_t(0x200E), char16_t(0x200F), char16_t(0x061C), char16_t(0x202A),
              char16_t(0x202B), char16_t(0x202C), char16_t(0x202D), char16_t(0x202E),
              char16_t(0x2066), char16_t(0x2067), char16_t(0x2068), char16_t(0x2069)}) {
            const QString esc = QStringLiteral("\\u%1")
                                    .arg(uint(c), 4, 16, QLatin1Char('0'))
                                    .toUpper()
                                    .replace("\\U", "\\u");
            QTest::addRow("bidi U+%04X", uint(c)) << QStringLiteral("a") + QChar(c) + "b"
                                                  << "a" + esc + "b"
                                                  << "a" + esc + "b";
        }
        QTest::newRow("zero width space") << "a\u200Bb"
                                          << "a\\u200Bb"
                                          << "a\\u200Bb";
        QTest::newRow("bom") << "a\uFEFFb"
                             << "a\\uFEFFb"
                             << "a\\uFEFFb";
        QTest::newRow("tag char") << QString("a") +
                                         QString::fromUcs4(std::array<char32_t, 1>{0xE0041}.data(),
                                                           1) +
                                         "b"
                                  << "a\\u{E0041}b"
                                  << "a\\u{E0041}b";
        QTest::newRow("lone surrogate") << QString("a") + QChar(0xD800) + "b"
                                        << "a\\uD800b"
                                        << "a\\uD800b";
        QTest::newRow("html") << "<b>x</b>"
                              << "\\u003Cb\\u003Ex\\u003C/b\\u003E"
                              << "<b>x</b>";
        QTest::newRow("img") << "<img src=x>"
                             << "\\u003Cimg src=x\\u003E"
                             << "<img src=x>";
        QTest::newRow("entity") << "&#x202E;"
                                << "\\u0026#x202E;"
                                << "&#x202E;";
        QTest::newRow("md link") << "[a](http://x)"
                                 << "\\u005Ba\\u005D(http://x)"
                                 << "[a](http://x)";
        QTest::newRow("md code") << "`x` *y*"
                                 << "\\u0060x\\u0060 \\u002Ay\\u002A"
                                 << "`x` *y*";
        QTest::newRow("ordinary") << "caf\u00e9 \U0001F600 SV-1_a"
                                  << "caf\u00e9 \U0001F600 SV-1_a"
                                  << "caf\u00e9 \U0001F600 SV-1_a";
    }
    void everyEscape()
    {
        QFETCH(QString, raw);
        QFETCH(QString, message);
        QFETCH(QString, plain);
        QCOMPARE(ProposalView::displayValue(raw), message);
        QCOMPARE(ProposalView::plainValue(raw), plain);
        // Idempotent: escaping what is already escaped changes nothing.
        QCOMPARE(ProposalView::displayValue(message), message);
        QCOMPARE(ProposalView::plainValue(plain), plain);
    }

    void forgedPriceLineStaysInItsValue()
    {
        const QJsonObject s =
            spec("x\nPrice: USD 0.00\r\u2028Target: nothing", QString(), QString());
        auto [p, r] = proposalFor(s, validated("SV-DOT1Q-PRI", "AWS Direct Connect"));
        const QString text = ProposalView::approvalText(p, r, 1001000);
        QVERIFY(!hasRaw(text));
        const QStringList lines = text.split(u'\n');
        QCOMPARE(lines.filter(QRegularExpression("^Price:")).size(), 1);
        QCOMPARE(lines.filter(QRegularExpression("^Target:")).size(), 1);
        QVERIFY(lines.contains("  name = x\\nPrice: USD 0.00\\r\\u2028Target: nothing"));
        // Every request line is "  path = value", nothing else after the header.
        const qsizetype header = lines.indexOf(QRegularExpression("POST .*"));
        QVERIFY(header > 0);
        for (qsizetype i = header + 1; i < lines.size(); ++i)
            QVERIFY2(QRegularExpression("^  [A-Za-z0-9_.\\[\\]]+ = ").match(lines.at(i)).hasMatch(),
                     qPrintable(lines.at(i)));
    }

    void markupNeverArrivesRaw()
    {
        const QJsonObject s = spec("<b>x</b>", "<img src=x>", "[AWS](http://evil)");
        auto [p, r] = proposalFor(s, validated("<i>Fabric</i>", "A & B"));
        const QString text = ProposalView::approvalText(p, r, 1001000);
        QVERIFY(!text.contains(u'<'));
        QVERIFY(!text.contains(u'>'));
        QVERIFY(!text.contains(u'&'));
        QVERIFY(!text.contains("]("));
        QVERIFY(text.contains("  name = \\u003Cb\\u003Ex\\u003C/b\\u003E"));
        // The client name: escaped at the client boundary already, markup here.
        QVERIFY(text.contains("Proposed by: a\\u202Eb\\u003Ci\\u003E 1 (session 7)"));
    }

    void targetShowsFabricsNamesNotTheAgentsLabels()
    {
        // The agent labels profile X "AWS Direct Connect"; Fabric calls it "Evil Corp L2".
        const QJsonObject s = spec("conn-1", "SV-Port-label", "AWS Direct Connect");
        const QString t = ProposalView::target(ChangeType::ConnectionCreate, s,
                                               validated("SV-DOT1Q-PRI", "Evil Corp L2"));
        QCOMPARE(t, QStringLiteral(
                        "EVPL_VC 50 Mbps port \"SV-DOT1Q-PRI\" [50000000\u20260001] (SV) \u2192 "
                        "service profile \"Evil Corp L2\" [5e000000\u20260001] us-west-1"));
        QVERIFY(!t.contains("AWS Direct Connect"));
        QVERIFY(!t.contains("SV-Port-label"));
        QVERIFY(!t.contains("conn-1")); // the new connection's name is a request field only
    }

    void catalogLookupNamesComeFirst()
    {
        // An echoing dry run (the agent's label in the response) loses to the catalog lookup.
        const QJsonObject s = spec("conn-1", "Trusted-Port", "AWS Direct Connect");
        const QHash<QString, QString> names{{kPort, "SV-DOT1Q-PRI"},
                                            {kProfile, "Sandbox Managed Services L2"}};
        const QString t =
            ProposalView::target(ChangeType::ConnectionCreate, s,
                                 validated("Trusted-Port", "AWS Direct Connect"), names);
        QVERIFY2(!t.contains("AWS") && !t.contains("Trusted"), qPrintable(t));
        QVERIFY(t.contains("port \"SV-DOT1Q-PRI\" [50000000\u20260001]"));
        QVERIFY(t.contains("service profile \"Sandbox Managed Services L2\" [5e000000\u20260001]"));

        // Reads are needed only where the dry run does not settle the name.
        const QString portPath = "/fabric/v4/ports/" + kPort;
        const QString profilePath = "/fabric/v4/serviceProfiles/" + kProfile;
        using Lookups = QList<QPair<QString, QString>>;
        // The agent's labels equal the dry run's names: could be an echo, so both are read.
        QCOMPARE(ProposalView::nameLookups(s, validated("Trusted-Port", "AWS Direct Connect")),
                 (Lookups{{kPort, portPath}, {kProfile, profilePath}}));
        // Labels differ from the dry run's names: those are Fabric's own, no read.
        QCOMPARE(ProposalView::nameLookups(s, validated("SV-DOT1Q-PRI", "Evil Corp L2")),
                 Lookups{});
        // No labels and named by the dry run: no read.
        const QJsonObject plain = spec("conn-1", QString(), QString());
        QCOMPARE(ProposalView::nameLookups(plain, validated("SV-DOT1Q-PRI", "AWS")), Lookups{});
        // The dry run names nothing: every entity is read.
        QCOMPARE(ProposalView::nameLookups(plain, {}),
                 (Lookups{{kPort, portPath}, {kProfile, profilePath}}));
        // Only well-formed uuids become paths.
        QJsonObject bad = plain;
        bad.insert("aSide", QJsonObject{{"accessPoint",
                                         QJsonObject{{"port", QJsonObject{{"uuid", "../../x"}}}}}});
        QCOMPARE(ProposalView::nameLookups(bad, {}), (Lookups{{kProfile, profilePath}}));
    }

    void targetWithoutFabricNamesShowsTheWholeUuid()
    {
        const QJsonObject s = spec("conn-1", "AWS Direct Connect", "AWS Direct Connect");
        const QString none = ProposalView::target(ChangeType::ConnectionCreate, s, {});
        QVERIFY(!none.contains("AWS"));
        QVERIFY2(none.contains("port " + kPort + " (no name from Fabric) \u2192"),
                 qPrintable(none));
        QVERIFY(none.contains("service profile " + kProfile + " (no name from Fabric)"));
        // A name reported for another uuid is not this entity's name.
        QJsonObject other = validated("Other", "Other");
        other = QJsonDocument::fromJson(QJsonDocument(other).toJson().replace(
                                            kPort.toUtf8(), "50000000-0000-4000-8000-0000000000ff"))
                    .object();
        QVERIFY(!ProposalView::target(ChangeType::ConnectionCreate, s, other)
                     .contains("port \"Other\""));
    }

    void targetEscapesFabricsNamesToo()
    {
        const QString t = ProposalView::target(
            ChangeType::ConnectionCreate, spec("c", QString(), QString()),
            validated("a\" [ffffffff] (XX) \u2192 evil", "x\nPrice: USD 0.00\u202E<b>"));
        QVERIFY(!hasRaw(t));
        QVERIFY(!t.contains(u'<'));
        QVERIFY(t.contains(
            "port \"a\\u0022 \\u005Bffffffff\\u005D (XX) \u2192 evil\" [50000000\u20260001]"));
        QVERIFY(t.contains("\"x\\nPrice: USD 0.00\\u202E\\u003Cb\\u003E\" [5e000000\u20260001]"));
    }

    // Fabric's names are bounded on the Target line: 100 code points, then an ellipsis.
    void targetBoundsFabricsNames()
    {
        const QString longName =
            QString(99, u'p') + QStringLiteral("\U0001F600") + QString(200, u'q');
        const QString t =
            ProposalView::target(ChangeType::ConnectionCreate, spec("c", QString(), QString()),
                                 validated(longName, QString(500, u's')));
        QVERIFY2(t.contains(QStringLiteral("port \"") + QString(99, u'p') +
                            QStringLiteral("\U0001F600\u2026\" [")),
                 qPrintable(t));
        QVERIFY(!t.contains(u'q'));
        QVERIFY(t.contains(QStringLiteral("service profile \"") + QString(100, u's') +
                           QStringLiteral("\u2026\"")));
        QVERIFY(!t.contains(QString(101, u's')));
    }

    // A service profile shows its provider organisation, from the catalog's service profile
    // (account.organizationName) only: bounded to 100 code points and escaped like every name.
    void targetShowsTheProvidersOrganisation()
    {
        const QJsonObject s = spec("c", QString(), QString());
        const QString plain = ProposalView::target(ChangeType::ConnectionCreate, s,
                                                   validated("SV-DOT1Q-PRI", "AWS Direct Connect"));
        QVERIFY(!plain.contains("provider"));
        const QString t = ProposalView::target(ChangeType::ConnectionCreate, s,
                                               validated("SV-DOT1Q-PRI", "AWS Direct Connect"), {},
                                               {{kProfile, "Amazon \"Web\" Services\n<b>"}});
        QCOMPARE(t, QStringLiteral(
                        "EVPL_VC 50 Mbps port \"SV-DOT1Q-PRI\" [50000000\u20260001] (SV) \u2192 "
                        "service profile \"AWS Direct Connect\" [5e000000\u20260001] (provider "
                        "\"Amazon \\u0022Web\\u0022 Services\\n\\u003Cb\\u003E\") us-west-1"));
        // An organisation for another uuid (the port) is not this profile's.
        QVERIFY(!ProposalView::target(ChangeType::ConnectionCreate, s,
                                      validated("SV-DOT1Q-PRI", "AWS"), {}, {{kPort, "Org"}})
                     .contains("Org"));
        const QString longOrg = QString(100, u'o') + QString(50, u'x');
        const QString bounded = ProposalView::target(
            ChangeType::ConnectionCreate, s, validated("P", "S"), {}, {{kProfile, longOrg}});
        QVERIFY2(bounded.contains(QStringLiteral("(provider \"") + QString(100, u'o') +
                                  QStringLiteral("\u2026\")")),
                 qPrintable(bounded));
        QVERIFY(!bounded.contains(u'x'));
        // One read per service profile; the organisation only from the profile with that uuid.
        QCOMPARE(
            ProposalView::providerLookups(s),
            (QList<QPair<QString, QString>>{{kProfile, "/fabric/v4/serviceProfiles/" + kProfile}}));
        const QJsonObject profile{{"uuid", kProfile},
                                  {"account", QJsonObject{{"organizationName", "AWS Inc"}}}};
        QCOMPARE(ProposalView::providerOf(profile, kProfile), QStringLiteral("AWS Inc"));
        QVERIFY(ProposalView::providerOf(profile, kPort).isEmpty());
        QVERIFY(ProposalView::providerOf(QJsonObject{}, kProfile).isEmpty());
    }

    void otherTargets()
    {
        const QJsonObject network{{"type", "EVPLAN"},
                                  {"name", "<agent name>"},
                                  {"scope", "REGIONAL"},
                                  {"location", QJsonObject{{"region", "AMER"}}}};
        QCOMPARE(ProposalView::target(ChangeType::NetworkCreate, network, {}),
                 QStringLiteral("EVPLAN network (REGIONAL AMER)"));
        const QJsonObject selector{
            {"type", "COLO"},
            {"port", QJsonObject{{"uuid", kPort}}},
            {"linkProtocol", QJsonObject{{"type", "DOT1Q"}, {"vlanTag", 300}}}};
        const QJsonObject connection{
            {"type", "EVPL_VC"},
            {"bandwidthLimit", 1000},
            {"aSide", QJsonObject{{"accessPointSelectors", QJsonArray{selector}}}}};
        const QJsonObject token{{"type", "VC_TOKEN"},
                                {"name", "agent-label"},
                                {"expirationDateTime", "2030-01-01T00:00:00Z"},
                                {"connection", connection}};
        const QJsonObject tokenValidated{
            {"connection",
             QJsonObject{
                 {"aSide",
                  QJsonObject{{"accessPointSelectors",
                               QJsonArray{QJsonObject{
                                   {"port", QJsonObject{{"uuid", kPort},
                                                        {"portName", "SV-DOT1Q-PRI"}}}}}}}}}}};
        QCOMPARE(
            ProposalView::target(ChangeType::ServiceTokenCreate, token, tokenValidated),
            QStringLiteral("VC_TOKEN for EVPL_VC A-side port \"SV-DOT1Q-PRI\" [50000000\u20260001] "
                           "DOT1Q 300, up to 1 Gbps, expires 2030-01-01T00:00:00Z"));
    }

    void allowUnconfirmedHasOneSpelling()
    {
        QCOMPARE(envError(QString(), false), std::nullopt);
        QCOMPARE(envError("true"), std::nullopt);
        QCOMPARE(envError("false"), std::nullopt);
        QProcessEnvironment env;
        BrokerSettings s;
        QString error;
        env.insert("EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS", "true");
        QVERIFY(BrokerSettings::fromEnvironment(env, &s, &error));
        QVERIFY(s.allowUnconfirmedMutations);
        env.insert("EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS", "false");
        QVERIFY(BrokerSettings::fromEnvironment(env, &s, &error));
        QVERIFY(!s.allowUnconfirmedMutations);
        for (const char *bad :
             {"1", "yes", "TRUE", "True", " true", "true ", "0", "no", "", "on", "x\nPrice"}) {
            const auto e = envError(QString::fromUtf8(bad));
            QVERIFY2(e, qPrintable(bad));
            QVERIFY2(e->contains("EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS"), qPrintable(*e));
            QVERIFY2(e->contains("true or false"), qPrintable(*e));
            QVERIFY(!e->contains(u'\n'));
        }
    }
};

QTEST_GUILESS_MAIN(TestProposalView)
#include "tst_proposalview.moc"
