package org.openbox.controller.obi;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.openbox.controller.tls.ObiIdentityException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Records a request to an OBI that failed: the session's last error and a warning in the log. */
final class RequestFailures {

    private static final Logger log = LoggerFactory.getLogger(RequestFailures.class);

    private RequestFailures() {}

    /** @param limit how long the answer was awaited (named when it did not come) */
    static void record(ObiSession s, String what, Throwable e, Duration limit) {
        Throwable cause = e.getCause() != null && !(e instanceof ObiErrorException) ? e.getCause() : e;
        ObiIdentityException identity = ObiIdentityException.find(e);
        if (identity != null) {
            String text = what + " not sent: identity error: " + identity.getMessage();
            s.lastError(text);
            s.graphStatus("identity error");
            log.warn("identity conflict: OBI {} at {}: {}", s.dpid(), s.client().base(), text);
            return;
        }
        String text = what + " failed: "
                + (cause instanceof TimeoutException
                        ? "no answer within " + limit.toMillis() + " ms"
                        : cause.getMessage());
        s.lastError(text);
        log.warn("OBI {}: {}", s.dpid(), text);
    }
}
