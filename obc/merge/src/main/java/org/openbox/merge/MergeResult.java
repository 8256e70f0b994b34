package org.openbox.merge;

import org.openbox.protocol.graph.Graph;

/** The merged graph, where each of its blocks comes from, and what the merge did. */
public record MergeResult(Graph merged, Provenance provenance, MergeReport report) {}
