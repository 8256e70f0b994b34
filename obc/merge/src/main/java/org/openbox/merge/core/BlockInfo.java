package org.openbox.merge.core;

import org.openbox.protocol.graph.Block;

/** Block metadata the merge needs: the kind of a block and its number of output ports. */
public interface BlockInfo {
    /** @throws org.openbox.merge.MergeException for an unknown block type (naming the block) */
    Kind kind(Block b);

    /** Checks the block's config; throws a MergeException naming the block when it is invalid. */
    default void validate(Block b) {}

    /** Output ports of the block for its config. */
    int outputs(Block b);
}
