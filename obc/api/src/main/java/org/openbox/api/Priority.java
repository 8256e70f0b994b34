package org.openbox.api;

/** Named application priority levels (any int is allowed; higher runs first in a chain). */
public final class Priority {
    public static final int VERY_LOW = -200;
    public static final int LOW = -100;
    public static final int MEDIUM = 0;
    public static final int HIGH = 100;
    public static final int VERY_HIGH = 200;
    public static final int CRITICAL = 300;

    private Priority() {}
}
