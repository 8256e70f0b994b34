package org.openbox.controller.security;

import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Who may use the management API and the web UI, prefix {@code openbox.security}.
 *
 * <pre>
 * openbox.security.users.alice.password={bcrypt}$2a$10$...      # or {pbkdf2@SpringSecurity_v5_8}..., {noop}...
 * openbox.security.users.alice.roles=OPERATOR
 * openbox.security.tokens.monitoring.token-sha256=9f86d081...   # SHA-256 (hex) of the bearer token
 * openbox.security.tokens.monitoring.roles=VIEWER
 * </pre>
 *
 * With neither users nor tokens the controller does not start, unless
 * {@code openbox.security.enabled=false} says explicitly that the management API is open.
 *
 * @param enabled false: no authentication at all (logged as a warning at start-up)
 * @param users   user name -> encoded password and roles (HTTP Basic and the UI's login form)
 * @param tokens  token name -> SHA-256 of the token and roles ({@code Authorization: Bearer TOKEN})
 */
@ConfigurationProperties(prefix = "openbox.security")
public record SecurityProperties(
        @DefaultValue("true") boolean enabled, Map<String, User> users, Map<String, Token> tokens) {

    /** Password encodings Spring's DelegatingPasswordEncoder reads: {@code {id}encoded}. */
    private static final Pattern ENCODED = Pattern.compile("^\\{[A-Za-z0-9@_.-]+}.+");

    private static final Pattern SHA256_HEX = Pattern.compile("^[0-9a-fA-F]{64}$");

    public SecurityProperties {
        users = users == null ? Map.of() : new TreeMap<>(users);
        tokens = tokens == null ? Map.of() : new TreeMap<>(tokens);
        users.forEach((name, u) -> {
            String where = "openbox.security.users." + name;
            if (u == null || u.password() == null || u.password().isBlank()) {
                throw new IllegalArgumentException(where + ".password is not set");
            }
            if (!ENCODED.matcher(u.password()).matches()) {
                throw new IllegalArgumentException(where + ".password must name its encoding: {bcrypt}..., "
                        + "{pbkdf2@SpringSecurity_v5_8}..., {argon2}... or {noop}PLAIN");
            }
            requireRoles(where, u.roles());
        });
        tokens.forEach((name, t) -> {
            String where = "openbox.security.tokens." + name;
            if (t == null
                    || t.tokenSha256() == null
                    || !SHA256_HEX.matcher(t.tokenSha256()).matches()) {
                throw new IllegalArgumentException(where + ".token-sha256 must be the SHA-256 of the token"
                        + " as 64 hex digits (e.g. printf %s TOKEN | sha256sum)");
            }
            requireRoles(where, t.roles());
        });
    }

    private static void requireRoles(String where, List<Role> roles) {
        if (roles == null || roles.isEmpty()) {
            throw new IllegalArgumentException(where + ".roles is not set (VIEWER or OPERATOR)");
        }
    }

    /** True when some principal is configured. */
    public boolean hasPrincipals() {
        return !users.isEmpty() || !tokens.isEmpty();
    }

    /**
     * A user of the UI and of HTTP Basic.
     *
     * @param password encoded as Spring's DelegatingPasswordEncoder reads it ({@code {bcrypt}...})
     * @param roles    VIEWER and/or OPERATOR
     */
    public record User(String password, List<Role> roles) {}

    /**
     * A bearer token; only its hash is configured.
     *
     * @param tokenSha256 SHA-256 of the token's UTF-8 bytes, hex
     * @param roles       VIEWER and/or OPERATOR
     */
    public record Token(String tokenSha256, List<Role> roles) {

        /** The hash as bytes. */
        public byte[] hash() {
            return HexFormat.of().parseHex(tokenSha256.toLowerCase(Locale.ROOT));
        }
    }
}
