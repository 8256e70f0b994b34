package org.openbox.controller.apps;

import org.openbox.api.Location;
import org.openbox.protocol.graph.Graph;

/** One statement of an application, with its graph already converted and validated. */
public record PlacedGraph(Location location, Graph graph) {}
