#pragma once
// The row of the read-operation table for an operation id, for the suites of ReadOperations and
// ReadAnswer (a missing row is a broken test, so it stops the run).
#include "broker/ReadOperations.h"

#include <QtGlobal>

namespace fbtest {

inline const fb::readops::ReadOperation &readOperation(const QString &operationId)
{
    for (const fb::readops::ReadOperation &op : fb::readops::table().operations)
        if (op.operationId == operationId)
            return op;
    qFatal("no row %s", qPrintable(operationId));
}

} // namespace fbtest
