package org.openbox.controller.isolation;

import java.util.HashMap;
import java.util.Map;
import org.openbox.api.FailureMode;
import org.springframework.stereotype.Component;

/**
 * The operator's failure-mode overrides and no-application actions, checked when the
 * controller starts (a bad value fails start-up naming the property). Immutable.
 */
@Component
public class FailurePolicy {

    private final Map<String, FailureMode> modes;
    private final NoAppAction noAppAction;
    private final Map<Long, NoAppAction> noAppActionPerObi;

    public FailurePolicy(IsolationProperties props) {
        Map<String, FailureMode> m = new HashMap<>();
        props.failureMode().forEach((app, text) -> {
            try {
                m.put(app, FailureMode.parse(text));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("openbox.failure-mode." + app + ": " + e.getMessage(), e);
            }
        });
        this.modes = Map.copyOf(m);
        this.noAppAction = NoAppAction.parse("openbox.no-app-action", props.noAppAction());
        Map<Long, NoAppAction> per = new HashMap<>();
        props.noAppActionPerObi().forEach((dpid, text) -> {
            String key = "openbox.no-app-action-per-obi." + dpid;
            long d;
            try {
                d = Long.parseLong(dpid.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + ": '" + dpid + "' is not a dpid (a number)");
            }
            per.put(d, NoAppAction.parse(key, text));
        });
        this.noAppActionPerObi = Map.copyOf(per);
    }

    /** The mode in force for the application: the operator's override, else what it declares. */
    public FailureMode modeOf(String app, FailureMode declared) {
        FailureMode m = modes.get(app);
        return m != null ? m : declared == null ? FailureMode.OPEN : declared;
    }

    /** True when the operator set the application's mode. */
    public boolean overridden(String app) {
        return modes.containsKey(app);
    }

    public NoAppAction noAppAction(long dpid) {
        return noAppActionPerObi.getOrDefault(dpid, noAppAction);
    }
}
