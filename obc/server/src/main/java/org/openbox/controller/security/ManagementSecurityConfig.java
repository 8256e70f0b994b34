package org.openbox.controller.security;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.www.BasicAuthenticationFilter;
import org.springframework.security.web.csrf.CookieCsrfTokenRepository;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.security.web.savedrequest.HttpSessionRequestCache;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * Authentication and authorisation of everything the controller serves except the
 * southbound protocol.
 *
 * <ul>
 *   <li>{@code /message/**} (OBIs) has its own chain that lets every request through: OBIs
 *       are authenticated by their client certificate, not here.</li>
 *   <li>{@code /actuator/health} is open (a liveness probe).</li>
 *   <li>VIEWER: GET on {@code /api/**}, the web UI, {@code /v3/api-docs},
 *       {@code /actuator/prometheus} (and the other actuator endpoints).</li>
 *   <li>OPERATOR: also POST/PUT/PATCH/DELETE on {@code /api/**}.</li>
 * </ul>
 *
 * <p>API clients use HTTP Basic or {@code Authorization: Bearer TOKEN} ({@link BearerTokenFilter});
 * neither creates a session. A browser gets the login form and a session; the UI's scripts
 * carry the session cookie. Without valid credentials an API request is answered 401, a
 * browser's page request is sent to the login form; a missing role is 403. Errors are JSON
 * ({@link JsonSecurityErrors}).
 *
 * <p>CSRF: a forged cross-site request can only ride on credentials the browser adds by
 * itself, the session cookie. So requests of the browser session (and the login form's POST)
 * need the CSRF token (the
 * UI reads it from the {@code XSRF-TOKEN} cookie and sends it as {@code X-XSRF-TOKEN}),
 * while requests that bring their own {@code Authorization} header (Basic or Bearer) do not:
 * another site cannot make a browser add that header (it would need a CORS preflight the
 * controller never allows), and the controller never asks a browser for Basic credentials
 * (page requests go to the login form, script requests get no Basic challenge), so no
 * browser holds Basic credentials for it unless its user typed them into the address.
 * A request with neither session nor Authorization header is not checked either: it is
 * anonymous and answered 401 (not a CSRF 403) when it asks for anything protected.
 *
 * <p>With neither users nor tokens configured the controller refuses to start, unless
 * {@code openbox.security.enabled=false} opens the API explicitly (logged as a warning).
 */
@Configuration
@EnableWebSecurity
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class ManagementSecurityConfig {

    private static final Logger log = LoggerFactory.getLogger(ManagementSecurityConfig.class);

    /** The southbound protocol: authenticated by the TLS layer (client certificates), not by this chain. */
    @Bean
    @Order(1)
    SecurityFilterChain southbound(HttpSecurity http) throws Exception {
        return http.securityMatcher("/message/**")
                .authorizeHttpRequests(a -> a.anyRequest().permitAll())
                .csrf(AbstractHttpConfigurer::disable)
                .requestCache(AbstractHttpConfigurer::disable)
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .build();
    }

    @Bean
    @Order(2)
    SecurityFilterChain management(
            HttpSecurity http, SecurityProperties props, ObjectMapper json, UserDetailsService users) throws Exception {
        if (!props.enabled()) {
            log.warn("openbox.security.enabled=false: the management API, the web UI and the metrics are open"
                    + " to anyone who can reach the controller's port");
            return http.authorizeHttpRequests(a -> a.anyRequest().permitAll())
                    .csrf(AbstractHttpConfigurer::disable)
                    .build();
        }
        if (!props.hasPrincipals()) {
            throw new IllegalStateException("openbox.security: no users or tokens configured, the management API"
                    + " would be open; set openbox.security.users.NAME.password and .roles (or"
                    + " openbox.security.tokens.NAME.token-sha256 and .roles), or openbox.security.enabled=false"
                    + " to run without authentication");
        }
        JsonSecurityErrors errors = new JsonSecurityErrors(json);
        RequestMatcher page = ManagementSecurityConfig::browserPage;
        HttpSessionRequestCache pages = new HttpSessionRequestCache();
        pages.setRequestMatcher(page);
        CsrfTokenRequestAttributeHandler csrfHandler = new CsrfTokenRequestAttributeHandler();
        return http.authenticationManager(authenticationManager(users))
                .authorizeHttpRequests(a -> a.dispatcherTypeMatchers(DispatcherType.ERROR)
                        .permitAll()
                        .requestMatchers("/actuator/health", "/actuator/health/**", "/login", "/error")
                        .permitAll()
                        .requestMatchers(HttpMethod.GET, "/api/**")
                        .hasRole(Role.VIEWER.name())
                        .requestMatchers(HttpMethod.HEAD, "/api/**")
                        .hasRole(Role.VIEWER.name())
                        .requestMatchers("/api/**")
                        .hasRole(Role.OPERATOR.name())
                        .anyRequest()
                        .hasRole(Role.VIEWER.name()))
                .httpBasic(b -> b.realmName(JsonSecurityErrors.REALM).authenticationEntryPoint(errors))
                .formLogin(f -> f.defaultSuccessUrl("/", false))
                .logout(l -> l.logoutSuccessUrl("/login?logout"))
                .addFilterBefore(new BearerTokenFilter(props.tokens(), errors), BasicAuthenticationFilter.class)
                .addFilterAfter(new CsrfCookieFilter(), BasicAuthenticationFilter.class)
                .csrf(c -> c.csrfTokenRepository(CookieCsrfTokenRepository.withHttpOnlyFalse())
                        .csrfTokenRequestHandler(csrfHandler)
                        .ignoringRequestMatchers(ManagementSecurityConfig::noAmbientCredentials))
                .requestCache(c -> c.requestCache(pages))
                // a page request goes to the login form (the form login's own entry point), the rest gets 401 JSON
                .exceptionHandling(e -> e.defaultAuthenticationEntryPointFor(errors, r -> !browserPage(r))
                        .accessDeniedHandler(errors))
                .build();
    }

    /**
     * A request that can only be authenticated by what it carries itself: an Authorization
     * header, or no session at all (it is answered 401 unless it is the login form's POST,
     * which keeps its CSRF check against forged logins).
     */
    static boolean noAmbientCredentials(HttpServletRequest r) {
        return r.getHeader("Authorization") != null
                || r.getRequestedSessionId() == null && !"/login".equals(r.getServletPath());
    }

    /** A browser asking for a page (not a script's request, not an API client): it gets the login form. */
    static boolean browserPage(HttpServletRequest r) {
        String accept = r.getHeader("Accept");
        return "GET".equals(r.getMethod())
                && accept != null
                && accept.contains("text/html")
                && r.getHeader("Authorization") == null
                && !"XMLHttpRequest".equals(r.getHeader("X-Requested-With"));
    }

    /** The configured users (also keeps Spring Boot from adding a user with a generated password). */
    @Bean
    UserDetailsService managementUsers(SecurityProperties props) {
        return new InMemoryUserDetailsManager(props.users().entrySet().stream()
                .map(e -> User.withUsername(e.getKey())
                        .password(e.getValue().password())
                        .authorities(e.getValue().roles().stream()
                                .flatMap(r -> r.authorities().stream())
                                .distinct()
                                .toArray(String[]::new))
                        .build())
                .toArray(UserDetails[]::new));
    }

    private static AuthenticationManager authenticationManager(UserDetailsService users) {
        PasswordEncoder encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();
        DaoAuthenticationProvider provider = new DaoAuthenticationProvider(encoder);
        provider.setUserDetailsService(users);
        return new ProviderManager(List.of(provider));
    }
}
