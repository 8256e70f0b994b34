package org.openbox.controller.handles;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * An application's handle at one OBI as a computation over reads of the merged blocks
 * there ({@link HandleRouter#planAt}): each part names a merged block, the handles to read
 * on it and how their values become the application's; the parts are combined as a routed
 * read combines its answers ({@link ResultCombiner}).
 */
public record LocalRead(List<Part> parts) {

    /** One merged block's contribution. */
    public record Part(String mergedBlock, List<String> handles, Function<List<JsonNode>, JsonNode> combine) {}

    /**
     * The application's value from the merged blocks' values ({@code value} answers a merged
     * block and handle, null when it has none); null when any of them is missing.
     */
    public JsonNode evaluate(BiFunction<String, String, JsonNode> value) {
        List<JsonNode> results = new ArrayList<>(parts.size());
        for (Part p : parts) {
            List<JsonNode> answers = new ArrayList<>(p.handles().size());
            for (String h : p.handles()) {
                JsonNode v = value.apply(p.mergedBlock(), h);
                if (v == null) {
                    return null;
                }
                answers.add(v);
            }
            results.add(p.combine().apply(answers));
        }
        return ResultCombiner.combine(results);
    }
}
