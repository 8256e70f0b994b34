package org.openbox.controller;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * Entry point of the OpenBox controller (OBC).
 *
 * <p>Accepts the front-end flags of {@code ./openbox controller} ({@code --port N},
 * {@code --apps DIR}, {@code --topology FILE}, also in {@code --flag=value} form) and maps
 * them to Spring properties; every other argument is passed to Spring unchanged, so
 * {@code --server.port=...} style arguments keep working. Runs with no configuration at all.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ControllerApplication {

    public static void main(String[] args) {
        SpringApplication.run(ControllerApplication.class, CommandLineFlags.toSpringArgs(args));
    }

    /** Translates the front-end flags into Spring property arguments. */
    static final class CommandLineFlags {
        private CommandLineFlags() {}

        static String[] toSpringArgs(String[] args) {
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
                String property = switch (flag) {
                    case "--port" -> "server.port";
                    case "--apps" -> "openbox.apps-dir";
                    case "--topology" -> "openbox.topology";
                    default -> null;
                };
                if (property == null) {
                    out.add(a);
                    continue;
                }
                if (value == null) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("flag " + flag + " needs a value");
                    }
                    value = args[++i];
                }
                out.add("--" + property + "=" + value);
            }
            return out.toArray(String[]::new);
        }
    }
}
