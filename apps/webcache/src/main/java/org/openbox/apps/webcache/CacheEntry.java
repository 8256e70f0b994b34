package org.openbox.apps.webcache;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.openbox.api.blocks.HttpCacheResponder;

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
    public static final int MAX_RESPONSE = HttpCacheResponder.MAX_RESPONSE;

    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html"),
            Map.entry("htm", "text/html"),
            Map.entry("txt", "text/plain"),
            Map.entry("css", "text/css"),
            Map.entry("js", "application/javascript"),
            Map.entry("json", "application/json"),
            Map.entry("xml", "application/xml"),
            Map.entry("png", "image/png"),
            Map.entry("jpg", "image/jpeg"),
            Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"),
            Map.entry("svg", "image/svg+xml"),
            Map.entry("ico", "image/x-icon"));

    public CacheEntry {
        host = host == null ? "" : host.toLowerCase(Locale.ROOT);
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(contentType, "content type");
        body = body.clone();
        if (!path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c > '~')) {
            throw new IllegalArgumentException(
                    "cached path '" + path + "' must start with '/' and be printable ASCII without spaces");
        }
    }

    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The status line and headers the responder sends before the body. */
    public String responseHead() {
        return HttpCacheResponder.responseHead(contentType, body.length);
    }

    /** Adds this object to a responder. */
    public HttpCacheResponder addTo(HttpCacheResponder responder) {
        return responder.entry(host, path, contentType, body);
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
