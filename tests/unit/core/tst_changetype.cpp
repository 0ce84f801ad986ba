// ChangeType (src/core/ChangeType): the one table of the three creates. Each type has its own
// wire name, Fabric collection and noun; names map back exactly (case-sensitive) and nothing
// else is a change type.
#include "TestEnvironment.h"
#include "core/ChangeType.h"

#include <QTest>

using namespace fb;

class TestChangeType : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void everyTypeHasItsRow_data()
    {
        QTest::addColumn<ChangeType>("type");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("noun");
        QTest::newRow("connection") << ChangeType::ConnectionCreate << "connection_create"
                                    << "/fabric/v4/connections"
                                    << "connection";
        QTest::newRow("network") << ChangeType::NetworkCreate << "network_create"
                                 << "/fabric/v4/networks"
                                 << "network";
        QTest::newRow("service token") << ChangeType::ServiceTokenCreate << "service_token_create"
                                       << "/fabric/v4/serviceTokens"
                                       << "service token";
    }

    void everyTypeHasItsRow()
    {
        QFETCH(ChangeType, type);
        QFETCH(QString, name);
        QFETCH(QString, path);
        QFETCH(QString, noun);
        QCOMPARE(changeTypeName(type), name);
        QCOMPARE(changeTypePath(type), path);
        QCOMPARE(changeTypeNoun(type), noun);
        QCOMPARE(changeTypeFromName(name), std::optional<ChangeType>(type));
    }

    void listsFollowTheTable()
    {
        const QList<ChangeType> types{ChangeType::ConnectionCreate, ChangeType::NetworkCreate,
                                      ChangeType::ServiceTokenCreate};
        QCOMPARE(changeTypes(), types);
        QCOMPARE(changeTypeNames(),
                 QStringList({"connection_create", "network_create", "service_token_create"}));
        for (ChangeType t : types)
            QCOMPARE(changeTypeNames().at(changeTypes().indexOf(t)), changeTypeName(t));
    }

    void otherNamesAreNoChangeType_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("empty") << QString();
        QTest::newRow("upper case") << "CONNECTION_CREATE";
        QTest::newRow("noun") << "connection";
        QTest::newRow("update") << "connection_update";
        QTest::newRow("delete") << "network_delete";
        QTest::newRow("trailing space") << "network_create ";
    }

    void otherNamesAreNoChangeType()
    {
        QFETCH(QString, name);
        QVERIFY(!changeTypeFromName(name).has_value());
    }
};

QTEST_APPLESS_MAIN(TestChangeType)
#include "tst_changetype.moc"
