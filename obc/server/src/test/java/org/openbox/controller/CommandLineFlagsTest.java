package org.openbox.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineFlagsTest {

    @TempDir
    Path tmp;

    private static String[] flags(String... args) {
        return ControllerApplication.CommandLineFlags.toSpringArgs(args);
    }

    @Test
    void frontEndFlagsBecomeSpringProperties() throws Exception {
        Path topology = Files.writeString(tmp.resolve("t.json"), "{\"segments\": []}");
        assertThat(flags(
                        "--port",
                        "4000",
                        "--apps=" + tmp,
                        "--topology",
                        topology.toString(),
                        "--debug",
                        "--check",
                        "--allow-failed-apps",
                        "--openbox.apps.firewall.rules.file=fw.rules"))
                .containsExactly(
                        "--server.port=4000",
                        "--openbox.apps-dir=" + tmp,
                        "--openbox.topology=" + topology,
                        "--debug",
                        "--openbox.check=true",
                        "--openbox.allow-failed-apps=true",
                        "--openbox.apps.firewall.rules.file=fw.rules");
    }

    @Test
    void flagWithoutValueIsAnError() {
        assertThatThrownBy(() -> flags("--port")).hasMessageContaining("--port");
    }

    @Test
    void unknownOptionsAreErrorsNotIgnored() {
        assertThatThrownBy(() -> flags("--prot", "23700")).hasMessage("unknown option '--prot'");
        assertThatThrownBy(() -> flags("--prot=23700")).hasMessage("unknown option '--prot=23700'");
        assertThatThrownBy(() -> flags("extra")).hasMessage("unknown option 'extra'");
        assertThatThrownBy(() -> flags("--check=yes")).hasMessageContaining("takes no value");
    }

    @Test
    void aJvmOptionAfterTheJarIsNamed() {
        assertThatThrownBy(() -> flags("-Dopenbox.app.ips.config=my-ips.properties"))
                .hasMessageContaining("must come before -jar");
    }

    @Test
    void portsAppsAndTopologyAreChecked() {
        assertThatThrownBy(() -> flags("--port", "70000")).hasMessageContaining("not a port number");
        assertThatThrownBy(() -> flags("--port=x")).hasMessageContaining("not a port number");
        assertThatThrownBy(() -> flags("--apps", tmp.resolve("nonexistent").toString()))
                .hasMessageContaining("no such directory");
        assertThatThrownBy(() -> flags("--topology", tmp.resolve("none.json").toString()))
                .hasMessageContaining("no such file");
    }

    @Test
    void openboxPropertiesAreCheckedAgainstTheControllersSettings() {
        assertThat(flags(
                        "--openbox.alert-history=5",
                        "--openbox.alertHistory=5",
                        "--openbox.keepalive_interval=2s",
                        "--openbox.traffic-class.webcache={}",
                        "--openbox.apps.ips.rules.file=x",
                        "--openbox.app.ips.config=x",
                        "--openbox.failure-mode.ips=open",
                        "--openbox.obi-binary=/bin/obi",
                        "--server.port=1",
                        "--logging.level.root=WARN"))
                .hasSize(10);
        assertThatThrownBy(() -> flags("--openbox.alert-histroy=5"))
                .hasMessageStartingWith("unknown property 'openbox.alert-histroy' (openbox properties: ")
                .hasMessageContaining("alert-history")
                .hasMessageContaining("traffic-class.NAME");
        assertThatThrownBy(() -> flags("--openbox.apps=x")).hasMessageStartingWith("unknown property 'openbox.apps'");
        assertThatThrownBy(() -> flags("--openbox.alert-history.x=5")).hasMessageStartingWith("unknown property");
    }

    @Test
    void groupedPropertiesAreCheckedByName() {
        assertThat(flags(
                        "--openbox.insecure=true",
                        "--openbox.tls.enabled=false",
                        "--openbox.tls.Enabled=true",
                        "--openbox.limits.max-body=1MB",
                        "--openbox.limits.maxObis=5"))
                .hasSize(5);
        assertThatThrownBy(() -> flags("--openbox.tls.enabeld=true"))
                .hasMessageStartingWith("unknown property 'openbox.tls.enabeld'")
                .hasMessageContaining("tls.enabled")
                .hasMessageContaining("limits.max-body")
                .hasMessageContaining("insecure");
        assertThatThrownBy(() -> flags("--openbox.tls=true")).hasMessageStartingWith("unknown property");
        assertThatThrownBy(() -> flags("--openbox.tls.enabled.x=true")).hasMessageStartingWith("unknown property");
        assertThatThrownBy(() -> flags("--openbox.limits.max-boddy=1MB")).hasMessageStartingWith("unknown property");
    }

    @Test
    void insecureAndPkiSetTheSouthboundTransport() throws Exception {
        assertThat(flags("--insecure")).containsExactly("--openbox.insecure=true");
        assertThatThrownBy(() -> flags("--insecure=no")).hasMessageContaining("takes no value");
        for (String f : new String[] {"controller.crt", "controller.key", "ca.crt"}) {
            assertThatThrownBy(() -> flags("--pki", tmp.toString())).hasMessageStartingWith("--pki " + tmp + ": no ");
            Files.writeString(tmp.resolve(f), "x");
        }
        String dir = tmp.toAbsolutePath().toString();
        assertThat(flags("--pki=" + tmp))
                .containsExactly(
                        "--spring.ssl.bundle.pem.openbox.keystore.certificate=file:" + dir + "/controller.crt",
                        "--spring.ssl.bundle.pem.openbox.keystore.private-key=file:" + dir + "/controller.key",
                        "--spring.ssl.bundle.pem.openbox.truststore.certificate=file:" + dir + "/ca.crt");
    }
}
