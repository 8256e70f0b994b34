package org.openbox.controller.apps;

/**
 * Lifecycle of a loaded application: RUNNING (its graphs are deployed), STOPPED, REFUSED
 * (invalid at load: never started), FAILED (its start threw).
 */
public enum AppState { RUNNING, STOPPED, REFUSED, FAILED }
