package org.openbox.controller.events;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.openbox.api.Application;
import org.openbox.controller.apps.AppEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Runs application callbacks off the HTTP threads, on a small shared pool, keeping each
 * application's callbacks in order (one chain per application). A callback that throws is
 * logged; it never affects the controller or other applications.
 */
@Component
public class AppDispatcher implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(AppDispatcher.class);

    private final ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "app-events");
        t.setDaemon(true);
        return t;
    });
    private final ConcurrentHashMap<String, CompletableFuture<Void>> chains = new ConcurrentHashMap<>();

    public void deliver(AppEntry app, String what, Consumer<Application> callback) {
        chains.compute(app.name(), (name, tail) -> {
            CompletableFuture<Void> prev = tail == null ? CompletableFuture.completedFuture(null) : tail;
            return prev.thenRunAsync(
                    () -> {
                        if (!app.running()) {
                            return;
                        }
                        try {
                            callback.accept(app.app());
                        } catch (RuntimeException e) {
                            log.warn("application '{}' threw in {}", name, what, e);
                        }
                    },
                    pool);
        });
    }

    @Override
    public void destroy() {
        pool.shutdownNow();
    }
}
