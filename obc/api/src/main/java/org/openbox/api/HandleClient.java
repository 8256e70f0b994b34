package org.openbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletableFuture;

/**
 * Reads and writes block handles through the controller (ReadRequest / WriteRequest). Block
 * names are the application's own; the controller maps them onto the merged graph. Handle
 * names are those of the block's catalogue descriptor ({@code count}, {@code count_2}, ...).
 * The futures complete exceptionally with a {@link org.openbox.protocol.ProtocolException}
 * when the OBI answers with an Error message, or when the controller refuses the request
 * itself: a handle the block type does not have or a rule index out of range
 * (ILLEGAL_ARGUMENT), and a write to a block the merge shares with another application's
 * block (NOT_PERMITTED: the write would change the other application's behaviour).
 *
 * <p>Per-rule handles are the application's own rules: {@code count} of a HeaderClassifier
 * is one value per rule of that block, {@code count_3} (or RegexClassifier's indexed
 * {@code count_3}) the value of its rule 3, whatever the merged graph made of them.
 *
 * <p>{@link #read(String, String)} combines the block's value over every OBI that runs it
 * (numbers summed, arrays element by element); {@link #read(String, String, long)}
 * reads it at one OBI only. A block the application does not run at that OBI (or on any
 * OBI that is up) fails the future with an {@link IllegalArgumentException}.
 */
public interface HandleClient {

    /** The block's value summed over every OBI that is up and runs it. */
    CompletableFuture<JsonNode> read(String block, String handle);

    /** The block's value at OBI {@code dpid} only, which must be up and run it. */
    CompletableFuture<JsonNode> read(String block, String handle, long dpid);

    CompletableFuture<Void> write(String block, String handle, JsonNode value);
}
