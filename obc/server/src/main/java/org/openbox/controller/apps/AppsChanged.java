package org.openbox.controller.apps;

/** Published when the set of running applications changed (graphs must be recomputed). */
public record AppsChanged(String app, AppState state) {}
