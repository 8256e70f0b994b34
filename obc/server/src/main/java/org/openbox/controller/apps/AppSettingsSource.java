package org.openbox.controller.apps;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openbox.api.AppSettings;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.stereotype.Component;

/**
 * The settings of each application, as Spring configuration: {@code openbox.apps.NAME.KEY}
 * from application.properties, environment variables (relaxed binding:
 * {@code OPENBOX_APPS_FIREWALL_RULES_FILE}) and {@code --openbox.apps.NAME.KEY=...} flags,
 * over the application's properties file ({@code openbox.app.NAME.config}, else
 * {@code NAME.properties} in the working directory). A key given in both takes the Spring
 * property's value (see {@link AppSettings}). {@code openbox.instances.NAME=APP} names
 * extra instances of an application ({@link AppLoader}); each has its own settings under NAME.
 */
@Component
public class AppSettingsSource {

    private static final Pattern APP_PROPERTY =
            Pattern.compile("openbox\\.(?:apps\\.([^.\\[]+)\\..+|app\\.([^.]+)\\.config)");

    private final Environment env;

    public AppSettingsSource(Environment env) {
        this.env = env;
    }

    /** The settings of application {@code name}; throws IllegalArgumentException for an unreadable file. */
    public AppSettings settingsFor(String name) {
        Map<String, String> props = new TreeMap<>(Binder.get(env)
                .bind("openbox.apps." + name, Bindable.mapOf(String.class, String.class))
                .orElse(Map.of()));
        String file = env.getProperty(AppSettings.configProperty(name));
        return AppSettings.load(name, file, props);
    }

    /**
     * The extra application instances, {@code openbox.instances.NAME=APP}: instance name ->
     * the name of the application it is another instance of, in name order.
     */
    public Map<String, String> instances() {
        return new TreeMap<>(Binder.get(env)
                .bind("openbox.instances", Bindable.mapOf(String.class, String.class))
                .orElse(Map.of()));
    }

    /**
     * The application names that settings are given for ({@code openbox.apps.NAME.*},
     * {@code openbox.app.NAME.config}) in properties, flags and system properties; environment
     * variables are not listed (their names do not say where the application name ends).
     */
    public Set<String> namesWithSettings() {
        Set<String> out = new TreeSet<>();
        if (!(env instanceof ConfigurableEnvironment c)) {
            return out;
        }
        for (PropertySource<?> source : c.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> e)
                    || source.getName().equals(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)) {
                continue;
            }
            for (String name : e.getPropertyNames()) {
                Matcher m = APP_PROPERTY.matcher(name);
                if (m.matches()) {
                    out.add(m.group(1) != null ? m.group(1) : m.group(2));
                }
            }
        }
        return out;
    }
}
