#pragma once
// Sample proposals for the GUI tests and the screenshot tool: what the broker would have compiled.
#include "broker/Approver.h"
#include "broker/ProposalView.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace fb::guitest {

inline QJsonObject sampleConnectionBody(const QString &name = QStringLiteral("lab-aws-sv-1"))
{
    QJsonObject aSide{
        {QStringLiteral("accessPoint"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("COLO")},
                     {QStringLiteral("port"),
                      QJsonObject{{QStringLiteral("uuid"),
                                   QStringLiteral("c4d9350e-77c5-7c5d-1ce0-306a5c00a600")}}},
                     {QStringLiteral("linkProtocol"),
                      QJsonObject{{QStringLiteral("type"), QStringLiteral("DOT1Q")},
                                  {QStringLiteral("vlanTag"), 1001}}}}}};
    QJsonObject zSide{
        {QStringLiteral("accessPoint"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("SP")},
                     {QStringLiteral("profile"),
                      QJsonObject{{QStringLiteral("type"), QStringLiteral("L2_PROFILE")},
                                  {QStringLiteral("uuid"),
                                   QStringLiteral("69ee618d-be52-468d-bc99-00566f2dd2b9")}}},
                     {QStringLiteral("location"),
                      QJsonObject{{QStringLiteral("metroCode"), QStringLiteral("SV")}}},
                     {QStringLiteral("sellerRegion"), QStringLiteral("us-west-1")},
                     {QStringLiteral("authenticationKey"), QStringLiteral("123456789012")}}}};
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("EVPL_VC")},
        {QStringLiteral("name"), name},
        {QStringLiteral("bandwidth"), 50},
        {QStringLiteral("redundancy"),
         QJsonObject{{QStringLiteral("priority"), QStringLiteral("PRIMARY")}}},
        {QStringLiteral("notifications"),
         QJsonArray{QJsonObject{
             {QStringLiteral("type"), QStringLiteral("ALL")},
             {QStringLiteral("emails"), QJsonArray{QStringLiteral("netops@example.com")}}}}},
        {QStringLiteral("order"),
         QJsonObject{{QStringLiteral("purchaseOrderNumber"), QStringLiteral("PO-2026-0042")}}},
        {QStringLiteral("aSide"), aSide},
        {QStringLiteral("zSide"), zSide}};
}

inline QJsonObject samplePrice()
{
    return QJsonObject{{QStringLiteral("priced"), true},
                       {QStringLiteral("currency"), QStringLiteral("USD")},
                       {QStringLiteral("monthly_recurring"), 300.0},
                       {QStringLiteral("non_recurring"), 0.0},
                       {QStringLiteral("term_length_months"), 1},
                       {QStringLiteral("product_code"), QStringLiteral("VC-EVPL-50")}};
}

inline mcp::ClientInfo sampleClient(quint64 sessionId = 3,
                                    const QString &name = QStringLiteral("claude-code"),
                                    const QString &version = QStringLiteral("2.1.4"))
{
    mcp::ClientInfo c;
    c.sessionId = sessionId;
    c.name = name;
    c.version = version;
    c.protocolVersion = QStringLiteral("2025-06-18");
    c.transport = QStringLiteral("socket");
    c.connectedAtMs = 1767225000000;
    c.initialized = true;
    return c;
}

inline QString fakeSha(char digit)
{
    return QString(64, QLatin1Char(digit));
}

inline ApprovalContext sampleContext(qint64 nowMs, ChangeType type = ChangeType::ConnectionCreate,
                                     const QString &name = QStringLiteral("lab-aws-sv-1"),
                                     char shaDigit = 'a')
{
    ApprovalContext ctx;
    ctx.request.changeType = type;
    ctx.request.path = changeTypePath(type);
    ctx.request.body = QJsonDocument(sampleConnectionBody(name)).toJson(QJsonDocument::Compact);
    ctx.client = sampleClient();
    Proposal &p = ctx.proposal;
    p.token = QStringLiteral("chg-") + QString(32, QLatin1Char('0'));
    p.changeType = type;
    p.spec = sampleConnectionBody(name);
    p.requestSha256 = fakeSha(shaDigit);
    // What Fabric's dry run calls the two uuids of the sample body.
    const QJsonObject validated{
        {QStringLiteral("aSide"),
         QJsonObject{
             {QStringLiteral("accessPoint"),
              QJsonObject{
                  {QStringLiteral("port"),
                   QJsonObject{{QStringLiteral("uuid"),
                                QStringLiteral("c4d9350e-77c5-7c5d-1ce0-306a5c00a600")},
                               {QStringLiteral("name"), QStringLiteral("SV-Port-Primary-01")}}}}}}},
        {QStringLiteral("zSide"),
         QJsonObject{
             {QStringLiteral("accessPoint"),
              QJsonObject{{QStringLiteral("profile"),
                           QJsonObject{{QStringLiteral("uuid"),
                                        QStringLiteral("69ee618d-be52-468d-bc99-00566f2dd2b9")},
                                       {QStringLiteral("name"),
                                        QStringLiteral("AWS Direct Connect")}}}}}}}};
    p.target = ProposalView::target(ChangeType::ConnectionCreate, p.spec, validated);
    p.proposedAtMs = nowMs - 42000;
    p.expiresAtMs = p.proposedAtMs + 600000;
    p.context = QJsonObject{{QStringLiteral("price"), samplePrice()},
                            {QStringLiteral("validated"), QJsonObject{}},
                            {QStringLiteral("client"), sampleClient().toJson()}};
    ctx.timeoutMs = 300000;
    return ctx;
}

} // namespace fb::guitest
