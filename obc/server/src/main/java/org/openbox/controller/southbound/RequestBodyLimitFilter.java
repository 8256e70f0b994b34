package org.openbox.controller.southbound;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.openbox.controller.LimitsProperties;
import org.openbox.protocol.ErrorSubtype;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Bounds every request body to {@code openbox.limits.max-body}: a larger Content-Length is
 * answered 413 with a protocol Error (BAD_REQUEST / ILLEGAL_ARGUMENT) without reading the
 * body; a body sent without a length is read through a counting stream that fails with
 * {@link BodyTooLargeException} once it passes the limit (answered the same way).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestBodyLimitFilter extends OncePerRequestFilter {

    private final long max;
    private final SouthboundErrors errors;

    public RequestBodyLimitFilter(LimitsProperties limits, SouthboundErrors errors) {
        this.max = limits.maxBody().toBytes();
        this.errors = errors;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (request.getContentLengthLong() > max) {
            refuse(response);
            return;
        }
        try {
            chain.doFilter(new Bounded(request, max), response);
        } catch (ServletException | IOException | RuntimeException e) {
            if (!causedByLimit(e)) {
                throw e;
            }
            if (!response.isCommitted()) {
                response.resetBuffer();
                refuse(response);
            }
        }
    }

    private void refuse(HttpServletResponse response) throws IOException {
        var answer = errors.respond(
                HttpStatus.PAYLOAD_TOO_LARGE,
                0,
                ErrorSubtype.ILLEGAL_ARGUMENT,
                "request body larger than " + max + " bytes");
        response.setStatus(answer.getStatusCode().value());
        response.setContentType("application/json");
        response.setHeader("Connection", "close"); // the rest of the body is not read
        response.getOutputStream().write(answer.getBody().getBytes(StandardCharsets.UTF_8));
    }

    static boolean causedByLimit(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BodyTooLargeException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** The body passed the limit while it was read. */
    public static final class BodyTooLargeException extends IOException {
        BodyTooLargeException(long max) {
            super("request body larger than " + max + " bytes");
        }
    }

    private static final class Bounded extends HttpServletRequestWrapper {
        private final long max;
        private ServletInputStream in;

        Bounded(HttpServletRequest request, long max) {
            super(request);
            this.max = max;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (in == null) {
                in = new Counting(super.getInputStream(), max);
            }
            return in;
        }
    }

    private static final class Counting extends ServletInputStream {
        private final ServletInputStream in;
        private final long max;
        private long read;

        Counting(ServletInputStream in, long max) {
            this.in = in;
            this.max = max;
        }

        private void count(long n) throws BodyTooLargeException {
            if (n > 0 && (read += n) > max) {
                throw new BodyTooLargeException(max);
            }
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            count(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            count(n);
            return n;
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
