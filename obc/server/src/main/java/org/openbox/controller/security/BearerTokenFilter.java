package org.openbox.controller.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.context.RequestAttributeSecurityContextRepository;
import org.springframework.security.web.context.SecurityContextRepository;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates {@code Authorization: Bearer TOKEN}: the SHA-256 of TOKEN is compared (in
 * constant time) with each configured {@code openbox.security.tokens.NAME.token-sha256};
 * a match authenticates the request (only this request and its later dispatches, such as an
 * asynchronous answer's: nothing is kept in a session) as
 * {@code token:NAME} with the token's roles. An unknown token is answered 401 at once.
 * Requests without a bearer token pass untouched.
 */
public final class BearerTokenFilter extends OncePerRequestFilter {

    private static final String PREFIX = "Bearer ";
    /** Tokens longer than this are not hashed: no configured token is that long. */
    private static final int MAX_TOKEN = 4096;

    /** An unknown or malformed bearer token. */
    public static final class InvalidTokenException extends AuthenticationException {
        InvalidTokenException(String message) {
            super(message);
        }
    }

    private record Known(String name, byte[] hash, List<String> authorities) {}

    private final List<Known> tokens;
    private final AuthenticationEntryPoint entryPoint;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();
    private final SecurityContextRepository repository = new RequestAttributeSecurityContextRepository();

    public BearerTokenFilter(Map<String, SecurityProperties.Token> tokens, AuthenticationEntryPoint entryPoint) {
        this.tokens = tokens.entrySet().stream()
                .map(e -> new Known(
                        e.getKey(),
                        e.getValue().hash(),
                        e.getValue().roles().stream()
                                .flatMap(r -> r.authorities().stream())
                                .distinct()
                                .toList()))
                .toList();
        this.entryPoint = entryPoint;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            chain.doFilter(request, response);
            return;
        }
        String token = header.substring(PREFIX.length()).strip();
        Known match = token.isEmpty() || token.length() > MAX_TOKEN ? null : find(sha256(token));
        if (match == null) {
            contexts.clearContext();
            entryPoint.commence(request, response, new InvalidTokenException("invalid bearer token"));
            return;
        }
        SecurityContext context = contexts.createEmptyContext();
        context.setAuthentication(UsernamePasswordAuthenticationToken.authenticated(
                "token:" + match.name(), null, AuthorityUtils.createAuthorityList(match.authorities())));
        contexts.setContext(context);
        // kept for this request's later dispatches too (an API answer computed asynchronously)
        repository.saveContext(context, request, response);
        try {
            chain.doFilter(request, response);
        } finally {
            contexts.clearContext();
        }
    }

    /** The configured token with this hash; every one is compared, so the time does not tell which. */
    private Known find(byte[] hash) {
        Known found = null;
        for (Known k : tokens) {
            if (MessageDigest.isEqual(k.hash(), hash) && found == null) {
                found = k;
            }
        }
        return found;
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
