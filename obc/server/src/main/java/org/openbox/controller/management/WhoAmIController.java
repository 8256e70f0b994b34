package org.openbox.controller.management;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.openbox.controller.security.Role;
import org.openbox.controller.security.SecurityProperties;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** GET /api/me: who the request is authenticated as and with which roles (the UI shows OPERATOR buttons by it). */
@RestController
@Tag(name = "management")
@ApiDocs.Unauthorized
@ApiDocs.Forbidden
public class WhoAmIController {

    /** The principal's name and roles (VIEWER, OPERATOR). */
    public record Me(String name, List<String> roles) {}

    private final SecurityProperties security;

    public WhoAmIController(SecurityProperties security) {
        this.security = security;
    }

    @Operation(
            summary = "The logged-in principal and its roles",
            description = "With openbox.security.enabled=false: an anonymous principal with every role.")
    @ApiResponse(responseCode = "200", description = "OK", useReturnTypeSchema = true)
    @GetMapping("/api/me")
    public Me me(Authentication auth) {
        if (!security.enabled() || auth == null) {
            return new Me(
                    "anonymous", security.enabled() ? List.of() : List.of(Role.VIEWER.name(), Role.OPERATOR.name()));
        }
        List<String> roles = auth.getAuthorities().stream()
                .map(a -> a.getAuthority())
                .filter(a -> a.startsWith("ROLE_"))
                .map(a -> a.substring(5))
                .sorted()
                .toList();
        return new Me(auth.getName(), roles);
    }
}
