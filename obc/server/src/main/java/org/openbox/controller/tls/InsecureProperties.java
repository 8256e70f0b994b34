package org.openbox.controller.tls;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Prefix {@code openbox}.
 *
 * @param insecure plain HTTP both ways on the southbound channel, without certificates: any
 *        host can then speak for any dpid. Logged as a warning at start-up
 */
@ConfigurationProperties(prefix = "openbox")
public record InsecureProperties(@DefaultValue("false") boolean insecure) {}
