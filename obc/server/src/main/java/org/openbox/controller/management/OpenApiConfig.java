package org.openbox.controller.management;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI description of the controller (/v3/api-docs, Swagger UI at /swagger-ui.html):
 * title, version, what the API is for, and how to authenticate (HTTP Basic, a bearer token, or
 * the web UI's session).
 */
@Configuration
public class OpenApiConfig {

    /** The version stated when the build wrote no build-info (classes run from an IDE). */
    static final String UNBUILT = "development";

    @Bean
    OpenAPI openboxOpenApi(ObjectProvider<BuildProperties> build) {
        String version =
                build.stream().findFirst().map(BuildProperties::getVersion).orElse(UNBUILT);
        return new OpenAPI()
                .info(
                        new Info()
                                .title("OpenBox controller API")
                                .version(version)
                                .description(
                                        """
                                Management API of the OpenBox controller: the OBIs it manages (state, merged \
                                graphs with provenance, statistics, handle reads), the applications (state, \
                                start / stop / reload, classifier rules with hit counts), alerts (filtered \
                                listing and a Server-Sent Events stream) and the network topology. Also the \
                                southbound OpenBox protocol 1.1 (/message/*), used by OBIs only.

                                Every /api request needs a login: HTTP Basic, `Authorization: Bearer TOKEN`, \
                                or the web UI's session (with its CSRF token on POST). VIEWER reads; OPERATOR \
                                also starts, stops and reloads applications. A missing login is 401, a missing \
                                role 403, both with an `ApiError` body."""))
                .components(new Components()
                        .addSecuritySchemes(
                                "basic",
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.HTTP)
                                        .scheme("basic"))
                        .addSecuritySchemes(
                                "bearer",
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.HTTP)
                                        .scheme("bearer")))
                .addSecurityItem(new SecurityRequirement().addList("basic"))
                .addSecurityItem(new SecurityRequirement().addList("bearer"));
    }
}
