package org.openbox.controller.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;

/** Checks of openbox.security.* and the password encoding the front end writes. */
class SecurityPropertiesTest {

    @Test
    void theFrontEndsPbkdf2HashesAreReadBySpring() {
        // apps/demo/credentials.py: pbkdf2("correct horse", salt bytes 0..15)
        String written = "{pbkdf2@SpringSecurity_v5_8}000102030405060708090a0b0c0d0e0f"
                + "714eb4e46d526b82298560f1af99f32b59323cf07d3a1978bf45ba35d7c39861";
        PasswordEncoder spring = PasswordEncoderFactories.createDelegatingPasswordEncoder();
        assertThat(spring.matches("correct horse", written)).isTrue();
        assertThat(spring.matches("correct horse!", written)).isFalse();
    }

    @Test
    void aPasswordMustNameItsEncoding() {
        assertThatThrownBy(() -> new SecurityProperties(
                        true, Map.of("alice", new SecurityProperties.User("secret", List.of(Role.OPERATOR))), null))
                .hasMessageStartingWith("openbox.security.users.alice.password must name its encoding");
        assertThat(new SecurityProperties(
                                true,
                                Map.of("alice", new SecurityProperties.User("{noop}secret", List.of(Role.OPERATOR))),
                                null)
                        .hasPrincipals())
                .isTrue();
    }

    @Test
    void rolesAndTokenHashesAreRequired() {
        assertThatThrownBy(() -> new SecurityProperties(
                        true, Map.of("bob", new SecurityProperties.User("{noop}x", List.of())), null))
                .hasMessage("openbox.security.users.bob.roles is not set (VIEWER or OPERATOR)");
        assertThatThrownBy(() -> new SecurityProperties(
                        true, null, Map.of("ci", new SecurityProperties.Token("abc", List.of(Role.VIEWER)))))
                .hasMessageStartingWith("openbox.security.tokens.ci.token-sha256 must be the SHA-256 of the token");
        assertThat(new SecurityProperties(true, null, null).hasPrincipals()).isFalse();
    }
}
