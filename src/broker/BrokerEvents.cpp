#include "broker/BrokerEvents.h"

namespace fb {

void forwardBrokerEvents(const BrokerEvents *from, BrokerEvents *to)
{
    QObject::connect(from, &BrokerEvents::auditEvent, to, &BrokerEvents::auditEvent);
    QObject::connect(from, &BrokerEvents::approvalStarted, to, &BrokerEvents::approvalStarted);
    QObject::connect(from, &BrokerEvents::approvalFinished, to, &BrokerEvents::approvalFinished);
    QObject::connect(from, &BrokerEvents::executionFinished, to, &BrokerEvents::executionFinished);
    QObject::connect(from, &BrokerEvents::confirmStage, to, &BrokerEvents::confirmStage);
    QObject::connect(from, &BrokerEvents::createsInFlightChanged, to,
                     &BrokerEvents::createsInFlightChanged);
}

} // namespace fb
