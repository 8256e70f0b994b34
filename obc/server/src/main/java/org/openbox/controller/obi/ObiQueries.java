package org.openbox.controller.obi;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.openbox.protocol.message.GlobalStatsRequest;
import org.openbox.protocol.message.GlobalStatsResponse;
import org.openbox.protocol.message.ReadRequest;
import org.openbox.protocol.message.ReadResponse;
import org.springframework.stereotype.Component;

/** Operator queries to one OBI: global statistics and raw reads of merged blocks. */
@Component
public class ObiQueries {

    public CompletableFuture<JsonNode> globalStats(ObiSession s) {
        return s.client().request(GlobalStatsRequest::new, Set.of(), false)
                .thenApply(m -> ((GlobalStatsResponse) m).stats());
    }

    public CompletableFuture<JsonNode> read(ObiSession s, String mergedBlock, String handle) {
        return s.client().request(xid -> new ReadRequest(xid, mergedBlock, handle), Set.of(), false)
                .thenApply(m -> ((ReadResponse) m).result());
    }
}
