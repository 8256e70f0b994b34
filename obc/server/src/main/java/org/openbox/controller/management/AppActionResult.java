package org.openbox.controller.management;

/** Answer of POST /api/apps/{name}/start, /stop and /reload. */
public record AppActionResult(String app, boolean ok, String state, String message) {}
