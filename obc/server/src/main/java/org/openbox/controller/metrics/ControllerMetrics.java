package org.openbox.controller.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/**
 * Controller meters (exported at /actuator/prometheus):
 * {@code openbox_messages_total{direction,type}}, {@code openbox_roundtrip_seconds{type}}
 * (down request to answer), {@code openbox_alerts_total{app,severity}},
 * {@code openbox_graph_swap_seconds{dpid,outcome}} (SetProcessingGraphRequest sent to its
 * answer: ok, refused (an Error), failed (no answer)); the OBI up/down gauges are registered
 * by the OBI manager, the data-plane meters by {@link ObiMetricsCollector}.
 */
@Component
public class ControllerMetrics {

    private final MeterRegistry registry;
    // meters by tag value: looked up on every message, so kept instead of rebuilt
    private final java.util.concurrent.ConcurrentHashMap<String, Counter> up =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.ConcurrentHashMap<String, Counter> down =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.ConcurrentHashMap<String, Timer> roundTrips =
            new java.util.concurrent.ConcurrentHashMap<>();

    public ControllerMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void messageReceived(String type) {
        up.computeIfAbsent(type, t -> messages("up", t)).increment();
    }

    public void messageSent(String type) {
        down.computeIfAbsent(type, t -> messages("down", t)).increment();
    }

    public void roundTrip(String requestType, long nanos) {
        roundTrips
                .computeIfAbsent(requestType, t -> Timer.builder("openbox.roundtrip")
                        .description("time from a down request to its answer")
                        .tag("type", t)
                        .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    public void alert(String app, int severity) {
        Counter.builder("openbox.alerts")
                .description("alerts delivered, by owning application and severity")
                .tag("app", app == null ? "(unattributed)" : app)
                .tag("severity", Integer.toString(severity))
                .register(registry)
                .increment();
    }

    /** A graph pushed to OBI {@code dpid} was answered (or not) after {@code nanos}. */
    public void graphSwap(long dpid, String outcome, long nanos) {
        Timer.builder("openbox.graph.swap")
                .description("SetProcessingGraphRequest sent until the OBI's answer")
                .tag("dpid", Long.toString(dpid))
                .tag("outcome", outcome)
                .register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    private Counter messages(String direction, String type) {
        return Counter.builder("openbox.messages")
                .description("protocol messages by direction and type")
                .tag("direction", direction)
                .tag("type", type)
                .register(registry);
    }
}
