package org.openbox.controller.aggregate;

import org.openbox.protocol.graph.Graph;

/** A composed graph with its provenance and a human-readable report of what was combined. */
public record Composed(Graph graph, BlockOrigins origins, String report) {}
