package org.openbox.controller.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Makes sure the browser session has its {@code XSRF-TOKEN} cookie: Spring creates the CSRF
 * token only when something reads it, and the web UI's scripts (which never render a form)
 * need it in the cookie to send it back with their POSTs.
 */
final class CsrfCookieFilter extends OncePerRequestFilter {

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
            token.getToken(); // loads it, and with it writes the cookie
        }
        chain.doFilter(request, response);
    }
}
