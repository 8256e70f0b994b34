package org.openbox.controller.apps;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.stereotype.Component;

/** The loaded applications by name, in load order. Thread-safe. */
@Component
public class AppCatalog {

    private final Map<String, AppEntry> entries = new LinkedHashMap<>();

    /** Adds an entry; false when the name is taken. */
    public synchronized boolean add(AppEntry e) {
        return entries.putIfAbsent(e.name(), e) == null;
    }

    public synchronized Optional<AppEntry> get(String name) {
        return Optional.ofNullable(entries.get(name));
    }

    public synchronized List<AppEntry> all() {
        return List.copyOf(entries.values());
    }

    /** Running applications, highest priority first (ties by name). */
    public List<AppEntry> runningByPriority() {
        List<AppEntry> running =
                new ArrayList<>(all().stream().filter(AppEntry::running).toList());
        running.sort(Comparator.comparingInt(AppEntry::priority).reversed().thenComparing(AppEntry::name));
        return running;
    }
}
