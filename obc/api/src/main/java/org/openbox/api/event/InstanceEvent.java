package org.openbox.api.event;

/** An OBI came up (said Hello) or went down (stopped sending KeepAlive). */
public record InstanceEvent(long dpid) {}
