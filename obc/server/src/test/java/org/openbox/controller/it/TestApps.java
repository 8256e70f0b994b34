package org.openbox.controller.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.openbox.api.CustomModule;
import org.openbox.api.GraphBuilder;
import org.openbox.api.Location;
import org.openbox.api.ProcessingGraph;
import org.openbox.api.Statement;
import org.openbox.api.blocks.Alert;
import org.openbox.api.blocks.CustomBlock;
import org.openbox.api.blocks.Discard;
import org.openbox.api.blocks.FromDevice;
import org.openbox.api.blocks.HeaderClassifier;
import org.openbox.api.blocks.ToDevice;
import org.openbox.api.match.Match;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Applications the integration tests run, as Spring beans (one of the ways the controller
 * finds applications):
 * <ul>
 * <li>{@code fw} (priority 200, everywhere): in -> cls [ssh -> ssh_alert -> drop, else -> out]</li>
 * <li>{@code ips} (priority 100, everywhere): in -> ips_alert -> out</li>
 * <li>{@code lb} (priority 50, OBI 71 only): in -> cls [10.0.0.1 -> a, 10.0.0.2 -> b]; on OBI 71
 *     its classifier can be combined with fw's</li>
 * <li>{@code modapp} (priority 10, OBIs 91 and 92): uses the block type of its custom module</li>
 * <li>{@code broken}: its graph connects a port that does not exist; must be refused</li>
 * </ul>
 */
@TestConfiguration
class TestApps {

    static final class Firewall extends RecordingApp {
        @Override
        public String name() {
            return "fw";
        }

        @Override
        public int priority() {
            return 200;
        }

        @Override
        public List<Statement> statements() {
            FromDevice in = new FromDevice("in", "eth0");
            HeaderClassifier cls =
                    new HeaderClassifier("cls").rule(Match.of().tcpDst(22)).rule(Match.of());
            Alert alert = new Alert("ssh_alert").alert("ssh attempt", 3);
            return List.of(new Statement(
                    Location.network(),
                    new GraphBuilder()
                            .connect(in, cls)
                            .connect(cls, 0, alert)
                            .connect(alert, new Discard("drop"))
                            .connect(cls, 1, new ToDevice("out", "eth1"))
                            .build()));
        }
    }

    static final class Ips extends RecordingApp {
        @Override
        public String name() {
            return "ips";
        }

        @Override
        public int priority() {
            return 100;
        }

        @Override
        public List<Statement> statements() {
            return List.of(new Statement(
                    Location.network(),
                    new GraphBuilder()
                            .chain(
                                    new FromDevice("in", "eth0"),
                                    new Alert("ips_alert").alert("seen by ips", 2),
                                    new ToDevice("out", "eth1"))
                            .build()));
        }
    }

    static final class LoadBalancer extends RecordingApp {
        static final long DPID = 71;

        @Override
        public String name() {
            return "lb";
        }

        @Override
        public int priority() {
            return 50;
        }

        @Override
        public List<Statement> statements() {
            HeaderClassifier cls = new HeaderClassifier("cls")
                    .rule(Match.of().ipv4Dst("10.0.0.1"))
                    .rule(Match.of().ipv4Dst("10.0.0.2"));
            return List.of(new Statement(
                    Location.obi(DPID),
                    new GraphBuilder()
                            .connect(new FromDevice("in", "eth0"), cls)
                            .connect(cls, 0, new ToDevice("a", "eth2"))
                            .connect(cls, 1, new ToDevice("b", "eth3"))
                            .build()));
        }
    }

    /**
     * {@code modapp} (priority 10, OBIs 91 and 92): in -> counter (TestCounter, a block type
     * of its custom module) -> out. The test OBIs load nothing, so the module's content is
     * just bytes.
     */
    static final class ModuleUser extends RecordingApp {
        static final long DPID = 91;
        static final long REFUSING_DPID = 92;
        static final String MODULE = "sample_counter";
        static final byte[] CONTENT = "\u007fELF not really a shared object".getBytes(StandardCharsets.UTF_8);

        static CustomModule module() {
            try {
                return new CustomModule(
                        MODULE,
                        CONTENT,
                        List.of(new ObjectMapper()
                                .readTree("{\"name\": \"TestCounter\", \"class\": \"static\", \"spec\": \"extension\","
                                        + " \"description\": \"Counts packets.\", \"config\": [],"
                                        + " \"read_handles\": [{\"name\": \"count\", \"type\": \"integer\"}],"
                                        + " \"write_handles\": [], \"inputs\": 1, \"outputs\": 1}")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static ProcessingGraph graph(CustomModule m) {
            return new GraphBuilder(m.catalogue())
                    .chain(
                            new FromDevice("in", "eth0"),
                            new CustomBlock("TestCounter", "counter"),
                            new ToDevice("out", "eth1"))
                    .build();
        }

        @Override
        public String name() {
            return "modapp";
        }

        @Override
        public int priority() {
            return 10;
        }

        @Override
        public List<CustomModule> customModules() {
            return List.of(module());
        }

        @Override
        public List<Statement> statements() {
            CustomModule m = module();
            return List.of(
                    new Statement(Location.obi(DPID), graph(m)), new Statement(Location.obi(REFUSING_DPID), graph(m)));
        }
    }

    static final class Broken extends RecordingApp {
        @Override
        public String name() {
            return "broken";
        }

        @Override
        public List<Statement> statements() {
            return List.of(new Statement(
                    Location.network(),
                    new GraphBuilder()
                            .connect(new FromDevice("in", "eth0"), 0, new ToDevice("out", "eth1"), 5)
                            .build()));
        }
    }

    @Bean
    Firewall firewall() {
        return new Firewall();
    }

    @Bean
    Ips ips() {
        return new Ips();
    }

    @Bean
    LoadBalancer lb() {
        return new LoadBalancer();
    }

    @Bean
    Broken broken() {
        return new Broken();
    }

    @Bean
    ModuleUser moduleUser() {
        return new ModuleUser();
    }
}
