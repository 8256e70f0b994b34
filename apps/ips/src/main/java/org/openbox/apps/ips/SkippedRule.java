package org.openbox.apps.ips;

/** A rule the IPS could not express, with the reason (reported, never dropped silently). */
public record SkippedRule(int line, long sid, String reason) {}
