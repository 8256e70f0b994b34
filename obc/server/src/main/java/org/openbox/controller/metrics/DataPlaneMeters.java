package org.openbox.controller.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * The meters of what the OBIs report, kept per OBI: each collection of an OBI replaces its
 * values ({@link #update}); a meter it did not report again (a block or an application gone
 * from its graph) is removed, as are all meters of an OBI whose session is gone
 * ({@link #retainOnly}). Counters are the OBI's own totals, exported as Prometheus counters
 * (a restarted OBI starts from 0 again, which Prometheus takes as a counter reset); gauges
 * are current values. Values are read when scraped, from the last collection.
 */
@Component
public class DataPlaneMeters {

    /** One value an OBI reported: a counter or a gauge with its tags (the OBI's dpid among them). */
    public record Sample(String name, boolean counter, Tags tags, String description, double value) {

        static Sample counter(String name, String description, double value, String... tags) {
            return new Sample(name, true, Tags.of(tags), description, value);
        }

        static Sample gauge(String name, String description, double value, String... tags) {
            return new Sample(name, false, Tags.of(tags), description, value);
        }

        Key key() {
            return new Key(name, tags);
        }
    }

    private record Key(String name, Tags tags) {}

    /** The value a meter reads; written by the collection, read by the scrape. */
    private static final class Value {
        volatile double v;
    }

    private record Registered(Meter meter, Value value) {}

    private final MeterRegistry registry;
    private final Map<Long, Map<Key, Registered>> byObi = new HashMap<>();

    public DataPlaneMeters(ControllerMetrics metrics) {
        this.registry = metrics.registry();
    }

    /**
     * The values of one collection of OBI {@code dpid}. A complete collection replaces what
     * the OBI reported before (meters it did not report again are removed); an incomplete one
     * (something did not answer) only updates what it got.
     */
    public synchronized void update(long dpid, Collection<Sample> samples, boolean complete) {
        Map<Key, Registered> old = byObi.getOrDefault(dpid, Map.of());
        List<Registered> same = sameMeters(old, samples);
        if (same != null) {
            // the usual case, the same figures again: values only, no new map of the OBI's meters
            Iterator<Registered> r = same.iterator();
            for (Sample s : samples) {
                r.next().value().v = s.value();
            }
            return;
        }
        Map<Key, Registered> now = new HashMap<>();
        for (Sample s : samples) {
            Key k = s.key();
            Registered r = now.get(k);
            if (r == null) {
                r = old.get(k);
            }
            if (r == null) {
                r = register(s);
            }
            r.value().v = s.value();
            now.put(k, r);
        }
        for (Map.Entry<Key, Registered> e : old.entrySet()) {
            if (now.containsKey(e.getKey())) {
                continue;
            }
            if (complete) {
                registry.remove(e.getValue().meter());
            } else {
                now.put(e.getKey(), e.getValue());
            }
        }
        byObi.put(dpid, now);
    }

    /**
     * The meters of {@code samples} in their order when they name exactly the meters in
     * {@code old}, each once; otherwise null.
     */
    private static List<Registered> sameMeters(Map<Key, Registered> old, Collection<Sample> samples) {
        if (old.size() != samples.size()) {
            return null;
        }
        List<Registered> found = new ArrayList<>(samples.size());
        Set<Registered> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Sample s : samples) {
            Registered r = old.get(s.key());
            if (r == null || !seen.add(r)) {
                return null;
            }
            found.add(r);
        }
        return found;
    }

    /** Removes the meters of every OBI not in {@code dpids}. */
    public synchronized void retainOnly(Set<Long> dpids) {
        for (Iterator<Map.Entry<Long, Map<Key, Registered>>> it =
                        byObi.entrySet().iterator();
                it.hasNext(); ) {
            Map.Entry<Long, Map<Key, Registered>> e = it.next();
            if (!dpids.contains(e.getKey())) {
                e.getValue().values().forEach(r -> registry.remove(r.meter()));
                it.remove();
            }
        }
    }

    private Registered register(Sample s) {
        Value v = new Value();
        Meter m = s.counter()
                ? FunctionCounter.builder(s.name(), v, x -> x.v)
                        .tags(s.tags())
                        .description(s.description())
                        .register(registry)
                : Gauge.builder(s.name(), v, x -> x.v)
                        .tags(s.tags())
                        .description(s.description())
                        .register(registry);
        return new Registered(m, v);
    }
}
