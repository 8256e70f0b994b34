package org.openbox.controller.obi;

/** Liveness of an OBI as seen by the controller. */
public enum ObiState {
    UP,
    DOWN
}
