#pragma once
// ReadAnswer: Fabric's answer to a read operation as a tool result that fits an agent's context.
// Fabric's own shape is kept; then, in this order:
//  - every string is data: invisible and bidi characters are written as escapes; a top-level
//    "_broker" of Fabric's is renamed "fabric__broker" (only this broker writes "_broker");
//    (UntrustedText::escapeInvisible) and a string over maxStringChars is cut, saying how much was
//    left out; an answer that is not an object is wrapped as {"data": [...]} or {"value": x};
//  - an optional projection keeps only the JSON pointers it names ("*" stands for every element
//    of an array: /data/*/name); pointers that match nothing are listed in "_broker";
//  - the result is capped at maxBytes of compact JSON: a "data" array keeps the elements that fit
//    and "_broker" says how many of how many were returned and how to ask for the next page; an
//    answer that still does not fit is replaced by "_broker" saying so and how to ask for less.
#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace fb::readops {

struct ReadOperation;

struct AnswerLimits {
    qsizetype maxBytes = 100 * 1000;
    qsizetype maxStringChars = 4000;
};

struct ShapedAnswer {
    QJsonObject structured;
    QByteArray json; // structured, compact
    QString summary; // one line before it in the text content
    bool truncated = false;
};

ShapedAnswer shapeAnswer(const ReadOperation &op, const QJsonValue &answer,
                         const QStringList &projection, const QJsonObject &args,
                         const AnswerLimits &limits = {});

// The projection of value: only the parts the pointers name (RFC 6901, "*" = every array
// element), in the value's own shape; the pointers that matched nothing go to unmatched.
QJsonValue project(const QJsonValue &value, const QStringList &pointers, QStringList *unmatched);

} // namespace fb::readops
