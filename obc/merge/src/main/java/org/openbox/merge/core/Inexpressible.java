package org.openbox.merge.core;

/** An intersection of two header terms that the header-match grammar cannot write. */
public final class Inexpressible extends Exception {
    public Inexpressible(String message) {
        super(message, null, false, false);
    }
}
