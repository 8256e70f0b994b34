package org.openbox.merge.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.openbox.catalogue.ArgDescriptor;
import org.openbox.catalogue.ArgType;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.MergeException;
import org.openbox.protocol.graph.Block;

/** {@link BlockInfo} read from the block catalogue (the single source of block metadata). */
public final class CatalogueBlockInfo implements BlockInfo {
    private final Catalogue catalogue;
    /** Per block type: its header-match arguments (the catalogue does not change). */
    private final Map<String, List<ArgDescriptor>> matchArgs = new ConcurrentHashMap<>();

    public CatalogueBlockInfo(Catalogue catalogue) {
        this.catalogue = catalogue;
    }

    private BlockDescriptor descriptor(Block b) {
        return catalogue
                .find(b.type())
                .orElseThrow(
                        () -> new MergeException("block '" + b.name() + "': unknown block type '" + b.type() + "'"));
    }

    @Override
    public Kind kind(Block b) {
        BlockDescriptor d = descriptor(b);
        return switch (d.blockClass()) {
            case TERMINAL -> {
                if (d.inputCount(b.config()) == 0) yield Kind.INPUT;
                yield d.name().equals("Discard") ? Kind.DROP : Kind.OUTPUT;
            }
            case CLASSIFIER -> Kind.CLASSIFIER;
            case MODIFIER -> Kind.MODIFIER;
            case STATIC -> Kind.STATIC;
            case SHAPER -> Kind.SHAPER;
        };
    }

    @Override
    public void validate(Block b) {
        try {
            checkNesting(descriptor(b), b);
            catalogue.validate(b);
        } catch (org.openbox.protocol.ProtocolException e) {
            String m = e.getMessage();
            throw new MergeException(m.contains(b.name()) ? m : "block '" + b.name() + "' (" + b.type() + "): " + m);
        }
    }

    /**
     * Refuses header-match values nested deeper than {@link HeaderMatchReader#MAX_NESTING}
     * brackets before anything parses them (the grammar's lists nest by recursion).
     */
    private void checkNesting(BlockDescriptor d, Block b) {
        if (b.config() == null) return;
        List<ArgDescriptor> args = matchArgs.computeIfAbsent(d.name(), t -> d.config().stream()
                .filter(a -> a.argType().kind() == ArgType.Kind.HEADER_MATCH
                        || a.argType().kind() == ArgType.Kind.HEADER_PAYLOAD_MATCH)
                .toList());
        for (ArgDescriptor a : args) {
            ArgType.Kind kind = a.argType().kind();
            JsonNode v = b.config().get(a.name());
            if (v == null) continue;
            boolean array = v.isArray();
            for (int i = 0; i < (array ? v.size() : 1); i++) {
                JsonNode m = array ? v.get(i) : v;
                String where = "block '" + b.name() + "' (" + b.type() + "): config argument " + a.name()
                        + (array ? "[" + i + "]" : "");
                if (kind == ArgType.Kind.HEADER_PAYLOAD_MATCH) {
                    m = m.path("header_match");
                    where += ".header_match";
                }
                if (!m.isObject()) continue;
                for (var it = m.fields(); it.hasNext(); ) {
                    var e = it.next();
                    if (e.getValue().isTextual()) {
                        HeaderMatchReader.checkNesting(
                                where + ": ", e.getKey(), e.getValue().asText());
                    }
                }
            }
        }
    }

    @Override
    public int outputs(Block b) {
        try {
            return descriptor(b).outputCount(b.config());
        } catch (MergeException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new MergeException("block '" + b.name() + "': cannot count its outputs: " + e.getMessage());
        }
    }
}
