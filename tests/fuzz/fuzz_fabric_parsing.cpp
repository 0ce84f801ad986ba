// Fuzzes the pure Fabric response parsers (src/fabric/FabricParsing.h): strict JSON, the
// ErrorList and OAuth error shapes and their sentences, text sanitizing, the price context of a
// PriceSearchResponse, and the price search built from a compiled body. Property: no crash/UB,
// sanitized text is bounded.
#include "FuzzCommon.h"
#include "fabric/FabricParsing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    QString error;
    const std::optional<QJsonValue> parsed = fb::parseStrictJson(input, &error);
    if (parsed)
        (void)fb::priceContextFromResponse(*parsed);
    if (const auto errors = fb::parseFabricErrorList(input))
        (void)fb::describeFabricErrors(*errors);
    (void)fb::describeOAuthError(input);
    const QString text = fb::sanitizeRemoteText(QString::fromUtf8(input), 300);
    if (text.size() > 301 + 3)
        fbfuzz::fail("sanitizeRemoteText exceeded its bound");
    fb::CompiledRequest request;
    request.changeType = fb::ChangeType::ConnectionCreate;
    request.path = QStringLiteral("/fabric/v4/connections");
    request.body = input;
    QString unpriced;
    if (const auto search = fb::buildPriceSearch(request, &unpriced))
        (void)search->size();
    return 0;
}
