package org.openbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletableFuture;

/**
 * Reads and writes block handles through the controller (ReadRequest / WriteRequest). Block
 * names are the application's own; the controller maps them onto the merged graph. Handle
 * names are those of the block's catalogue descriptor ({@code count}, {@code count_2}, ...).
 * The futures complete exceptionally with a {@link org.openbox.protocol.ProtocolException}
 * when the OBI answers with an Error message.
 */
public interface HandleClient {

    CompletableFuture<JsonNode> read(String block, String handle);

    CompletableFuture<Void> write(String block, String handle, JsonNode value);
}
