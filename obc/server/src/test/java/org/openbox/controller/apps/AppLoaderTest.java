package org.openbox.controller.apps;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openbox.api.Application;
import org.openbox.controller.OpenboxProperties;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** Applications from jars in the application directory, each in its own class loader. */
class AppLoaderTest {

    @TempDir
    Path tmp;

    private static final String SOURCE =
            """
            package jarapp;
            import java.util.List;
import java.util.Map;
            import org.openbox.api.*;
            import org.openbox.api.blocks.*;
            public class JarApp extends Application {
                @Override public String name() { return "jarred"; }
                @Override public List<Statement> statements() {
                    return List.of(new Statement(Location.network(), new GraphBuilder()
                            .chain(new FromDevice("in", "eth0"), new ToDevice("out", "eth1")).build()));
                }
            }
            """;

    private Path buildJar(String name, String services) throws IOException {
        Path src = tmp.resolve("src/jarapp/JarApp.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, SOURCE);
        Path classes = tmp.resolve("classes-" + name);
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(
                null,
                null,
                null,
                "-d",
                classes.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                src.toString());
        assertThat(rc).isZero();
        Path dir = Files.createDirectories(tmp.resolve("apps"));
        Path jar = dir.resolve(name + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("jarapp/JarApp.class"));
            out.write(Files.readAllBytes(classes.resolve("jarapp/JarApp.class")));
            out.putNextEntry(new JarEntry("META-INF/services/org.openbox.api.Application"));
            out.write(services.getBytes(StandardCharsets.UTF_8));
        }
        return dir;
    }

    private static AppLoader loader(Path dir) {
        return loader(dir, Map.of());
    }

    /** A loader whose environment holds {@code properties} (as flags would). */
    private static AppLoader loader(Path dir, Map<String, Object> properties) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().addFirst(new MapPropertySource("flags", properties));
        OpenboxProperties props = new OpenboxProperties(
                Duration.ofSeconds(10),
                null,
                Duration.ofMillis(100),
                Duration.ofSeconds(5),
                dir,
                null,
                3636,
                100,
                10000,
                false,
                true,
                null);
        return new AppLoader(
                new StaticListableBeanFactory().getBeanProvider(Application.class), props, new AppSettingsSource(env));
    }

    @Test
    void applicationInAJarIsFoundInItsOwnClassLoader() throws Exception {
        Path dir = buildJar("good", "jarapp.JarApp\n");
        AppLoader loader = loader(dir);
        try {
            AppLoader.Discovery d = loader.discover();
            List<AppLoader.Found> jarred =
                    d.apps().stream().filter(f -> f.source().startsWith("jar:")).toList();
            assertThat(jarred).hasSize(1);
            assertThat(jarred.get(0).app().name()).isEqualTo("jarred");
            assertThat(jarred.get(0).app().getClass().getClassLoader())
                    .isNotSameAs(getClass().getClassLoader());
            assertThat(jarred.get(0).app().statements()).hasSize(1);
        } finally {
            loader.destroy();
        }
    }

    @Test
    void brokenJarIsAFailureAndDoesNotStopTheOthers() throws Exception {
        Path dir = buildJar("good", "jarapp.JarApp\n");
        buildJar("bad", "jarapp.DoesNotExist\n");
        try (OutputStream o = Files.newOutputStream(dir.resolve("garbage.jar"))) {
            o.write("not a jar".getBytes(StandardCharsets.UTF_8));
        }
        AppLoader loader = loader(dir);
        try {
            AppLoader.Discovery d = loader.discover();
            assertThat(d.apps()).extracting(f -> f.app().name()).contains("jarred");
            assertThat(d.failures()).anySatisfy(f -> {
                assertThat(f.source()).endsWith("bad.jar");
                assertThat(f.error()).contains("DoesNotExist");
            });
        } finally {
            loader.destroy();
        }
    }

    @Test
    void missingDirectoryIsReported() {
        AppLoader.Discovery d = loader(tmp.resolve("nowhere")).discover();
        assertThat(d.failures()).anySatisfy(f -> assertThat(f.error()).contains("does not exist"));
    }

    @Test
    void anInstanceIsANewObjectOfTheClassUnderItsOwnNameWithItsOwnSettings() throws Exception {
        Path dir = buildJar("good", "jarapp.JarApp\n");
        AppLoader loader = loader(dir, Map.of("openbox.instances.jarred2", "jarred"));
        try {
            AppLoader.Discovery d = loader.discover();
            assertThat(d.failures()).isEmpty();
            AppLoader.Found first = d.apps().stream()
                    .filter(f -> f.name().equals("jarred"))
                    .findFirst()
                    .orElseThrow();
            AppLoader.Found second = d.apps().stream()
                    .filter(f -> f.name().equals("jarred2"))
                    .findFirst()
                    .orElseThrow();
            assertThat(second.app()).isNotSameAs(first.app());
            assertThat(second.app().getClass()).isSameAs(first.app().getClass());
            assertThat(second.source()).isEqualTo(first.source());
        } finally {
            loader.destroy();
        }
        // the instance reads the settings of its own name: a key the class does not accept refuses it alone
        loader = loader(dir, Map.of("openbox.instances.jarred2", "jarred", "openbox.apps.jarred2.colour", "red"));
        try {
            AppLoader.Discovery d = loader.discover();
            assertThat(d.apps())
                    .extracting(AppLoader.Found::name)
                    .contains("jarred")
                    .doesNotContain("jarred2");
            assertThat(d.failures()).singleElement().satisfies(f -> {
                assertThat(f.source()).isEqualTo("jarred2");
                assertThat(f.error()).contains("colour");
            });
        } finally {
            loader.destroy();
        }
    }

    @Test
    void anInstanceOfAnUnknownApplicationOrUnderATakenNameIsAFailureNamingTheProperty() throws Exception {
        Path dir = buildJar("good", "jarapp.JarApp\n");
        AppLoader loader = loader(
                dir,
                Map.of(
                        "openbox.instances.other",
                        "nosuchapp",
                        "openbox.instances.jarred",
                        "jarred",
                        "openbox.instances.third",
                        "other"));
        try {
            AppLoader.Discovery d = loader.discover();
            assertThat(d.apps()).extracting(AppLoader.Found::name).containsExactly("jarred");
            assertThat(d.failures())
                    .extracting(AppLoader.LoadFailure::error)
                    .anySatisfy(e -> assertThat(e)
                            .startsWith("openbox.instances.other=nosuchapp: no application is named 'nosuchapp'"))
                    .anySatisfy(e ->
                            assertThat(e).startsWith("openbox.instances.jarred: the name 'jarred' is already used"))
                    .anySatisfy(e ->
                            assertThat(e).startsWith("openbox.instances.third=other: 'other' is itself an instance"));
        } finally {
            loader.destroy();
        }
    }
}
