package org.openbox.protocol.graph;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** A processing block of a graph (spec 4.2.5): its type, unique name and config (may be null). */
public record Block(String type, String name, ObjectNode config) {}
