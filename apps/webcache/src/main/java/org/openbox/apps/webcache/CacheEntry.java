package org.openbox.apps.webcache;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One cached object: what a GET for {@code path} on {@code host} is answered with.
 *
 * @param host        host name as in the Host header (without port); empty for any host
 * @param path        request target, starting with '/' (query included, compared exactly)
 * @param contentType Content-Type of the response
 * @param body        the object's bytes
 */
public record CacheEntry(String host, String path, String contentType, byte[] body) {

    /** Largest whole response (status line, headers, body) one entry may produce. */
    public static final int MAX_RESPONSE = 65535;

    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html"), Map.entry("htm", "text/html"), Map.entry("txt", "text/plain"),
            Map.entry("css", "text/css"), Map.entry("js", "application/javascript"),
            Map.entry("json", "application/json"), Map.entry("xml", "application/xml"),
            Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"), Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"), Map.entry("svg", "image/svg+xml"), Map.entry("ico", "image/x-icon"));

    public CacheEntry {
        host = host == null ? "" : host.toLowerCase(Locale.ROOT);
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(contentType, "content type");
        body = body.clone();
        if (!path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c > '~')) {
            throw new IllegalArgumentException("cached path '" + path
                    + "' must start with '/' and be printable ASCII without spaces");
        }
    }

    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The status line and headers the responder sends before the body (see HttpCacheResponder.json). */
    public String responseHead() {
        return "HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nContent-Length: " + body.length
                + "\r\nConnection: close\r\nX-Cache: HIT\r\n\r\n";
    }

    /** Bytes of the whole response. */
    public int responseSize() {
        return responseHead().getBytes(StandardCharsets.US_ASCII).length + body.length;
    }

    /** The Content-Type for a file name, from its extension. */
    public static String contentTypeOf(String fileName) {
        int dot = fileName.lastIndexOf('.');
        String ext = dot < 0 ? "" : fileName.substring(dot + 1).toLowerCase(Locale.ROOT);
        return TYPES.getOrDefault(ext, "application/octet-stream");
    }
}
