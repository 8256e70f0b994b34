package org.openbox.api.blocks;

import org.openbox.protocol.ErrorSubtype;

/**
 * Classifies the packet stream by its arrival rate in packets per second (EWMA). With n rates there are n+1 outputs: output 0 below rate[0], output i for rate[i-1] <= rate < rate[i], output n at or above rate[n-1].
 *
 * <p>Conveniences beside the generated {@link PpsRateClassifier}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/PpsRateClassifier.json.
 * <pre>new PpsRateClassifier("rate").rate(1000, 10000)  // outputs 0, 1, 2</pre>
 */
public abstract class PpsRateClassifierExtension extends ProcessingBlock {

    PpsRateClassifierExtension(String name) {
        super(name);
    }

    @Override
    public void check() {
        requireRules("rate", "rates");
        for (int i = 1; i < size("rate"); i++) {
            if (get("rate").get(i - 1).asDouble() >= get("rate").get(i).asDouble()) {
                throw invalid(ErrorSubtype.BAD_BLOCK, "rate " + i + " must be greater than rate " + (i - 1));
            }
        }
    }
}
