package org.openbox.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CommandLineFlagsTest {

    @Test
    void frontEndFlagsBecomeSpringProperties() {
        String[] out = ControllerApplication.CommandLineFlags.toSpringArgs(
                new String[] {"--port", "4000", "--apps=/opt/apps", "--topology", "t.json", "--debug"});
        assertThat(out).containsExactly("--server.port=4000", "--openbox.apps-dir=/opt/apps",
                "--openbox.topology=t.json", "--debug");
    }

    @Test
    void flagWithoutValueIsAnError() {
        assertThatThrownBy(() -> ControllerApplication.CommandLineFlags.toSpringArgs(new String[] {"--port"}))
                .hasMessageContaining("--port");
    }
}
