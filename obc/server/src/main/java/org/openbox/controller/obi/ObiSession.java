package org.openbox.controller.obi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.openbox.protocol.graph.Graph;

/**
 * What the controller knows about one OBI: its endpoint client, Hello details, liveness
 * and the outcome of the last graph push. State changes are synchronized on the session
 * (message threads and the deadline sweeper both change it); reads of single fields are
 * volatile.
 */
public final class ObiSession {

    private final long dpid;
    private final Instant firstSeen;
    private volatile ObiClient client;
    private volatile String remoteAddr; // where the accepted Hello came from
    private volatile boolean established; // the OBI answered a request of the controller
    private volatile boolean intervalTaken; // it accepted keepalive_interval since its last Hello
    private final long createdNanos;
    private volatile long stateSinceNanos;
    private volatile String version;
    private volatile ObjectNode capabilities;
    private volatile ObiState state = ObiState.UP;
    private volatile long lastSeenNanos;
    private volatile Instant lastSeen;
    private volatile Instant stateSince;
    private volatile int downCount;
    private volatile int generation; // Hellos taken on this session after its first
    private volatile String graphStatus = "none";
    private volatile String lastError;
    // custom modules: what the controller installed there, and what the OBI refused (name -> reason)
    private final Set<String> installedModules = ConcurrentHashMap.newKeySet();
    private final Map<String, String> failedModules = new ConcurrentHashMap<>();
    // the graph last sent (set-up thread only); null when none since the OBI said Hello
    private Graph pushedGraph;

    ObiSession(long dpid, ObiClient client, String remoteAddr, Instant now, long nowNanos) {
        this.dpid = dpid;
        this.client = client;
        this.remoteAddr = remoteAddr;
        this.createdNanos = nowNanos;
        this.stateSinceNanos = nowNanos;
        this.firstSeen = now;
        this.stateSince = now;
        this.lastSeen = now;
        this.lastSeenNanos = nowNanos;
    }

    public long dpid() {
        return dpid;
    }

    public ObiClient client() {
        return client;
    }

    public String version() {
        return version;
    }

    public ObjectNode capabilities() {
        return capabilities;
    }

    public ObiState state() {
        return state;
    }

    public Instant firstSeen() {
        return firstSeen;
    }

    public Instant lastSeen() {
        return lastSeen;
    }

    public Instant stateSince() {
        return stateSince;
    }

    public int downCount() {
        return downCount;
    }

    public String graphStatus() {
        return graphStatus;
    }

    public String lastError() {
        return lastError;
    }

    long lastSeenNanos() {
        return lastSeenNanos;
    }

    void client(ObiClient c) {
        this.client = c;
    }

    /** The address the accepted Hello came from (the session's endpoint with {@link #client()}). */
    public String remoteAddr() {
        return remoteAddr;
    }

    void remoteAddr(String addr) {
        this.remoteAddr = addr;
    }

    /** The OBI answered a request of the controller: its Hello led to a working connection. */
    public boolean established() {
        return established;
    }

    void established(boolean e) {
        this.established = e;
    }

    long createdNanos() {
        return createdNanos;
    }

    /**
     * The OBI accepted the controller's keepalive_interval (SetParametersResponse) since its
     * last Hello; until then it sends KeepAlive at the spec's default interval.
     */
    public boolean intervalTaken() {
        return intervalTaken;
    }

    void intervalTaken(boolean taken) {
        this.intervalTaken = taken;
    }

    long stateSinceNanos() {
        return stateSinceNanos;
    }

    void hello(String version, ObjectNode capabilities) {
        this.version = version;
        this.capabilities = capabilities;
    }

    void seen(Instant now, long nowNanos) {
        lastSeenNanos = nowNanos;
        lastSeen = now;
    }

    /** Moves to {@code next}; returns whether the state changed. */
    synchronized boolean transition(ObiState next, Instant now) {
        if (state == next) {
            return false;
        }
        state = next;
        stateSince = now;
        stateSinceNanos = System.nanoTime();
        if (next == ObiState.DOWN) {
            downCount++;
        }
        return true;
    }

    /** Custom modules installed on the OBI by the controller. */
    public Set<String> installedModules() {
        return Set.copyOf(installedModules);
    }
    /** Custom modules the OBI refused, with the reason. */
    public Map<String, String> failedModules() {
        return Map.copyOf(failedModules);
    }

    boolean installed(String module) {
        return installedModules.contains(module);
    }

    void moduleInstalled(String module) {
        installedModules.add(module);
        failedModules.remove(module);
    }

    void moduleRemoved(String module) {
        installedModules.remove(module);
    }

    String moduleFailure(String module) {
        return failedModules.get(module);
    }

    void moduleFailed(String module, String reason) {
        failedModules.put(module, reason);
    }

    void retryModule(String module) {
        failedModules.remove(module);
    }

    void retryModules() {
        failedModules.clear();
    }

    /**
     * How many times the OBI said Hello again on this session: it may have restarted and lost
     * what it was told (parameters, subscriptions).
     */
    public int generation() {
        return generation;
    }

    /** Another Hello on this session (the southbound thread that took it, before its set-up). */
    synchronized void helloAgain() {
        generation++;
    }

    /** A Hello: the OBI may have restarted, with no module and no graph. */
    void restarted() {
        installedModules.clear();
        failedModules.clear();
    }

    Graph pushedGraph() {
        return pushedGraph;
    }

    void pushedGraph(Graph g) {
        this.pushedGraph = g;
    }

    void graphStatus(String status) {
        this.graphStatus = status;
    }

    void lastError(String error) {
        this.lastError = error;
    }
}
