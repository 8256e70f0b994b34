package org.openbox.controller.isolation;

import java.util.Map;
import org.openbox.api.FailureMode;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.aggregate.TrafficClasses;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.AppState;
import org.springframework.stereotype.Component;

/**
 * What an application's traffic gets now, as the management API, the console and the
 * metrics show it: its state (FAILED also when it runs but some OBI refused its graph), the
 * effective action ({@code runs}, {@code drop}, {@code drop class}, {@code bypass},
 * {@code stopped}, {@code none}; with {@code on OBI [..]} when it fails on some OBIs only)
 * and the reason.
 */
@Component
public class AppStatus {

    /** One application's status. */
    public record Status(String state, String action, String reason, Map<Long, String> failedOn) {}

    private final GraphAggregator aggregator;
    private final TrafficClasses classes;

    public AppStatus(GraphAggregator aggregator, TrafficClasses classes) {
        this.aggregator = aggregator;
        this.classes = classes;
    }

    public Status of(AppEntry e) {
        Map<Long, String> failedOn = aggregator.refusalsOf(e.name());
        String failAction = e.failureMode() == FailureMode.OPEN
                ? "bypass"
                : classes.of(e.name()).isPresent() ? "drop class" : "drop";
        if (e.cannotRun()) {
            return new Status(e.state().name(), failAction, e.error(), failedOn);
        }
        return switch (e.state()) {
            case RUNNING -> failedOn.isEmpty()
                    ? new Status(AppState.RUNNING.name(), "runs", null, failedOn)
                    : new Status(
                            AppState.FAILED.name(),
                            "runs; " + failAction + " on OBI " + failedOn.keySet(),
                            failedOn.entrySet().stream()
                                    .map(x -> "OBI " + x.getKey() + ": " + x.getValue())
                                    .collect(java.util.stream.Collectors.joining("; ")),
                            failedOn);
            case STOPPED -> new Status(
                    e.state().name(), "stopped", e.stoppedByOperator() ? "stopped by the operator" : null, failedOn);
            default -> new Status(e.state().name(), "none", e.error(), failedOn);
        };
    }
}
