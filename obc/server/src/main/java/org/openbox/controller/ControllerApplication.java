package org.openbox.controller;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.openbox.controller.apps.StartupRefusedException;
import org.openbox.controller.check.ConfigCheck;
import org.openbox.controller.tls.TlsProperties;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.web.server.PortInUseException;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Entry point of the OpenBox controller (OBC).
 *
 * <p>Accepts the front-end flags of {@code ./openbox controller} ({@code --port N},
 * {@code --apps DIR}, {@code --topology FILE}, {@code --pki DIR} (the southbound TLS bundle
 * from DIR/controller.crt, DIR/controller.key and DIR/ca.crt), also in {@code --flag=value}
 * form, {@code --check}, {@code --allow-failed-apps} and {@code --insecure}) and maps them
 * to Spring properties; Spring property arguments ({@code --server.port=...},
 * {@code --openbox.apps.firewall.rules.file=...}) pass unchanged. Any other argument is an
 * error with the usage line. Needs no configuration beyond its certificates ({@code --pki},
 * or plain HTTP with {@code --insecure}).
 *
 * <p>Start-up problems (an application whose configuration fails, the port in use, an
 * unreadable topology, no certificates) end the process with exit code 1 and one line each, no stack trace.
 * With {@code --check} the controller loads and checks everything, prints the problems and
 * exits (0: none) without serving.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ControllerApplication {

    static final String USAGE = "usage: ./openbox controller [--port N] [--apps DIR] [--topology FILE] [--check]"
            + " [--allow-failed-apps] [--pki DIR | --insecure] [--PROPERTY=VALUE ...]";

    /**
     * CompletableFuture's default pool: the JDK's HttpClient completes every answer there
     * (sendAsync hands the response to it even when the client has its own executor). With
     * fewer than two common-pool threads (one or two processors) that "pool" starts a new
     * thread for every task, so every answer from an OBI would cost a thread; two
     * common-pool threads are asked for instead, before anything uses CompletableFuture.
     */
    static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

    public static void main(String[] args) {
        if (System.getProperty(COMMON_POOL_PARALLELISM) == null
                && Runtime.getRuntime().availableProcessors() <= 2) {
            System.setProperty(COMMON_POOL_PARALLELISM, "2");
        }
        List<String> springArgs;
        try {
            springArgs = new ArrayList<>(List.of(CommandLineFlags.toSpringArgs(args)));
        } catch (IllegalArgumentException e) {
            System.err.println("openbox controller: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        boolean check = springArgs.contains("--openbox.check=true");
        SpringApplication app = new SpringApplication(ControllerApplication.class);
        // Start-up failures are printed by main as one line each, not by Spring Boot's loggers.
        app.setDefaultProperties(Map.of(
                "logging.level.org.springframework.boot.SpringApplication",
                "OFF",
                "logging.level.org.springframework.boot.diagnostics.LoggingFailureAnalysisReporter",
                "OFF",
                "logging.level.org.springframework.boot.autoconfigure.logging.ConditionEvaluationReportLogger",
                "WARN",
                "logging.level.org.springframework.boot.web.servlet.context."
                        + "AnnotationConfigServletWebServerApplicationContext",
                "ERROR",
                "logging.level.org.springframework.context.annotation.AnnotationConfigApplicationContext",
                "ERROR"));
        Path checkState = null;
        if (check) {
            app.setWebApplicationType(WebApplicationType.NONE);
            // a check never reads or writes the operator's persisted state (alert history, stops)
            try {
                checkState = Files.createTempDirectory("openbox-check");
            } catch (IOException e) {
                System.err.println("cannot create a temporary state directory for the check: " + e.getMessage());
                System.exit(1);
                return;
            }
            springArgs.add("--openbox.state-dir=" + checkState);
            springArgs.add("--openbox.autostart=false");
            springArgs.add("--logging.level.root=WARN");
            springArgs.add("--logging.level.org.openbox=WARN");
            springArgs.add("--logging.level.org.openbox.controller.apps.AppLifecycle=OFF");
        }
        ConfigurableApplicationContext ctx;
        try {
            ctx = app.run(springArgs.toArray(String[]::new));
        } catch (Throwable t) {
            System.err.println(StartupFailure.describe(t));
            System.exit(1);
            return;
        }
        if (check) {
            int code = ctx.getBean(ConfigCheck.class).run(System.out, System.err);
            ctx.close();
            deleteTree(checkState);
            System.exit(code);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }

    /** Turns a failed start into lines for the operator. */
    static final class StartupFailure {
        private StartupFailure() {}

        static String describe(Throwable t) {
            Set<Throwable> seen = new HashSet<>();
            Throwable config = null;
            for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
                if (c instanceof StartupRefusedException r) {
                    return String.join("\n", r.problems());
                }
                if (c instanceof PortInUseException p) {
                    return "openbox controller: port " + p.getPort() + " is already in use";
                }
                if (config == null
                        && (c instanceof IllegalArgumentException || c instanceof IllegalStateException)
                        && c.getMessage() != null
                        && fromOpenbox(c)) {
                    config = c; // the outermost names the most context (the file, the property)
                }
            }
            if (config != null) {
                return "openbox controller: " + config.getMessage().strip().replaceAll("\\s*\\R\\s*", " ");
            }
            StringWriter w = new StringWriter();
            t.printStackTrace(new PrintWriter(w));
            return "openbox controller: start-up failed: " + t + "\n" + w;
        }

        private static boolean fromOpenbox(Throwable c) {
            StackTraceElement[] st = c.getStackTrace();
            return st.length > 0 && st[0].getClassName().startsWith("org.openbox.")
                    || c.getMessage().startsWith("openbox.");
        }
    }

    /** Translates the front-end flags into Spring property arguments, refusing unknown ones. */
    static final class CommandLineFlags {
        private CommandLineFlags() {}

        static String[] toSpringArgs(String[] args) {
            return toSpringArgs(args, ControllerPropertyNames.scan());
        }

        static String[] toSpringArgs(String[] args, ControllerPropertyNames names) {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String flag = a;
                String value = null;
                int eq = a.indexOf('=');
                if (eq > 0) {
                    flag = a.substring(0, eq);
                    value = a.substring(eq + 1);
                }
                switch (flag) {
                    case "--check", "--allow-failed-apps", "--insecure" -> {
                        if (value != null) {
                            throw new IllegalArgumentException("flag " + flag + " takes no value");
                        }
                        out.add("--openbox." + flag.substring(2) + "=true");
                        continue;
                    }
                    case "--debug", "--trace" -> {
                        out.add(a);
                        continue;
                    }
                    default -> {}
                }
                String property =
                        switch (flag) {
                            case "--port" -> "server.port";
                            case "--apps" -> "openbox.apps-dir";
                            case "--topology" -> "openbox.topology";
                            case "--pki" -> "spring.ssl.bundle.pem." + TlsProperties.BUNDLE;
                            default -> null;
                        };
                if (property == null) {
                    out.add(springProperty(a, flag, value, names));
                    continue;
                }
                if (value == null) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("flag " + flag + " needs a value");
                    }
                    value = args[++i];
                }
                check(flag, value);
                if (flag.equals("--pki")) {
                    Path dir = Path.of(value).toAbsolutePath();
                    out.add("--" + property + ".keystore.certificate=file:" + dir.resolve("controller.crt"));
                    out.add("--" + property + ".keystore.private-key=file:" + dir.resolve("controller.key"));
                    out.add("--" + property + ".truststore.certificate=file:" + dir.resolve("ca.crt"));
                    continue;
                }
                out.add("--" + property + "=" + value);
            }
            return out.toArray(String[]::new);
        }

        /** A Spring property argument ({@code --a.b=v}) passes; anything else is unknown. */
        private static String springProperty(String arg, String flag, String value, ControllerPropertyNames names) {
            if (arg.startsWith("-D") || arg.startsWith("-X")) {
                throw new IllegalArgumentException(
                        "JVM option " + arg + " must come before -jar" + " (./openbox controller places it there)");
            }
            if (flag.startsWith("--") && flag.indexOf('.', 2) > 2 && value != null) {
                String problem = names.check(flag.substring(2));
                if (problem != null) {
                    throw new IllegalArgumentException(problem);
                }
                return arg;
            }
            throw new IllegalArgumentException("unknown option '" + arg + "'");
        }

        private static void check(String flag, String value) {
            switch (flag) {
                case "--port" -> {
                    int port;
                    try {
                        port = Integer.parseInt(value);
                    } catch (NumberFormatException e) {
                        port = -1;
                    }
                    if (port < 1 || port > 65535) {
                        throw new IllegalArgumentException("--port '" + value + "' is not a port number (1-65535)");
                    }
                }
                case "--apps" -> {
                    if (!Files.isDirectory(Path.of(value))) {
                        throw new IllegalArgumentException("--apps " + value + ": no such directory");
                    }
                }
                case "--topology" -> {
                    if (!Files.isRegularFile(Path.of(value))) {
                        throw new IllegalArgumentException("--topology " + value + ": no such file");
                    }
                }
                case "--pki" -> {
                    for (String f : new String[] {"controller.crt", "controller.key", "ca.crt"}) {
                        if (!Files.isRegularFile(Path.of(value, f))) {
                            throw new IllegalArgumentException("--pki " + value + ": no " + f + " (./openbox pki --dir "
                                    + value + " controller creates it)");
                        }
                    }
                }
                default -> {}
            }
        }
    }
}
