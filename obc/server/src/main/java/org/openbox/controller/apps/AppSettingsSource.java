package org.openbox.controller.apps;

import java.util.Map;
import java.util.TreeMap;
import org.openbox.api.AppSettings;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * The settings of each application, as Spring configuration: {@code openbox.apps.NAME.KEY}
 * from application.properties, environment variables (relaxed binding:
 * {@code OPENBOX_APPS_FIREWALL_RULES_FILE}) and {@code --openbox.apps.NAME.KEY=...} flags,
 * over the application's properties file ({@code openbox.app.NAME.config}, else
 * {@code NAME.properties} in the working directory). A key given in both takes the Spring
 * property's value (see {@link AppSettings}).
 */
@Component
public class AppSettingsSource {

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
}
