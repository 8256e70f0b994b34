package org.openbox.controller.southbound;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Remembers the (dpid, xid) of the latest Alert and Log messages taken. An OBI sends an
 * event message again when it got no answer, and the first try may have arrived: its
 * repeat is answered as taken but not handed to the applications twice. A Hello starts a
 * new OBI process, whose xids start again, so it forgets that dpid's messages.
 */
@Component
public class RepeatedEvents {

    /** Messages remembered, over all OBIs; far more than any OBI has in flight. */
    static final int CAPACITY = 65_536;

    private record Key(long dpid, String type, long xid) {}

    private final Map<Key, Boolean> seen = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Boolean> eldest) {
            return size() > CAPACITY;
        }
    };

    /** True the first time this message is seen, false for a repeat. */
    public synchronized boolean first(long dpid, String type, long xid) {
        return seen.putIfAbsent(new Key(dpid, type, xid), Boolean.TRUE) == null;
    }

    /** The OBI at {@code dpid} started again (Hello): its earlier xids mean nothing now. */
    public synchronized void forget(long dpid) {
        seen.keySet().removeIf(k -> k.dpid() == dpid);
    }
}
