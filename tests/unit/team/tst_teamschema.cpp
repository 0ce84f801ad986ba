// The team schema's migrations (src/team/TeamSchema, resources/team/*.sql) against the change
// types' table (src/core/ChangeType): the SQL cannot be generated from C++ without a migration,
// so the CHECK on fabric_team.proposals.change_type is held equal to the table here. No database.
#include "TestEnvironment.h"
#include "core/ChangeType.h"
#include "team/TeamSchema.h"

#include <QRegularExpression>
#include <QTest>

using namespace fb;
using namespace fb::team;

class TestTeamSchema : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void migrationsAreNumberedWithoutGaps();
    void changeTypeCheckIsTheTable();
};

void TestTeamSchema::migrationsAreNumberedWithoutGaps()
{
    const QList<Migration> migrations = TeamSchema::builtIn();
    QVERIFY(!migrations.isEmpty());
    for (qsizetype i = 0; i < migrations.size(); ++i) {
        QCOMPARE(migrations.at(i).version, i + 1);
        QVERIFY2(migrations.at(i).name.startsWith(
                     QStringLiteral("%1_").arg(i + 1, 3, 10, QLatin1Char('0'))),
                 qPrintable(migrations.at(i).name));
    }
    QCOMPARE(TeamSchema::knownVersion(), migrations.size());
}

// The last `change_type IN (...)` of the migrations, in order, is the one the schema enforces (a
// new change type needs a new migration that replaces the CHECK; a released file never changes).
void TestTeamSchema::changeTypeCheckIsTheTable()
{
    static const QRegularExpression check(
        QStringLiteral(R"(CHECK\s*\(\s*change_type\s+IN\s*\(([^)]*)\)\s*\))"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression literal(QStringLiteral(R"(^'([a-z_]+)'$)"));
    QStringList enforced;
    QString where;
    for (const Migration &m : TeamSchema::builtIn()) {
        QRegularExpressionMatchIterator it = check.globalMatch(QString::fromUtf8(m.sql));
        while (it.hasNext()) {
            const QRegularExpressionMatch match = it.next();
            QStringList names;
            for (const QString &item : match.captured(1).split(QLatin1Char(','))) {
                const QRegularExpressionMatch name = literal.match(item.trimmed());
                QVERIFY2(name.hasMatch(), qPrintable(m.name + u": " + item));
                names << name.captured(1);
            }
            enforced = names;
            where = m.name;
        }
    }
    QVERIFY2(!where.isEmpty(), "no migration has CHECK (change_type IN (...))");
    QVERIFY2(enforced == changeTypeNames(),
             qPrintable(QStringLiteral("%1's CHECK lists %2; the ChangeType table has %3: add a "
                                       "migration that replaces the CHECK")
                            .arg(where, enforced.join(u", "), changeTypeNames().join(u", "))));
}

QTEST_GUILESS_MAIN(TestTeamSchema)
#include "tst_teamschema.moc"
