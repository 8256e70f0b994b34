package org.openbox.controller.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.AppState;
import org.openbox.controller.apps.AppsChanged;
import org.openbox.controller.isolation.AppStatus;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Application state gauges (at /actuator/prometheus): {@code openbox_app_state{app,state}}
 * is 1 for the state the application is in (as GET /api/apps shows it: FAILED also when an
 * OBI refused its graph) and 0 for the others; {@code openbox_apps{state}} counts the
 * applications per state. Values are computed when scraped.
 */
@Component
public class AppStateMetrics {

    private final MeterRegistry registry;
    private final AppCatalog catalog;
    private final AppStatus status;

    public AppStateMetrics(ControllerMetrics metrics, AppCatalog catalog, AppStatus status) {
        this.registry = metrics.registry();
        this.catalog = catalog;
        this.status = status;
        for (AppState s : AppState.values()) {
            Gauge.builder("openbox.apps", catalog, c -> c.all().stream()
                            .filter(e -> status.of(e).state().equals(s.name()))
                            .count())
                    .tag("state", s.name())
                    .description("applications by state")
                    .register(registry);
        }
    }

    @EventListener(ApplicationReadyEvent.class)
    public void registerAll() {
        catalog.all().forEach(this::register);
    }

    @EventListener
    public void onAppsChanged(AppsChanged change) {
        catalog.get(change.app()).ifPresent(this::register);
    }

    private void register(AppEntry e) {
        for (AppState s : AppState.values()) {
            Gauge.builder("openbox.app.state", e, x -> status.of(x).state().equals(s.name()) ? 1 : 0)
                    .tag("app", e.name())
                    .tag("state", s.name())
                    .description("1 for the state the application is in")
                    .register(registry);
        }
    }
}
