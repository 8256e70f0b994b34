package org.openbox.controller;

import java.lang.reflect.RecordComponent;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.type.filter.AnnotationTypeFilter;

/**
 * The {@code openbox.*} property names the controller understands: the components of its
 * {@code @ConfigurationProperties(prefix = "openbox")} records (found on the classpath, so a
 * new record is known at once), plus the per-application families {@code openbox.apps.NAME.KEY},
 * {@code openbox.app.NAME.config}, {@code openbox.failure-mode.NAME} and {@code openbox.instances.NAME}. Names compare as Spring's
 * relaxed binding does ({@code alert-history}, {@code alertHistory}, {@code alert_history}).
 * A record with prefix {@code openbox.GROUP} contributes {@code GROUP.COMPONENT} names
 * ({@code openbox.limits.max-body}, {@code openbox.tls.enabled}).
 * A command-line {@code --openbox.X=...} whose X is none of these is an error, not ignored.
 */
final class ControllerPropertyNames {

    private static final String PREFIX = "openbox.";
    /** Families of names taking a free NAME segment (application names). */
    private static final Set<String> FAMILIES = Set.of("apps", "app", "failuremode", "instances");

    /** relaxed name -> written name (kebab case) of each property; maps are families. */
    private final Map<String, String> properties = new TreeMap<>();
    /** relaxed name -> written name of each family beyond the per-application ones. */
    private final Map<String, String> extraFamilies = new TreeMap<>();
    /** relaxed group (openbox.GROUP records) -> relaxed component -> whether it is a map (takes more segments). */
    private final Map<String, Map<String, Boolean>> groups = new TreeMap<>();

    private ControllerPropertyNames() {}

    /** The names of the records annotated in package {@code org.openbox.controller} and below. */
    static ControllerPropertyNames scan() {
        ControllerPropertyNames names = new ControllerPropertyNames();
        ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
        scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
        for (BeanDefinition bd : scanner.findCandidateComponents("org.openbox.controller")) {
            Class<?> type;
            try {
                type = Class.forName(bd.getBeanClassName(), false, ControllerPropertyNames.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                continue;
            }
            names.add(type);
        }
        return names;
    }

    void add(Class<?> type) {
        ConfigurationProperties cp = type.getAnnotation(ConfigurationProperties.class);
        if (cp == null || !type.isRecord()) {
            return;
        }
        String prefix = cp.prefix().isEmpty() ? cp.value() : cp.prefix();
        if (!prefix.equals("openbox")) {
            String group = prefix.startsWith(PREFIX) ? prefix.substring(PREFIX.length()) : "";
            if (group.isEmpty() || group.contains(".")) {
                return;
            }
            Map<String, Boolean> members = groups.computeIfAbsent(relaxed(group), g -> new TreeMap<>());
            for (RecordComponent c : type.getRecordComponents()) {
                boolean map = Map.class.isAssignableFrom(c.getType());
                members.put(relaxed(c.getName()), map);
                properties.put(
                        relaxed(group) + "." + relaxed(c.getName()),
                        group + "." + kebab(c.getName()) + (map ? ".NAME" : ""));
            }
            return;
        }
        for (RecordComponent c : type.getRecordComponents()) {
            String relaxed = relaxed(c.getName());
            if (Map.class.isAssignableFrom(c.getType())) {
                extraFamilies.put(relaxed, kebab(c.getName()));
            } else {
                properties.put(relaxed, kebab(c.getName()));
            }
        }
    }

    /** Null when {@code name} (e.g. openbox.alert-history) is known, else the error. */
    String check(String name) {
        if (!name.startsWith(PREFIX)) {
            return null;
        }
        String rest = name.substring(PREFIX.length());
        int end = rest.length();
        for (char stop : new char[] {'.', '['}) {
            int i = rest.indexOf(stop);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        String first = relaxed(rest.substring(0, end));
        boolean more = end < rest.length();
        if (groups.containsKey(first)) {
            return inGroup(groups.get(first), more ? rest.substring(end + 1) : "") ? null : unknown(name);
        }
        boolean family = FAMILIES.contains(first) || extraFamilies.containsKey(first);
        if (family ? more : properties.containsKey(first) && !more) {
            return null;
        }
        return unknown(name);
    }

    /** Whether {@code rest} (after {@code openbox.GROUP.}) is a component of the group. */
    private static boolean inGroup(Map<String, Boolean> members, String rest) {
        int dot = rest.indexOf('.');
        int bracket = rest.indexOf('[');
        int end = dot < 0 ? bracket : bracket < 0 ? dot : Math.min(dot, bracket);
        String member = relaxed(end < 0 ? rest : rest.substring(0, end));
        Boolean map = members.get(member);
        return map != null && (map == (end >= 0));
    }

    private String unknown(String name) {
        return "unknown property '" + name + "' (openbox properties: "
                + String.join(", ", new TreeSet<>(properties.values())) + ", and per application: apps.NAME.KEY,"
                + " app.NAME.config, failure-mode.NAME, instances.NAME"
                + extraFamilies.values().stream().map(f -> ", " + f + ".NAME").reduce("", String::concat) + ")";
    }

    private static String relaxed(String s) {
        return s.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
