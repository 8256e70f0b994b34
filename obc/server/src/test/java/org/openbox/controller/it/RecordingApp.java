package org.openbox.controller.it;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.openbox.api.AppContext;
import org.openbox.api.Application;
import org.openbox.api.event.AlertEvent;
import org.openbox.api.event.ErrorEvent;
import org.openbox.api.event.InstanceEvent;
import org.openbox.api.event.LogEvent;

/** An application for tests that records every event it gets and keeps its context. */
abstract class RecordingApp extends Application {

    final List<AlertEvent> alerts = new CopyOnWriteArrayList<>();
    final List<LogEvent> logs = new CopyOnWriteArrayList<>();
    final List<InstanceEvent> ups = new CopyOnWriteArrayList<>();
    final List<InstanceEvent> downs = new CopyOnWriteArrayList<>();
    final List<ErrorEvent> errors = new CopyOnWriteArrayList<>();
    volatile AppContext context;

    @Override
    public void start(AppContext ctx) {
        this.context = ctx;
    }

    @Override
    public void onAlert(AlertEvent e) {
        alerts.add(e);
    }

    @Override
    public void onLog(LogEvent e) {
        logs.add(e);
    }

    @Override
    public void onInstanceUp(InstanceEvent e) {
        ups.add(e);
    }

    @Override
    public void onInstanceDown(InstanceEvent e) {
        downs.add(e);
    }

    @Override
    public void onError(ErrorEvent e) {
        errors.add(e);
    }

    long upsOf(long dpid) {
        return ups.stream().filter(e -> e.dpid() == dpid).count();
    }

    long downsOf(long dpid) {
        return downs.stream().filter(e -> e.dpid() == dpid).count();
    }
}
