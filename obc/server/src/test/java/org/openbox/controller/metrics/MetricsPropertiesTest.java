package org.openbox.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class MetricsPropertiesTest {

    private static MetricsProperties with(String interval) {
        return new MetricsProperties(interval, Duration.ofSeconds(5), 32, 256, true);
    }

    @Test
    void intervalIsADurationOrOff() {
        assertThat(with("10s").period()).contains(Duration.ofSeconds(10));
        assertThat(with("500ms").period()).contains(Duration.ofMillis(500));
        assertThat(with("off").period()).isEmpty();
        assertThat(with("OFF").period()).isEmpty();
        assertThat(with("0").period()).isEmpty();
        assertThat(with("0s").period()).isEmpty();
    }

    @Test
    void badValuesAreRefusedNamingTheProperty() {
        assertThatThrownBy(() -> with("soon"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("openbox.metrics.interval 'soon' is not a duration (e.g. 10s, 500ms) nor 0/off");
        assertThatThrownBy(() -> with("-1s")).hasMessageContaining("must not be negative");
        assertThatThrownBy(() -> new MetricsProperties("10s", Duration.ZERO, 32, 256, true))
                .hasMessageContaining("openbox.metrics.timeout");
        assertThatThrownBy(() -> new MetricsProperties("10s", Duration.ofSeconds(1), 0, 256, true))
                .hasMessageContaining("openbox.metrics.max-in-flight");
    }
}
