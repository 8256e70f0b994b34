package org.openbox.merge.core;

import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.MergeException;
import org.openbox.protocol.graph.Block;

/** {@link BlockInfo} read from the block catalogue (the single source of block metadata). */
public final class CatalogueBlockInfo implements BlockInfo {
    private final Catalogue catalogue;

    public CatalogueBlockInfo(Catalogue catalogue) {
        this.catalogue = catalogue;
    }

    private BlockDescriptor descriptor(Block b) {
        return catalogue.find(b.type()).orElseThrow(() ->
                new MergeException("block '" + b.name() + "': unknown block type '" + b.type() + "'"));
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
            catalogue.validate(b);
        } catch (org.openbox.protocol.ProtocolException e) {
            String m = e.getMessage();
            throw new MergeException(m.contains(b.name()) ? m : "block '" + b.name() + "' (" + b.type() + "): " + m);
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
