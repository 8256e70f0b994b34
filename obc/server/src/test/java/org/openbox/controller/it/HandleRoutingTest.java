package org.openbox.controller.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openbox.controller.testobi.TestObi;
import org.openbox.protocol.message.ReadRequest;
import org.openbox.protocol.message.WriteRequest;

/**
 * An application reads and writes its own blocks through the controller: the request goes
 * to the merged blocks on every OBI that implements the block and the answers are combined.
 */
class HandleRoutingTest extends ControllerTestBase {

    private static final JsonNodeFactory J = JsonNodeFactory.instance;

    private static JsonNode counts(int... values) {
        var a = J.arrayNode();
        for (int v : values) {
            a.add(v);
        }
        return a;
    }

    @Test
    void readIsSummedOverEveryObiImplementingTheBlock() throws Exception {
        TestObi a = connected(41);
        TestObi b = connected(42);
        a.onRead((block, handle) -> handle.equals("count") && block.contains("cls") ? counts(3, 4) : J.numberNode(5));
        b.onRead((block, handle) -> handle.equals("count") && block.contains("cls") ? counts(10, 20) : J.numberNode(7));
        awaitOnlyUp(Set.of(41L, 42L));

        JsonNode perRule = fw.context.handles().read("cls", "count").get(5, TimeUnit.SECONDS);
        assertThat(perRule).isEqualTo(counts(13, 24));
        JsonNode dropped = fw.context.handles().read("drop", "count").get(5, TimeUnit.SECONDS);
        assertThat(dropped.asLong()).isEqualTo(12);

        // every OBI got ReadRequests naming merged blocks only
        List<String> readBlocks = a.received(ReadRequest.class).stream().map(ReadRequest::blockId).toList();
        assertThat(readBlocks).isNotEmpty().allSatisfy(name -> assertThat(name).isNotBlank());
        assertThat(b.received(ReadRequest.class)).hasSameSizeAs(a.received(ReadRequest.class));
    }

    @Test
    void writeReachesEveryObiAndCompletesWhenAllAnswered() throws Exception {
        TestObi a = connected(43);
        TestObi b = connected(44);
        awaitOnlyUp(Set.of(43L, 44L));
        fw.context.handles().write("cls", "reset_counts", J.nullNode()).get(5, TimeUnit.SECONDS);
        assertThat(a.received(WriteRequest.class)).extracting(WriteRequest::writeHandle).containsOnly("reset_counts");
        assertThat(b.received(WriteRequest.class)).isNotEmpty();
    }

    @Test
    void anApplicationCannotReachAnotherApplicationsBlock() throws Exception {
        connected(45);
        awaitOnlyUp(Set.of(45L));
        assertThatThrownBy(() -> fw.context.handles().read("ips_alert", "count").get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no block 'ips_alert'");
    }
}
