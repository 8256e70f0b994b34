package org.openbox.controller.events;

import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.openbox.api.AlertRule;
import org.openbox.api.Topology;
import org.openbox.api.event.AlertEvent;
import org.openbox.api.event.ErrorEvent;
import org.openbox.api.event.InstanceEvent;
import org.openbox.api.event.LogEvent;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.metrics.ControllerMetrics;
import org.openbox.merge.Origin;
import org.openbox.merge.Provenance;
import org.openbox.protocol.message.Alert;
import org.openbox.protocol.message.AlertEntry;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.Log;
import org.openbox.protocol.message.LogEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Delivers what OBIs report to the applications it concerns, and to nobody else.
 *
 * <ul>
 * <li>Alert / Log entries: the entry's {@code origin_block} is a block of the merged graph;
 *     its provenance names the (application, block) pairs it implements, and each owner
 *     gets the event with its own block name. When the entry carries {@code app_id} naming one
 *     of the owners, only that owner gets it. Alerts are also kept for GET /api/alerts, with
 *     the owner's rule behind the block ({@code Application.alertRule}), the packet's time,
 *     header fields and flow id, and written to the EVE alert log ({@link EveAlertLog}).</li>
 * <li>Errors: to the applications the failed request was made for.</li>
 * <li>InstanceUp / InstanceDown: to every running application with a location that
 *     includes the OBI.</li>
 * </ul>
 */
@Service
public class AppEvents {

    private static final Logger log = LoggerFactory.getLogger(AppEvents.class);

    private final AppCatalog catalog;
    private final TopologyHolder topology;
    private final GraphAggregator aggregator;
    private final AppDispatcher dispatcher;
    private final AlertLog alerts;
    private final ControllerMetrics metrics;
    private final EveAlertLog eve;

    public AppEvents(
            AppCatalog catalog,
            TopologyHolder topology,
            GraphAggregator aggregator,
            AppDispatcher dispatcher,
            AlertLog alerts,
            ControllerMetrics metrics,
            EveAlertLog eve) {
        this.catalog = catalog;
        this.topology = topology;
        this.aggregator = aggregator;
        this.dispatcher = dispatcher;
        this.alerts = alerts;
        this.metrics = metrics;
        this.eve = eve;
    }

    public void onAlert(Alert alert) {
        long dpid = alert.originDpid();
        Provenance origins = originsOf(dpid);
        Instant received = Instant.now();
        for (AlertEntry e : alert.messages()) {
            // the packet's own time when the OBI sends it, else when the OBI raised the alert
            Instant time = instant(
                    e.packetTimestamp() != null && e.packetTimestamp() > 0 ? e.packetTimestamp() : e.timestamp());
            long flowId = FlowIds.of(e.headers());
            String attached = e.packet() == null || e.packet().isEmpty() ? null : e.packet();
            List<Origin> owners = owners(origins, e.originBlock(), e.appId());
            if (owners.isEmpty()) {
                log.debug(
                        "alert from OBI {} block '{}' has no owning application: {}",
                        dpid,
                        e.originBlock(),
                        e.message());
                record(new AlertRecord(
                        time,
                        null,
                        dpid,
                        null,
                        e.originBlock(),
                        e.message(),
                        e.severity(),
                        null,
                        e.headers(),
                        flowId,
                        attached,
                        received));
                metrics.alert(null, e.severity());
                continue;
            }
            byte[] packet = packet(e.packet());
            for (Origin owner : owners) {
                Optional<AppEntry> app = catalog.get(owner.app());
                AlertRule rule = app.flatMap(a -> ruleOf(a, owner.block())).orElse(null);
                record(new AlertRecord(
                        time,
                        owner.app(),
                        dpid,
                        owner.block(),
                        e.originBlock(),
                        e.message(),
                        e.severity(),
                        rule,
                        e.headers(),
                        flowId,
                        attached,
                        received));
                metrics.alert(owner.app(), e.severity());
                AlertEvent event = new AlertEvent(dpid, owner.block(), e.message(), e.severity(), packet, time);
                app.ifPresent(a -> dispatcher.deliver(a, "onAlert", x -> x.onAlert(event)));
            }
        }
    }

    private void record(AlertRecord r) {
        alerts.add(r);
        eve.offer(r);
        if (log.isDebugEnabled()) {
            log.debug(
                    "alert {} dpid {} block {} rule {} {} {}:{} -> {}:{} severity {}: {}",
                    r.app(),
                    r.dpid(),
                    r.block(),
                    r.rule() == null ? "-" : r.rule().id(),
                    r.headers().ipProto(),
                    r.headers().srcIp(),
                    r.headers().srcPort(),
                    r.headers().dstIp(),
                    r.headers().dstPort(),
                    r.severity(),
                    r.message());
        }
    }

    /** The application's rule behind its block; an application that throws names none. */
    private static Optional<AlertRule> ruleOf(AppEntry app, String block) {
        try {
            return app.app().alertRule(block);
        } catch (RuntimeException ex) {
            log.debug("application '{}' alertRule({}) threw: {}", app.name(), block, ex.toString());
            return Optional.empty();
        }
    }

    public void onLog(Log logMessage) {
        long dpid = logMessage.originDpid();
        Provenance origins = originsOf(dpid);
        for (LogEntry e : logMessage.messages()) {
            Instant time = instant(e.timestamp());
            byte[] packet = packet(e.packet());
            for (Origin owner : owners(origins, e.originBlock(), null)) {
                LogEvent event = new LogEvent(dpid, owner.block(), e.message(), e.severity(), packet, time);
                catalog.get(owner.app()).ifPresent(app -> dispatcher.deliver(app, "onLog", a -> a.onLog(event)));
            }
        }
    }

    /**
     * The provenance of the OBI's graph. An OBI that kept running through a controller
     * restart may report before its Hello was handled: its graph is computed first (the same
     * applications give the same merged graph, hence the same block names), so its alerts are
     * attributed instead of being counted as unattributed.
     */
    private Provenance originsOf(long dpid) {
        return aggregator.expected(dpid).origins();
    }

    public void onObiError(long dpid, ErrorMessage error, Set<String> apps) {
        ErrorEvent event = new ErrorEvent(dpid, error.errorType(), error.errorSubtype(), error.message());
        for (String name : apps) {
            catalog.get(name).ifPresent(app -> dispatcher.deliver(app, "onError", a -> a.onError(event)));
        }
    }

    public void instanceUp(long dpid) {
        InstanceEvent event = new InstanceEvent(dpid);
        for (AppEntry app : concerned(dpid)) {
            dispatcher.deliver(app, "onInstanceUp", a -> a.onInstanceUp(event));
        }
    }

    public void instanceDown(long dpid) {
        InstanceEvent event = new InstanceEvent(dpid);
        for (AppEntry app : concerned(dpid)) {
            dispatcher.deliver(app, "onInstanceDown", a -> a.onInstanceDown(event));
        }
    }

    private List<AppEntry> concerned(long dpid) {
        Topology topo = topology.topology();
        return catalog.all().stream()
                .filter(AppEntry::running)
                .filter(a -> a.appliesTo(dpid, topo))
                .toList();
    }

    private static List<Origin> owners(Provenance origins, String mergedBlock, String appId) {
        if (mergedBlock == null) {
            return List.of();
        }
        List<Origin> refs = origins.originsOf(mergedBlock);
        if (appId == null || appId.isEmpty()) {
            return refs;
        }
        // app_id narrows a block shared by several applications; the owners stay the provenance's
        List<Origin> named = refs.stream().filter(r -> r.app().equals(appId)).toList();
        return named.isEmpty() ? refs : named;
    }

    /** Seconds since the epoch, to the microsecond (what a double holds exactly at today's dates). */
    private static Instant instant(double seconds) {
        if (seconds <= 0 || !Double.isFinite(seconds)) {
            return Instant.now();
        }
        long micros = Math.round(seconds * 1e6);
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
    }

    private static byte[] packet(String base64) {
        if (base64 == null || base64.isEmpty()) {
            return new byte[0];
        }
        try {
            return Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            return new byte[0];
        }
    }
}
