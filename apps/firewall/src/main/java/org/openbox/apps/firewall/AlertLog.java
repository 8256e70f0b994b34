package org.openbox.apps.firewall;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openbox.api.event.AlertEvent;

/**
 * Alerts the firewall received: a count per Alert block (one block per alert rule) and the
 * most recent lines, bounded so a flood of alerts cannot exhaust memory. Thread-safe: alert
 * hooks run on controller threads.
 */
final class AlertLog {

    private final int capacity;
    private final Map<String, Long> counts = new TreeMap<>();
    private final Deque<String> lines = new ArrayDeque<>();

    AlertLog(int capacity) {
        this.capacity = capacity;
    }

    synchronized String add(AlertEvent e) {
        counts.merge(e.block(), 1L, Long::sum);
        String line =
                e.time() + " dpid " + e.dpid() + " " + e.block() + " severity " + e.severity() + ": " + e.message();
        if (lines.size() == capacity) {
            lines.removeFirst();
        }
        lines.addLast(line);
        return line;
    }

    synchronized Map<String, Long> counts() {
        return Map.copyOf(counts);
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }
}
