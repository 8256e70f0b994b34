package org.openbox.controller.management;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.openbox.controller.events.AlertFilter;
import org.openbox.controller.events.AlertLog;
import org.openbox.controller.events.AlertRecord;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Alerts for operators: the recent ones that pass a filter (application, OBI, lowest
 * severity, block, message text, the application's rule, time range), and the same filter as a live stream of new
 * ones (Server-Sent Events, {@link AlertStream}).
 */
@RestController
@RequestMapping("/api")
@Tag(name = "management")
@ApiDocs.Unauthorized
@ApiDocs.Forbidden
public class AlertsController {

    private static final String JSON = "application/json";

    private final AlertLog alerts;
    private final AlertStream stream;

    public AlertsController(AlertLog alerts, AlertStream stream) {
        this.alerts = alerts;
        this.stream = stream;
    }

    @Operation(
            summary = "Recent alerts, filtered",
            description = "Up to `limit` newest alerts that pass every filter" + " given, oldest first.")
    @ApiDocs.BadRequest
    @ApiDocs.Ok
    @GetMapping("/alerts")
    public List<AlertRecord> alerts(
            @RequestParam(name = "limit", defaultValue = "100") int limit,
            @Parameter(description = "owning application; `(none)` for alerts without one")
                    @RequestParam(name = "app", required = false)
                    String app,
            @Parameter(description = "OBI") @RequestParam(name = "dpid", required = false) Long dpid,
            @Parameter(description = "lowest severity, 1..5") @RequestParam(name = "minSeverity", required = false)
                    Integer minSeverity,
            @Parameter(description = "the application's block or the merged block")
                    @RequestParam(name = "block", required = false)
                    String block,
            @Parameter(description = "part of the message, any case") @RequestParam(name = "text", required = false)
                    String text,
            @Parameter(description = "the application's rule: Snort sid, firewall rule number")
                    @RequestParam(name = "rule", required = false)
                    Long rule,
            @Parameter(description = "ISO-8601 instant, inclusive") @RequestParam(name = "since", required = false)
                    String since,
            @Parameter(description = "ISO-8601 instant, inclusive") @RequestParam(name = "until", required = false)
                    String until) {
        return alerts.recent(
                Math.max(0, Math.min(limit, 10_000)), filter(app, dpid, minSeverity, block, text, rule, since, until));
    }

    @Operation(
            summary = "Live alerts (Server-Sent Events)",
            description = "Every new alert that passes the filters"
                    + " (as for /api/alerts) as an event named `alert` whose data is the alert's JSON; comment lines keep an"
                    + " idle stream open. The stream ends after openbox.alert-stream.timeout (an EventSource reconnects)."
                    + " Every event has an id; a client reconnecting with the Last-Event-ID header first gets the alerts it"
                    + " missed that the controller still keeps (at most openbox.alert-stream.queue, the newest), then the"
                    + " live ones.")
    @ApiResponse(responseCode = "200", description = "the stream", content = @Content(mediaType = "text/event-stream"))
    @ApiDocs.BadRequest
    @ApiResponse(
            responseCode = "503",
            description = "too many streams open",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.StatusError.class)))
    @GetMapping(path = "/alerts/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public SseEmitter alertStream(
            @RequestParam(name = "app", required = false) String app,
            @RequestParam(name = "dpid", required = false) Long dpid,
            @RequestParam(name = "minSeverity", required = false) Integer minSeverity,
            @RequestParam(name = "block", required = false) String block,
            @RequestParam(name = "text", required = false) String text,
            @RequestParam(name = "rule", required = false) Long rule,
            @RequestParam(name = "since", required = false) String since,
            @RequestParam(name = "until", required = false) String until,
            @Parameter(
                            description = "the id of the last event received; what came after it is"
                                    + " sent first (an id this stream did not give is ignored)")
                    @RequestHeader(name = "Last-Event-ID", required = false)
                    String lastEventId) {
        AlertFilter f = filter(app, dpid, minSeverity, block, text, rule, since, until);
        try {
            return stream.open(f, stream.resume(lastEventId).orElse(null));
        } catch (AlertStream.TooManyStreamsException e) {
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        }
    }

    private static AlertFilter filter(
            String app,
            Long dpid,
            Integer minSeverity,
            String block,
            String text,
            Long rule,
            String since,
            String until) {
        try {
            return new AlertFilter(
                    app, dpid, minSeverity, block, text, rule, instant("since", since), instant("until", until));
        } catch (IllegalArgumentException e) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private static Instant instant(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + " is not an ISO-8601 instant (e.g. 2026-01-31T12:00:00Z): "
                    + (value.length() > 64 ? value.substring(0, 64) + "..." : value));
        }
    }
}
