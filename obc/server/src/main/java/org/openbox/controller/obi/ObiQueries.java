package org.openbox.controller.obi;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.openbox.protocol.message.GetParametersRequest;
import org.openbox.protocol.message.GetParametersResponse;
import org.openbox.protocol.message.GlobalStatsRequest;
import org.openbox.protocol.message.GlobalStatsResponse;
import org.openbox.protocol.message.ListCapabilitiesRequest;
import org.openbox.protocol.message.ListCapabilitiesResponse;
import org.openbox.protocol.message.ReadRequest;
import org.openbox.protocol.message.ReadResponse;
import org.springframework.stereotype.Component;

/** Operator queries to one OBI: statistics, parameters, capabilities and raw reads of merged blocks. */
@Component
public class ObiQueries {

    public CompletableFuture<JsonNode> globalStats(ObiSession s) {
        return s.client().request(GlobalStatsRequest::new, Set.of(), false).thenApply(m -> ((GlobalStatsResponse) m)
                .stats());
    }

    /** All parameters of the OBI (GetParametersRequest with an empty list). */
    public CompletableFuture<JsonNode> parameters(ObiSession s) {
        return s.client()
                .request(xid -> new GetParametersRequest(xid, List.of()), Set.of(), false)
                .thenApply(m -> ((GetParametersResponse) m).parameters());
    }

    public CompletableFuture<JsonNode> capabilities(ObiSession s) {
        return s.client()
                .request(ListCapabilitiesRequest::new, Set.of(), false)
                .thenApply(m -> ((ListCapabilitiesResponse) m).capabilities());
    }

    public CompletableFuture<JsonNode> read(ObiSession s, String mergedBlock, String handle) {
        return s.client()
                .request(xid -> new ReadRequest(xid, mergedBlock, handle), Set.of(), false)
                .thenApply(m -> ((ReadResponse) m).result());
    }
}
