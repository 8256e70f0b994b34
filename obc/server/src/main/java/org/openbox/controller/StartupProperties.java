package org.openbox.controller;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How the controller treats configuration problems at start-up, prefix {@code openbox}.
 *
 * @param allowFailedApps start even when an application's configuration fails (that
 *        application is REFUSED); by default the controller does not start and prints one
 *        line per problem ({@code --allow-failed-apps} on the command line)
 * @param check configuration test only ({@code --check}): load every application, compile its
 *        graphs with the OBI's engine, print the problems and exit, without serving
 * @param obiBinary the OBI executable the configuration test compiles graphs with; default
 *        {@code $OPENBOX_ROOT/build/obi/obi} (environment {@code OPENBOX_OBI_BINARY} also works)
 */
@ConfigurationProperties(prefix = "openbox")
public record StartupProperties(
        @DefaultValue("false") boolean allowFailedApps, @DefaultValue("false") boolean check, Path obiBinary) {}
