package org.openbox.merge;

/** A graph the merge cannot accept (names the block or connector at fault). */
public class MergeException extends RuntimeException {
    public MergeException(String message) {
        super(message);
    }
}
