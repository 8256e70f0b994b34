package org.openbox.controller.security;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.csrf.CsrfException;

/**
 * The management API's answers to a request without valid credentials (401) and to one
 * whose principal lacks the role (403), as JSON in the shape the API uses for its other
 * errors: {@code {"error": "..."}}.
 *
 * <p>A 401 carries {@code WWW-Authenticate: Basic realm="openbox"} except for requests the
 * web UI's scripts make ({@code X-Requested-With: XMLHttpRequest}): a browser would
 * otherwise open its own password dialog in the middle of the page and then send the
 * remembered password with every request to the controller.
 */
public final class JsonSecurityErrors implements AuthenticationEntryPoint, AccessDeniedHandler {

    static final String REALM = "openbox";

    private final ObjectMapper json;

    public JsonSecurityErrors(ObjectMapper json) {
        this.json = json;
    }

    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
            throws IOException {
        if (!"XMLHttpRequest".equals(request.getHeader("X-Requested-With"))) {
            response.setHeader("WWW-Authenticate", "Basic realm=\"" + REALM + "\", Bearer realm=\"" + REALM + "\"");
        }
        String why = e instanceof BearerTokenFilter.InvalidTokenException
                ? e.getMessage()
                : request.getHeader("Authorization") != null
                        ? "invalid credentials"
                        : "authentication required (HTTP Basic, a bearer token, or the UI's login)";
        write(response, HttpStatus.UNAUTHORIZED, why);
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException e)
            throws IOException {
        String why = e instanceof CsrfException
                ? "the session's CSRF token is missing or wrong (send the XSRF-TOKEN cookie's value as X-XSRF-TOKEN)"
                : request.getRequestURI().startsWith("/api/") && !"GET".equals(request.getMethod())
                        ? "the OPERATOR role is required for " + request.getMethod() + " " + request.getRequestURI()
                        : "access denied: " + e.getMessage();
        write(response, HttpStatus.FORBIDDEN, why);
    }

    private void write(HttpServletResponse response, HttpStatus status, String message) throws IOException {
        response.setStatus(status.value());
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        json.writeValue(response.getOutputStream(), Map.of("error", message));
    }
}
