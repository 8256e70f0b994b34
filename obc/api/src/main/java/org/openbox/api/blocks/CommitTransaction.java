package org.openbox.api.blocks;

/**
 * Commits the named transaction. Output 0: committed; output 1: commit failed (implicitly rolled back).
 *
 * <p>Ports: 1 input, 2 outputs. Class: modifier; spec 5.31.
 * Config: name (string, required).
 * Read handles: count_success, count_failure.
 * Write handles: reset.
 * <pre>new CommitTransaction("commit", "t1")  // output 1: commit failed</pre>
 */
public final class CommitTransaction extends ProcessingBlock {

    public CommitTransaction(String name, String transaction) {
        super(name);
        set("name", transaction);
    }
}
