package org.openbox.controller.management;

import java.time.Instant;
import java.util.Map;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.isolation.AppStatus;

/**
 * An application as listed by GET /api/apps: {@code state} (FAILED also when some OBI
 * refused its graph, see {@code failedOn}), {@code error} why it was refused or failed,
 * {@code failureMode} (closed / open) and {@code failureModeSource} (app / operator),
 * {@code action} what its traffic gets now and {@code reason} why, {@code failedOn} the OBIs
 * that refused its graph with their messages, {@code reloadedAt} its last reload,
 * {@code stoppedByOperator}.
 */
public record AppView(
        String name,
        int priority,
        String state,
        String source,
        String error,
        int statements,
        String failureMode,
        String failureModeSource,
        String action,
        String reason,
        Map<Long, String> failedOn,
        Instant reloadedAt,
        boolean stoppedByOperator) {

    static AppView of(AppEntry e, AppStatus status, boolean overridden) {
        AppStatus.Status s = status.of(e);
        return new AppView(
                e.name(),
                e.priority(),
                s.state(),
                e.source(),
                e.error(),
                e.graphs().size(),
                e.failureMode().label(),
                overridden ? "operator" : "app",
                s.action(),
                s.reason(),
                s.failedOn(),
                e.reloadedAt(),
                e.stoppedByOperator());
    }
}
