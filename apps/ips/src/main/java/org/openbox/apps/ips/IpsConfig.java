package org.openbox.apps.ips;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.openbox.api.AppSettings;
import org.openbox.api.Location;
import org.openbox.api.RuleText;

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
 * @param allowEmpty     a rule file with no rule the IPS can run is intended (key
 *                       {@code rules.allow_empty}); otherwise it is an error
 */
public record IpsConfig(
        Location location,
        String inDevice,
        String outDevice,
        Path rulesFile,
        Path variablesFile,
        boolean inline,
        boolean attachPacket,
        int packetSize,
        boolean allowEmpty) {

    static final String SAMPLE_RULES = "sample/ips.rules";
    static final Set<String> KEYS = Set.of(
            "location",
            "device.in",
            "device.out",
            "rules.file",
            "variables.file",
            "inline",
            "alert.attach_packet",
            "alert.packet_size",
            "rules.allow_empty");

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
        return new IpsConfig(
                s.location(),
                s.get("device.in", "in"),
                s.get("device.out", "out"),
                s.getPath("rules.file").orElse(null),
                s.getPath("variables.file").orElse(null),
                s.getBool("inline", true),
                s.getBool("alert.attach_packet", true),
                s.getInt("alert.packet_size", 256, 1, 65535),
                s.getBool("rules.allow_empty", false));
    }

    /** How errors name the rules: the rule file's path, or the packaged sample's name. */
    public String rulesSource() {
        return rulesFile == null ? SAMPLE_RULES : rulesFile.toString();
    }

    /**
     * Reads the variables and parses the rules; rules that cannot be run are in the result's
     * skipped list. Throws IllegalArgumentException {@code FILE:LINE: ...} for a file that
     * cannot be read or is not text, a variable that cannot be expanded, and (unless
     * {@code allowEmpty}) a rule file with no rule the IPS can run.
     */
    public SnortRuleParser.Result parseRules() {
        SnortVariables vars;
        try {
            vars = variablesFile == null ? SnortVariables.defaults() : SnortVariables.load(variablesFile);
        } catch (IOException e) {
            throw new IllegalArgumentException(variablesFile + ": cannot read the IPS variables: " + e.getMessage(), e);
        }
        List<String> lines;
        try {
            lines = RuleText.lines(readRules(), rulesSource(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalArgumentException(rulesFile + ": cannot read the IPS rules: " + e.getMessage(), e);
        }
        SnortRuleParser.Result r = new SnortRuleParser(vars).parse(lines);
        if (r.rules().isEmpty() && !allowEmpty) {
            String why = r.skipped().isEmpty()
                    ? "no rules"
                    : "no rule the IPS can run (" + r.skipped().size() + " skipped; first, line "
                            + r.skipped().get(0).line() + ": "
                            + r.skipped().get(0).reason() + ")";
            throw new IllegalArgumentException(
                    rulesSource() + ": " + why + "; set rules.allow_empty=true if an empty IPS is intended");
        }
        return r;
    }

    /** Rule files are read as ISO-8859-1: Snort contents may hold any byte. */
    private byte[] readRules() throws IOException {
        if (rulesFile != null) {
            return Files.readAllBytes(rulesFile);
        }
        try (InputStream in = IpsConfig.class.getResourceAsStream(SAMPLE_RULES)) {
            if (in == null) {
                throw new IllegalStateException("the packaged sample rules " + SAMPLE_RULES + " are missing");
            }
            return in.readAllBytes();
        }
    }
}
