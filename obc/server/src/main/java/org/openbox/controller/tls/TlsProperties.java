package org.openbox.controller.tls;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Southbound TLS, prefix {@code openbox.tls}. The certificates come from the Spring Boot SSL
 * bundle {@code openbox} ({@code spring.ssl.bundle.pem.openbox.keystore.certificate},
 * {@code .keystore.private-key}: the controller's certificate and key; {@code .truststore.certificate}:
 * the CA that signs OBI certificates).
 *
 * @param enabled mutual TLS on the southbound channel, both ways (the default); turning it
 *        off needs {@code openbox.insecure=true}
 */
@ConfigurationProperties(prefix = "openbox.tls")
public record TlsProperties(@DefaultValue("true") boolean enabled) {

    /** The SSL bundle the controller's server and its OBI client use. */
    public static final String BUNDLE = "openbox";
}
