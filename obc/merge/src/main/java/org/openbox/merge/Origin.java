package org.openbox.merge;

/** An application's block that a merged block implements (or partly implements). */
public record Origin(String app, String block) implements Comparable<Origin> {
    @Override
    public int compareTo(Origin o) {
        int c = app.compareTo(o.app);
        return c != 0 ? c : block.compareTo(o.block);
    }

    @Override
    public String toString() {
        return app + "." + block;
    }
}
