package org.openbox.protocol;

/**
 * The base64 accepted for AddCustomModuleRequest.module_content: non-empty, RFC 4648 standard
 * alphabet, length a multiple of 4, '=' padding only as the last one or two characters, no
 * whitespace or line breaks.
 */
final class Base64Text {
    private Base64Text() {}

    static boolean isValid(String s) {
        int n = s.length();
        if (n == 0 || n % 4 != 0) {
            return false;
        }
        int pad = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
        for (int i = 0; i < n - pad; i++) {
            char c = s.charAt(i);
            boolean ok =
                    (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
