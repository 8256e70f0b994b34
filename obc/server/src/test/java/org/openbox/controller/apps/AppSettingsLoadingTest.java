package org.openbox.controller.apps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.AppSettings;
import org.openbox.api.Application;
import org.openbox.api.GraphBuilder;
import org.openbox.api.Location;
import org.openbox.api.Statement;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.ToDevice;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.StartupProperties;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Applications get their settings from openbox.apps.NAME.* (properties, environment) over
 * their file; bad settings make a failure naming the key, and the start-up gate refuses them.
 */
class AppSettingsLoadingTest {

    @TempDir
    Path tmp;

    /** An application that declares one key, "out", the device it writes to. */
    static final class Strict extends Application {
        String out = "unset";

        @Override
        public String name() {
            return "strict";
        }

        @Override
        public Set<String> settingKeys() {
            return Set.of("out");
        }

        @Override
        public void configure(AppSettings s) {
            super.configure(s);
            out = s.get("out", "eth1");
        }

        @Override
        public List<Statement> statements() {
            return List.of(new Statement(
                    Location.network(),
                    new GraphBuilder()
                            .chain(new FromDevice("in", "eth0"), new ToDevice("out", out))
                            .build()));
        }
    }

    private static AppLoader.Discovery discover(Strict app, StandardEnvironment env) {
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        beans.addBean("strict", app);
        OpenboxProperties props = new OpenboxProperties(
                Duration.ofSeconds(10),
                null,
                Duration.ofMillis(100),
                Duration.ofSeconds(5),
                null,
                null,
                3636,
                100,
                10000,
                false,
                true,
                null);
        return new AppLoader(beans.getBeanProvider(Application.class), props, new AppSettingsSource(env)).discover();
    }

    private static StandardEnvironment env(Map<String, Object> properties) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return env;
    }

    @Test
    void propertiesReachTheApplication() {
        Strict app = new Strict();
        AppLoader.Discovery d = discover(app, env(Map.of("openbox.apps.strict.out", "eth7")));
        assertThat(d.failures()).isEmpty();
        assertThat(app.out).isEqualTo("eth7");
    }

    @Test
    void environmentVariablesBindRelaxed() {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources()
                .addFirst(new SystemEnvironmentPropertySource(
                        "test-systemEnvironment", Map.of("OPENBOX_APPS_STRICT_OUT", "eth8")));
        Strict app = new Strict();
        assertThat(discover(app, env).failures()).isEmpty();
        assertThat(app.out).isEqualTo("eth8");
    }

    @Test
    void theNamedFileIsReadAndThePropertyWins() throws Exception {
        Path file = Files.writeString(tmp.resolve("strict.properties"), "out = eth3\n");
        Strict app = new Strict();
        discover(app, env(Map.of("openbox.app.strict.config", file.toString())));
        assertThat(app.out).isEqualTo("eth3");
        discover(app, env(Map.of("openbox.app.strict.config", file.toString(), "openbox.apps.strict.out", "eth4")));
        assertThat(app.out).isEqualTo("eth4");
    }

    @Test
    void anUnknownKeyIsAFailureNamingTheKeyAndTheKnownOnes() {
        AppLoader.Discovery d = discover(new Strict(), env(Map.of("openbox.apps.strict.color", "red")));
        assertThat(d.apps()).isEmpty();
        assertThat(d.failures()).singleElement().satisfies(f -> {
            assertThat(f.source()).isEqualTo("strict");
            assertThat(f.error()).isEqualTo("app strict: openbox.apps.strict: unknown key 'color' (known keys: out)");
        });
    }

    @Test
    void theGateRefusesToStartUnlessFailedAppsAreAllowed() {
        List<AppEntry> entries = List.of(
                new AppEntry(
                        "strict",
                        null,
                        "strict",
                        0,
                        List.of(),
                        AppState.REFUSED,
                        "app strict: openbox.apps.strict: unknown key 'color' (known keys: out)"),
                new AppEntry(
                        "firewall",
                        null,
                        "classpath",
                        0,
                        List.of(),
                        AppState.REFUSED,
                        "/etc/fw.rules:13: bad address '10.300.0.1'"),
                new AppEntry(
                        "lb", null, "classpath", 0, List.of(), AppState.REFUSED, "invalid graph in statement 0: x"),
                new AppEntry("ok", new Strict(), "classpath", 0, List.of(), AppState.STOPPED, null));
        assertThatThrownBy(() -> new StartupGate(new StartupProperties(false, false, null)).verify(entries))
                .isInstanceOfSatisfying(StartupRefusedException.class, e -> assertThat(e.problems())
                        .containsExactly(
                                "app strict: openbox.apps.strict: unknown key 'color' (known keys: out)",
                                "/etc/fw.rules:13: bad address '10.300.0.1'",
                                "app lb: invalid graph in statement 0: x"));
        new StartupGate(new StartupProperties(true, false, null)).verify(entries);
        new StartupGate(new StartupProperties(false, true, null)).verify(entries);
    }

    @Test
    void settingsForAnApplicationThatDoesNotExistAreAFailure() {
        AppLoader.Discovery d = discover(
                new Strict(),
                env(Map.of("openbox.apps.strikt.out", "eth7", "openbox.app.other.config", "x.properties")));
        assertThat(d.apps()).hasSize(1);
        assertThat(d.failures())
                .extracting(AppLoader.LoadFailure::error)
                .containsExactly(
                        "app other: settings are given (openbox.apps.other.* or openbox.app.other.config) but no application"
                                + " has that name (applications: strict)",
                        "app strikt: settings are given (openbox.apps.strikt.* or openbox.app.strikt.config) but no application"
                                + " has that name (applications: strict)");
    }
}
