package org.openbox.controller.apps;

/**
 * Lifecycle of a loaded application: RUNNING (its graphs are deployed), STOPPED, REFUSED
 * (invalid at load: never started), FAILED (its start threw). While REFUSED or FAILED its
 * failure mode decides what its traffic gets where it would run; an application an OBI
 * refuses stays RUNNING here and fails on that OBI only ({@code GraphAggregator#refusedOn}).
 */
public enum AppState {
    RUNNING,
    STOPPED,
    REFUSED,
    FAILED
}
