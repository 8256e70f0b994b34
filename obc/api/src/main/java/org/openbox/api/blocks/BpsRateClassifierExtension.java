package org.openbox.api.blocks;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openbox.protocol.ErrorSubtype;

/**
 * Classifies the packet stream by its arrival rate in bytes per second (EWMA). With n rates there are n+1 outputs: output 0 below rate[0], output i for rate[i-1] <= rate < rate[i], output n at or above rate[n-1].
 *
 * <p>Conveniences beside the generated {@link BpsRateClassifier}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/BpsRateClassifier.json.
 * <pre>new BpsRateClassifier("rate").rate("1 Mbps", "100 Mbps")  // outputs 0, 1, 2</pre>
 */
public abstract class BpsRateClassifierExtension extends ProcessingBlock {

    BpsRateClassifierExtension(String name) {
        super(name);
    }

    private static final Pattern BANDWIDTH = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([kKmMgG]?)(bps|Bps)\\s*");

    /** "384 kbps" (bits) or "48 kBps" (bytes) in bytes per second. */
    private double bytesPerSecond(String text, int index) {
        Matcher m = BANDWIDTH.matcher(text);
        if (!m.matches()) {
            throw invalid(
                    ErrorSubtype.BAD_BLOCK,
                    "rate " + index + ": '" + text + "' is not a bandwidth such as \"384 kbps\" or \"10 MBps\"");
        }
        double v = Double.parseDouble(m.group(1));
        v *= switch (m.group(2).toLowerCase()) {
            case "k" -> 1e3;
            case "m" -> 1e6;
            case "g" -> 1e9;
            default -> 1;
        };
        return m.group(3).equals("bps") ? v / 8 : v;
    }

    @Override
    public void check() {
        requireRules("rate", "rates");
        double previous = -1;
        for (int i = 0; i < size("rate"); i++) {
            double r = bytesPerSecond(get("rate").get(i).asText(), i);
            if (r <= previous) {
                throw invalid(ErrorSubtype.BAD_BLOCK, "rate " + i + " must be greater than rate " + (i - 1));
            }
            previous = r;
        }
    }
}
