// Fuzzes canonicalizeText (RFC 8785). Properties: no crash/UB; when it accepts the input,
// canonicalizing its output again is the identity, and the output parses back to a value equal
// (numbers as doubles) to the parsed input.
#include "FuzzCommon.h"
#include "core/CanonicalJson.h"

#include <QJsonDocument>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    QString error;
    const std::optional<QByteArray> out = fb::canonicalizeText(input, &error);
    if (!out)
        return 0;
    const std::optional<QByteArray> again = fb::canonicalizeText(*out, &error);
    if (!again)
        fbfuzz::fail("canonical output is rejected by canonicalizeText");
    if (*again != *out)
        fbfuzz::fail("canonicalizing canonical output is not the identity");
    // QJsonDocument wants an object or array at the top: wrap both sides.
    QJsonParseError e1, e2;
    const QJsonDocument a = QJsonDocument::fromJson('[' + input + ']', &e1);
    const QJsonDocument b = QJsonDocument::fromJson('[' + *out + ']', &e2);
    if (e2.error != QJsonParseError::NoError)
        fbfuzz::fail("canonical output is not JSON that Qt parses");
    if (e1.error == QJsonParseError::NoError && !fbfuzz::sameJson(a.array(), b.array())) {
        std::fprintf(stderr, "input parsed by Qt: %s\ncanonical output:   %s\n",
                     QJsonDocument(a.array()).toJson(QJsonDocument::Compact).left(2000).constData(),
                     out->left(2000).constData());
        fbfuzz::fail("canonical output does not parse back to the same value");
    }
    // The serializer on its own must agree with the text path.
    if (e1.error == QJsonParseError::NoError && fb::canonicalJson(b.array().at(0)) != *out)
        fbfuzz::fail("canonicalJson(parsed output) differs from canonicalizeText");
    return 0;
}
