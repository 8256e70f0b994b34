package org.openbox.controller.management;

import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.openbox.controller.aggregate.DeployedGraph;
import org.openbox.controller.aggregate.GraphAggregator;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.AppLifecycle;
import org.openbox.controller.apps.TopologyHolder;
import org.openbox.controller.handles.HandleRouter;
import org.openbox.controller.isolation.AppReload;
import org.openbox.controller.isolation.AppStatus;
import org.openbox.controller.isolation.FailurePolicy;
import org.openbox.controller.obi.ObiQueries;
import org.openbox.controller.obi.ObiRegistry;
import org.openbox.controller.obi.ObiSession;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * Management REST API (JSON) for operators: OBIs, their merged graphs with provenance,
 * applications (start / stop / reload, failure modes, classifier rules with hit counts), the
 * topology, and on-demand OBI queries (global stats, parameters, capabilities, block counters,
 * reading a merged block's handle). Alerts: {@link AlertsController}.
 */
@RestController
@RequestMapping("/api")
@Tag(name = "management", description = "OBIs, applications, alerts and topology (login required)")
@ApiDocs.Unauthorized
@ApiDocs.Forbidden
public class ManagementController {

    private static final String JSON = "application/json";

    private final ObiRegistry obis;
    private final ObiQueries queries;
    private final GraphAggregator aggregator;
    private final AppCatalog apps;
    private final AppLifecycle lifecycle;
    private final HandleRouter handles;
    private final AppReload reload;
    private final AppStatus status;
    private final FailurePolicy policy;
    private final AppRules rules;
    private final TopologyHolder topology;
    private final BlockCounters counters;

    public ManagementController(
            ObiRegistry obis,
            ObiQueries queries,
            GraphAggregator aggregator,
            AppCatalog apps,
            AppLifecycle lifecycle,
            HandleRouter handles,
            AppReload reload,
            AppStatus status,
            FailurePolicy policy,
            AppRules rules,
            TopologyHolder topology,
            BlockCounters counters) {
        this.counters = counters;
        this.reload = reload;
        this.status = status;
        this.policy = policy;
        this.obis = obis;
        this.queries = queries;
        this.aggregator = aggregator;
        this.apps = apps;
        this.lifecycle = lifecycle;
        this.handles = handles;
        this.rules = rules;
        this.topology = topology;
    }

    @Operation(
            summary = "List the OBIs",
            description = "Every OBI that said Hello: state, endpoint, graph status,"
                    + " the applications in its graph, modules, excluded applications.")
    @ApiDocs.Ok
    @GetMapping("/obis")
    public List<ObiView> obis() {
        return obis.sessions().stream()
                .map(s -> ObiView.of(s, aggregator.current(s.dpid()), aggregator.excluded(s.dpid())))
                .toList();
    }

    @Operation(summary = "One OBI", description = "Its listing entry and the capabilities from its Hello.")
    @ApiDocs.NotFound
    @ApiDocs.Ok
    @GetMapping("/obis/{dpid}")
    public ObiDetail obi(@PathVariable("dpid") long dpid) {
        ObiSession s = session(dpid);
        return new ObiDetail(ObiView.of(s, aggregator.current(dpid), aggregator.excluded(dpid)), s.capabilities());
    }

    @Operation(
            summary = "An OBI's merged graph with provenance",
            description =
                    "The merged graph (graph-file format,"
                            + " a HeaderClassifier's `fuse` key names the classifiers it classifies for), for every merged block the"
                            + " (application, block) pairs it implements, the applications, the merge report and the composition.")
    @ApiDocs.NotFound
    @ApiDocs.Ok
    @GetMapping("/obis/{dpid}/graph")
    public GraphView graph(@PathVariable("dpid") long dpid) {
        session(dpid);
        DeployedGraph g = aggregator.current(dpid);
        return new GraphView(
                dpid,
                g.graph().toJson(),
                g.origins().all(),
                g.apps(),
                g.report(),
                g.composition(),
                aggregator.failure(dpid).orElse(null));
    }

    @Operation(
            summary = "An OBI's global statistics",
            description = "The OBI's GlobalStatsResponse: packets, bytes,"
                    + " drops and their rates, uptime, memory and CPU.")
    @ApiDocs.NotFound
    @ApiDocs.ObiFailures
    @ApiDocs.ObiTimeout
    @ApiDocs.Ok
    @GetMapping("/obis/{dpid}/stats")
    public CompletableFuture<JsonNode> stats(@PathVariable("dpid") long dpid) {
        return queries.globalStats(session(dpid));
    }

    @Operation(
            summary = "Packet counters of every block of an OBI's merged graph",
            description = "Per merged block"
                    + " the read handles `count` and `rate` it has (numbers, or one per rule for classifiers), or `error`;"
                    + " at most 256 blocks (`truncated`).")
    @ApiDocs.NotFound
    @ApiDocs.Ok
    @GetMapping("/obis/{dpid}/counters")
    public CompletableFuture<BlockCounters.Counters> counters(@PathVariable("dpid") long dpid) {
        return counters.read(session(dpid), aggregator.current(dpid));
    }

    @Operation(summary = "An OBI's parameters", description = "As the OBI reports them (GetParametersResponse).")
    @ApiDocs.NotFound
    @ApiDocs.ObiFailures
    @ApiDocs.ObiTimeout
    @ApiDocs.Ok
    @GetMapping("/obis/{dpid}/parameters")
    public CompletableFuture<JsonNode> parameters(@PathVariable("dpid") long dpid) {
        return queries.parameters(session(dpid));
    }

    @Operation(summary = "An OBI's capabilities, asked now", description = "The OBI's ListCapabilitiesResponse.")
    @ApiDocs.NotFound
    @ApiDocs.ObiFailures
    @ApiDocs.ObiTimeout
    @ApiDocs.Ok
    @GetMapping("/obis/{dpid}/capabilities")
    public CompletableFuture<JsonNode> capabilities(@PathVariable("dpid") long dpid) {
        return queries.capabilities(session(dpid));
    }

    @Operation(
            summary = "Read a merged block's handle on an OBI",
            description = "A ReadRequest to the OBI for a block"
                    + " of its merged graph (e.g. `count` of a classifier: packets per merged rule).")
    @ApiDocs.NotFound
    @ApiDocs.ObiFailures
    @ApiDocs.ObiTimeout
    @ApiDocs.Ok
    @GetMapping("/obis/{dpid}/blocks/{block}/{handle}")
    public CompletableFuture<JsonNode> readMerged(
            @PathVariable("dpid") long dpid,
            @PathVariable("block") String block,
            @PathVariable("handle") String handle) {
        return queries.read(session(dpid), block, handle);
    }

    @Operation(
            summary = "The network topology",
            description =
                    "The segments of the topology file, each with its OBIs"
                            + " (dpids) and sub-segments: `{\"segments\": [{\"name\", \"obis\", \"segments\"}]}`; empty without a file.")
    @ApiDocs.Ok
    @GetMapping("/topology")
    public JsonNode topology() {
        return topology.topology().toJson();
    }

    @Operation(
            summary = "List the applications",
            description = "State (FAILED also when some OBI refused its graph:"
                    + " `failedOn`), failure mode, what its traffic gets and why, source, last reload.")
    @ApiDocs.Ok
    @GetMapping("/apps")
    public List<AppView> apps() {
        return apps.all().stream()
                .map(e -> AppView.of(e, status, policy.overridden(e.name())))
                .toList();
    }

    @Operation(
            summary = "Read an application's block handle",
            description = "A handle of the application's own block,"
                    + " as the application sees it: per-rule values in its own rule numbers, summed over the OBIs that are up,"
                    + " or at OBI `dpid` only.")
    @ApiDocs.NotFound
    @ApiDocs.ObiFailures
    @ApiDocs.ObiTimeout
    @ApiResponse(
            responseCode = "400",
            description =
                    "a handle the block does not have, a rule index out of range," + " a dpid that is not a number",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = ApiErrors.ApiError.class)))
    @ApiDocs.Ok
    @GetMapping("/apps/{name}/blocks/{block}/{handle}")
    public CompletableFuture<JsonNode> readAsApp(
            @PathVariable("name") String name,
            @PathVariable("block") String block,
            @PathVariable("handle") String handle,
            @Parameter(description = "read at this OBI only (404 when unknown)")
                    @RequestParam(name = "dpid", required = false)
                    Long dpid) {
        app(name);
        if (dpid != null) {
            session(dpid);
            return handles.read(name, block, handle, dpid);
        }
        return handles.read(name, block, handle);
    }

    @Operation(
            summary = "An application's classifier rules with hit counts",
            description = "For each header, header-"
                    + "and-payload, regex or content classifier of the application's own graph: its rules with the match as"
                    + " the application wrote it, a one-line label (`tcp dst_port 22 -> ssh_alert`), the output and the hits"
                    + " (packets, in the application's rule numbers, summed over the OBIs that are up or on OBI `dpid`; null"
                    + " when they cannot be read, e.g. the application is stopped).")
    @ApiDocs.NotFound
    @ApiDocs.Ok
    @GetMapping("/apps/{name}/rules")
    public CompletableFuture<List<AppRules.ClassifierRules>> rules(
            @PathVariable("name") String name,
            @Parameter(description = "only the graph the application runs on this OBI, counted there")
                    @RequestParam(name = "dpid", required = false)
                    Long dpid) {
        AppEntry e = app(name);
        if (dpid != null) {
            session(dpid);
        }
        return rules.rules(e, dpid);
    }

    @Operation(summary = "Start an application (OPERATOR)")
    @ApiResponse(responseCode = "200", description = "started", useReturnTypeSchema = true)
    @ApiResponse(
            responseCode = "404",
            description = "no such application",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @ApiResponse(
            responseCode = "409",
            description = "it cannot be started now",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @PostMapping("/apps/{name}/start")
    public ResponseEntity<AppActionResult> start(@PathVariable("name") String name) {
        return answer(name, lifecycle.start(name));
    }

    @Operation(
            summary = "Stop an application (OPERATOR)",
            description = "Its blocks leave every merged graph; the stop" + " survives a controller restart.")
    @ApiResponse(responseCode = "200", description = "stopped", useReturnTypeSchema = true)
    @ApiResponse(
            responseCode = "404",
            description = "no such application",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @ApiResponse(
            responseCode = "409",
            description = "it cannot be stopped now",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @PostMapping("/apps/{name}/stop")
    public ResponseEntity<AppActionResult> stop(@PathVariable("name") String name) {
        return answer(name, lifecycle.stop(name));
    }

    /**
     * Reads the application's settings and rules again and deploys its new graph without
     * interrupting traffic; on any failure the old graph keeps running and the answer (4xx/5xx)
     * says why.
     */
    @Operation(
            summary = "Reload an application's settings and rules (OPERATOR)",
            description =
                    "Deploys its new graph"
                            + " without interrupting traffic; on any failure the old graph keeps running and the answer says why.")
    @ApiResponse(responseCode = "200", description = "reloaded", useReturnTypeSchema = true)
    @ApiResponse(
            responseCode = "400",
            description = "the new settings or rules are refused (FILE:LINE in message)",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @ApiResponse(
            responseCode = "404",
            description = "no such application",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @ApiResponse(
            responseCode = "422",
            description = "an OBI refused the new graph",
            content = @Content(mediaType = JSON, schema = @Schema(implementation = AppActionResult.class)))
    @PostMapping("/apps/{name}/reload")
    public ResponseEntity<AppActionResult> reload(@PathVariable("name") String name) {
        AppReload.Outcome o = reload.reload(name);
        return ResponseEntity.status(o.status()).body(new AppActionResult(name, o.ok(), o.state(), o.message()));
    }

    private ResponseEntity<AppActionResult> answer(String name, AppLifecycle.Result r) {
        AppActionResult body = new AppActionResult(
                name, r.ok(), r.state() == null ? null : r.state().name(), r.message());
        HttpStatus status = r.ok() ? HttpStatus.OK : r.state() == null ? HttpStatus.NOT_FOUND : HttpStatus.CONFLICT;
        return ResponseEntity.status(status).body(body);
    }

    private AppEntry app(String name) {
        return apps.get(name)
                .orElseThrow(
                        () -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no application named '" + name + "'"));
    }

    private ObiSession session(long dpid) {
        return obis.session(dpid)
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no OBI with dpid " + dpid));
    }
}
