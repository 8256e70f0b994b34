package org.openbox.controller.events;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.openbox.controller.OpenboxProperties;
import org.springframework.stereotype.Component;

/** The most recent alerts (bounded by {@code openbox.alert-history}), newest last. */
@Component
public class AlertLog {

    private final int capacity;
    private final Deque<AlertRecord> recent = new ArrayDeque<>();

    public AlertLog(OpenboxProperties props) {
        this.capacity = Math.max(1, props.alertHistory());
    }

    public synchronized void add(AlertRecord r) {
        if (recent.size() == capacity) {
            recent.removeFirst();
        }
        recent.addLast(r);
    }

    /** Up to {@code limit} newest alerts, optionally of one application only. */
    public synchronized List<AlertRecord> recent(int limit, String app) {
        List<AlertRecord> out = new ArrayList<>();
        var it = recent.descendingIterator();
        while (it.hasNext() && out.size() < limit) {
            AlertRecord r = it.next();
            if (app == null || app.equals(r.app())) {
                out.add(r);
            }
        }
        java.util.Collections.reverse(out);
        return out;
    }
}
