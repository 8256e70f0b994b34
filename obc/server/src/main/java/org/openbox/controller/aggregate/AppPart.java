package org.openbox.controller.aggregate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.openbox.protocol.graph.Graph;

/**
 * The graph one application contributes to one OBI, with the application's priority and
 * the traffic class it handles (a header match; null: all traffic).
 */
public record AppPart(String app, int priority, Graph graph, ObjectNode trafficClass) {

    public AppPart(String app, int priority, Graph graph) {
        this(app, priority, graph, null);
    }
}
