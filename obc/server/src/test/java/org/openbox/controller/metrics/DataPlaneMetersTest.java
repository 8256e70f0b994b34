package org.openbox.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DataPlaneMetersTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final DataPlaneMeters meters = new DataPlaneMeters(new ControllerMetrics(registry));

    private static DataPlaneMeters.Sample in(long dpid, double v) {
        return DataPlaneMeters.Sample.counter("openbox.obi.packets", "in", v, "dpid", "" + dpid, "direction", "in");
    }

    private static DataPlaneMeters.Sample load(long dpid, double v) {
        return DataPlaneMeters.Sample.gauge("openbox.obi.load", "load", v, "dpid", "" + dpid);
    }

    private double value(String name, long dpid) {
        return registry.find(name).tag("dpid", "" + dpid).meters().stream()
                .findFirst()
                .map(m -> m.measure().iterator().next().getValue())
                .orElse(Double.NaN);
    }

    private Set<Meter> all() {
        return Set.copyOf(registry.getMeters());
    }

    @Test
    void theSameFiguresAgainUpdateTheMetersInPlace() {
        meters.update(7, List.of(in(7, 10), load(7, 0.5)), true);
        Set<Meter> first = all();
        assertThat(first).hasSize(2);

        meters.update(7, List.of(load(7, 0.25), in(7, 20)), true);
        assertThat(all()).isEqualTo(first); // same meter objects, no re-registration
        assertThat(value("openbox.obi.packets", 7)).isEqualTo(20.0);
        assertThat(value("openbox.obi.load", 7)).isEqualTo(0.25);
    }

    @Test
    void aCompleteCollectionRemovesWhatItNoLongerReportsAnIncompleteOneKeepsIt() {
        meters.update(7, List.of(in(7, 10), load(7, 0.5)), true);

        meters.update(7, List.of(in(7, 11)), false); // load not answered: kept at its last value
        assertThat(value("openbox.obi.load", 7)).isEqualTo(0.5);
        assertThat(value("openbox.obi.packets", 7)).isEqualTo(11.0);

        meters.update(7, List.of(in(7, 12)), true); // load gone from the OBI's report
        assertThat(registry.find("openbox.obi.load").meters()).isEmpty();
        assertThat(value("openbox.obi.packets", 7)).isEqualTo(12.0);

        // a sample named twice is one meter, the last value wins
        meters.update(7, List.of(in(7, 13), in(7, 14)), true);
        assertThat(all()).hasSize(1);
        assertThat(value("openbox.obi.packets", 7)).isEqualTo(14.0);
    }

    @Test
    void theMetersOfAnObiThatIsGoneAreRemoved() {
        meters.update(7, List.of(in(7, 1)), true);
        meters.update(8, List.of(in(8, 2)), true);
        meters.retainOnly(Set.of(8L));
        assertThat(value("openbox.obi.packets", 7)).isNaN();
        assertThat(value("openbox.obi.packets", 8)).isEqualTo(2.0);
    }
}
