package org.openbox.api.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.openbox.api.AppContext;
import org.openbox.api.Application;
import org.openbox.api.HandleClient;
import org.openbox.api.Statement;
import org.openbox.api.Topology;
import org.openbox.api.event.AlertEvent;

class WebFirewallTest {

    @Test
    void isFoundByServiceLoaderAndBuildsItsGraph() {
        Application app = ServiceLoader.load(Application.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(a -> a.name().equals("web-firewall"))
                .findFirst()
                .orElseThrow();
        List<Statement> statements = app.statements();
        assertEquals(1, statements.size());
        assertEquals(8, statements.get(0).graph().blocks().size());
        assertEquals(7, statements.get(0).graph().connectors().size());
        assertTrue(app.priority() > 0);
    }

    @Test
    void alertHookReadsAHandle() {
        List<String> reads = new ArrayList<>();
        HandleClient handles = new HandleClient() {
            @Override
            public CompletableFuture<JsonNode> read(String block, String handle) {
                reads.add(block + "." + handle);
                return CompletableFuture.completedFuture(IntNode.valueOf(0));
            }

            @Override
            public CompletableFuture<JsonNode> read(String block, String handle, long dpid) {
                reads.add(block + "." + handle + "@" + dpid);
                return CompletableFuture.completedFuture(IntNode.valueOf(0));
            }

            @Override
            public CompletableFuture<Void> write(String block, String handle, JsonNode value) {
                return CompletableFuture.completedFuture(null);
            }
        };
        WebFirewall app = new WebFirewall();
        app.start(new AppContext() {
            @Override
            public HandleClient handles() {
                return handles;
            }

            @Override
            public Topology topology() {
                return Topology.empty();
            }
        });
        app.onAlert(new AlertEvent(1, "sqli", "SQL injection attempt", 4, null, Instant.now()));
        assertEquals(1, app.alerts().size());
        assertEquals(List.of("acl.count"), reads);
    }
}
