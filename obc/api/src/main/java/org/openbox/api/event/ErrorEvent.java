package org.openbox.api.event;

import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;

/** An OBI rejected something done on the application's behalf (a graph, a read, a write). */
public record ErrorEvent(long dpid, ErrorType type, ErrorSubtype subtype, String message) {}
