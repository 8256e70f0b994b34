package org.openbox.api;

import java.util.Objects;

/**
 * Where a statement's graph runs: one OBI, every OBI of a topology segment (including its
 * sub-segments), or every OBI of the network.
 */
public sealed interface Location {

    static Location obi(long dpid) {
        return new Obi(dpid);
    }

    static Location segment(String name) {
        return new InSegment(name);
    }

    static Location network() {
        return new Network();
    }

    /** Whether OBI {@code dpid} is at this location in {@code topology}. */
    boolean includes(long dpid, Topology topology);

    /**
     * How specific the location is, to pick the closest one for an OBI: 0 for the network,
     * the segment's depth (1 for a top-level segment) for a segment, Integer.MAX_VALUE for an OBI.
     */
    int specificity(Topology topology);

    /** A single OBI. */
    record Obi(long dpid) implements Location {
        @Override
        public boolean includes(long dpid, Topology topology) {
            return this.dpid == dpid;
        }

        @Override
        public int specificity(Topology topology) {
            return Integer.MAX_VALUE;
        }
    }

    /** Every OBI of a named segment and of its sub-segments. */
    record InSegment(String name) implements Location {
        public InSegment {
            Objects.requireNonNull(name, "segment name");
        }

        @Override
        public boolean includes(long dpid, Topology topology) {
            return topology.obisOf(name).contains(dpid);
        }

        @Override
        public int specificity(Topology topology) {
            return topology.depthOf(name);
        }
    }

    /** Every OBI, whether or not the topology lists it. */
    record Network() implements Location {
        @Override
        public boolean includes(long dpid, Topology topology) {
            return true;
        }

        @Override
        public int specificity(Topology topology) {
            return 0;
        }
    }
}
