package org.openbox.controller.southbound;

import java.util.Optional;
import org.openbox.controller.events.AppEvents;
import org.openbox.controller.metrics.ControllerMetrics;
import org.openbox.controller.metrics.ObiMetricsCollector;
import org.openbox.controller.obi.ObiConnections;
import org.openbox.controller.obi.ObiLiveness;
import org.openbox.controller.obi.PendingRequests;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.message.AddCustomModuleResponse;
import org.openbox.protocol.message.Alert;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.GetParametersResponse;
import org.openbox.protocol.message.GlobalStatsResponse;
import org.openbox.protocol.message.Hello;
import org.openbox.protocol.message.KeepAlive;
import org.openbox.protocol.message.ListCapabilitiesResponse;
import org.openbox.protocol.message.Log;
import org.openbox.protocol.message.Message;
import org.openbox.protocol.message.ReadResponse;
import org.openbox.protocol.message.RemoveCustomModuleResponse;
import org.openbox.protocol.message.SetParametersResponse;
import org.openbox.protocol.message.SetProcessingGraphResponse;
import org.openbox.protocol.message.WriteResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Dispatches a decoded up message: Hello / KeepAlive to the OBI manager (a KeepAlive's
 * {@code metrics} to the metrics collector), Alert / Log to
 * the applications that own the blocks, responses and Errors to the request they answer
 * (an Error is also surfaced to the applications the request was made for). Down-only
 * messages posted to the controller are refused with UNSUPPORTED / UNSUPPORTED_MESSAGE.
 * An Alert or Log an OBI sends again after a lost answer is taken once ({@link RepeatedEvents}).
 */
@Component
public class UpMessageHandler {

    private static final Logger log = LoggerFactory.getLogger(UpMessageHandler.class);

    private final ObiConnections obis;
    private final ObiLiveness liveness;
    private final PendingRequests pending;
    private final AppEvents events;
    private final ControllerMetrics metrics;
    private final RepeatedEvents repeats;
    private final ObiMetricsCollector collector;

    public UpMessageHandler(
            ObiConnections obis,
            ObiLiveness liveness,
            PendingRequests pending,
            AppEvents events,
            ControllerMetrics metrics,
            RepeatedEvents repeats,
            ObiMetricsCollector collector) {
        this.obis = obis;
        this.liveness = liveness;
        this.pending = pending;
        this.events = events;
        this.metrics = metrics;
        this.repeats = repeats;
        this.collector = collector;
    }

    /** Handles the message; a non-empty result means "answer 400 with this error". */
    public Optional<Rejection> handle(Message m, String remoteAddr) {
        metrics.messageReceived(m.type());
        if (m instanceof Hello hello) {
            Optional<Rejection> refused = obis.onHello(hello, remoteAddr);
            if (refused.isEmpty()) {
                repeats.forget(hello.dpid());
            }
            return refused;
        } else if (m instanceof KeepAlive ka) {
            Optional<Rejection> refused = obis.onKeepAlive(ka.dpid(), remoteAddr);
            if (refused.isEmpty() && ka.metrics() != null) {
                collector.onKeepAliveMetrics(ka.dpid(), ka.metrics());
            }
            return refused;
        } else if (m instanceof Alert alert) {
            Optional<Rejection> refused = obis.onEvent(alert.originDpid(), remoteAddr, "Alert");
            if (refused.isPresent()) {
                return refused;
            }
            if (repeats.first(alert.originDpid(), "Alert", alert.xid())) {
                events.onAlert(alert);
            } else {
                log.debug("Alert xid {} from dpid {} was taken already", alert.xid(), alert.originDpid());
            }
        } else if (m instanceof Log logMessage) {
            Optional<Rejection> refused = obis.onEvent(logMessage.originDpid(), remoteAddr, "Log");
            if (refused.isPresent()) {
                return refused;
            }
            if (repeats.first(logMessage.originDpid(), "Log", logMessage.xid())) {
                events.onLog(logMessage);
            } else {
                log.debug("Log xid {} from dpid {} was taken already", logMessage.xid(), logMessage.originDpid());
            }
        } else if (m instanceof ErrorMessage error) {
            onError(error);
        } else if (isResponse(m)) {
            pending.complete(m)
                    .ifPresentOrElse(
                            p -> liveness.seen(p.dpid()),
                            () -> log.debug("{} with xid {} answers no pending request", m.type(), m.xid()));
        } else {
            return Optional.of(new Rejection(
                    ErrorSubtype.UNSUPPORTED_MESSAGE,
                    m.type() + " is sent by the controller to OBIs, not to the controller"));
        }
        return Optional.empty();
    }

    private void onError(ErrorMessage error) {
        var p = pending.complete(error);
        if (p.isPresent()) {
            liveness.seen(p.get().dpid());
            log.warn(
                    "OBI {} answered {} (xid {}) with {}/{}: {}",
                    p.get().dpid(),
                    p.get().requestType(),
                    error.xid(),
                    error.errorType(),
                    error.errorSubtype(),
                    error.message());
            events.onObiError(p.get().dpid(), error, p.get().apps());
        } else {
            log.warn(
                    "unsolicited Error xid {}: {}/{}: {}",
                    error.xid(),
                    error.errorType(),
                    error.errorSubtype(),
                    error.message());
        }
    }

    private static boolean isResponse(Message m) {
        return m instanceof ListCapabilitiesResponse
                || m instanceof SetParametersResponse
                || m instanceof GetParametersResponse
                || m instanceof GlobalStatsResponse
                || m instanceof ReadResponse
                || m instanceof WriteResponse
                || m instanceof SetProcessingGraphResponse
                || m instanceof AddCustomModuleResponse
                || m instanceof RemoveCustomModuleResponse;
    }
}
