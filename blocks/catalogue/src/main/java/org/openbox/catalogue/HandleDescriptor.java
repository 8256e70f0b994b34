package org.openbox.catalogue;

/**
 * A read or write handle of a block type. An indexed handle is a family written with an
 * {@code _i} suffix ({@code count_i}) and addressed as {@code count_0}, {@code count_1}, ...
 */
public record HandleDescriptor(String name, String type, boolean indexed, String description) {

    /** Whether {@code handle} names this handle (for an indexed family: prefix plus a decimal index). */
    public boolean matches(String handle) {
        if (!indexed) {
            return name.equals(handle);
        }
        String prefix = name.substring(0, name.length() - 1); // "count_i" -> "count_"
        if (!handle.startsWith(prefix) || handle.length() == prefix.length()) {
            return false;
        }
        for (int i = prefix.length(); i < handle.length(); i++) {
            if (!Character.isDigit(handle.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
