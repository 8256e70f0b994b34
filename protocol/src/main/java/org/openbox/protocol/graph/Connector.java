package org.openbox.protocol.graph;

/** An edge of a graph (spec 4.2.5): output port src_port of src feeds input port dst_port of dst. */
public record Connector(String src, int srcPort, String dst, int dstPort) {}
