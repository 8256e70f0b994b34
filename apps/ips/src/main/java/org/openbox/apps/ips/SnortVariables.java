package org.openbox.apps.ips;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Snort {@code ipvar}/{@code portvar}/{@code var} definitions, as in snort.conf.
 * Values may refer to other variables ({@code $HTTP_PORTS}); references are resolved on use.
 */
public final class SnortVariables {
    private final Map<String, String> values = new HashMap<>();

    /** The defaults used when no variables file is given: everything is "any", web ports 80 and 8080. */
    public static SnortVariables defaults() {
        SnortVariables v = new SnortVariables();
        for (String net : new String[] {"HOME_NET", "EXTERNAL_NET", "HTTP_SERVERS", "SMTP_SERVERS",
                "SQL_SERVERS", "DNS_SERVERS", "TELNET_SERVERS", "AIM_SERVERS", "SIP_SERVERS", "SSH_SERVERS"}) {
            v.values.put(net, "any");
        }
        v.values.put("HTTP_PORTS", "[80,8080]");
        v.values.put("SHELLCODE_PORTS", "!80");
        v.values.put("ORACLE_PORTS", "1024:");
        v.values.put("SSH_PORTS", "22");
        v.values.put("FTP_PORTS", "[21,2100,3535]");
        v.values.put("SIP_PORTS", "[5060,5061,5600]");
        v.values.put("FILE_DATA_PORTS", "[80,8080,110,143]");
        v.values.put("GTP_PORTS", "[2123,2152,3386]");
        return v;
    }

    /** Defaults overridden by the definitions in {@code file}. */
    public static SnortVariables load(Path file) throws IOException {
        SnortVariables v = defaults();
        for (String raw : Files.readAllLines(file)) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+", 3);
            if (parts.length == 3 && (parts[0].equals("ipvar") || parts[0].equals("portvar") || parts[0].equals("var"))) {
                v.values.put(parts[1], parts[2].strip());
            }
        }
        return v;
    }

    public void put(String name, String value) {
        values.put(name, value);
    }

    public Optional<String> get(String name) {
        return Optional.ofNullable(values.get(name));
    }
}
