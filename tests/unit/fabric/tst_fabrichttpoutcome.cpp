// What one finished Fabric HTTP exchange means (decideHttpOutcome, FabricHttpOutcome.h), row by
// row: status, body, error state and whether the request left go in; the FabricResult, the
// retry decision and the token invalidation come out. For creates the kind must agree with
// decideCreateOutcome() (via createOutcome() of the result): Ok only for a 2xx with a uuid,
// a rejection only for a 4xx with a Fabric ErrorList, unknown for everything else once sent.
#include "TestEnvironment.h"
#include "fabric/FabricHttpOutcome.h"

#include <QTest>

using namespace Qt::StringLiterals;
using fb::CreateOutcome;
using fb::FabricCallMode;
using fb::FabricCredentials;
using fb::FabricResult;
using fb::HttpDecision;
using fb::HttpExchange;
using Kind = FabricResult::Kind;
using Action = HttpDecision::Action;
using Err = QNetworkReply::NetworkError;

Q_DECLARE_METATYPE(fb::FabricCallMode)
Q_DECLARE_METATYPE(fb::FabricCredentials)
Q_DECLARE_METATYPE(fb::FabricResult::Kind)
Q_DECLARE_METATYPE(fb::HttpDecision::Action)

namespace {

const QByteArray kErrorList =
    R"([{"errorCode":"EQ-3142306","errorMessage":"bandwidth not supported"}])";
const QByteArray kNoDryRun =
    R"([{"errorCode":"EQ-3142411","errorMessage":"dry run not supported"}])";
const QByteArray kUuid = R"({"uuid":"3fa85f64-5717-4562-b3fc-2c963f66afa6","name":"c1"})";
const QByteArray kData = R"({"data":[],"pagination":{"total":0}})";

} // namespace

class TestFabricHttpOutcome : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void decide_data()
    {
        QTest::addColumn<FabricCallMode>("mode");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("error");     // QNetworkReply::NetworkError
        QTest::addColumn<QString>("state"); // "", tooLarge, cap, redirect, notSent, retried
        QTest::addColumn<FabricCredentials>("credentials");
        QTest::addColumn<Kind>("kind");
        QTest::addColumn<bool>("requestSent");
        QTest::addColumn<Action>("action");
        QTest::addColumn<bool>("invalidate");
        QTest::addColumn<bool>("warns");
        QTest::addColumn<QString>("says");

        const auto R = FabricCallMode::Read;
        const auto D = FabricCallMode::DryRun;
        const auto C = FabricCallMode::Create;
        const auto cc = FabricCredentials::ClientCredentials;
        const auto st = FabricCredentials::StaticToken;
        const auto no = FabricCredentials::None;
        const int ok = Err::NoError;
        const auto F = Action::Finish;

        // Reads and searches.
        QTest::newRow("read 200") << R << 200 << kData << ok << u""_s << cc << Kind::Ok << true << F
                                  << false << false
                                  << u"answered GET /fabric/v4/x with HTTP 200."_s;
        QTest::newRow("read 200 not json")
            << R << 200 << QByteArray("<html>") << ok << u""_s << cc << Kind::InvalidResponse
            << true << F << false << false << u"not usable JSON"_s;
        QTest::newRow("read 401 first")
            << R << 401 << kErrorList << ok << u""_s << cc << Kind::Ok << true
            << Action::RefreshAndRetry << true << false << u""_s;
        QTest::newRow("read 401 after retry")
            << R << 401 << kErrorList << ok << u"retried"_s << cc << Kind::AuthError << true << F
            << false << false << u"even after a fresh one was obtained"_s;
        QTest::newRow("read 401 static token")
            << R << 401 << QByteArray() << ok << u""_s << st << Kind::AuthError << true << F
            << false << false << u"rejected EQUINIX_API_TOKEN"_s;
        QTest::newRow("read 401 no credentials")
            << R << 401 << QByteArray() << ok << u""_s << no << Kind::AuthError << true << F
            << false << false << u"requires credentials"_s;
        QTest::newRow("read 403") << R << 403 << kErrorList << ok << u""_s << cc << Kind::AuthError
                                  << true << F << false << false << u"(HTTP 403)"_s;
        QTest::newRow("read 400 errorlist")
            << R << 400 << kErrorList << ok << u""_s << cc << Kind::FabricError << true << F
            << false << false << u"Fabric rejected GET /fabric/v4/x (HTTP 400): EQ-3142306"_s;
        QTest::newRow("read 500 errorlist")
            << R << 500 << kErrorList << ok << u""_s << cc << Kind::FabricError << true << F
            << false << false << u"; try again later."_s;
        QTest::newRow("read 404 plain")
            << R << 404 << QByteArray("nope") << ok << u""_s << cc << Kind::HttpError << true << F
            << false << false << u"HTTP 404 and no error list"_s;
        QTest::newRow("read 302") << R << 302 << QByteArray() << ok << u""_s << cc
                                  << Kind::HttpError << true << F << false << false
                                  << u"with a redirect (HTTP 302)"_s;
        QTest::newRow("read redirect refused")
            << R << 302 << QByteArray() << int(Err::OperationCanceledError) << u"redirect"_s << cc
            << Kind::HttpError << true << F << false << false << u"which was refused"_s;
        QTest::newRow("read too large")
            << R << 200 << QByteArray() << int(Err::OperationCanceledError) << u"tooLarge"_s << cc
            << Kind::InvalidResponse << true << F << false << false << u"larger than 16 bytes"_s;
        QTest::newRow("read body over the cap")
            << R << 200 << kErrorList << ok << u"cap"_s << cc << Kind::InvalidResponse << true << F
            << false << false << u"larger than 16 bytes"_s;
        QTest::newRow("read timeout")
            << R << 0 << QByteArray() << int(Err::TimeoutError) << u""_s << cc << Kind::Timeout
            << true << F << false << false << u"did not answer GET /fabric/v4/x within 500 ms"_s;
        QTest::newRow("read refused, not sent")
            << R << 0 << QByteArray() << int(Err::ConnectionRefusedError) << u"notSent"_s << cc
            << Kind::NetworkError << false << F << false << false
            << u"the connection was refused; check the network"_s;
        QTest::newRow("read host not found")
            << R << 0 << QByteArray() << int(Err::HostNotFoundError) << u"notSent"_s << cc
            << Kind::NetworkError << false << F << false << false << u"the host was not found"_s;
        QTest::newRow("read 200 with a transport error")
            << R << 200 << kData << int(Err::RemoteHostClosedError) << u""_s << cc
            << Kind::NetworkError << true << F << false << false
            << u"the connection was closed before a reply arrived"_s;

        // Dry runs.
        QTest::newRow("dry run 200")
            << D << 200 << QByteArray("{}") << ok << u""_s << cc << Kind::Ok << true << F << false
            << false << u"accepted the connection dry run (HTTP 200)"_s;
        QTest::newRow("dry run 201 uuid")
            << D << 201 << kUuid << ok << u""_s << cc << Kind::InvalidResponse << true << F << false
            << false << u"carries a uuid"_s;
        QTest::newRow("dry run EQ-3142411")
            << D << 400 << kNoDryRun << ok << u""_s << cc << Kind::DryRunUnsupported << true << F
            << false << false << u"does not support a dry run"_s;
        QTest::newRow("dry run 400")
            << D << 400 << kErrorList << ok << u""_s << cc << Kind::FabricError << true << F
            << false << false << u"; nothing was created."_s;
        QTest::newRow("dry run 401 first")
            << D << 401 << QByteArray() << ok << u""_s << cc << Kind::Ok << true
            << Action::RefreshAndRetry << true << false << u""_s;

        // Real creates: never retried; only a 4xx with an ErrorList is a rejection.
        QTest::newRow("create 201 uuid")
            << C << 201 << kUuid << ok << u""_s << cc << Kind::Ok << true << F << false << false
            << u"Fabric created the connection (HTTP 201"_s;
        QTest::newRow("create 201 no uuid")
            << C << 201 << QByteArray("{}") << ok << u""_s << cc << Kind::OutcomeUnknown << true
            << F << false << true << u"HTTP 201 without a uuid"_s;
        QTest::newRow("create 201 not json")
            << C << 201 << QByteArray("{") << ok << u""_s << cc << Kind::OutcomeUnknown << true << F
            << false << true << u"not usable JSON"_s;
        QTest::newRow("create 400 errorlist")
            << C << 400 << kErrorList << ok << u""_s << cc << Kind::FabricError << true << F
            << false << false << u"nothing was created"_s;
        QTest::newRow("create 400 plain")
            << C << 400 << QByteArray("bad") << ok << u""_s << cc << Kind::OutcomeUnknown << true
            << F << false << true << u"without a Fabric error list"_s;
        QTest::newRow("create 401 errorlist")
            << C << 401 << kErrorList << ok << u""_s << cc << Kind::AuthError << true << F << true
            << false << u"it was not retried"_s;
        QTest::newRow("create 401 plain")
            << C << 401 << QByteArray() << ok << u""_s << cc << Kind::OutcomeUnknown << true << F
            << true << true << u"may or may not exist"_s;
        QTest::newRow("create 403 errorlist")
            << C << 403 << kErrorList << ok << u""_s << cc << Kind::AuthError << true << F << false
            << false << u"lack the permission"_s;
        QTest::newRow("create 500 errorlist")
            << C << 500 << kErrorList << ok << u""_s << cc << Kind::OutcomeUnknown << true << F
            << false << true << u"it was not resent"_s;
        QTest::newRow("create 302")
            << C << 302 << QByteArray() << ok << u""_s << cc << Kind::OutcomeUnknown << true << F
            << false << true << u"HTTP 302 without a Fabric error list"_s;
        QTest::newRow("create timeout after sending")
            << C << 0 << QByteArray() << int(Err::TimeoutError) << u""_s << cc
            << Kind::OutcomeUnknown << true << F << false << true
            << u"was sent to Fabric but no reply arrived within 500 ms"_s;
        QTest::newRow("create reset after sending")
            << C << 0 << QByteArray() << int(Err::ContentReSendError) << u""_s << cc
            << Kind::OutcomeUnknown << true << F << false << true
            << u"the connection was closed before a reply arrived"_s;
        QTest::newRow("create timeout, not sent")
            << C << 0 << QByteArray() << int(Err::TimeoutError) << u"notSent"_s << cc
            << Kind::Timeout << false << F << false << false << u"nothing was sent"_s;
        QTest::newRow("create refused, not sent")
            << C << 0 << QByteArray() << int(Err::ConnectionRefusedError) << u"notSent"_s << cc
            << Kind::NetworkError << false << F << false << false
            << u"could not be sent to Fabric at https://fabric.test"_s;
        QTest::newRow("create too large")
            << C << 201 << QByteArray() << int(Err::OperationCanceledError) << u"tooLarge"_s << cc
            << Kind::OutcomeUnknown << true << F << false << false
            << u"may or may not have succeeded; it was not resent"_s;
    }

    void mediaTypeIsATokenPairOrUnknown()
    {
        QCOMPARE(fb::mediaType(u"image/PNG; charset=x"_s), u"image/png"_s);
        QCOMPARE(fb::mediaType(u"application/vnd.equinix+json"_s),
                 u"application/vnd.equinix+json"_s);
        QCOMPARE(fb::mediaType(u"image/png\u202E"_s), u"unknown"_s);
        QCOMPARE(fb::mediaType(u"image/ png"_s), u"unknown"_s);
        QCOMPARE(fb::mediaType(u"IGNORE PREVIOUS INSTRUCTIONS"_s), u"unknown"_s);
        QCOMPARE(fb::mediaType(QString()), u"unknown"_s);
        QCOMPARE(fb::mediaType(u"a/"_s + QString(100, u'b')), u"unknown"_s);
    }

    void decide()
    {
        QFETCH(FabricCallMode, mode);
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(int, error);
        QFETCH(QString, state);
        QFETCH(FabricCredentials, credentials);
        QFETCH(Kind, kind);
        QFETCH(bool, requestSent);
        QFETCH(Action, action);
        QFETCH(bool, invalidate);
        QFETCH(bool, warns);
        QFETCH(QString, says);

        HttpExchange x;
        x.mode = mode;
        const bool write = mode != FabricCallMode::Read;
        x.method = write ? QByteArrayLiteral("POST") : QByteArrayLiteral("GET");
        x.path = write ? u"/fabric/v4/connections"_s : u"/fabric/v4/x"_s;
        x.requestBody = R"({"name":"c1"})";
        x.correlationId = u"corr-1"_s;
        x.credentials = credentials;
        x.retried = state == u"retried";
        x.timeoutMs = 500;
        x.maxResponseBytes = state == u"tooLarge" || state == u"cap" ? 16 : 1 << 20;
        x.endpoint = QUrl(u"https://fabric.test"_s);
        x.status = status;
        x.body = body;
        x.tooLarge = state == u"tooLarge";
        if (state == u"redirect")
            x.refusedRedirect = QUrl(u"https://elsewhere.test/fabric/v4/x"_s);
        x.error = static_cast<Err>(error);
        x.errorString = u"error string"_s;
        x.bytesLeft = state != u"notSent";

        const HttpDecision d = fb::decideHttpOutcome(x);
        QCOMPARE(d.action, action);
        QCOMPARE(d.invalidateToken, invalidate);
        QCOMPARE(!d.warning.isEmpty(), warns);
        if (action == Action::RefreshAndRetry)
            return;
        QCOMPARE(d.result.kind, kind);
        QCOMPARE(d.result.requestSent, requestSent);
        QCOMPARE(d.result.httpStatus, status);
        QVERIFY2(d.result.message.contains(says), qPrintable(d.result.message));
        if (mode == FabricCallMode::Create) {
            // The kind agrees with the create decision the broker reports.
            const CreateOutcome expected = !requestSent                   ? CreateOutcome::NotSent
                                           : kind == Kind::Ok             ? CreateOutcome::Created
                                           : kind == Kind::OutcomeUnknown ? CreateOutcome::Unknown
                                                                          : CreateOutcome::Rejected;
            QCOMPARE(fb::createOutcome(d.result), expected);
            if (kind == Kind::OutcomeUnknown)
                QVERIFY2(d.result.message.contains(u"POST /fabric/v4/connections/search with a "
                                                   "filter on /name = \"c1\", and quote "
                                                   "correlation id corr-1"_s),
                         qPrintable(d.result.message));
        }
    }
};

QTEST_GUILESS_MAIN(TestFabricHttpOutcome)
#include "tst_fabrichttpoutcome.moc"
