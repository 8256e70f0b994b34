package org.openbox.controller.aggregate;

/** One application's own block: the unit an application reads, writes and gets alerts for. */
public record BlockRef(String app, String block) {}
