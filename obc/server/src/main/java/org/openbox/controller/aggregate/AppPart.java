package org.openbox.controller.aggregate;

import org.openbox.protocol.graph.Graph;

/** The graph one application contributes to one OBI, with the application's priority. */
public record AppPart(String app, int priority, Graph graph) {}
