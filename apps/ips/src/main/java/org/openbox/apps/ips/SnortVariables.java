package org.openbox.apps.ips;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openbox.api.RuleText;

/**
 * Snort {@code ipvar}/{@code portvar}/{@code var} definitions, as in snort.conf. Values may
 * refer to other variables ({@code $HTTP_PORTS}, defined before or after); a value is
 * expanded once, on first use, into text without references to defined variables.
 *
 * <p>Expansion is bounded: a variable that refers to itself (directly or through others), a
 * chain of references deeper than {@value #MAX_DEPTH} and an expansion longer than
 * {@value #MAX_CHARS} characters (a variable doubled again and again) are errors that name the
 * defining {@code FILE:LINE}. {@link #load} expands every variable in file order, so a bad
 * file fails there (a chain counts the references not expanded yet: one defined before the
 * variables it names is followed in depth).
 */
public final class SnortVariables {
    /** Deepest chain of references followed. */
    public static final int MAX_DEPTH = 32;
    /** Longest expansion of one variable, in characters. */
    public static final int MAX_CHARS = 1 << 20;

    private static final Pattern REFERENCE = Pattern.compile("\\$([A-Za-z_][A-Za-z0-9_]*)");

    /** A definition and where it was written ("FILE:LINE", or "built-in"). */
    private record Definition(String value, String where) {}

    private final Map<String, Definition> definitions = new LinkedHashMap<>();
    private final Map<String, String> expanded = new HashMap<>();

    /** The defaults used when no variables file is given: everything is "any", web ports 80 and 8080. */
    public static SnortVariables defaults() {
        SnortVariables v = new SnortVariables();
        for (String net : new String[] {
            "HOME_NET",
            "EXTERNAL_NET",
            "HTTP_SERVERS",
            "SMTP_SERVERS",
            "SQL_SERVERS",
            "DNS_SERVERS",
            "TELNET_SERVERS",
            "AIM_SERVERS",
            "SIP_SERVERS",
            "SSH_SERVERS"
        }) {
            v.put(net, "any");
        }
        v.put("HTTP_PORTS", "[80,8080]");
        v.put("SHELLCODE_PORTS", "!80");
        v.put("ORACLE_PORTS", "1024:");
        v.put("SSH_PORTS", "22");
        v.put("FTP_PORTS", "[21,2100,3535]");
        v.put("SIP_PORTS", "[5060,5061,5600]");
        v.put("FILE_DATA_PORTS", "[80,8080,110,143]");
        v.put("GTP_PORTS", "[2123,2152,3386]");
        return v;
    }

    /**
     * Defaults overridden by the definitions in {@code file}; other snort.conf lines are
     * ignored. Throws IllegalArgumentException {@code FILE:LINE: ...} for a file that is not
     * text, a definition without a value, and a variable that cannot be expanded (see above).
     */
    public static SnortVariables load(Path file) throws IOException {
        SnortVariables v = defaults();
        List<String> lines = RuleText.lines(Files.readAllBytes(file), file.toString(), StandardCharsets.ISO_8859_1);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+", 3);
            if (!parts[0].equals("ipvar") && !parts[0].equals("portvar") && !parts[0].equals("var")) {
                continue;
            }
            String where = file + ":" + (i + 1);
            if (parts.length != 3 || !parts[1].matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException(where + ": expected '" + parts[0] + " NAME VALUE'");
            }
            v.definitions.put(parts[1], new Definition(parts[2].strip(), where));
        }
        v.expanded.clear();
        for (String name : List.copyOf(v.definitions.keySet())) {
            v.get(name);
        }
        return v;
    }

    public void put(String name, String value) {
        definitions.put(name, new Definition(value, "built-in"));
        expanded.clear();
    }

    /** The expanded value of {@code name}; references to undefined variables stay as written. */
    public Optional<String> get(String name) {
        if (!definitions.containsKey(name)) {
            return Optional.empty();
        }
        return Optional.of(expand(name, new ArrayDeque<>()));
    }

    private String expand(String name, Deque<String> chain) {
        String done = expanded.get(name);
        if (done != null) {
            return done;
        }
        Definition d = definitions.get(name);
        if (chain.contains(name)) {
            List<String> cycle = new ArrayList<>(chain);
            Collections.reverse(cycle);
            cycle = cycle.subList(cycle.indexOf(name), cycle.size());
            throw new IllegalArgumentException(d.where() + ": variable " + name + " refers to itself ("
                    + String.join(" -> ", cycle) + " -> " + name + ")");
        }
        if (chain.size() >= MAX_DEPTH) {
            throw new IllegalArgumentException(
                    d.where() + ": variable " + name + " is more than " + MAX_DEPTH + " references deep");
        }
        chain.push(name);
        StringBuilder out = new StringBuilder();
        Matcher m = REFERENCE.matcher(d.value());
        int last = 0;
        while (m.find()) {
            out.append(d.value(), last, m.start());
            String ref = m.group(1);
            out.append(definitions.containsKey(ref) ? expand(ref, chain) : m.group());
            last = m.end();
            if (out.length() > MAX_CHARS) {
                break;
            }
        }
        out.append(d.value(), last, d.value().length());
        chain.pop();
        if (out.length() > MAX_CHARS) {
            throw new IllegalArgumentException(
                    d.where() + ": variable " + name + " expands to more than " + MAX_CHARS + " characters");
        }
        String value = out.toString();
        expanded.put(name, value);
        return value;
    }
}
