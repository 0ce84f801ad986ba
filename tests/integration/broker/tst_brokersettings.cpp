// BrokerSettings read from the settings table (core/Settings.h): its defaults are the table's,
// the precedence the desktop app relies on (flag > environment > saved), and the toolset names of
// the table and of the MCP tool registry agree.
#include "TestEnvironment.h"
#include "broker/BrokerSettings.h"
#include "mcp/ToolRegistry.h"

#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

class TestBrokerSettings : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void defaultsAreTheTables()
    {
        const BrokerSettings plain;
        BrokerSettings resolved;
        QString error;
        QVERIFY2(BrokerSettings::fromSources({}, &resolved, &error), qPrintable(error));
        for (SettingId id : BrokerSettings::ids()) {
            const QString expected = QString(Settings::spec(id).defaultValue);
            QCOMPARE(plain.valueText(id), expected);
            QCOMPARE(resolved.valueText(id), expected);
        }
    }

    void savedValuesYieldToEnvironmentAndFlag()
    {
        SettingSources sources;
        sources.saved.insert(SettingId::Toolsets, u"read,mutate"_s);
        sources.saved.insert(SettingId::Approval, u"client"_s);
        BrokerSettings s;
        QString error;
        QMap<SettingId, SettingSource> from;
        QVERIFY(BrokerSettings::fromSources(sources, &s, &error, &from));
        QCOMPARE(s.toolsets, QStringList({u"read"_s, u"mutate"_s}));
        QCOMPARE(s.approvalMode, ApprovalMode::Client);
        QCOMPARE(from.value(SettingId::Toolsets), SettingSource::Saved);
        QCOMPARE(from.value(SettingId::MaxPending), SettingSource::Default);

        sources.environment.insert(u"EQUINIX_MCP_APPROVAL"_s, u"desktop"_s);
        sources.environment.insert(u"EQUINIX_MCP_TOOLSETS"_s, u"read"_s);
        QVERIFY(BrokerSettings::fromSources(sources, &s, &error, &from));
        QCOMPARE(s.approvalMode, ApprovalMode::Desktop);
        QCOMPARE(s.toolsets, QStringList({u"read"_s}));
        QCOMPARE(from.value(SettingId::Approval), SettingSource::Environment);

        sources.flags.insert(SettingId::Toolsets, u"mutate"_s);
        QVERIFY(BrokerSettings::fromSources(sources, &s, &error, &from));
        QCOMPARE(s.toolsets, QStringList({u"mutate"_s}));
        QCOMPARE(from.value(SettingId::Toolsets), SettingSource::Flag);

        sources.flags.insert(SettingId::Toolsets, u"all"_s);
        QVERIFY(!BrokerSettings::fromSources(sources, &s, &error));
        QCOMPARE(error, u"--toolsets: Unknown toolset: all (known toolsets: read, estate, routing, "
                        "observability, precision-time, marketplace, account, mutate, all-read)"_s);
    }

    void toolsetNamesAgreeWithTheRegistry()
    {
        const SettingSpec &spec = Settings::spec(SettingId::Toolsets);
        QCOMPARE(spec.choiceList(), mcp::ToolRegistry::knownToolsets());
        for (const QString &text :
             {u"read"_s, u"mutate,read"_s, u" READ , mutate,read"_s, u"write"_s, QString(), u","_s,
              u"read,x"_s, u"all-read"_s, u"routing,all-read,mutate"_s, u"all"_s}) {
            QStringList fromRegistry;
            QString registryError;
            const bool registryOk =
                mcp::ToolRegistry::parseToolsets(text, &fromRegistry, &registryError);
            QString tableError;
            const std::optional<QStringList> fromTable =
                Settings::parseList(spec, text, &tableError);
            QCOMPARE(fromTable.has_value(), registryOk);
            if (registryOk)
                QCOMPARE(*fromTable, fromRegistry);
            else
                QCOMPARE(tableError, registryError);
        }
    }
};

QTEST_GUILESS_MAIN(TestBrokerSettings)
#include "tst_brokersettings.moc"
