package org.openbox.api.blocks;

import org.openbox.protocol.ErrorSubtype;

/**
 * Queue with Random Early Detection dropping. Output 0: queued packets; output 1: dropped packets (may be left unconnected).
 *
 * <p>Conveniences beside the generated {@link RandomEarlyDetectionQueue}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/RandomEarlyDetectionQueue.json.
 * <pre>new RandomEarlyDetectionQueue("red", 1000, 50, 500, 0.1)</pre>
 */
public abstract class RandomEarlyDetectionQueueExtension extends ProcessingBlock {

    RandomEarlyDetectionQueueExtension(String name) {
        super(name);
    }

    @Override
    public void check() {
        if (get("min_thresh").asDouble() > get("max_thresh").asDouble()) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "min_thresh must not exceed max_thresh");
        }
        if (get("min_thresh").asDouble() < 0
                || get("max_thresh").asDouble() <= 0
                || get("max_thresh").asDouble() > get("capacity").asDouble()) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "need 0 <= min_thresh <= max_thresh <= capacity and max_thresh > 0");
        }
        double p = get("max_p").asDouble();
        if (p < 0 || p > 1) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "max_p must be in 0..1, got " + p);
        }
    }
}
