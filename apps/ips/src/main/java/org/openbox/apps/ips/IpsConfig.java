package org.openbox.apps.ips;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.openbox.api.AppSettings;
import org.openbox.api.Location;

/**
 * The IPS's configuration (keys in apps/README.md).
 *
 * @param rulesFile      Snort rule file, or null for the packaged sample rules
 *                       (apps/demo/sample/ips.rules)
 * @param variablesFile  snort.conf-style ipvar/portvar file, or null for the built-in
 *                       variables ({@link SnortVariables#defaults()})
 * @param inline         true: drop, reject and sdrop rules discard the packet; false (IDS
 *                       mode): every rule lets the packet pass
 * @param attachPacket   alerts carry the start of the packet
 * @param packetSize     bytes of the packet an alert carries
 */
public record IpsConfig(Location location, String inDevice, String outDevice, Path rulesFile,
        Path variablesFile, boolean inline, boolean attachPacket, int packetSize) {

    static final String SAMPLE_RULES = "sample/ips.rules";
    private static final Set<String> KEYS = Set.of("location", "device.in", "device.out", "rules.file",
            "variables.file", "inline", "alert.attach_packet", "alert.packet_size");

    /** The configuration the application finds at run time (see {@link AppSettings#load}). */
    public static IpsConfig load() {
        return from(AppSettings.load("ips"));
    }

    /** Every key at its default: the sample rules between devices "in" and "out", everywhere. */
    public static IpsConfig defaults() {
        return from(AppSettings.of(new Properties()));
    }

    static IpsConfig from(AppSettings s) {
        s.requireKnown(KEYS);
        return new IpsConfig(s.location(), s.get("device.in", "in"), s.get("device.out", "out"),
                s.getPath("rules.file").orElse(null), s.getPath("variables.file").orElse(null),
                s.getBool("inline", true), s.getBool("alert.attach_packet", true),
                s.getInt("alert.packet_size", 256, 1, 65535));
    }

    /** Reads the variables and parses the rules; rules that cannot be run are in the result's skipped list. */
    public SnortRuleParser.Result parseRules() {
        SnortVariables vars;
        try {
            vars = variablesFile == null ? SnortVariables.defaults() : SnortVariables.load(variablesFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read IPS variables file " + variablesFile + ": " + e.getMessage(), e);
        }
        List<String> lines;
        try {
            lines = readRules();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read IPS rules file " + rulesFile + ": " + e.getMessage(), e);
        }
        return new SnortRuleParser(vars).parse(lines);
    }

    /** Rule files are read as ISO-8859-1: Snort contents may hold any byte. */
    private List<String> readRules() throws IOException {
        if (rulesFile != null) {
            return Files.readAllLines(rulesFile, StandardCharsets.ISO_8859_1);
        }
        try (InputStream in = IpsConfig.class.getResourceAsStream(SAMPLE_RULES)) {
            if (in == null) {
                throw new IllegalStateException("the packaged sample rules " + SAMPLE_RULES + " are missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).lines().toList();
        }
    }
}
