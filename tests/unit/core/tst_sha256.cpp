// Sha256 against FIPS 180-4 vectors and QCryptographicHash, on both implementations (SHA-NI
// when the CPU has it, and the portable one), for every length around the block boundaries.
#include "TestEnvironment.h"
#include "core/Sha256.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QtTest>

using namespace fb;

class TestSha256 : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void cleanup() { Sha256::forcePortableForTesting(false); }

    void vectors_data()
    {
        QTest::addColumn<bool>("portable");
        QTest::newRow("native") << false;
        QTest::newRow("portable") << true;
    }
    void vectors()
    {
        QFETCH(bool, portable);
        Sha256::forcePortableForTesting(portable);
        QCOMPARE(Sha256::hash("").toHex(),
                 QByteArray("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(Sha256::hash("abc").toHex(),
                 QByteArray("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(Sha256::hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").toHex(),
                 QByteArray("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        QCOMPARE(Sha256::hash(QByteArray(1000000, 'a')).toHex(),
                 QByteArray("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    }

    void matchesQtForEveryLengthAndSplit_data() { vectors_data(); }
    void matchesQtForEveryLengthAndSplit()
    {
        QFETCH(bool, portable);
        Sha256::forcePortableForTesting(portable);
        QRandomGenerator rng(42);
        for (int len = 0; len < 300; ++len) {
            QByteArray data(len, Qt::Uninitialized);
            for (char &c : data)
                c = static_cast<char>(rng.bounded(256));
            const QByteArray expected = QCryptographicHash::hash(data, QCryptographicHash::Sha256);
            QCOMPARE(Sha256::hash(data), expected);
            // Streaming in uneven pieces gives the same digest.
            Sha256 h;
            qsizetype pos = 0;
            int step = 1;
            while (pos < data.size()) {
                const qsizetype n = std::min<qsizetype>(step, data.size() - pos);
                h.addData(QByteArrayView(data).sliced(pos, n));
                pos += n;
                step = step * 3 % 97 + 1;
            }
            const auto r = h.result();
            QCOMPARE(QByteArray(reinterpret_cast<const char *>(r.data()), 32), expected);
        }
    }

    void reportsImplementation()
    {
        const QByteArray impl = Sha256::implementation();
        QVERIFY(impl == "sha-ni" || impl == "portable");
        qInfo() << "SHA-256 implementation on this machine:" << impl;
    }
};

QTEST_GUILESS_MAIN(TestSha256)
#include "tst_sha256.moc"
