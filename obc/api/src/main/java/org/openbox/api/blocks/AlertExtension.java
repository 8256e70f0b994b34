package org.openbox.api.blocks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.openbox.protocol.ErrorSubtype;

/**
 * Sends an alert to the controller for every packet; the packet passes through unchanged.
 * The controller hands it to the owning application's {@code onAlert}.
 *
 * <p>Conveniences beside the generated {@link Alert}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/Alert.json.
 * <pre>new Alert("a").alert("SSH from outside", 3).attachPacket(true)</pre>
 */
public abstract class AlertExtension extends ProcessingBlock {

    AlertExtension(String name) {
        super(name);
    }

    /** Adds an alert message with a severity 1 (lowest) .. 5 (highest). */
    public Alert alert(String message, int severity) {
        list("alerts").addObject().put("message", message).put("severity", severity);
        return (Alert) this;
    }

    /** Adds an alert message on behalf of application {@code appId}. */
    public Alert alert(String message, int severity, String appId) {
        list("alerts")
                .addObject()
                .put("message", message)
                .put("severity", severity)
                .put("app_id", appId);
        return (Alert) this;
    }

    @Override
    public void check() {
        requireRules("alerts", "alerts");
        for (int i = 0; i < size("alerts"); i++) {
            int s = ((ObjectNode) get("alerts").get(i)).get("severity").asInt();
            if (s < 1 || s > 5) {
                throw invalid(ErrorSubtype.BAD_BLOCK, "alert " + i + ": severity must be 1..5, got " + s);
            }
        }
    }
}
